"""The simulator API (simulation_interfaces 2.1.0) over real DDS from this process, as a
scenario runner uses it, against a sample-arm bridge in another: features, simulation state,
stepping, spawning into the running world, entity state, deleting, and each failure code."""

from __future__ import annotations

import time

import numpy as np
import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)
pytest.importorskip('simulation_interfaces', reason='simulation_interfaces is not built here')

from rclpy.action import ActionClient
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from simulation_interfaces.action import SimulateSteps
from simulation_interfaces.msg import Result, SimulationState, SimulatorFeatures
from simulation_interfaces.srv import (DeleteEntity, GetEntities, GetEntityBounds,
                                       GetEntityInfo, GetEntityState, GetSimulationState,
                                       GetSimulatorFeatures, GetSpawnables, ResetSimulation,
                                       SetEntityState, SetSimulationState, SpawnEntity,
                                       StepSimulation)
from std_msgs.msg import String

from body_bridge.ros.stream import qos
from conftest import REPO, SAMPLE_ARM, BridgeProcess
from test_end_to_end import STARTUP, spin_until, stamp

NS = '/sapi'
BOX = REPO / 'test' / 'data' / 'choreonoid' / 'box.body'
PERIOD = 0.01  # [s] one step: the default control period
URDF_CRATE = '''<robot name="crate"><link name="crate">
  <inertial><mass value="1"/><inertia ixx="0.0017" ixy="0" ixz="0" iyy="0.0017" iyz="0"
    izz="0.0017"/></inertial>
  <collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link></robot>'''


@pytest.fixture(scope='module')
def world(tmp_path_factory):
    proc = BridgeProcess(SAMPLE_ARM, '-r', f'__ns:={NS}',
                         tmp_path=tmp_path_factory.mktemp('sapi'))
    yield proc
    assert proc.stop() in (0, -2)


