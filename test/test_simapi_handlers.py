"""The simulator API's services answered in this process: each handler called with the request
a scenario runner sends, the world a real one (the sample arm, paused), no other process and
no message on the wire. What a user sees over DDS is in test_simapi_e2e.py."""

from __future__ import annotations

import math
import threading
import time
import types
from types import SimpleNamespace

import numpy as np
import pytest

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)
pytest.importorskip('simulation_interfaces', reason='simulation_interfaces is not built here')

from geometry_msgs.msg import Point
from simulation_interfaces.action import SimulateSteps
from simulation_interfaces.msg import (Bounds, EntityCategory, Result, SimulationState,
                                       SimulatorFeatures, TagsFilter)
from simulation_interfaces.srv import (DeleteEntity, GetEntities, GetEntitiesStates,
                                       GetEntityBounds, GetEntityInfo, GetEntityState,
                                       GetSimulationState, GetSimulatorFeatures, GetSpawnables,
                                       ResetSimulation, SetEntityInfo, SetEntityState,
                                       SetSimulationState, SpawnEntities, SpawnEntity,
                                       StepSimulation)

from body_bridge.errors import ModelError
from body_bridge.ros.simapi import serve_world
from body_bridge.ros.simapi.control import FEATURES
from body_bridge.ros.simapi.entities import frame_pose, pose_of
from body_bridge.ros.simapi.spawn import format_of_text, spawn_formats
from body_bridge.ros.simapi.world_control import load_error_code

from conftest import REPO

BOX = str(REPO / 'test' / 'data' / 'choreonoid' / 'box.body')
St = SimulationState
OK = Result.RESULT_OK


@pytest.fixture
def api(ros, tmp_path, monkeypatch):
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter
    from body_bridge.ros.node.node import BridgeNode
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'cache'))
    node = BridgeNode(namespace='/lab/arm', parameter_overrides=[
        Parameter('start_paused', value=True), Parameter('mesh_directory', value=str(tmp_path))])
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    spinning = threading.Thread(target=executor.spin, daemon=True)
    spinning.start()
    world = serve_world(node.runner, executor, '/lab')
    yield world
    if not getattr(world, 'stopped_by_the_test', False):
        world.stop()
    executor.shutdown(timeout_sec=1.0)
    node.destroy_node()


def call(handler, srv, **fields):
    return handler(srv.Request(**fields), srv.Response())


def spawn_request(name='', uri='', text='', pose=(0.0, 0.0, 0.0), quat=(1.0, 0.0, 0.0, 0.0),
                  frame='', **fields):
    request = SpawnEntity.Request(name=name, **fields)
    request.entity_resource.uri, request.entity_resource.resource_string = uri, text
    p, q = request.initial_pose.pose.position, request.initial_pose.pose.orientation
    p.x, p.y, p.z = pose
    q.w, q.x, q.y, q.z = quat
    request.initial_pose.header.frame_id = frame
    return request


def spawn(api, *args, **fields):
    return api.spawn._spawn_one(spawn_request(*args, **fields), SpawnEntity.Response())


def set_state(api, state):
    return call(api.time._set_state, SetSimulationState, state=St(state=state)).result


def get_state(api):
    return call(api.time._get_state, GetSimulationState).state.state


# --- time: features, states, steps, reset ------------------------------------------------


def test_features_and_formats(api):
    answer = call(api.time._features, GetSimulatorFeatures).features
    S = SimulatorFeatures
    assert set(answer.features) == set(FEATURES)
    assert {S.SPAWNING, S.DELETING, S.STEP_SIMULATION_ACTION, S.SIMULATION_RESET_SPAWNED,
            S.ENTITY_BOUNDS_BOX} <= set(answer.features)
    assert {S.NAMED_POSES, S.WORLD_LOADING} <= set(answer.features)
    assert S.ENTITY_BOUNDS_CONVEX not in answer.features
    assert list(answer.spawn_formats) == spawn_formats()
    assert {'body', 'urdf', 'yaml'} <= set(answer.spawn_formats)
    assert all(not f.startswith('.') for f in answer.spawn_formats)
    assert '0.01 s' in answer.custom_info


def test_states_and_their_transitions(api):
    runner = api.control.runner
    assert get_state(api) == St.STATE_PAUSED
    assert call(api.time._get_state, GetSimulationState).result.result == OK
    assert set_state(api, St.STATE_PAUSED).result == SetSimulationState.Response.ALREADY_IN_TARGET_STATE
    assert set_state(api, St.STATE_PLAYING).result == OK
    assert get_state(api) == St.STATE_PLAYING and not runner.paused
    answer = call(api.time._step, StepSimulation, steps=1).result
    assert answer.result == Result.RESULT_OPERATION_FAILED and 'playing' in answer.error_message
    assert set_state(api, St.STATE_PAUSED).result == OK and runner.paused
    assert get_state(api) == St.STATE_PAUSED
    call(api.time._step, StepSimulation, steps=2)
    assert set_state(api, St.STATE_STOPPED).result == OK
    assert get_state(api) == St.STATE_STOPPED and runner.paused
    assert runner.world.time == 0.0
    answer = set_state(api, St.STATE_PAUSED)
    assert answer.result == SetSimulationState.Response.INCORRECT_TRANSITION
    assert get_state(api) == St.STATE_STOPPED
    assert call(api.time._step, StepSimulation, steps=3).result.result == OK
    assert get_state(api) == St.STATE_PAUSED  # stepping leaves the stopped state
    assert runner.world.time == pytest.approx(3 * runner.period)
    answer = set_state(api, 42)
    assert answer.result == SetSimulationState.Response.INCORRECT_TRANSITION
    assert '42' in answer.error_message
    set_state(api, St.STATE_STOPPED)
    assert set_state(api, St.STATE_PLAYING).result == OK and get_state(api) == St.STATE_PLAYING


