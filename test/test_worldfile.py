"""World files (sim/building/worldfile.py): what a user writes is what the world holds, and every
mistake is one ``path:line: message``."""

import math

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.paths import bundled_models, bundled_worlds, files_under
from body_bridge.sim.building.worldfile import (WORLD_SETTINGS, is_world_file, read_named_poses,
                                       read_world)

from conftest import REPO, SAMPLE_ARM

BOX = REPO / 'test' / 'data' / 'choreonoid' / 'box.body'


def world(tmp_path, text, name='lab.world.yaml'):
    path = tmp_path / name
    path.write_text(text)
    return read_world(str(path))


def refused(tmp_path, text, match):
    path = tmp_path / 'bad.world.yaml'
    path.write_text(text)
    with pytest.raises(ModelError, match=match) as err:
        read_world(str(path))
    return str(err.value)


def test_the_bundled_world_holds_two_arms_facing_each_other_and_two_places():
    w = read_world(bundled_worlds()['arm_pair'])
    assert w.name == 'arm_pair' and w.tags == ('demo', 'arms')
    assert [m.name for m in w.models] == ['left', 'right']
    assert all(m.path == bundled_models()['sample_arm'] for m in w.models)
    left, right = w.models
    assert left.pose.pos == pytest.approx([0.0, -0.4, 0.0])
    assert left.pose.rpy() == pytest.approx([0.0, 0.0, math.pi / 2])
    assert right.pose.rot @ np.array([1.0, 0, 0]) == pytest.approx([0.0, -1.0, 0.0])
    assert left.tags == ('arm',) and left.description.startswith('the arm on the left')
    assert left.line == 12 and right.line == 17
    assert w.settings == {'control_rate': 100.0, 'ground_plane': 'auto'}
    between, aside = w.named_poses
    assert between.name == 'between' and between.tags == ('spawn',)
    assert between.pose.pos == pytest.approx([0.0, 0.0, 0.1])
    assert between.pose.quat() == pytest.approx([1, 0, 0, 0])
    kind, lower, upper = between.bounds
    assert kind == 'box' and lower == pytest.approx([-0.1, -0.1, -0.1])
    assert upper == pytest.approx([0.1, 0.1, 0.2])
    assert aside.bounds[0] == 'sphere' and aside.bounds[1] == pytest.approx([0, 0, 0])
    assert aside.bounds[2] == 0.3 and aside.tags == ('spawn', 'parking')
    assert w.unsupported == ()


def test_files_are_relative_to_the_world_file_and_names_default_to_the_file(tmp_path):
    (tmp_path / 'sub').mkdir()
    (tmp_path / 'sub' / 'box.body').write_text(BOX.read_text())
    w = world(tmp_path, f'''models:
  - file: sub/box.body
    pose: [1, 2, 3]
  - file: {SAMPLE_ARM}
    pose: [0, 0, 0, 0.1, 0.2, 0.3]
''', name='my-lab.v2.world.yaml')
    assert w.name == 'my-lab' and w.description == '' and w.tags == ()
    assert [m.name for m in w.models] == ['box', 'sample_arm']
    assert w.models[0].path == str(tmp_path / 'sub' / 'box.body')
    assert w.models[0].pose.pos == pytest.approx([1, 2, 3])
    assert w.models[0].pose.is_identity() is False
    assert w.models[1].pose.rpy() == pytest.approx([0.1, 0.2, 0.3])
    assert w.models[1].path == str(SAMPLE_ARM)
    assert w.settings == {} and w.named_poses == ()


def test_a_file_name_that_is_no_name_gets_one(tmp_path):
    (tmp_path / '2nd.body').write_text(BOX.read_text())
    w = world(tmp_path, 'models: [{file: 2nd.body}]')
    assert w.models[0].name == 'model_2nd' and w.models[0].pose.is_identity()


def test_every_setting_is_checked_and_kept(tmp_path):
    w = world(tmp_path, '''models: [{file: sample_arm}]
settings: {timestep: 0.002, control_rate: 50, real_time_factor: 0, ground_plane: 'off',
           on_divergence: pause}''')
    assert w.settings == {'timestep': 0.002, 'control_rate': 50.0, 'real_time_factor': 0.0,
                          'ground_plane': 'off', 'on_divergence': 'pause'}
    assert isinstance(w.settings['control_rate'], float)
    for key, bad in (('timestep', 0), ('timestep', 1.5), ('timestep', '.nan'),
                     ('control_rate', 0), ('control_rate', 'fast'), ('real_time_factor', -1),
                     ('ground_plane', 'maybe'), ('on_divergence', 'explode'),
                     ('timestep', 'true')):
        text = f'models: [{{file: sample_arm}}]\nsettings:\n  {key}: {bad}\n'
        line = refused(tmp_path, text, f'settings.{key}: ')
        assert line.startswith(f'{tmp_path}/bad.world.yaml:3: settings.{key}: ')
    assert WORLD_SETTINGS['timestep'](1) is None and WORLD_SETTINGS['real_time_factor'](0) is None