class User:
    """A scenario runner: service clients of the world, joint_states and /clock watched."""

    def __init__(self, rclpy, proc):
        self.rclpy, self.proc = rclpy, proc
        self.node = rclpy.create_node('scenario', namespace=NS)
        self.states: list[JointState] = []
        self.clock: list[float] = []
        self.node.create_subscription(JointState, 'joint_states', self.states.append,
                                      qos.JOINT_STATES)
        self.node.create_subscription(
            Clock, '/clock', lambda m: self.clock.append(m.clock.sec + 1e-9 * m.clock.nanosec),
            qos.CLOCK)
        self.clients = {}

    def spin_until(self, predicate, timeout, what):
        spin_until(self.rclpy, self.node, predicate, timeout, what, self.proc)

    def call(self, srv, name, timeout=30.0, request=None, **fields):
        if name not in self.clients:
            client = self.node.create_client(srv, name)
            self.spin_until(client.service_is_ready, STARTUP, name)
            self.clients[name] = client
        future = self.clients[name].call_async(request or srv.Request(**fields))
        self.spin_until(future.done, timeout, f'the answer of {name}')
        return future.result()

    def spin_for(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.rclpy.spin_once(self.node, timeout_sec=0.05)

    def set_state(self, state):
        return self.call(SetSimulationState, 'set_simulation_state',
                         state=SimulationState(state=state)).result

    def spawn(self, name, uri='', text='', pose=(0.0, 0.0, 0.0), quat=(1.0, 0, 0, 0),
              **fields):
        request = SpawnEntity.Request(name=name, **fields)
        request.entity_resource.uri, request.entity_resource.resource_string = uri, text
        p, q = request.initial_pose.pose.position, request.initial_pose.pose.orientation
        p.x, p.y, p.z = pose
        q.w, q.x, q.y, q.z = quat
        return self.call(SpawnEntity, 'spawn_entity', timeout=60.0, request=request)

    def entity_state(self, name):
        return self.call(GetEntityState, 'get_entity_state', entity=name)

    def close(self):
        self.node.destroy_node()


@pytest.fixture
def user(ros, world):
    u = User(ros, world)
    u.spin_until(lambda: len(u.states) > 3, STARTUP, 'joint_states')
    yield u
    u.set_state(SimulationState.STATE_PLAYING)
    u.call(ResetSimulation, 'reset_simulation', scope=ResetSimulation.Request.SCOPE_SPAWNED)
    u.close()


def test_features_say_what_is_supported(user):
    features = user.call(GetSimulatorFeatures, 'get_simulator_features').features
    for f in (SimulatorFeatures.SPAWNING, SimulatorFeatures.DELETING,
              SimulatorFeatures.STEP_SIMULATION_ACTION, SimulatorFeatures.ENTITY_STATE_SETTING,
              SimulatorFeatures.SIMULATION_RESET_SPAWNED):
        assert f in features.features
    assert SimulatorFeatures.NAMED_POSES in features.features
    assert SimulatorFeatures.ENTITY_BOUNDS_CONVEX not in features.features
    assert {'body', 'robot.xml', 'kinbody.xml', 'yaml', 'urdf'} <= set(features.spawn_formats)


def test_pause_step_and_play(user):
    assert user.call(GetSimulationState, 'get_simulation_state').state.state == \
        SimulationState.STATE_PLAYING
    refused = user.call(StepSimulation, 'step_simulation', steps=3).result
    assert refused.result == Result.RESULT_OPERATION_FAILED
    assert 'playing' in refused.error_message
    assert user.set_state(SimulationState.STATE_PAUSED).result == Result.RESULT_OK
    again = user.set_state(SimulationState.STATE_PAUSED)
    assert again.result == SetSimulationState.Response.ALREADY_IN_TARGET_STATE
    user.spin_for(0.5)  # the clock held while paused
    before = user.clock[-1]
    assert user.call(StepSimulation, 'step_simulation', steps=7).result.result == \
        Result.RESULT_OK
    user.spin_until(lambda: user.clock[-1] >= before + 7 * PERIOD - 1e-6, 10.0,
                    'the stepped time')
    assert user.clock[-1] == pytest.approx(before + 7 * PERIOD, abs=1e-6)
    assert user.set_state(SimulationState.STATE_PLAYING).result == Result.RESULT_OK


def test_simulate_steps_gives_feedback_and_can_be_canceled(user):
    assert user.set_state(SimulationState.STATE_PAUSED).result == Result.RESULT_OK
    action = ActionClient(user.node, SimulateSteps, 'simulate_steps')
    user.spin_until(action.server_is_ready, STARTUP, 'simulate_steps')
    feedback = []
    future = action.send_goal_async(SimulateSteps.Goal(steps=20),
                                    feedback_callback=lambda f: feedback.append(f.feedback))
    user.spin_until(future.done, 10.0, 'the goal response')
    answer = future.result().get_result_async()
    user.spin_until(answer.done, 30.0, 'the result')
    assert answer.result().status == 4  # SUCCEEDED
    assert answer.result().result.result.result == Result.RESULT_OK
    user.spin_for(1.0)
    # One after each step, in order (a client may miss some of a quick burst: the
    # feedback topic keeps the last 10).
    done = [f.completed_steps for f in feedback]
    assert done == sorted(set(done)) and done and max(done) <= 20, done
    assert all(f.remaining_steps == 20 - f.completed_steps for f in feedback)
    # A long run, canceled on its way.
    feedback.clear()
    future = action.send_goal_async(SimulateSteps.Goal(steps=10 ** 7),
                                    feedback_callback=lambda f: feedback.append(f.feedback))
    user.spin_until(future.done, 10.0, 'the goal response')
    handle = future.result()
    user.spin_until(lambda: len(feedback) > 5, 10.0, 'some feedback')
    cancel = handle.cancel_goal_async()
    user.spin_until(cancel.done, 10.0, 'the cancel response')
    answer = handle.get_result_async()
    user.spin_until(answer.done, 10.0, 'the result after the cancel')
    assert answer.result().status == 5  # CANCELED
    assert feedback[-1].completed_steps < 10 ** 7
    # While playing: refused.
    user.set_state(SimulationState.STATE_PLAYING)
    future = action.send_goal_async(SimulateSteps.Goal(steps=5))
    user.spin_until(future.done, 10.0, 'the goal response')
    answer = future.result().get_result_async()
    user.spin_until(answer.done, 10.0, 'the result')
    assert answer.result().status == 6  # ABORTED
    assert answer.result().result.result.result == Result.RESULT_OPERATION_FAILED
    action.destroy()


def test_a_spawned_box_comes_to_rest_and_is_teleported(user):
    entities = user.call(GetEntities, 'get_entities').entities
    assert list(entities) == ['sapi']  # the arm, named after its namespace
    assert user.set_state(SimulationState.STATE_PAUSED).result == Result.RESULT_OK
    answer = user.spawn('box', uri=str(BOX), pose=(0.8, 0.3, 0.15))
    assert answer.result.result == Result.RESULT_OK, answer.result.error_message
    assert answer.entity_name == 'box'
    # A full member: its own node, robot_description in its namespace.
    descriptions = []
    user.node.create_subscription(String, f'{NS}/box/robot_description', descriptions.append,
                                  qos.LATCHED)
    user.spin_until(lambda: descriptions, 20.0, 'the box robot_description')
    assert '<robot name="box"' in descriptions[0].data
    state = user.entity_state('box')
    assert state.result.result == Result.RESULT_OK
    assert state.state.pose.position.z == pytest.approx(0.15, abs=1e-6)
    user.call(StepSimulation, 'step_simulation', steps=100)
    state = user.entity_state('box').state
    assert state.pose.position.z == pytest.approx(0.1, abs=1e-3)  # half its 0.2 m height
    assert (state.pose.position.x, state.pose.position.y) == pytest.approx((0.8, 0.3), abs=2e-3)
    bounds = user.call(GetEntityBounds, 'get_entity_bounds', entity='box').bounds
    assert [(p.x, p.y, p.z) for p in bounds.points] == \
        [pytest.approx((-0.1, -0.2, -0.1), abs=1e-3), pytest.approx((0.1, 0.2, 0.1), abs=1e-3)]
    # Teleported: there at once, with the velocity given.
    request = SetEntityState.Request(entity='box', set_pose=True, set_twist=True)
    request.state.pose.position.x, request.state.pose.position.z = 0.5, 0.6
    request.state.pose.orientation.w = 1.0
    request.state.twist.linear.y = 0.25
    assert user.call(SetEntityState, 'set_entity_state',
                     request=request).result.result == Result.RESULT_OK
    state = user.entity_state('box').state
    assert (state.pose.position.x, state.pose.position.z) == pytest.approx((0.5, 0.6))
    assert state.twist.linear.y == pytest.approx(0.25)
    info = user.call(GetEntityInfo, 'get_entity_info', entity='box').info
    assert info.category.category == 0 and 'box' in info.description
    assert user.call(DeleteEntity, 'delete_entity', entity='box').result.result == \
        Result.RESULT_OK
    assert list(user.call(GetEntities, 'get_entities').entities) == ['sapi']


def test_each_failure_has_its_code_and_one_line(user, tmp_path):
    ok = user.spawn('box', uri=str(BOX), pose=(2.0, 0.0, 0.2))
    assert ok.result.result == Result.RESULT_OK
    taken = user.spawn('box', uri=str(BOX), pose=(2.0, 1.0, 0.2))
    assert taken.result.result == SpawnEntity.Response.NAME_NOT_UNIQUE
    renamed = user.spawn('box', uri=str(BOX), pose=(2.0, 1.0, 0.2), allow_renaming=True)
    assert renamed.result.result == Result.RESULT_OK and renamed.entity_name == 'box_2'
    broken = tmp_path / 'broken.body'
    broken.write_text('format: ChoreonoidBody\nformat_version: 2.0\nlinks: [ {name: a\n')
    parse = user.spawn('broken', uri=str(broken))
    assert parse.result.result == SpawnEntity.Response.RESOURCE_PARSE_ERROR
    assert parse.result.error_message.startswith(f'{broken}:')
    assert '\n' not in parse.result.error_message
    missing = user.spawn('nothing', uri='/no/such/model.body')
    assert missing.result.result == SpawnEntity.Response.NO_RESOURCE
    assert user.spawn('empty').result.result == SpawnEntity.Response.NO_RESOURCE
    bad_name = user.spawn('1box', uri=str(BOX))
    assert bad_name.result.result == SpawnEntity.Response.NAME_INVALID
    quat = user.spawn('tilted', uri=str(BOX), quat=(1.0, 1.0, 0.0, 0.0))
    assert quat.result.result == SpawnEntity.Response.INVALID_POSE
    assert 'unit quaternion' in quat.result.error_message
    unknown = user.entity_state('ghost').result
    assert unknown.result == Result.RESULT_NOT_FOUND and 'ghost' in unknown.error_message
    gone = user.call(DeleteEntity, 'delete_entity', entity='ghost').result
    assert gone.result == Result.RESULT_NOT_FOUND
    first = user.call(DeleteEntity, 'delete_entity', entity='sapi').result
    assert first.result == Result.RESULT_OPERATION_FAILED
    unknown_text = user.spawn('text', text='just some words')
    assert unknown_text.result.result == SpawnEntity.Response.UNSUPPORTED_FORMAT
    urdf = user.spawn('urdf_crate', text=URDF_CRATE, pose=(2.0, -1.0, 0.2))
    assert urdf.result.result == Result.RESULT_OK, urdf.result.error_message
    spawnables = user.call(GetSpawnables, 'get_spawnables').spawnables
    assert any(s.entity_resource.uri.endswith('sample_arm.body') for s in spawnables)
    # The world runs on, with its state.
    reset = user.call(ResetSimulation, 'reset_simulation',
                      scope=ResetSimulation.Request.SCOPE_SPAWNED).result
    assert reset.result == Result.RESULT_OK and 'box_2' in reset.error_message
    assert 'urdf_crate' in reset.error_message
    assert list(user.call(GetEntities, 'get_entities').entities) == ['sapi']


def test_joint_states_and_clock_go_on_across_spawn_and_delete(user):
    user.states.clear()
    user.clock.clear()
    user.spin_until(lambda: len(user.states) > 10, 10.0, 'joint_states')
    for k in range(2):
        assert user.spawn(f'crate{k}', uri=str(BOX),
                          pose=(1.5, k - 0.5, 0.3)).result.result == Result.RESULT_OK
    count = len(user.states)
    user.spin_until(lambda: len(user.states) > count + 20, 20.0, 'more joint_states')
    for k in range(2):
        assert user.call(DeleteEntity, 'delete_entity',
                         entity=f'crate{k}').result.result == Result.RESULT_OK
    count = len(user.states)
    user.spin_until(lambda: len(user.states) > count + 20, 20.0, 'more joint_states')
    stamps = np.array([stamp(m) for m in user.states])
    steps = np.diff(stamps)
    # In order on the grid of periods, never a repeat or a step back; one period apart as a
    # rule (a listener on a loaded machine may miss messages of the reliable depth-10
    # topic: test_world_growth shows in-process that every period is stepped).
    assert steps.min() > PERIOD / 2
    np.testing.assert_allclose(steps / PERIOD, np.round(steps / PERIOD), atol=1e-4)
    assert np.median(steps) == pytest.approx(PERIOD, abs=1e-6)
    positions = np.array([m.position for m in user.states])
    assert np.max(np.abs(np.diff(positions, axis=0))) < 1e-3  # holding still: no jump
    assert len(user.clock) > 20
    assert all(b >= a for a, b in zip(user.clock, user.clock[1:]))  # never back