def test_steps_while_paused_and_refused_ones(api):
    runner = api.control.runner
    assert call(api.time._step, StepSimulation, steps=1).result.result == OK
    assert runner.world.time == pytest.approx(runner.period)
    assert call(api.time._step, StepSimulation, steps=3).result.result == OK
    assert runner.world.time == pytest.approx(4 * runner.period)
    answer = call(api.time._step, StepSimulation, steps=0).result
    assert answer.result == Result.RESULT_OPERATION_FAILED
    assert answer.error_message == 'steps must be at least 1'
    assert runner.world.time == pytest.approx(4 * runner.period)


def test_quitting_pauses_and_shuts_down_after_answering(api, monkeypatch):
    quit_called = threading.Event()
    monkeypatch.setattr(api.time, '_quit', quit_called.set)
    set_state(api, St.STATE_PLAYING)
    assert set_state(api, St.STATE_QUITTING).result == OK
    assert api.control.runner.paused and not quit_called.is_set()  # the answer goes first
    assert quit_called.wait(5.0)


def test_stepping_or_stopping_a_playing_world_and_a_world_unloaded(api, monkeypatch):
    runner = api.control.runner
    set_state(api, St.STATE_PLAYING)
    answer = call(api.time._step, StepSimulation, steps=1).result
    assert answer.error_message == 'the simulation is playing: pause it first ' \
                                   '(set_simulation_state)'
    assert set_state(api, St.STATE_STOPPED).result == OK  # from playing: paused, reset
    assert runner.paused and runner.world.time == 0.0 and get_state(api) == St.STATE_STOPPED
    monkeypatch.setattr(runner, 'world', None)  # as unload_world leaves it
    assert get_state(api) == St.STATE_NO_WORLD
    for target in (St.STATE_PLAYING, St.STATE_PAUSED, St.STATE_STOPPED):
        answer = set_state(api, target)
        assert answer.result == SetSimulationState.Response.INCORRECT_TRANSITION
        assert answer.error_message == 'no world is loaded (load_world)'
    answer = call(api.time._step, StepSimulation, steps=1).result
    assert answer.error_message == 'no world is loaded (load_world)'
    answer = call(api.time._reset, ResetSimulation).result
    assert (answer.result, answer.error_message) == (Result.RESULT_OPERATION_FAILED,
                                                     'no world is loaded (load_world)')
    said = []
    monkeypatch.setattr(api.time, '_quit', lambda: None)
    monkeypatch.setattr(api.time.node, 'get_logger',
                        lambda: types.SimpleNamespace(info=said.append))
    assert set_state(api, St.STATE_QUITTING).result == OK  # quitting needs no world
    assert said == ['set_simulation_state: quitting, as asked']


def test_quit_shuts_the_context_of_the_world_s_node_down(ros):
    from body_bridge.ros.simapi.control import TimeServices
    context = ros.Context()
    context.init()
    world_node = SimpleNamespace(node=SimpleNamespace(context=context))
    TimeServices._quit(world_node)
    assert not context.ok()
    TimeServices._quit(world_node)  # once down, nothing more to do
    assert not context.ok()


class Handle:
    """What the action server hands SimulateSteps' execute callback."""

    def __init__(self, steps, cancel_after=None):
        self.request = SimpleNamespace(steps=steps)
        self.feedback, self.cancel_after, self.ended = [], cancel_after, None

    @property
    def is_cancel_requested(self):
        return self.cancel_after is not None and len(self.feedback) >= self.cancel_after

    def publish_feedback(self, msg):
        self.feedback.append((msg.completed_steps, msg.remaining_steps))

    def succeed(self):
        self.ended = 'succeeded'

    def abort(self):
        self.ended = 'aborted'

    def canceled(self):
        self.ended = 'canceled'


def test_simulate_steps_feedback_cancel_and_refusals(api):
    from rclpy.action import GoalResponse
    runner, time_services = api.control.runner, api.time
    assert time_services._accept(None) == GoalResponse.ACCEPT
    set_state(api, St.STATE_STOPPED)
    handle = Handle(3)
    out = time_services._simulate(handle)
    assert (handle.ended, out.result.result) == ('succeeded', OK)
    assert get_state(api) == St.STATE_PAUSED  # stepping leaves the stopped state
    assert handle.feedback == [(1, 2), (2, 1), (3, 0)]
    assert runner.world.time == pytest.approx(3 * runner.period)
    handle = Handle(5, cancel_after=2)
    out = time_services._simulate(handle)
    assert handle.ended == 'canceled' and handle.feedback == [(1, 4), (2, 3)]
    assert out.result.error_message == 'canceled after 2 of 5 steps'
    assert runner.world.time == pytest.approx(5 * runner.period)
    handle = Handle(0)
    out = time_services._simulate(handle)
    assert handle.ended == 'aborted' and out.result.result == Result.RESULT_OPERATION_FAILED
    set_state(api, St.STATE_PLAYING)
    handle = Handle(2)
    assert time_services._simulate(handle).result.result == Result.RESULT_OPERATION_FAILED
    assert handle.ended == 'aborted' and handle.feedback == []


def test_steps_stop_when_the_world_starts_playing_meanwhile(api, monkeypatch):
    runner = api.control.runner
    steps = []

    def step_once():  # someone else plays the world after two steps
        steps.append(1)
        return len(steps) <= 2
    monkeypatch.setattr(runner, 'step_once', step_once)
    answer = call(api.time._step, StepSimulation, steps=5).result
    assert answer.result == Result.RESULT_OPERATION_FAILED
    assert answer.error_message == 'the simulation started playing after 2 steps'
    assert len(steps) == 3
    steps.clear()
    handle = Handle(5)
    out = api.time._simulate(handle)
    assert handle.ended == 'aborted' and handle.feedback == [(1, 4), (2, 3)]
    assert out.result.error_message == 'the simulation started playing after 2 steps'
    assert len(steps) == 3


