"""The simulator API's world services and named poses over real DDS from this process, against
a bridge in another started from the bundled world file: the current world, the worlds
available, named poses, loading a world in place of every model (``/clock`` going on),
unloading it, and each failure code."""

from __future__ import annotations

import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)
pytest.importorskip('simulation_interfaces', reason='simulation_interfaces is not built here')

from sensor_msgs.msg import JointState
from simulation_interfaces.msg import Result, SimulationState, SimulatorFeatures
from simulation_interfaces.srv import (GetAvailableWorlds, GetCurrentWorld, GetEntities,
                                       GetEntityState, GetNamedPoseBounds, GetNamedPoses,
                                       GetSimulationState, GetSimulatorFeatures, LoadWorld,
                                       SpawnEntity, StepSimulation, UnloadWorld)

from body_bridge.paths import bundled_worlds
from body_bridge.ros.stream import qos
from conftest import BridgeProcess
from test_end_to_end import STARTUP
from test_simapi_e2e import User

NS = '/wapi'
BOX_WORLD = '''world: box_yard
tags: [test]
models:
  - {name: crate, file: test/data/choreonoid/box.body, pose: [0.5, 0, 0.5]}
  - {name: arm, file: sample_arm}
'''


@pytest.fixture(scope='module')
def world(tmp_path_factory):
    proc = BridgeProcess(bundled_worlds()['arm_pair'], '-r', f'__ns:={NS}', '-p',
                         'named_poses:="[{name: dock, pose: [2, 0, 0], tags: [parking]}]"',
                         tmp_path=tmp_path_factory.mktemp('wapi'))
    yield proc
    assert proc.stop() in (0, -2)


@pytest.fixture
def user(ros, world):
    u = User(ros, world)  # its services are called by their full names, under NS
    u.left = []
    u.node.create_subscription(JointState, f'{NS}/left/joint_states', u.left.append,
                               qos.JOINT_STATES)
    yield u
    u.close()


def load(user, uri='', text='', **fields):
    request = LoadWorld.Request(**fields)
    request.world_resource.uri, request.world_resource.resource_string = uri, text
    return user.call(LoadWorld, f'{NS}/load_world', timeout=60.0, request=request)


def state(user):
    return user.call(GetSimulationState, f'{NS}/get_simulation_state').state.state


def test_the_world_file_started_with_is_the_current_world(user):
    user.spin_until(lambda: len(user.left) > 3, STARTUP, 'joint_states of the left arm')
    features = user.call(GetSimulatorFeatures, f'{NS}/get_simulator_features').features.features
    for f in (SimulatorFeatures.NAMED_POSES, SimulatorFeatures.POSE_BOUNDS,
              SimulatorFeatures.WORLD_LOADING, SimulatorFeatures.WORLD_UNLOADING,
              SimulatorFeatures.WORLD_INFO_GETTING, SimulatorFeatures.AVAILABLE_WORLDS,
              SimulatorFeatures.WORLD_TAGS, SimulatorFeatures.WORLD_RESOURCE_STRING):
        assert f in features
    current = user.call(GetCurrentWorld, f'{NS}/get_current_world')
    assert current.result.result == Result.RESULT_OK and current.world.name == 'arm_pair'
    assert user.call(GetEntities, f'{NS}/get_entities').entities == ['left', 'right']
    left = user.call(GetEntityState, f'{NS}/get_entity_state', entity='left').state.pose.position
    assert (left.x, left.y, left.z) == pytest.approx((0.0, -0.4, 0.0), abs=1e-9)
    poses = user.call(GetNamedPoses, f'{NS}/get_named_poses').poses
    assert [p.name for p in poses] == ['between', 'aside', 'dock']
    bounds = user.call(GetNamedPoseBounds, f'{NS}/get_named_pose_bounds',
                       request=GetNamedPoseBounds.Request(name='aside'))
    assert bounds.result.result == Result.RESULT_OK and bounds.bounds.points[1].x == 0.3
    missing = user.call(GetNamedPoseBounds, f'{NS}/get_named_pose_bounds',
                       request=GetNamedPoseBounds.Request(name='nowhere'))
    assert missing.result.result == Result.RESULT_NOT_FOUND
    worlds = user.call(GetAvailableWorlds, f'{NS}/get_available_worlds')
    assert worlds.result.result == Result.RESULT_OK
    assert [w.name for w in worlds.worlds] == ['arm_pair']
    gone = user.call(GetAvailableWorlds, f'{NS}/get_available_worlds',
                     additional_sources=['/nowhere'])
    assert gone.result.result == Result.RESULT_NOT_FOUND