@pytest.mark.parametrize('text, line, match', [
    ('- a list', 1, 'the world file must be a mapping, not a list'),
    ('models: []', 1, 'models: a world needs at least one model'),
    ('{}', 1, 'models: a world needs at least one model'),
    ('models: sample_arm', 1, 'models must be a list, not str'),
    ('world: 3\nmodels: [{file: sample_arm}]', 1, 'world: the name must be text, not int 3'),
    ('world: ""\nmodels: [{file: sample_arm}]', 1, 'world: the name must be text'),
    ('description: [a]\nmodels: [{file: sample_arm}]', 1, 'world.description must be text'),
    ('tags: spawn\nmodels: [{file: sample_arm}]', 1, 'world.tags must be a list of words'),
    ('tags: [1]\nmodels: [{file: sample_arm}]', 1, 'world.tags must be a list of words'),
    ('models:\n  - sample_arm', 2, r'models\[0\] must be a mapping, not str'),
    ('models:\n  - {name: a}', 2, r"models\[0\].file: a model file .* not nothing"),
    ('models:\n  - {file: ""}', 2, r'models\[0\].file: a model file'),
    ('models:\n  - {file: sample_arm, name: 1a}', 2, r"models\[0\].name: '1a' is not a name"),
    ('models:\n  - {file: sample_arm}\n  - {file: sample_arm}', 3,
     r"models\[1\].name: 'sample_arm' is given twice"),
    ('models:\n  - {file: sample_arm, pose: [1, 2]}', 2, r'models\[0\].pose must be \[x, y, z\]'),
    ('models:\n  - {file: sample_arm, pose: [1, 2, .inf]}', 2, r'models\[0\].pose must be'),
    ('models:\n  - {file: sample_arm, pose: [1, 2, true]}', 2, r'models\[0\].pose must be'),
    ('models:\n  - {file: sample_arm, pose: 1}', 2, r'models\[0\].pose must be'),
    ('models: [{file: sample_arm}]\nsettings: 3', 1, 'settings must be a mapping, not int 3'),
    ('models: [{file: sample_arm}]\nnamed_poses: {a: 1}', 1, 'named_poses must be a list'),
])
def test_mistakes_are_one_line_with_the_line(tmp_path, text, line, match):
    message = refused(tmp_path, text, match)
    assert message.startswith(f'{tmp_path}/bad.world.yaml:{line}: ')
    assert '\n' not in message


POSES = 'models: [{file: sample_arm}]\nnamed_poses:\n  - '


@pytest.mark.parametrize('pose, match', [
    ('{pose: [0, 0, 0]}', r"named_poses\[0\].name: None is not a name"),
    ('{name: a, bounds: {box: [[0, 0, 0]]}}', r'bounds.box must be two corners'),
    ('{name: a, bounds: {box: 1}}', r'bounds.box must be two corners'),
    ('{name: a, bounds: {box: [[0, 0, 0], [1, 1]]}}', r'bounds.box corner must be a point'),
    ('{name: a, bounds: {box: [[0, 0, 0], 1]}}', r'bounds.box corner must be a point'),
    ('{name: a, bounds: {box: [[0, 0, 0], [1, 0, 1]]}}', r'bounds.box has no volume'),
    ('{name: a, bounds: {sphere: 0}}', r'bounds.sphere: the radius must be a positive'),
    ('{name: a, bounds: {sphere: -1}}', r'bounds.sphere: the radius must be a positive'),
    ('{name: a, bounds: {sphere: [1, [0, 0]]}}', r'bounds.sphere centre must be a point'),
    ('{name: a, bounds: {sphere: [1, 2, 3]}}', r'the radius must be a positive number'),
    ('{name: a, bounds: {cone: 1}}', r'bounds must be \{box'),
    ('{name: a, bounds: {box: 1, sphere: 1}}', r'bounds must be \{box'),
    ('{name: a, bounds: 1}', r'bounds must be \{box'),
])
def test_named_pose_mistakes(tmp_path, pose, match):
    message = refused(tmp_path, POSES + pose, match)
    assert message.startswith(f'{tmp_path}/bad.world.yaml:3: named_poses[0]')


def test_sphere_bounds_with_a_centre_and_a_box_given_upside_down(tmp_path):
    w = world(tmp_path, POSES + '''{name: a, bounds: {sphere: [0.5, [1, 2, 3]]}}
  - {name: b, bounds: {box: [[1, 1, 1], [-1, 0, 2]]}, pose: [0, 0, 0, 0, 0, 1]}''')
    a, b = w.named_poses
    assert a.bounds[0] == 'sphere' and a.bounds[1] == pytest.approx([1, 2, 3])
    assert a.bounds[2] == 0.5 and a.pose.is_identity() and a.description == ''
    assert b.bounds[1] == pytest.approx([-1, 0, 1]) and b.bounds[2] == pytest.approx([1, 1, 2])
    assert b.pose.rpy() == pytest.approx([0, 0, 1])