def test_reset_scopes(api):
    runner = api.control.runner
    assert spawn(api, 'box', BOX, pose=(1.0, 0.0, 0.3)).result.result == OK
    call(api.time._step, StepSimulation, steps=5)
    answer = call(api.time._reset, ResetSimulation,
                  scope=ResetSimulation.Request.SCOPE_SPAWNED).result
    assert answer.result == OK and answer.error_message == 'deleted box'
    assert list(api.control.entities) == ['arm']
    assert runner.world.time == pytest.approx(5 * runner.period)  # time and state stay
    answer = call(api.time._reset, ResetSimulation,
                  scope=ResetSimulation.Request.SCOPE_STATE).result
    assert answer.error_message == 'state and time back to the start'
    assert runner.world.time == 0.0
    call(api.time._step, StepSimulation, steps=2)
    answer = call(api.time._reset, ResetSimulation,
                  scope=ResetSimulation.Request.SCOPE_TIME).result
    assert runner.world.time == 0.0
    spawn(api, 'box', BOX, pose=(1.0, 0.0, 0.3))
    call(api.time._step, StepSimulation, steps=2)
    answer = call(api.time._reset, ResetSimulation).result  # SCOPE_DEFAULT: all
    assert answer.error_message == 'deleted box; state and time back to the start'
    assert runner.world.time == 0.0 and list(api.control.entities) == ['arm']
    answer = call(api.time._reset, ResetSimulation,
                  scope=ResetSimulation.Request.SCOPE_SPAWNED).result
    assert answer.error_message == 'deleted nothing spawned'


# --- spawning and deleting ---------------------------------------------------------------


def test_the_started_model_is_an_entity_named_after_its_namespace(api):
    arm = api.control.entities['arm']
    assert (arm.name, arm.spawned, arm.category) == ('arm', False,
                                                      EntityCategory.CATEGORY_ROBOT)
    assert arm.sim.prefix == ''
    with pytest.raises(KeyError, match=r"no entity named 'nope' \(entities: arm\)"):
        api.control.entity('nope')


def test_a_spawned_box_joins_with_its_node_namespace_and_frames(api):
    answer = spawn(api, 'box', BOX, pose=(1.0, 0.5, 0.3), quat=(0.0, 0.0, 0.0, 1.0))
    assert (answer.result.result, answer.entity_name) == (OK, 'box')
    box = api.control.entities['box']
    assert box.spawned and box.category == 0 and box.source == BOX  # no moving joint
    assert box.node.get_namespace() == '/lab/box' and box.node.params['frame_prefix'] == 'box/'
    assert box.sim.prefix == 'box/' and box in api.control.entities.values()
    pos, quat = box.sim.body_pose(box.sim.model.root)
    np.testing.assert_allclose(pos, [1.0, 0.5, 0.3], atol=1e-9)
    assert abs(quat[3]) == pytest.approx(1.0)
    answer = spawn(api, 'other', BOX, pose=(3.0, 0.0, 0.3), entity_namespace='things/other')
    assert answer.result.result == OK
    assert api.control.entities['other'].node.get_namespace() == '/lab/things/other'
    answer = spawn(api, 'third', BOX, pose=(-3.0, 0.0, 0.3), entity_namespace='/abs/third')
    assert api.control.entities['third'].node.get_namespace() == '/abs/third'
    answer = call(api.spawn._delete, DeleteEntity, entity='box')
    assert answer.result.result == OK and 'box' not in api.control.entities
    assert api.control.runner.world.prefixes == ['', 'other/', 'third/']
    assert sorted(api.control.delete_spawned()) == ['other', 'third']
    assert api.control.runner.world.prefixes == ['']


def test_watchers_are_told_of_every_node_spawned_and_deleted(api):
    told = []
    watcher = SimpleNamespace(add_node=lambda n: told.append(('add', n)),
                                    remove_node=lambda n: told.append(('remove', n)))
    api.watchers.append(watcher)
    spawn(api, 'box', BOX, pose=(1.0, 0.0, 0.3))
    box = api.control.entities['box'].node
    assert told == [('add', box)]
    call(api.spawn._delete, DeleteEntity, entity='box')
    assert told == [('add', box), ('remove', box)]


def test_the_contact_pairs_a_spawned_model_leaves_out_are_warned_about(api, monkeypatch):
    from body_bridge.ros.node.node import BridgeNode
    from body_bridge.sim.building import world as world_module
    said = []
    monkeypatch.setattr(world_module, 'add_material_pairs', lambda spec, models, ground: [
        f'{len(models)} models: pairs left out'] if len(models) > 1 else [])
    monkeypatch.setattr(BridgeNode, 'get_logger', lambda self: SimpleNamespace(
        warning=said.append, info=lambda text: None))
    spawn(api, 'box', BOX, pose=(1.0, 0.0, 0.3))
    assert said == ['2 models: pairs left out']
    spawn(api, 'box2', BOX, pose=(2.0, 0.0, 0.3))
    assert said == ['2 models: pairs left out', '3 models: pairs left out']


def test_spawn_in_the_frame_of_an_entity(api):
    spawn(api, 'box', BOX, pose=(1.0, 0.0, 0.3))
    answer = spawn(api, 'on_box', BOX, pose=(0.0, 0.0, 0.5), frame='box')
    assert answer.result.result == OK
    sim = api.control.entities['on_box'].sim
    pos, _ = sim.body_pose(sim.model.root)
    np.testing.assert_allclose(pos, [1.0, 0.0, 0.8], atol=1e-6)


