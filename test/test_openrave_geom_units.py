"""OpenRAVE ``<geom>`` and transform tags on small files written here
(body_bridge.formats.openrave.geom and raw): each shape's size, frame and material against
numbers worked by hand, and one ``path:line: message`` line for a geometry that cannot be."""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.formats.openrave.raw import TransformTags, inverse, scaled
from body_bridge.formats.openrave.xmlfile import parse_bytes
from body_bridge.model import Box, Mesh


def load(folder, geoms: str, name: str = 'g.kinbody.xml', body_extra: str = ''):
    path = folder / name
    path.write_text(textwrap.dedent(f"""\
        <KinBody name="k">
          <Body name="a" type="static">{body_extra}
            {geoms}
          </Body>
        </KinBody>
        """))
    return load_model(path), path


def refused(folder, geoms: str, match: str, line: int):
    with pytest.raises(ModelError) as info:
        load(folder, geoms)
    message = str(info.value)
    assert '\n' not in message and match in message, message
    assert message.startswith(f'{folder / "g.kinbody.xml"}:{line}: '), message


# --- transform tags ---------------------------------------------------------------------------

def tags_of(xml: str) -> np.ndarray:
    tags = TransformTags()
    for child in parse_bytes(f'<body>{xml}</body>'.encode(), 'm.xml').children:
        assert tags.read(child)
    return tags.matrix()


def test_transform_tags_turn_from_the_left_and_never_the_translation():
    m = tags_of('<translation>1 2 3</translation><rotationaxis>0 0 2 90</rotationaxis>'
                '<rotationaxis>1 0 0 90</rotationaxis>')
    np.testing.assert_allclose(m[:3, 3], [1, 2, 3])
    # Rx(90) @ Rz(90): x -> y -> z
    np.testing.assert_allclose(m[:3, :3] @ [1, 0, 0], [0, 0, 1], atol=1e-12)
    np.testing.assert_allclose(m[3], [0, 0, 0, 1])
    h = math.sqrt(0.5)
    q = tags_of(f'<quat>{2 * h} 0 0 {2 * h}</quat>')   # not unit: scaled first
    np.testing.assert_allclose(q[:3, :3] @ [1, 0, 0], [0, 1, 0], atol=1e-12)
    r = tags_of('<rotationmat>0 -1 0 1 0 0 0 0 1.0001</rotationmat>')   # rounded in the file
    np.testing.assert_allclose(r[:3, :3] @ [1, 0, 0], [0, 1, 0], atol=1e-4)
    np.testing.assert_allclose(r[:3, :3] @ r[:3, :3].T, np.eye(3), atol=1e-12)


def test_transform_tags_start_from_a_given_frame_and_scale_translations():
    start = np.eye(4)
    start[:3, 3] = [1, 0, 0]
    tags = TransformTags(start)
    element = parse_bytes(b'<translation>1 2 3</translation>', 'm.xml')
    assert tags.read(element, scale=np.array([2.0, 2.0, 0.5]))
    np.testing.assert_allclose(tags.matrix()[:3, 3], [3, 4, 1.5])
    assert start[0, 3] == 1.0   # the start frame is not changed
    assert not tags.read(parse_bytes(b'<geom/>', 'm.xml'))


@pytest.mark.parametrize('xml, message', [
    ('<rotationaxis>0 0 0 90</rotationaxis>', '<rotationaxis> has a zero axis'),
    ('<quat>0 0 0 0</quat>', '<quat> is the zero quaternion'),
    ('<rotationmat>1 0 0 0 1 0 0 0 -1</rotationmat>', '<rotationmat> is not a rotation matrix'),
    ('<rotationmat>2 0 0 0 1 0 0 0 1</rotationmat>', '<rotationmat> is not a rotation matrix'),
])
def test_transform_tags_refuse_what_is_no_rotation(xml, message):
    with pytest.raises(ModelError) as info:
        tags_of(xml)
    assert str(info.value) == f'm.xml:1: {message}'


def test_scaled_and_inverse():
    np.testing.assert_allclose(scaled([0, -4, 2]), [0, -1, 0.5])
    assert scaled([0, 1e-13, 0]) is None and scaled([]) is None
    np.testing.assert_allclose(scaled([1e-12, 0, 0]), [1, 0, 0])
    m = tags_of('<translation>1 2 3</translation><rotationaxis>1 1 0 40</rotationaxis>')
    np.testing.assert_allclose(inverse(m) @ m, np.eye(4), atol=1e-12)


# --- geometries -------------------------------------------------------------------------------

def test_a_box_without_extents_is_one_line(tmp_path):
    refused(tmp_path, '<Geom type="box"><translation>0 0 1</translation></Geom>',
            'a box geometry needs <extents>', 3)


def test_inline_triangles_collide_and_are_drawn(tmp_path):
    model, _ = load(tmp_path, '<Geom type="trimesh"><vertices>0 0 0 1 0 0 0 1 0\n'
                              '0 0 0 0 1 0 0 0 1</vertices></Geom>')
    [collision] = model.link('a').collisions
    assert isinstance(collision.geometry, Mesh)
    np.testing.assert_array_equal(collision.geometry.faces, [[0, 1, 2], [3, 4, 5]])
    np.testing.assert_array_equal(collision.geometry.vertices[4], [0, 1, 0])
    assert [v.geometry for v in model.link('a').visuals] == [collision.geometry]


def test_half_extents_make_the_box(tmp_path):
    model, _ = load(tmp_path, '<Geom type="box"><extents>0.1 0.2 0.3</extents></Geom>')
    [collision] = model.link('a').collisions
    assert collision.geometry == Box((0.2, 0.4, 0.6))