def test_two_named_poses_of_one_name_are_refused_but_a_model_may_share_it(tmp_path):
    refused(tmp_path, POSES + '{name: a}\n  - {name: a}', r"named_poses\[1\].name: 'a' is given")
    w = world(tmp_path, 'models: [{file: sample_arm, name: a}]\nnamed_poses: [{name: a}]')
    assert w.models[0].name == w.named_poses[0].name == 'a'


def test_unknown_keys_are_collected_not_refused(tmp_path):
    w = world(tmp_path, '''gravity: [0, 0, -9.8]
models:
  - {file: sample_arm, colour: red}
named_poses:
  - {name: a, heading: 3}
settings: {timestep: 0.001, substeps: 3}
''')
    where = f'{tmp_path}/lab.world.yaml'
    assert w.unsupported[0] == (f"{where}:1: the world file: unknown key 'gravity' (known: "
                                'world, description, tags, settings, models, named_poses)')
    assert w.unsupported[1].startswith(f"{where}:3: models[0]: unknown key 'colour'")
    assert w.unsupported[2].startswith(f"{where}:5: named_poses[0]: unknown key 'heading'")
    assert w.unsupported[3].startswith(f"{where}:6: settings: unknown key 'substeps'")
    assert len(w.unsupported) == 4 and w.settings == {'timestep': 0.001}


def test_a_world_given_as_text_is_reported_under_the_name_given(tmp_path):
    w = read_world(str(tmp_path / 'resource_string'), 'world: t\nmodels: [{file: sample_arm}]')
    assert w.name == 't' and w.path == str(tmp_path / 'resource_string')
    with pytest.raises(ModelError, match=r'^resource_string:1: models: a world needs'):
        read_world('resource_string', 'world: t')
    with pytest.raises(ModelError, match=r'no such file'):
        read_world(str(tmp_path / 'none.world.yaml'))


def test_named_poses_of_the_parameter():
    assert read_named_poses('') == () and read_named_poses('  ') == ()
    dock, gate = read_named_poses('[{name: dock, pose: [1, 0, 0], tags: [spawn]}, '
                                  '{name: gate, description: the gate}]')
    assert dock.name == 'dock' and dock.pose.pos == pytest.approx([1, 0, 0])
    assert dock.tags == ('spawn',) and dock.bounds is None
    assert gate.description == 'the gate' and gate.pose.is_identity()
    for text, match in (('{name: dock}', r'^parameter named_poses: named_poses must be a list'),
                        ('[{name: a}, {name: a}]', r"^parameter named_poses:1: named_poses\[1\]"
                                                   r".name: 'a' is given twice"),
                        ('[{name: a, where: 1}]', r"^parameter named_poses:1: named_poses\[0\]: "
                                                  r"unknown key 'where'"),
                        ('[{name: a', r'^parameter named_poses:2: invalid YAML')):
        with pytest.raises(ModelError, match=match):
            read_named_poses(text)


def test_world_file_names_and_the_files_under_a_folder(tmp_path):
    assert is_world_file('a/b.WORLD.yaml') and is_world_file('x.world.yaml')
    assert not is_world_file('x.yaml') and not is_world_file('world.yaml.bak')
    (tmp_path / 'b').mkdir()
    (tmp_path / 'a').mkdir()
    for name in ('b/z.world.yaml', 'b/a.WORLD.YAML', 'a/m.world.yaml', 'top.world.yaml',
                 'other.yaml'):
        (tmp_path / name).write_text('')
    found = files_under(str(tmp_path), ('.world.yaml',))
    assert [p[len(str(tmp_path)) + 1:] for p in found] == [
        'top.world.yaml', 'a/m.world.yaml', 'b/a.WORLD.YAML', 'b/z.world.yaml']
    with pytest.raises(FileNotFoundError, match=f'^{tmp_path}/none: no such folder$'):
        files_under(str(tmp_path / 'none'), ('.yaml',))
    assert list(bundled_worlds()) == ['arm_pair']


def test_the_command_line_names_a_world_by_its_file_or_its_bundled_name(tmp_path):
    from body_bridge.ros.process.launcher import world_of
    assert world_of(['sample_arm']) is None and world_of([]) is None
    assert world_of(['arm_pair', 'sample_arm']) is None
    assert world_of(['arm_pair']).path == bundled_worlds()['arm_pair']
    assert world_of([bundled_worlds()['arm_pair']]).name == 'arm_pair'
    bad = tmp_path / 'lab.world.yaml'
    bad.write_text('models:\n  - {file: sample_arm}\n  - {file: gone.body}\n')
    with pytest.raises(ModelError, match=f'^{bad}:3: model gone: {tmp_path}/gone.body: no such'):
        world_of([str(bad)])
    assert world_of([str(tmp_path / 'none.yaml')]) is None
