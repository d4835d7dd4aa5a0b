"""Chrono YAML model and MBS specification files (formats/chrono/specification.py): what the
spec (``shared/specs/chrono-yaml-model.txt``) says of a data path's type and of enum letter case."""

import numpy as np
import pytest

from body_bridge.errors import ModelError, UnsupportedError
from body_bridge.formats import load_model

from chrono_files import write

MODEL = ('chrono-version: 10.0\nmodel:\n  bodies:\n'
         '    - {name: g, location: [0, 0, 0], fixed: true}\n'
         '    - {name: m, location: [1, 0, 0], mass: 1, inertia: {moments: [1, 1, 1]}}\n')


def test_a_data_path_without_its_required_type_fails_at_its_line(tmp_path):
    # The spec's data_path table: type (RELATIVE or ABSOLUTE) Required: Yes.
    text = MODEL.replace('model:\n', 'model:\n  data_path:\n    root: meshes\n')
    path = write(tmp_path, text)
    with pytest.raises(ModelError) as err:
        load_model(path)
    assert str(err.value) == f'{path}:4: model data_path: "type" is missing'


@pytest.mark.parametrize('kind', ['mbs', 'Mbs', 'MBS'])
def test_the_specification_type_is_read_in_any_letter_case(tmp_path, kind):
    # The spec: enum values "can be provided using any desired case".
    write(tmp_path, MODEL)
    write(tmp_path, 'chrono-version: 10.0\nintegrator: {time_step: 0.004}\n', 'solver.yaml')
    path = write(tmp_path, f'chrono-version: 10.0\ntype: {kind}\nmodel: model.yaml\n'
                 'solver: solver.yaml\nsimulation: {gravity: [0, 0, -3.7]}\n', 'spec.yaml')
    model = load_model(path)
    assert model.timestep == 0.004
    np.testing.assert_allclose(model.gravity, [0, 0, -3.7])
    assert model.warnings == ()


def test_another_specification_type_in_lower_case_is_named(tmp_path):
    path = write(tmp_path, 'chrono-version: 10.0\ntype: vehicle\nmodel: m.yaml\n', 'spec.yaml')
    with pytest.raises(UnsupportedError) as err:
        load_model(path)
    assert str(err.value) == (f'{path}:1: a Chrono::Vehicle simulation specification, not a '
                              'multibody model')