def test_a_load_replaces_every_model_and_the_clock_goes_on(user):
    user.spin_until(lambda: len(user.clock) > 3, STARTUP, '/clock')
    for uri, text, code in (('', '', LoadWorld.Response.NO_RESOURCE),
                            ('sample_arm', '', LoadWorld.Response.UNSUPPORTED_FORMAT),
                            ('', 'models: [', LoadWorld.Response.RESOURCE_PARSE_ERROR),
                            ('', 'models: [{file: /nowhere/x.body}]',
                             LoadWorld.Response.MISSING_ASSETS)):
        answer = load(user, uri, text)
        assert answer.result.result == code, answer.result.error_message
    assert user.call(GetEntities, f'{NS}/get_entities').entities == ['left', 'right']
    before = user.clock[-1]
    answer = load(user, text=BOX_WORLD)
    assert answer.result.result == Result.RESULT_OK, answer.result.error_message
    assert answer.world.name == 'box_yard' and list(answer.world.tags) == ['test']
    assert state(user) == SimulationState.STATE_STOPPED
    assert user.call(GetEntities, f'{NS}/get_entities').entities == ['crate', 'arm']
    crate = user.call(GetEntityState, f'{NS}/get_entity_state', entity='crate').state.pose.position
    assert (crate.x, crate.z) == pytest.approx((0.5, 0.5), abs=1e-6)
    user.call(StepSimulation, f'{NS}/step_simulation', steps=5)
    user.spin_for(0.5)
    assert user.clock[-1] >= before and user.clock == sorted(user.clock)
    assert [p.name for p in user.call(GetNamedPoses, f'{NS}/get_named_poses').poses] == ['dock']
    assert user.call(GetCurrentWorld, f'{NS}/get_current_world').world.name == 'box_yard'


def test_unload_leaves_no_world_until_the_next_load(user):
    assert user.call(UnloadWorld, f'{NS}/unload_world').result.result == Result.RESULT_OK
    assert state(user) == SimulationState.STATE_NO_WORLD
    assert user.call(UnloadWorld, f'{NS}/unload_world').result.result == \
        UnloadWorld.Response.NO_WORLD_LOADED
    assert user.call(GetCurrentWorld, f'{NS}/get_current_world').result.result == \
        GetCurrentWorld.Response.NO_WORLD_LOADED
    assert user.call(GetEntities, f'{NS}/get_entities').entities == []
    step = user.call(StepSimulation, f'{NS}/step_simulation', steps=1)
    assert step.result.result == Result.RESULT_OPERATION_FAILED
    request = SpawnEntity.Request(name='box')
    request.entity_resource.uri = 'sample_arm'
    spawn = user.call(SpawnEntity, f'{NS}/spawn_entity', request=request)
    assert spawn.result.result == Result.RESULT_OPERATION_FAILED
    assert 'no world is loaded' in spawn.result.error_message
    answer = load(user, uri='arm_pair')
    assert answer.result.result == Result.RESULT_OK
    assert state(user) == SimulationState.STATE_STOPPED
    assert user.call(GetEntities, f'{NS}/get_entities').entities == ['left', 'right']


def test_a_bad_world_file_or_named_poses_at_start_is_one_line_and_status_2(tmp_path):
    import subprocess
    import sys
    from conftest import REPO
    bad = tmp_path / 'lab.world.yaml'
    bad.write_text('world: lab\nmodels:\n  - {file: sample_arm}\n  - {file: gone.body}\n')
    for args, line in (([str(bad)], f'{bad}:4: model gone: {tmp_path}/gone.body: no such file'),
                       (['sample_arm', '--ros-args', '-p', 'named_poses:="[{name: a, pose: 1}]"'],
                        'parameter named_poses:1: named_poses[0].pose must be [x, y, z]')):
        proc = subprocess.run([sys.executable, '-m', 'body_bridge', 'sim', *args], cwd=REPO,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2, proc.stderr
        errors = [x for x in proc.stderr.splitlines() if not x.startswith('[')]
        assert len(errors) == 1 and errors[0].startswith(line), proc.stderr