def test_names_given_renamed_and_refused(api):
    R = SpawnEntity.Response
    control = api.control
    assert control.name_for('', True, 'my-box.v2') == 'my_box_v2'
    assert control.name_for('', True, '9lives') == 'entity_9lives'
    assert control.name_for('', True, '') == 'entity'
    assert control.name_for('arm', True, 'x') == 'arm_2'
    assert control.name_for('box_1', False, 'x') == 'box_1'
    answer = spawn(api, '', BOX)
    assert answer.result.result == R.NAME_INVALID
    assert answer.result.error_message == 'no name given and allow_renaming is false'
    answer = spawn(api, '1box', BOX)
    assert answer.result.result == R.NAME_INVALID and "'1box'" in answer.result.error_message
    answer = spawn(api, 'box-1', BOX)
    assert answer.result.result == R.NAME_INVALID
    answer = spawn(api, 'arm', BOX)
    assert answer.result.result == R.NAME_NOT_UNIQUE
    assert answer.result.error_message == "the name 'arm' is taken"
    answer = spawn(api, 'arm', BOX, pose=(2.0, 0.0, 0.3), allow_renaming=True)
    assert (answer.result.result, answer.entity_name) == (OK, 'arm_2')
    answer = spawn(api, '', BOX, pose=(-2.0, 0.0, 0.3), allow_renaming=True)
    assert (answer.result.result, answer.entity_name) == (OK, 'box')
    assert control.name_for('arm', True, 'x') == 'arm_3'


def test_what_a_spawn_request_is_refused_for(api, tmp_path):
    R = SpawnEntity.Response
    answer = spawn(api, 'a')
    assert answer.result.result == R.NO_RESOURCE
    assert answer.result.error_message == 'neither uri nor resource_string is given'
    answer = spawn(api, 'a', str(tmp_path / 'missing.body'))
    assert answer.result.result == R.NO_RESOURCE and 'bundled: sample_arm' in \
        answer.result.error_message
    notes = tmp_path / 'notes.txt'
    notes.write_text('hello')
    answer = spawn(api, 'a', str(notes))
    assert answer.result.result == R.UNSUPPORTED_FORMAT
    answer = spawn(api, 'a', text='just words')
    assert answer.result.result == R.UNSUPPORTED_FORMAT
    broken = tmp_path / 'broken.body'
    broken.write_text('format: ChoreonoidBody\nformatVersion: 2.0\nlinks: [')
    answer = spawn(api, 'a', f'file://{broken}')
    assert answer.result.result == R.RESOURCE_PARSE_ERROR
    assert str(broken) in answer.result.error_message
    answer = spawn(api, 'a', BOX, entity_namespace='bad name')
    assert answer.result.result == R.NAMESPACE_INVALID
    answer = spawn(api, 'a', BOX, entity_namespace='ok/9bad')
    assert answer.result.result == R.NAMESPACE_INVALID
    answer = spawn(api, 'a', BOX, entity_namespace='/')
    assert answer.result.result == R.NAMESPACE_INVALID
    answer = spawn(api, 'a', BOX, quat=(1.0, 0.1, 0.0, 0.0))
    assert answer.result.result == R.INVALID_POSE
    assert answer.result.error_message.startswith('initial_pose: the orientation')
    answer = spawn(api, 'a', BOX, frame='nobody')
    assert answer.result.result == R.INVALID_POSE
    answer = spawn(api, 'a', BOX, pose=(math.nan, 0.0, 0.0))
    assert answer.result.result == R.INVALID_POSE
    assert list(api.control.entities) == ['arm'] and api.control.runner.world.prefixes == ['']


def test_a_spawn_without_a_world_or_timing_out_fails_and_is_warned_about(api, monkeypatch):
    said = []
    monkeypatch.setattr(api.spawn.node, 'get_logger', lambda: SimpleNamespace(warning=said.append))
    answer = spawn(api, 'box', BOX, pose=(1.0, 0.0, 0.3))
    assert answer.result.result == OK and said == []
    with monkeypatch.context() as patch:
        patch.setattr(api.control.runner, 'world', None)
        answer = spawn(api, 'crate', BOX)
    assert answer.result.result == Result.RESULT_OPERATION_FAILED
    assert answer.result.error_message == 'no world is loaded (load_world)'
    assert said == ['spawn_entity: no world is loaded (load_world)']

    def late(*args):
        raise TimeoutError('the stepping thread did not answer within 5 s')
    with monkeypatch.context() as patch:
        patch.setattr(api.control, 'spawn', late)
        answer = spawn(api, 'crate', BOX)
    assert (answer.result.result, answer.entity_name) == (Result.RESULT_OPERATION_FAILED, '')
    assert answer.result.error_message == 'the stepping thread did not answer within 5 s'
    assert list(api.control.entities) == ['arm', 'box']


def test_spawn_from_text_bundled_names_and_file_uris(api):
    text = open(BOX, encoding='utf-8').read()
    answer = spawn(api, 'from_text', text=text, pose=(1.0, 0.0, 0.3))
    assert answer.result.result == OK
    source = api.control.entities['from_text'].source
    assert source.endswith('.body') and open(source, encoding='utf-8').read() == text
    # A text whose content says nothing takes the format of the uri given with it.
    # A text whose beginning says nothing takes the format of the uri given with it.
    chrono = '# padding\n' * 500 + (REPO / 'test' / 'data' / 'chrono' / 'pendulum.yaml'
                                    ).read_text(encoding='utf-8')
    assert format_of_text(chrono) is None
    answer = spawn(api, 'pendulum', uri='any.yaml', text=chrono, pose=(2.0, 0.0, 1.0))
    assert answer.result.result == OK
    assert api.control.entities['pendulum'].source.endswith('.yaml')
    answer = spawn(api, 'unknown', uri='any.txt', text=chrono)
    assert answer.result.result == SpawnEntity.Response.UNSUPPORTED_FORMAT
    answer = spawn(api, 'arm2', 'sample_arm', pose=(0.0, 2.0, 0.0))
    assert answer.result.result == OK
    assert api.control.entities['arm2'].category == EntityCategory.CATEGORY_ROBOT
    answer = spawn(api, 'uri_box', f'file://{BOX}', pose=(-1.0, 0.0, 0.3))
    assert answer.result.result == OK and api.control.entities['uri_box'].source == BOX


