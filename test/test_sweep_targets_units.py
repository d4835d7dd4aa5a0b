"""What a sweep's names mean in its world (sweep/targets.py), looked up in process: entities,
links, joints, devices, parameters and topics of the example's world."""

from __future__ import annotations

from pathlib import Path

import pytest

from body_bridge.errors import ModelError
from body_bridge.sweep.spec import read_sweep
from body_bridge.sweep.targets import resolve

pytestmark = pytest.mark.ros  # the topics of a world come from ros/devices/graph.py

EXAMPLE = Path(__file__).resolve().parents[1] / 'examples' / 'sweep' / 'crate_push.sweep.yaml'


def resolved(tmp_path, old: str = '', new: str = ''):
    text = EXAMPLE.read_text()
    if old:
        assert old in text
        text = text.replace(old, new)
    path = EXAMPLE.parent / f'.test_targets_{tmp_path.name}.sweep.yaml'
    path.write_text(text)
    try:
        return resolve(read_sweep(str(path))), path, text
    finally:
        path.unlink()


def test_the_examples_world_and_what_it_publishes(tmp_path):
    plan, _, _ = resolved(tmp_path)
    assert [m.name for m in plan.world.models] == ['arm', 'crate']
    assert plan.models['arm'].name == 'sample_arm' and plan.models['crate'].root == 'crate'
    assert {'/arm/joint_states', '/crate/joint_states', '/arm/base_imu', '/arm/base_scan/scan',
            '/arm/hand_camera/image_raw', '/tf', '/tf_static', '/clock',
            '/arm/robot_description'} <= plan.topics
    assert plan.entity_link('crate', 1) == ('crate', 'crate')
    assert plan.entity_link('arm/hand', 1) == ('arm', 'hand')
    assert plan.entity_link('arm', 1) == ('arm', 'base')
    assert plan.entity_joint('arm/elbow_pitch', 1) == ('arm', 'elbow_pitch')


VARY = '  arm.noise_seed: {integers: [0, 1000000]}'


@pytest.mark.parametrize('quantity', [
    'arm.noise_seed: [1, 2]', 'arm.devices.base_imu.noise.angular_velocity: [0.1]',
    'arm.devices.hand_camera.noise.color: {uniform: [0, 4]}', 'arm.devices.base_imu.on: [true]',
    'arm.devices.base_scan.rate: [5.0]', 'arm.joint_states.noise.position: [0.001]',
    'arm.initial_positions.elbow_pitch: {normal: [0.1, 0.01]}', 'crate.friction: [0.3]',
    'arm/hand.friction: [1.2]', 'real_time_factor: [0, 1]', 'crate.roll: [0.1]',
    'arm.servo_damping: [0.7]', 'arm.kinematic: [true]'])
def test_what_a_sweep_may_vary_is_found(tmp_path, quantity):
    plan, _, _ = resolved(tmp_path, VARY, '  ' + quantity)
    assert quantity.split(':')[0] in [v.name for v in plan.sweep.variables]


@pytest.mark.parametrize('quantity, message', [
    ('arm.noise_seeds: [1, 2]', "'noise_seeds' is not a parameter a sweep sets"),
    ('arm.devices.base_imu.noise.colour: [1]', "device 'base_imu' has no setting 'noise.colour'"),
    ('arm.devices.base_imu.noise.color: [1]', "device 'base_imu' has no setting 'noise.color'"),
    ('arm.devices.wrist_cam.noise.color: [1]', "model 'arm' has no device 'wrist_cam'"),
    ('arm.devices.base_imu.speed: [1]', "device 'base_imu' has no setting 'speed'"),
    ('arm.initial_positions.knee: [0.1]', "model 'arm' has no moving joint 'knee'"),
    ('arm.joint_states.noise.effort: [0.1]', "'joint_states.noise.effort' is not a parameter"),
    ('table.x: [0.1]', "the world has no entity 'table' (it has arm, crate)"),
    ('table.friction: [0.1]', "the world has no entity 'table'"),
    ('crate/lid.friction: [0.5]', "entity 'crate' has no link 'lid'"),
    ('arm/hand.noise_seed: [1]', 'only friction is varied per link'),
    ('real_time_factor: [-1]', 'a real-time factor is a number >= 0'),
    ('real_time_factor: {uniform: [-1, 1]}', 'a real-time factor is a number >= 0'),
    ('speed: [1]', 'name ENTITY.QUANTITY'),
    ('arm.initial_positions: [0.1]', "'initial_positions' is not a parameter a sweep sets"),
    ('arm.devices: [1]', "'devices' is not a parameter a sweep sets"),
])
def test_a_varied_quantity_the_world_lacks_is_refused_with_its_line(tmp_path, quantity,
                                                                    message):
    with pytest.raises(ModelError) as err:
        resolved(tmp_path, VARY, '  ' + quantity)
    text = EXAMPLE.read_text()
    line = next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith(VARY))
    assert err.value.line == line and message in str(err.value)


