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


def test_the_loader_takes_a_path_object_and_names_a_model_as_the_spec_says(tmp_path):
    from pathlib import Path
    from body_bridge.formats.chrono.specification import load
    path = write(tmp_path, MODEL)
    model = load(Path(path))
    assert model.name == 'YAML model'  # the spec's default name
    assert load(str(write(tmp_path, MODEL.replace('model:\n', 'model:\n  name: arm\n')))
                ).name == 'arm'


@pytest.mark.parametrize('version', ['9.1', '10.0.2', "'10.0'"])
def test_versions_9_and_10_are_read_with_or_without_a_patch(tmp_path, version):
    path = write(tmp_path, MODEL.replace('chrono-version: 10.0', f'chrono-version: {version}'))
    assert [link.name for link in load_model(path).links] == ['g', 'm']


@pytest.mark.parametrize('version, message', [
    ('10', "chrono-version '10' is not of the form M.m or M.m.p"),
    ('11.0', 'chrono-version 11.0 is not supported (9.x and 10.x are)')])
def test_a_version_without_a_minor_or_of_another_release_is_refused(tmp_path, version, message):
    path = write(tmp_path, MODEL.replace('chrono-version: 10.0', f'chrono-version: {version}'))
    with pytest.raises(ModelError) as err:
        load_model(path)
    assert (err.value.line, err.value.message) == (1, message)


def test_a_relative_data_path_is_taken_from_the_model_files_folder_and_its_root(tmp_path):
    (tmp_path / 'parts').mkdir()
    (tmp_path / 'parts' / 'tri.obj').write_text('v 0 0 0\nv 2 0 0\nv 0 1 0\nf 1 2 3\n')

    def mesh_model(data_path, filename):
        return write(tmp_path, 'chrono-version: 10.0\nmodel:\n' + data_path + '  bodies:\n'
                     '    - {name: g, location: [0, 0, 0], fixed: true, visualization: '
                     f'{{shapes: [{{type: MESH, filename: {filename}}}]}}}}\n')

    path = mesh_model('  data_path: {type: relative, root: parts}\n', 'tri.obj')
    (shape,) = load_model(path).link('g').visuals
    np.testing.assert_array_equal(shape.geometry.vertices.max(axis=0), [2, 1, 0])
    path = mesh_model('', tmp_path / 'parts' / 'tri.obj')  # ABSOLUTE: the name as given
    (shape,) = load_model(path).link('g').visuals
    np.testing.assert_array_equal(shape.geometry.vertices.max(axis=0), [2, 1, 0])


def test_a_data_path_needs_its_type(tmp_path):
    path = write(tmp_path, MODEL.replace('model:\n', 'model:\n  data_path: {root: parts}\n'))
    with pytest.raises(ModelError) as err:
        load_model(path)
    assert (err.value.line, err.value.message) == (3, 'model data_path: "type" is missing')


def test_angles_are_in_degrees_unless_angle_degrees_is_false(tmp_path):
    turned = MODEL.replace('location: [1, 0, 0]', 'location: [1, 0, 0], orientation: [90, 0, 0]')
    rot = load_model(write(tmp_path, turned)).link('m').pose.rot
    np.testing.assert_allclose(rot[:, 0], [0, 1, 0], atol=1e-12)  # yaw 90 degrees
    radians = turned.replace('model:\n', 'model:\n  angle_degrees: false\n').replace(
        '[90, 0, 0]', f'[{np.pi / 2}, 0, 0]')
    rot = load_model(write(tmp_path, radians)).link('m').pose.rot
    np.testing.assert_allclose(rot[:, 0], [0, 1, 0], atol=1e-12)


@pytest.mark.parametrize('key', ['model', 'solver'])
def test_an_mbs_specification_needs_its_model_and_solver_files(tmp_path, key):
    path = spec(tmp_path, '')
    path.write_text(''.join(line for line in path.read_text().splitlines(keepends=True)
                            if not line.startswith(key)))
    with pytest.raises(ModelError) as err:
        load_model(path)
    assert (err.value.line, err.value.message) == (1, f'file: "{key}" is missing')