def test_spawn_entities_answers_each(api):
    request = SpawnEntities.Request(spawn_requests=[
        spawn_request('one', BOX, pose=(1.0, 0.0, 0.3)), spawn_request('1bad', BOX)])
    answer = api.spawn._spawn_many(request, SpawnEntities.Response())
    assert answer.result.result == SpawnEntities.Response.ENTITIES_SPAWN_FAILED
    assert [r.result.result for r in answer.results] == [OK, SpawnEntity.Response.NAME_INVALID]
    assert [r.entity_name for r in answer.results] == ['one', '']
    request = SpawnEntities.Request(spawn_requests=[spawn_request('two', BOX,
                                                                  pose=(2.0, 0.0, 0.3))])
    answer = api.spawn._spawn_many(request, SpawnEntities.Response())
    assert answer.result.result == OK and [r.entity_name for r in answer.results] == ['two']


def test_deleting_what_cannot_be_deleted(api):
    answer = call(api.spawn._delete, DeleteEntity, entity='nope')
    assert answer.result.result == Result.RESULT_NOT_FOUND
    answer = call(api.spawn._delete, DeleteEntity, entity='arm')
    assert answer.result.result == Result.RESULT_OPERATION_FAILED
    assert answer.result.error_message == 'arm holds the world (its first model): it cannot ' \
        'be deleted'
    assert list(api.control.entities) == ['arm']


def test_spawnables_bundled_and_in_folders(api, tmp_path):
    (tmp_path / 'sub').mkdir()
    (tmp_path / 'sub' / 'a.body').write_text('x')
    (tmp_path / 'b.urdf').write_text('x')
    (tmp_path / 'c.xml').write_text('x')
    (tmp_path / 'd.txt').write_text('x')
    answer = call(api.spawn._spawnables, GetSpawnables, sources=[str(tmp_path)])
    assert answer.result.result == OK
    found = {s.entity_resource.uri: s.description for s in answer.spawnables}
    assert found[str(tmp_path / 'b.urdf')] == 'model file'
    assert str(tmp_path / 'sub' / 'a.body') in found
    assert str(tmp_path / 'c.xml') not in found and str(tmp_path / 'd.txt') not in found
    assert 'bundled model sample_arm' in found.values()
    answer = call(api.spawn._spawnables, GetSpawnables, sources=[str(tmp_path / 'none')])
    assert answer.result.result == Result.RESULT_NOT_FOUND
    assert answer.result.error_message == f'{tmp_path / "none"}: no such folder'


@pytest.mark.parametrize('text, ext', [
    ('<?xml version="1.0"?>\n<robot name="r"><link name="a"/></robot>', '.urdf'),
    ('<Robot name="r"><KinBody/></Robot>', '.robot.xml'),
    ('<KinBody name="k"><Body/></KinBody>', '.kinbody.xml'),
    ('<Environment><Robot/></Environment>', '.env.xml'),
    ('<COLLADA version="1.5"/>', '.dae'),
    ('<svg/>', None),
    ('format: ChoreonoidBody\nlinks: []', '.body'),
    ('chrono-version: 10.0\nmodel:\n  name: m', '.yaml'),
    ('just words', None),
])
def test_format_of_text(text, ext):
    assert format_of_text('\n  ' + text) == ext


@pytest.mark.parametrize('message, code', [
    ('/x/a.body: no such file', 'MISSING_ASSETS'),
    ('mesh arm.stl not found', 'MISSING_ASSETS'),
    ('the folder does not exist', 'MISSING_ASSETS'),
    ('/x/a.body:3: expected a mapping', 'RESOURCE_PARSE_ERROR'),
])
def test_load_error_codes(message, code):
    assert load_error_code(ModelError(None, None, message)) == code


# --- entities: finding, state, info, bounds ----------------------------------------------


def names(api, **filters):
    request = GetEntities.Request()
    for key, value in filters.items():
        setattr(request.filters, key, value)
    answer = api.entities._get_entities(request, GetEntities.Response())
    return answer.entities if answer.result.result == OK else answer.result


def test_finding_entities_by_name_category_tags_and_bounds(api):
    spawn(api, 'box', BOX, pose=(3.0, 0.0, 0.3))
    spawn(api, 'crate', BOX, pose=(-3.0, 0.0, 0.3))
    api.control.entities['box'].tags = ['red', 'small']
    api.control.entities['crate'].tags = ['red']
    assert names(api) == ['arm', 'box', 'crate']
    assert names(api, filter='^b') == ['box'] and names(api, filter='x') == ['box']
    robot = EntityCategory(category=EntityCategory.CATEGORY_ROBOT)
    assert names(api, categories=[robot]) == ['arm']
    assert names(api, categories=[EntityCategory(category=0)]) == ['box', 'crate']
    assert names(api, tags=TagsFilter(tags=['red', 'small'])) == ['box', 'crate']
    assert names(api, tags=TagsFilter(tags=['red', 'small'],
                                      filter_mode=TagsFilter.FILTER_MODE_ALL)) == ['box']
    assert names(api, tags=TagsFilter(tags=['blue'])) == []

    def box(a, b):
        return Bounds(type=Bounds.TYPE_BOX, points=[Point(x=a[0], y=a[1], z=a[2]),
                                                    Point(x=b[0], y=b[1], z=b[2])])
    assert names(api, bounds=box((3.5, 1.0, 1.0), (2.5, -1.0, -1.0))) == ['box']
    assert names(api, bounds=box((2.5, -1.0, -1.0), (3.5, 1.0, 1.0))) == ['box']  # either way
    assert names(api, bounds=box((3.5, 1.0, 1.0), (3.4, -1.0, -1.0))) == []
    sphere = Bounds(type=Bounds.TYPE_SPHERE, points=[Point(x=-3.0, y=0.0, z=2.0),
                                                     Point(x=1.8, y=0.0, z=0.0)])
    assert names(api, bounds=sphere) == ['crate']
    sphere.points[1].x = 1.0
    assert names(api, bounds=sphere) == []
    failed = names(api, filter='(')
    assert failed.result == Result.RESULT_OPERATION_FAILED and "filter '('" in \
        failed.error_message
    failed = names(api, bounds=Bounds(type=Bounds.TYPE_BOX, points=[Point()]))
    assert failed.result == Result.RESULT_OPERATION_FAILED
    assert failed.error_message.startswith('bounds filter: a box (two corners)')
    failed = names(api, bounds=Bounds(type=Bounds.TYPE_CONVEX_HULL, points=[Point()] * 4))
    assert failed.result == Result.RESULT_OPERATION_FAILED