def test_a_fixed_parameter_is_looked_up_too(tmp_path):
    with pytest.raises(ModelError, match=r"parameters.arm.initial_positions.knee: model 'arm'"):
        resolved(tmp_path, 'vary:', 'parameters:\n  arm.initial_positions.knee: 0.2\nvary:')
    plan, _, _ = resolved(tmp_path, 'vary:', 'parameters:\n  arm.servo_damping: 0.9\nvary:')
    assert [v.name for v in plan.sweep.parameters] == ['arm.servo_damping']


def test_a_world_of_models_names_them_as_record_does(tmp_path):
    plan, _, _ = resolved(tmp_path, 'world: arm_and_crate.world.yaml',
                          'models: [arm=sample_arm, crate=../scenario/crate.body]')
    assert [m.name for m in plan.world.models] == ['arm', 'crate']
    assert plan.world.models[1].path == str(EXAMPLE.parent.parent / 'scenario' / 'crate.body')


def test_a_missing_model_of_the_world_is_its_line(tmp_path):
    with pytest.raises(ModelError, match='nowhere.body: no such file, and no bundled model') as err:
        resolved(tmp_path, 'world: arm_and_crate.world.yaml', 'models: [nowhere.body]')
    assert err.value.line == 5


CHECK = '  pushed: {moved: crate, at_least: 0.05}'


@pytest.mark.parametrize('check, message', [
    ('pushed: {moved: crate/lid, at_least: 0.05}', "entity 'crate' has no link 'lid'"),
    ('elbow: {joint: arm/knee, range: [0, 1]}', "model 'arm' has no moving joint 'knee'"),
    ('touch: {contact: [arm/hand, table]}', "the world has no entity 'table'"),
    ('late: {inside: crate, box: [[0, 0, 0], [1, 1, 1]], at: 9}', 'at: end, always or a '
     'time in [0, 4]'),
    ('imu: {topic: arm/base_imus, min_rate: 10}', 'the world publishes no /arm/base_imus'),
])
def test_a_check_on_what_the_world_lacks_is_refused_with_its_line(tmp_path, check, message):
    with pytest.raises(ModelError) as err:
        resolved(tmp_path, CHECK, '  ' + check)
    line = next(i for i, t in enumerate(EXAMPLE.read_text().splitlines(), 1)
                if t.startswith(CHECK))
    assert err.value.line == line and message in str(err.value)


def test_a_check_on_a_relative_topic_name_is_the_absolute_one(tmp_path):
    plan, _, _ = resolved(tmp_path, CHECK, '  imu: {topic: arm/base_imu, min_rate: 10}')
    assert [c.kind for c in plan.sweep.checks][0] == 'topic'


def test_a_world_file_whose_model_is_missing_is_its_line(tmp_path):
    world = tmp_path / 'w.world.yaml'
    world.write_text('models:\n  - name: arm\n    file: sample_arm\n  - name: gone\n'
                     '    file: nowhere.body\n')
    with pytest.raises(ModelError) as err:
        resolved(tmp_path, 'world: arm_and_crate.world.yaml', f'world: {world}')
    assert err.value.path == str(world) and err.value.line == 4
    assert 'model gone: ' in str(err.value) and 'nowhere.body: no such file' in str(err.value)
