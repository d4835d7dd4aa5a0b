"""Typed fields of VRML and Inventor nodes (meshfiles/_fields.py): points that are not finite."""

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.meshfiles import _fields
from body_bridge.meshfiles._scenetext import Node


@pytest.mark.parametrize('bad', [float('nan'), float('inf'), -float('inf')])
def test_points_that_are_not_finite_are_refused_naming_the_node_and_field(bad):
    node = Node('Coordinate', 9, fields={'point': np.array([0.0, 1.0, 2.0, 3.0, bad, 5.0])})
    with pytest.raises(ModelError) as err:
        _fields.points('m.wrl', node, 'point')
    assert str(err.value) == 'm.wrl:9: Coordinate point: a value is not finite'