def test_entity_states_in_frames(api):
    spawn(api, 'box', BOX, pose=(1.0, 2.0, 0.5))
    call(api.time._step, StepSimulation, steps=25)  # falling for 0.25 s
    state = call(api.entities._get_state, GetEntityState, entity='box')
    assert state.result.result == OK
    s = state.state
    assert s.header.frame_id == 'world'
    assert (s.header.stamp.sec, s.header.stamp.nanosec) == (0, 250_000_000)
    assert (s.pose.position.x, s.pose.position.y) == pytest.approx((1.0, 2.0), abs=1e-6)
    assert s.pose.position.z == pytest.approx(0.5 - 0.5 * 9.81 * 0.25 ** 2, abs=0.01)
    assert s.twist.linear.z == pytest.approx(-9.81 * 0.25, abs=0.02)
    assert s.acceleration.linear.z == pytest.approx(-9.81, abs=0.05)
    assert s.pose.orientation.w == pytest.approx(1.0)
    spawn(api, 'turned', BOX, pose=(-2.0, 0.0, 0.1), quat=(0.0, 0.0, 0.0, 1.0))  # half a turn
    turned = call(api.entities._get_state, GetEntityState, entity='turned').state.pose
    assert (abs(turned.orientation.z), turned.orientation.w) == pytest.approx((1.0, 0.0),
                                                                             abs=1e-6)
    entities = api.entities
    relative = entities._state('box', 'arm')
    arm_pose = frame_pose(api.control, 'arm')
    assert relative.header.frame_id == 'arm'
    assert relative.pose.position.x == pytest.approx(1.0 - arm_pose.pos[0], abs=1e-6)
    assert entities._state('box', '').header.frame_id == 'world'
    answer = call(entities._get_state, GetEntityState, entity='nope')
    assert answer.result.result == Result.RESULT_NOT_FOUND
    request = GetEntitiesStates.Request()
    request.filters.filter = 'o'
    answer = entities._get_states(request, GetEntitiesStates.Response())
    assert answer.result.result == OK and list(answer.entities) == ['box']
    assert answer.states[0].pose.position.y == pytest.approx(2.0, abs=1e-6)
    request.filters.filter = '['
    answer = entities._get_states(request, GetEntitiesStates.Response())
    assert answer.result.result == Result.RESULT_OPERATION_FAILED


def test_a_state_s_stamp_past_a_second_its_turning_and_an_entity_gone_meanwhile(api,
                                                                               monkeypatch):
    import math as m

    from body_bridge.sim.building.entities import entity_state
    tilt = m.radians(30)  # a 0.2 x 0.4 x 0.2 m box set down on an edge (0.187 m below its
    spawn(api, 'tipping', BOX, pose=(0.0, 3.0, 0.19),  # centre), tipping over
          quat=(m.cos(tilt / 2), m.sin(tilt / 2), 0.0, 0.0))
    call(api.time._step, StepSimulation, steps=5)
    state = call(api.entities._get_state, GetEntityState, entity='tipping').state
    own = entity_state(api.control.entities['tipping'].sim)
    a = state.acceleration.angular
    assert np.linalg.norm(own.angular_acc) > 1.0  # [rad/s^2]: it is turning over
    np.testing.assert_allclose((a.x, a.y, a.z), own.angular_acc, atol=1e-9)
    call(api.time._step, StepSimulation, steps=120)
    state = call(api.entities._get_state, GetEntityState, entity='tipping').state
    assert (state.header.stamp.sec, state.header.stamp.nanosec) == (1, 250_000_000)
    monkeypatch.setattr(api.entities, '_state', lambda name: (_ for _ in ()).throw(
        KeyError(f'no entity named {name!r}')))
    request = GetEntitiesStates.Request()
    answer = api.entities._get_states(request, GetEntitiesStates.Response())
    assert answer.result.result == Result.RESULT_NOT_FOUND
    assert answer.result.error_message.startswith('no entity named ')


def test_frames_of_entities_and_their_links(api):
    assert frame_pose(api.control, 'world').is_identity()
    assert frame_pose(api.control, '').is_identity()
    sim = api.control.entities['arm'].sim
    pos, _ = sim.body_pose('elbow_pitch')
    np.testing.assert_allclose(frame_pose(api.control, 'arm/elbow_pitch').pos, pos)
    assert np.linalg.norm(pos) > 0.1
    np.testing.assert_allclose(frame_pose(api.control, 'arm').pos,
                               sim.body_pose(sim.model.root)[0])
    with pytest.raises(KeyError, match="arm has no link 'elbow_nope'"):
        frame_pose(api.control, 'arm/elbow_nope')
    with pytest.raises(KeyError, match='no entity'):
        frame_pose(api.control, 'nobody/base')


def test_pose_of_checks_values_and_the_quaternion():
    from geometry_msgs.msg import Pose as PoseMsg
    msg = PoseMsg()
    msg.position.x, msg.position.y, msg.position.z = 1.0, 2.0, 3.0
    msg.orientation.w, msg.orientation.z = math.cos(0.25), math.sin(0.25)
    pose = pose_of(msg)
    np.testing.assert_allclose(pose.pos, [1.0, 2.0, 3.0])
    np.testing.assert_allclose(pose.quat(), [math.cos(0.25), 0, 0, math.sin(0.25)])
    msg.orientation.w *= 1.0009  # within 0.001 of a unit quaternion
    pose_of(msg)
    msg.orientation.w = math.cos(0.25) * 1.0 + 0.0011 / math.cos(0.25)
    with pytest.raises(ValueError, match='not a unit quaternion'):
        pose_of(msg)
    msg.orientation.w = 0.99
    msg.orientation.z = 0.0
    with pytest.raises(ValueError, match=r'its norm is 0\.99'):
        pose_of(msg)
    for field in ('x', 'y', 'z'):
        msg = PoseMsg()
        setattr(msg.position, field, math.inf)
        with pytest.raises(ValueError, match='not finite'):
            pose_of(msg)
        msg = PoseMsg()
        setattr(msg.orientation, field, math.nan)
        with pytest.raises(ValueError, match='not finite'):
            pose_of(msg)


