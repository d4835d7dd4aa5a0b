"""Chrono YAML files and MBS specifications (formats/chrono/specification.py), in small own files."""

import numpy as np
import pytest

from body_bridge.errors import ModelError, UnsupportedError
from body_bridge.formats import load_model

from chrono_files import write

MODEL = ('chrono-version: 10.0\nmodel:\n  bodies:\n'
         '    - {name: g, location: [0, 0, 0], fixed: true}\n'
         '    - {name: m, location: [1, 0, 0], mass: 1, inertia: {moments: [1, 1, 1]}}\n')
SOLVER = 'chrono-version: 10.0\nintegrator: {time_step: 0.002}\n'


def spec(folder, text, solver=SOLVER):
    write(folder, MODEL)
    write(folder, solver, 'solver.yaml')
    return write(folder, 'chrono-version: 10.0\ntype: MBS\nmodel: model.yaml\n'
                 'solver: solver.yaml\n' + text, 'spec.yaml')


def test_an_unknown_top_level_key_of_a_model_is_reported(tmp_path):
    path = write(tmp_path, MODEL + 'extras: 3\n')
    model = load_model(path)
    assert [w for w in model.warnings if 'extras' in w] == [
        f'{path}:1: file: key "extras" is not part of the Chrono model format; ignored']


def test_an_unknown_key_of_the_data_path_is_reported(tmp_path):
    text = MODEL.replace('model:\n', 'model:\n  data_path:\n    type: RELATIVE\n    root: m\n'
                         '    cache: yes\n')
    path = write(tmp_path, text)
    assert [w for w in load_model(path).warnings if 'cache' in w] == [
        f'{path}:4: model data_path: key "cache" is not part of the Chrono model format; '
        'ignored']


def test_a_file_with_a_version_and_nothing_else_says_it_has_no_model(tmp_path):
    path = write(tmp_path, 'chrono-version: 10.0\nname: x\n')
    with pytest.raises(UnsupportedError) as err:
        load_model(path)
    assert str(err.value) == f'{path}:1: not a Chrono MBS model: it has no "model" section'


BODIES = ('chrono-version: 10.0\n\nmodel:\n  name: m\n  bodies:\n'
          '    - {name: g, location: [0, 0, 0], fixed: true}\n'
          '    - name: m\n      location: [1, 0, 0]\n      mass: 1\n')


@pytest.mark.parametrize('text, line, message', [
    ('chrono-version: 10.0\n\nmodel: 5\n', 3, '"model" must be a mapping, found int 5'),
    ('chrono-version: 10.0\nmodel:\n  - 5\n', 2, '"model" must be a mapping, found a list'),
    ('name: x\nchrono-version: 10.x\nmodel: {}\n', 2,
     "chrono-version '10.x' is not of the form M.m or M.m.p"),
    (BODIES + '    -\n      5\n', 11, 'body must be a mapping, found int 5'),
    (BODIES + '      com: 3\n', 10, "body 'm' com must be a mapping, found int 3"),
    (BODIES + '      inertia:\n        moments: [1, 1, x]\n', 11,
     "body 'm' inertia: \"moments\" must be numbers, found str 'x'"),
    (BODIES.replace('mass: 1', 'mass: heavy'), 9,
     "body 'm': \"mass\" must be numbers, found str 'heavy'"),
    (BODIES.replace('mass: 1', 'mass: 1\n      inertia: {moments: [1, 1, 1]}') + '  joints: 4\n',
     11, 'model: "joints" must be a list, found int 4'),
])
def test_a_scalar_where_a_mapping_belongs_names_its_own_line(tmp_path, text, line, message):
    path = write(tmp_path, text)
    with pytest.raises(ModelError) as err:
        load_model(path)
    assert (err.value.line, err.value.message) == (line, message)


def test_a_version_of_a_chrono_release_not_read_names_its_line(tmp_path):
    path = write(tmp_path, 'model: {}\n\nchrono-version: 8.0\n')
    with pytest.raises(UnsupportedError) as err:
        load_model(path)
    assert err.value.line == 3


def test_the_simulation_section_gives_gravity_and_its_run_keys_are_not_warned(tmp_path):
    path = spec(tmp_path, 'simulation:\n  gravity: [0, 0, -1.62]\n  end_time: 10\n'
                '  enforce_realtime: true\n')
    model = load_model(path)
    np.testing.assert_allclose(model.gravity, [0, 0, -1.62])
    assert model.timestep == 0.002
    assert model.warnings == ()


def test_a_specification_without_simulation_has_chrono_gravity_and_warns_unused_keys(tmp_path):
    path = spec(tmp_path, 'output: {type: ASCII}\nextra: 1\n')
    model = load_model(path)
    np.testing.assert_allclose(model.gravity, [0, 0, -9.8])
    assert model.warnings == (
        f'{path}:1: extra not used (the bridge takes the model, the time step and gravity; it '
        'runs until stopped and publishes on ROS topics)',)


def test_an_unknown_simulation_key_is_reported(tmp_path):
    path = spec(tmp_path, 'simulation: {gravity: [0, 0, 0], speed: 2}\n')
    (warning,) = load_model(path).warnings
    assert 'simulation: key "speed" is not part of the Chrono model format' in warning


def test_a_solver_without_a_time_step_fails_with_one_line(tmp_path):
    path = spec(tmp_path, '', solver='chrono-version: 10.0\nintegrator: {type: HHT}\n')
    with pytest.raises(ModelError) as err:
        load_model(path)
    assert str(err.value) == (f'{tmp_path / "solver.yaml"}:2: solver integrator: "time_step" '
                              'is missing')


def test_the_solver_keys_besides_the_time_step_are_reported(tmp_path):
    path = spec(tmp_path, '', solver='chrono-version: 10.0\nintegrator: {time_step: 0.01, '
                'type: HHT}\nsolver: {type: MINRES}\n')
    model = load_model(path)
    assert model.timestep == 0.01
    assert model.warnings == (
        f'{tmp_path / "solver.yaml"}:1: solver, integrator.type not used: the bridge integrates '
        'with MuJoCo and takes only the time step (0.01 s)',)


def test_a_time_step_that_is_not_positive_fails_with_one_line(tmp_path):
    path = spec(tmp_path, '', solver='chrono-version: 10.0\nintegrator: {time_step: 0}\n')
    with pytest.raises(ModelError) as err:
        load_model(path)
    assert str(err.value) == (f'{tmp_path / "solver.yaml"}:2: solver integrator: "time_step" '
                              'must be positive, found 0')