def set_entity(api, name, pose=None, twist=None, frame='', acceleration=False):
    request = SetEntityState.Request(entity=name)
    request.state.header.frame_id = frame
    if pose is not None:
        request.set_pose = True
        p = request.state.pose.position
        p.x, p.y, p.z = pose
        request.state.pose.orientation.w = 1.0
    if twist is not None:
        request.set_twist = True
        t = request.state.twist
        (t.linear.x, t.linear.y, t.linear.z, t.angular.x, t.angular.y, t.angular.z) = twist
    request.set_acceleration = acceleration
    return api.entities._set_state(request, SetEntityState.Response()).result


def test_setting_entity_states_and_what_is_refused(api):
    spawn(api, 'box', BOX, pose=(1.0, 0.0, 0.3))
    assert set_entity(api, 'box', pose=(0.5, 0.5, 1.0), twist=(1, 0, 0, 0, 0, 2)).result == OK
    sim = api.control.entities['box'].sim
    np.testing.assert_allclose(sim.body_pose(sim.model.root)[0], [0.5, 0.5, 1.0], atol=1e-9)
    state = api.entities._state('box')
    assert (state.twist.linear.x, state.twist.angular.z) == pytest.approx((1.0, 2.0))
    # In the frame of another entity: its pose composed, the twist turned into world axes.
    assert set_entity(api, 'box', pose=(0.0, 0.0, 2.0), twist=(0, 1, 0, 0, 0, 0),
                      frame='arm').result == OK
    arm = frame_pose(api.control, 'arm')
    np.testing.assert_allclose(sim.body_pose(sim.model.root)[0], arm.pos + arm.rot @ [0, 0, 2],
                               atol=1e-9)
    np.testing.assert_allclose(api.entities._state('box').twist.linear.y, arm.rot[1, 1],
                               atol=1e-9)
    assert set_entity(api, 'nope', pose=(0, 0, 0)).result == Result.RESULT_NOT_FOUND
    assert set_entity(api, 'box', pose=(0, 0, 0), frame='nope').result == \
        Result.RESULT_NOT_FOUND
    answer = set_entity(api, 'box', pose=(math.nan, 0, 0))
    assert answer.result == SetEntityState.Response.INVALID_POSE
    assert answer.error_message.startswith('box: ')
    answer = set_entity(api, 'box', twist=(0, 0, 0, 0, math.inf, 0))
    assert answer.result == SetEntityState.Response.INVALID_POSE
    assert answer.error_message == 'box: the twist has a value that is not finite'
    answer = set_entity(api, 'box', pose=(0, 0, 1), acceleration=True)
    assert answer.result == Result.RESULT_FEATURE_UNSUPPORTED
    answer = set_entity(api, 'arm', twist=(1, 0, 0, 0, 0, 0))
    assert answer.result == Result.RESULT_OPERATION_FAILED and 'fixed' in answer.error_message
    np.testing.assert_allclose(sim.body_pose(sim.model.root)[0], arm.pos + arm.rot @ [0, 0, 2],
                               atol=1e-9)


def test_info_and_bounds(api):
    spawn(api, 'box', BOX, pose=(1.0, 0.0, 0.3))
    info = call(api.entities._get_info, GetEntityInfo, entity='box')
    assert info.result.result == OK and info.info.category.category == 0
    assert info.info.description == f'{api.control.entities["box"].sim.model.name} from {BOX}'
    assert list(info.info.tags) == []
    request = SetEntityInfo.Request(entity='box')
    request.info.category.category = EntityCategory.CATEGORY_OBJECT
    request.info.description = 'a crate'
    request.info.tags = ['red']
    assert api.entities._set_info(request, SetEntityInfo.Response()).result.result == OK
    info = call(api.entities._get_info, GetEntityInfo, entity='box').info
    assert (info.category.category, info.description, list(info.tags)) == \
        (EntityCategory.CATEGORY_OBJECT, 'a crate', ['red'])
    request.entity = 'nope'
    assert api.entities._set_info(request, SetEntityInfo.Response()).result.result == \
        Result.RESULT_NOT_FOUND
    assert call(api.entities._get_info, GetEntityInfo, entity='nope').result.result == \
        Result.RESULT_NOT_FOUND
    bounds = call(api.entities._get_bounds, GetEntityBounds, entity='box')
    assert bounds.result.result == OK and bounds.bounds.type == Bounds.TYPE_BOX
    lower, upper = ([p.x, p.y, p.z] for p in bounds.bounds.points)
    np.testing.assert_allclose(np.add(lower, upper), 0.0, atol=1e-9)  # about the root link
    assert all(u > 0 for u in upper)
    assert call(api.entities._get_bounds, GetEntityBounds, entity='nope').result.result == \
        Result.RESULT_NOT_FOUND


# --- serving -----------------------------------------------------------------------------


def test_serve_world_without_a_world_or_without_the_interfaces(ros, monkeypatch):
    import sys

    import rclpy.logging
    said = []
    monkeypatch.setattr(rclpy.logging, 'get_logger', lambda name: SimpleNamespace(
        warning=lambda text: said.append(f'[{name}] {text}')))
    assert serve_world(None, None, '/') is None and said == []
    monkeypatch.setitem(sys.modules, 'simulation_interfaces.srv', None)
    assert serve_world(object(), None, '/') is None
    tank = SimpleNamespace(get_logger=lambda: rclpy.logging.get_logger('robots.tank.body_bridge'))
    assert serve_world(SimpleNamespace(nodes=[tank]), None, '/') is None  # the node's logger
    assert said == [f'[{name}] simulation_interfaces is not installed: the simulator API is not '
                    'served' for name in ('body_bridge', 'robots.tank.body_bridge')]


def test_the_world_services_are_the_world_node_s_and_answer_over_dds(api):
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from simulation_interfaces.srv import GetSimulationState
    served = {s.srv_name for s in api.node.services}
    assert {'load_world', 'unload_world', 'get_current_world', 'get_available_worlds',
            'get_named_poses', 'get_named_pose_bounds'} <= served
    client_node = rclpy.create_node('asker', context=api.node.context)
    try:
        client = client_node.create_client(GetSimulationState, '/lab/get_simulation_state')
        assert client.wait_for_service(timeout_sec=10.0)
        future = client.call_async(GetSimulationState.Request())
        executor = SingleThreadedExecutor(context=api.node.context)
        executor.add_node(client_node)
        executor.spin_until_future_complete(future, timeout_sec=10.0)
        assert future.result().state.state == St.STATE_PAUSED
    finally:
        client_node.destroy_node()


def test_the_world_node_and_spawned_ones_ignore_the_process_s_remappings(tmp_path, monkeypatch):
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter
    from body_bridge.ros.node.node import BridgeNode
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'cache'))
    context = rclpy.Context()
    rclpy.init(args=['bridge', '--ros-args', '-r', '__node:=renamed'], context=context)
    try:
        node = BridgeNode(namespace='/lab/arm', context=context, use_global_arguments=False,
                          parameter_overrides=[Parameter('start_paused', value=True),
                                               Parameter('mesh_directory', value=str(tmp_path))])
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        world = serve_world(node.runner, executor, '/lab')
        try:
            assert world.node.context is context  # the world's, not rclpy's default one
            assert world.node.get_name() == 'sim'
            assert spawn(world, 'box', BOX, pose=(1.0, 0.0, 0.3)).result.result == OK
            assert world.control.entities['box'].node.get_name() == 'body_bridge'
        finally:
            world.stop()
            executor.shutdown(timeout_sec=1.0)
            node.destroy_node()
    finally:
        rclpy.shutdown(context=context)


def test_the_world_node_s_thread_raises_only_while_ros_is_up(api):
    def broken():
        raise RuntimeError('the executor broke')
    executor, node = api._executor, api.node
    try:
        api._executor = SimpleNamespace(spin=broken)
        with pytest.raises(RuntimeError, match='the executor broke'):
            api._spin()
        api.node = SimpleNamespace(context=SimpleNamespace(ok=lambda: False))
        api._spin()  # ROS went down while it waited: it ends quietly
    finally:
        api._executor, api.node = executor, node


def test_stopping_the_api_ends_its_thread_and_the_world_s_stepping(api):
    assert api._thread.daemon and api._thread.is_alive()  # never holds the process open
    runner = api.control.runner
    api.stop()
    api.stopped_by_the_test = True
    assert not api._thread.is_alive()
    assert runner._thread is None and not runner._running


SERVICES = {'get_simulator_features', 'get_simulation_state', 'set_simulation_state',
            'step_simulation', 'reset_simulation', 'get_entities', 'get_entities_states',
            'get_entity_state', 'set_entity_state', 'get_entity_info', 'set_entity_info',
            'get_entity_bounds', 'spawn_entity', 'spawn_entities', 'delete_entity',
            'get_spawnables'}


def test_services_and_the_action_are_the_world_node_s(api):
    # Their names over DDS are checked in test_simapi_e2e.py (a graph query here depends on
    # discovery timing under load).
    node = api.node
    assert node.get_namespace() == '/lab' and node.get_name() == 'sim'
    ours = api.time.services + api.entities.services + api.spawn.services
    assert {s.srv_name for s in ours} == SERVICES and len(ours) == len(SERVICES)
    assert all(s in list(node.services) for s in ours)
    assert api.time.action._action_type is SimulateSteps
    assert api.time.action in list(node.waitables)


def test_the_world_node_spins_in_its_own_thread(api):
    assert api._thread.is_alive() and api._thread.name == 'body_bridge_simapi'
    task = api._executor.create_task(lambda: 42)
    end = time.monotonic() + 10.0
    while not task.done() and time.monotonic() < end:
        time.sleep(0.01)
    assert task.done() and task.result() == 42


def test_a_deleted_model_s_node_is_retired_from_the_executor(api):
    spawn(api, 'box', BOX, pose=(1.0, 0.0, 0.3))
    node = api.control.entities['box'].node
    assert node in api._main.get_nodes()
    started = time.monotonic()
    call(api.spawn._delete, DeleteEntity, entity='box')
    assert node not in api._main.get_nodes()
    assert time.monotonic() - started < 3.0  # the executor took its turns, no time-out


def test_stopping_destroys_the_world_node_and_the_spawned_ones(api):
    from rclpy.exceptions import InvalidHandle
    spawn(api, 'box', BOX, pose=(1.0, 0.0, 0.3))
    box, arm = api.control.entities['box'].node, api.control.entities['arm'].node
    files = api.control._files.name
    api.stop()
    api.stopped_by_the_test = True
    assert not api._thread.is_alive()
    for node in (api.node, box):
        with pytest.raises(InvalidHandle):
            node.get_name()
    assert arm.get_name() == 'body_bridge'  # the bridge's own node is its owner's to destroy
    import os
    assert not os.path.exists(files)


def test_a_deleted_model_s_node_is_destroyed_after_two_turns_of_the_executor(api, monkeypatch):
    spawn(api, 'box', BOX, pose=(1.0, 0.0, 0.3))
    node = api.control.entities['box'].node
    turns, seen = [], []
    create_task = api._main.create_task

    def counted(work):
        turns.append(create_task(work))
        return turns[-1]
    monkeypatch.setattr(api._main, 'create_task', counted)
    destroy = node.destroy_node
    monkeypatch.setattr(node, 'destroy_node',
                        lambda: (seen.append([t.done() for t in turns]), destroy())[1])
    call(api.spawn._delete, DeleteEntity, entity='box')
    assert seen == [[True, True]]  # out of the executor, which turned twice without it
