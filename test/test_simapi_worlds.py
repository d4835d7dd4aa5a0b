"""The simulator API's world services and named poses (ros/simapi/worlds.py) in this process:
a running world's models all replaced by a world file's, time going on, every refusal with
its code and the world left as it was; worlds listed and filtered; named poses and bounds."""

from types import SimpleNamespace

import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # rclpy nodes in this process (no other process)
pytest.importorskip('rclpy', reason=ROS_MISSING)
pytest.importorskip('simulation_interfaces', reason='simulation_interfaces is not built here')

from rclpy.parameter import Parameter
from simulation_interfaces.msg import Bounds, Result, TagsFilter
from simulation_interfaces.srv import (GetAvailableWorlds, GetCurrentWorld, LoadWorld,
                                       UnloadWorld)

from body_bridge.errors import ModelError
from body_bridge.paths import bundled_worlds
from body_bridge.ros.node.node import BridgeNode
from body_bridge.ros.node.runner import SimulationRunner
from body_bridge.ros.simapi.world_control import WorldControl
from body_bridge.ros.simapi.worlds import WorldServices, bounds_message, tags_match

from conftest import REPO, SAMPLE_ARM

BOX = REPO / 'test' / 'data' / 'choreonoid' / 'box.body'
ARM_PAIR = bundled_worlds()['arm_pair']
S = Parameter.Type.STRING


class Api:
    """The world services over a running sample arm, their callbacks called directly."""

    def __init__(self, named_poses='', world_sources=''):
        self.made, self.retired, self.added, self.warnings, self.infos = [], [], [], [], []
        first = self.make_node(str(SAMPLE_ARM), '/t/arm', 'arm/', [
            Parameter('named_poses', S, named_poses),
            Parameter('world_sources', S, world_sources)])
        self.runner = SimulationRunner([first])
        self.control = WorldControl(self.runner, self.added.append, None, '/t', 1)
        self.time = SimpleNamespace(stopped=False)
        self.services = {}
        logger = SimpleNamespace(warning=self.warnings.append, info=self.infos.append)
        node = SimpleNamespace(create_service=self._service, get_logger=lambda: logger)
        self.worlds = WorldServices(node, self.control, self.time, self.make_node,
                                    self.retire, None, 'arm=sample_arm')

    def make_node(self, path, namespace, prefix, overrides=()):
        node = BridgeNode(shared=True, namespace=namespace, use_global_arguments=False,
                          parameter_overrides=[Parameter('model', S, path), *overrides],
                          defaults={'frame_prefix': prefix})
        self.made.append(node)
        published, publish = [], node.publish_period
        node.publish_period = lambda: published.append(publish())
        node.published = published
        return node

    def retire(self, node):
        self.retired.append(node)
        node.destroy_node()

    def _service(self, srv, name, callback):
        self.services[name] = (srv, callback)
        return name

    def call(self, service, **fields):
        srv, callback = self.services[service]
        return callback(srv.Request(**fields), srv.Response())

    def load(self, uri='', text='', **fields):
        request = LoadWorld.Request(**fields)
        request.world_resource.uri, request.world_resource.resource_string = uri, text
        return self.services['load_world'][1](request, LoadWorld.Response())

    def close(self):
        for node in self.made:
            node.destroy_node()


@pytest.fixture
def api(ros):
    made = []

    def make(**kwargs):
        made.append(Api(**kwargs))
        return made[-1]
    yield make
    for a in made:
        a.close()


def test_a_world_file_replaces_every_model_and_time_goes_on(api):
    a = api()
    runner, arm = a.runner, a.runner.nodes[0]
    runner.set_paused(True)
    for _ in range(7):
        assert runner.step_once()
    current = a.call('get_current_world')
    assert current.result.result == Result.RESULT_OK and current.world.name == 'command_line'
    assert current.world.description == 'the models the bridge was started with: arm=sample_arm'
    runner.set_paused(False)
    answer = a.load(uri=f'file://{ARM_PAIR}')
    assert answer.result.result == Result.RESULT_OK, answer.result.error_message
    assert answer.world.name == 'arm_pair' and answer.world.world_resource.uri == ARM_PAIR
    assert list(answer.world.tags) == ['demo', 'arms']
    assert runner.paused and a.time.stopped
    assert a.infos == ['load_world: arm_pair loaded: left, right'] and a.warnings == []
    assert runner.world.time == pytest.approx(0.07)
    left, right = runner.nodes
    assert a.retired == [arm] and a.added == [left, right]
    assert left.get_namespace() == '/t/left' and left.prefix == 'left/'
    assert right.sim.prefix == 'right/' and left.sim.prefix == ''
    assert left.sim.body_pose(left.model.root)[0] == pytest.approx([0, -0.4, 0])
    assert right.sim.body_pose(right.model.root)[0] == pytest.approx([0, 0.4, 0])
    assert right.params['control_rate'] == 100.0 and right.params['initial_pose'] == \
        pytest.approx([0, 0.4, 0, 0, 0, -1.5707963267948966])
    entities = a.control.entities
    assert list(entities) == ['left', 'right'] and entities['left'].node is left
    assert entities['left'].category == 1 and entities['left'].tags == ['arm']
    assert entities['right'].description == 'the arm on the right, facing -y'
    assert not entities['left'].spawned and entities['left'].source == left.params['model']
    assert a.call('get_current_world').world.name == 'arm_pair'
    assert [len(n.published) for n in (left, right)] == [1, 1]  # the initial state at once
    clocks = [[p.topic_name for p in n.publishers].count('/clock') for n in (left, right)]
    assert clocks == [1, 0]  # the world's first model publishes /clock
    assert left.published[0].sec == 0 and left.published[0].nanosec == 70_000_000
    assert runner.real_time_factor == 1.0
    assert runner.step_once() and runner.world.time == pytest.approx(0.08)
    poses = a.call('get_named_poses').poses
    assert [p.name for p in poses] == ['between', 'aside']


def test_unloading_leaves_no_world_and_a_later_load_goes_on_in_time(api):
    a = api()
    slow = a.load(text='models: [{file: sample_arm}]\nsettings: {control_rate: 50}')
    assert slow.result.result == Result.RESULT_OK and a.runner.period == pytest.approx(0.02)
    for _ in range(3):
        a.runner.step_once()
    assert a.call('unload_world').result.result == Result.RESULT_OK
    assert a.runner.period == pytest.approx(0.02)  # the last world's, for the features
    assert a.runner.world is None and a.runner.nodes == [] and a.control.entities == {}
    assert not a.time.stopped and not a.runner.step_once()
    again = a.call('unload_world')
    assert again.result.result == UnloadWorld.Response.NO_WORLD_LOADED
    assert a.call('get_current_world').result.result == GetCurrentWorld.Response.NO_WORLD_LOADED
    assert a.call('get_named_poses').poses == []
    answer = a.load(uri='arm_pair')  # a bundled world by its name
    assert answer.result.result == Result.RESULT_OK
    assert a.runner.world.time == pytest.approx(0.06) and len(a.runner.nodes) == 2
    assert a.runner.period == pytest.approx(0.01)


def world_text(models, extra=''):
    return 'world: w\nmodels:\n' + ''.join(f'  - {m}\n' for m in models) + extra


@pytest.mark.parametrize('uri, text, fields, code, message', [
    ('', '', {}, LoadWorld.Response.NO_RESOURCE, 'neither uri nor resource_string'),
    (str(BOX), '', {}, LoadWorld.Response.UNSUPPORTED_FORMAT, 'not a world file'),
    ('/nowhere/x.world.yaml', '', {}, Result.RESULT_NOT_FOUND, 'x.world.yaml: no such file'),
    ('', 'models: [', {}, LoadWorld.Response.RESOURCE_PARSE_ERROR,
     'resource_string:2: invalid YAML'),
    ('', world_text(['{file: sample_arm}'], 'gravity: 1\n'),
     {'fail_on_unsupported_element': True}, LoadWorld.Response.UNSUPPORTED_ELEMENTS,
     "resource_string:1: the world file: unknown key 'gravity'"),
    ('', world_text(['{file: sample_arm}', '{file: /nowhere/gone.body, name: gone}']), {},
     LoadWorld.Response.MISSING_ASSETS, 'resource_string:4: model gone: /nowhere/gone.body: '
     'no such file'),
    ('', world_text([f'{{file: {REPO / "README.md"}}}']), {},
     LoadWorld.Response.UNSUPPORTED_ASSETS, 'README.md: not a model format read here'),
    ('', world_text([f'{{file: {REPO / "test" / "data" / "choreonoid" / "box.body"}}}',
                     f'{{file: {REPO / "setup.cfg"}, name: cfg}}']),
     {'ignore_missing_or_unsupported_assets': True}, Result.RESULT_OK,
     'model cfg left out: '),
])
def test_each_refusal_has_its_code_and_leaves_the_world(api, uri, text, fields, code, message):
    a = api()
    before = list(a.runner.nodes)
    answer = a.load(uri=uri, text=text, **fields)
    assert answer.result.result == code
    assert message in answer.result.error_message and '\n' not in answer.result.error_message
    if code == Result.RESULT_OK:
        assert [e for e in a.control.entities] == ['box'] and a.retired == before
        assert a.control.entities['box'].category == 0  # no moving joint: an object
        assert a.call('get_current_world').world.name == 'w'
    else:
        assert a.runner.nodes == before and a.retired == [] and list(a.control.entities) == \
            ['arm'] and not a.time.stopped
        assert a.warnings == [f'load_world: {answer.result.error_message}']


def test_a_model_that_does_not_load_refuses_the_world(api, tmp_path):
    bad = tmp_path / 'bad.body'
    bad.write_text('format: ChoreonoidBody\nformatVersion: 2.0\nlinks: 3\n')
    a = api()
    answer = a.load(text=world_text(['{file: sample_arm}', f'{{file: {bad}}}']))
    assert answer.result.result == LoadWorld.Response.RESOURCE_PARSE_ERROR
    assert answer.result.error_message.startswith(f'model bad: {bad}:')
    assert a.runner.nodes[0].model.name == 'sample_arm' and list(a.control.entities) == ['arm']
    made = a.made[1:]  # the world's first model was made, then destroyed with the refusal
    assert len(made) == 1 and list(made[0].publishers) == []
    missing = a.load(text=world_text([f'{{file: {bad}}}']),
                     ignore_missing_or_unsupported_assets=True)
    assert missing.result.result == LoadWorld.Response.RESOURCE_PARSE_ERROR


def test_unknown_keys_are_ignored_with_a_warning_unless_asked(api):
    a = api()
    answer = a.load(text=world_text(['{file: sample_arm, colour: red}'],
                                    'settings: {real_time_factor: 0}\n'))
    assert a.runner.real_time_factor == 0.0 and a.runner.nodes[0].params['real_time_factor'] == 0
    assert answer.result.result == Result.RESULT_OK and answer.result.error_message == ''
    assert a.warnings[0].startswith("load_world: resource_string:3: models[0]: unknown key "
                                    "'colour'")


def test_available_worlds_from_the_bundle_a_parameter_and_a_request(api, tmp_path):
    own = tmp_path / 'own'
    (own / 'deep').mkdir(parents=True)
    (own / 'deep' / 'yard.world.yaml').write_text(
        'world: yard\ndescription: outdoors\ntags: [outdoor, demo]\nmodels: [{file: sample_arm}]')
    (own / 'model.body').write_text(BOX.read_text())
    extra = tmp_path / 'extra'
    extra.mkdir()
    (extra / 'bad.world.yaml').write_text('models: 3')
    a = api(world_sources=str(own))

    def ask(sources=(), tags=(), mode=0, go_on=False):
        answer = a.call('get_available_worlds', additional_sources=list(sources),
                        filter=TagsFilter(tags=list(tags), filter_mode=mode),
                        continue_on_error=go_on)
        return answer.result.result, answer.result.error_message, \
            [w.name for w in answer.worlds]
    assert ask() == (Result.RESULT_OK, '', ['arm_pair', 'yard'])
    yard = a.call('get_available_worlds').worlds[1]
    assert yard.description == 'outdoors' and list(yard.tags) == ['outdoor', 'demo']
    assert yard.world_resource.uri == str(own / 'deep' / 'yard.world.yaml')
    assert ask(tags=['outdoor'])[2] == ['yard']
    assert ask(tags=['outdoor', 'arms'])[2] == ['arm_pair', 'yard']
    assert ask(tags=['outdoor', 'arms'], mode=TagsFilter.FILTER_MODE_ALL)[2] == []
    assert ask(tags=['outdoor', 'demo'], mode=TagsFilter.FILTER_MODE_ALL)[2] == ['yard']
    code, message, names = ask([f'file://{extra}'])
    assert code == Result.RESULT_OPERATION_FAILED and names == []
    assert message == f'{extra}/bad.world.yaml:1: models must be a list, not int 3'
    code, message, names = ask([str(tmp_path / 'none')])
    assert (code, names) == (Result.RESULT_NOT_FOUND, [])
    assert message == f'{tmp_path}/none: no such folder'
    code, message, names = ask([str(tmp_path / 'none'), str(extra)], go_on=True)
    assert code == Result.RESULT_OK and names == ['arm_pair', 'yard']
    assert message.startswith(f'left out: {tmp_path}/none: no such folder; {extra}/bad')
    code, message, names = ask([str(tmp_path / 'none')], tags=['nothing'], go_on=True)
    assert code == Result.RESULT_NOT_FOUND and names == []
    gone = api(world_sources=f'{tmp_path / "gone"}, {own}')
    answer = gone.call('get_available_worlds')
    assert answer.result.result == GetAvailableWorlds.Response.DEFAULT_SOURCES_FAILED
    assert answer.result.error_message == f'{tmp_path}/gone: no such folder'
    answer = gone.call('get_available_worlds', additional_sources=[str(extra)])
    assert answer.result.result == GetAvailableWorlds.Response.DEFAULT_SOURCES_FAILED


def test_named_poses_of_the_parameter_and_of_the_world_with_their_bounds(api):
    a = api(named_poses='[{name: dock, pose: [1, 2, 0, 0, 0, 1.5707963267948966], '
                        'tags: [parking], description: the dock}, '
                        '{name: aside, pose: [5, 0, 0], bounds: {sphere: [0.5, [0, 0, 1]]}}]')
    poses = a.call('get_named_poses').poses
    assert [p.name for p in poses] == ['dock', 'aside']
    dock = poses[0]
    assert dock.description == 'the dock' and list(dock.tags) == ['parking']
    assert (dock.pose.position.x, dock.pose.position.y, dock.pose.position.z) == (1, 2, 0)
    q = dock.pose.orientation
    assert (q.w, q.x, q.y, q.z) == pytest.approx((0.5 ** 0.5, 0, 0, 0.5 ** 0.5))
    assert a.load(uri='arm_pair').result.result == Result.RESULT_OK
    names = [p.name for p in a.call('get_named_poses').poses]
    assert names == ['between', 'aside', 'dock']  # the parameter's aside over the world's
    assert a.call('get_named_poses', tags=TagsFilter(tags=['spawn'])).poses[0].name == 'between'
    assert [p.name for p in a.call('get_named_poses', tags=TagsFilter(
        tags=['spawn', 'parking'])).poses] == ['between', 'dock']
    assert a.call('get_named_poses', tags=TagsFilter(
        tags=['spawn', 'parking'], filter_mode=TagsFilter.FILTER_MODE_ALL)).poses == []
    box = a.call('get_named_pose_bounds', name='between')
    assert box.result.result == Result.RESULT_OK and box.bounds.type == Bounds.TYPE_BOX
    assert [(p.x, p.y, p.z) for p in box.bounds.points] == [(-0.1, -0.1, -0.1), (0.1, 0.1, 0.2)]
    sphere = a.call('get_named_pose_bounds', name='aside').bounds
    assert sphere.type == Bounds.TYPE_SPHERE
    assert [(p.x, p.y, p.z) for p in sphere.points] == [(0, 0, 1), (0.5, 0, 0)]
    free = a.call('get_named_pose_bounds', name='dock')
    assert free.result.result == Result.RESULT_OK and free.bounds.type == Bounds.TYPE_EMPTY
    assert list(free.bounds.points) == []
    none = a.call('get_named_pose_bounds', name='nowhere')
    assert none.result.result == Result.RESULT_NOT_FOUND
    assert none.result.error_message == "no named pose 'nowhere' (named poses: between, aside, " \
        "dock)"


def test_a_bad_named_poses_parameter_is_one_line(ros):
    with pytest.raises(ModelError, match=r"^parameter named_poses:1: named_poses\[0\].pose "
                                         r"must be \[x, y, z\]"):
        Api(named_poses='[{name: a, pose: [1]}]')


def test_tags_and_bounds_helpers():
    assert tags_match([], TagsFilter()) and tags_match(['a'], TagsFilter())
    assert not tags_match([], TagsFilter(tags=['a']))
    assert tags_match(['a'], TagsFilter(tags=['a', 'b']))
    assert not tags_match(['a'], TagsFilter(tags=['a', 'b'], filter_mode=1))
    assert tags_match(['b', 'a', 'c'], TagsFilter(tags=['a', 'b'], filter_mode=1))
    assert tags_match([], TagsFilter(filter_mode=1))
    assert bounds_message(None).type == Bounds.TYPE_EMPTY


@pytest.mark.parametrize('error, code', [
    (TimeoutError('the simulation did not take the change within 30 s'),
     Result.RESULT_OPERATION_FAILED),
    (ModelError('/x.body', None, 'the integrator cannot build the model: bad'),
     LoadWorld.Response.RESOURCE_PARSE_ERROR),
])
def test_a_world_the_simulation_does_not_take_leaves_the_old_one(api, error, code):
    a = api()
    before = list(a.runner.nodes)

    def refuse(work):
        raise error
    a.runner.call = refuse
    answer = a.load(uri='arm_pair')
    assert answer.result.result == code and answer.result.error_message == str(error)
    assert a.runner.nodes == before and a.retired == [] and a.added == []
    made = [n for n in a.made if n not in before]
    assert len(made) == 2 and all(list(n.publishers) == [] for n in made)  # destroyed
    assert list(before[0].publishers) != []
    assert list(a.control.entities) == ['arm'] and not a.time.stopped
    assert a.call('get_current_world').world.name == 'command_line'
    if isinstance(error, TimeoutError):
        gone = a.call('unload_world')
        assert gone.result.result == Result.RESULT_OPERATION_FAILED
        assert a.runner.world is not None and list(a.control.entities) == ['arm']


def test_a_model_whose_mesh_is_missing_is_left_out_only_if_asked(api, tmp_path):
    meshed = tmp_path / 'meshed.urdf'
    meshed.write_text('<robot name="m"><link name="m"><inertial><mass value="1"/><inertia '
                      'ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>'
                      '<visual><geometry><mesh filename="gone.stl"/></geometry></visual>'
                      '</link></robot>')
    a = api()
    text = world_text(['{file: sample_arm, name: arm2}', f'{{file: {meshed}}}'])
    refused = a.load(text=text)
    assert refused.result.result == LoadWorld.Response.MISSING_ASSETS
    assert refused.result.error_message == f'model meshed: {tmp_path}/gone.stl: mesh file not ' \
        'found'
    assert list(a.control.entities) == ['arm']
    answer = a.load(text=text, ignore_missing_or_unsupported_assets=True)
    assert answer.result.result == Result.RESULT_OK
    assert answer.result.error_message == f'model meshed left out: {tmp_path}/gone.stl: mesh ' \
        'file not found'
    assert list(a.control.entities) == ['arm2'] and answer.world.world_resource.uri == ''
    alone = a.load(text=world_text([f'{{file: {meshed}}}']),
                   ignore_missing_or_unsupported_assets=True)
    assert alone.result.result == LoadWorld.Response.MISSING_ASSETS
    assert alone.result.error_message == 'resource_string: no model of the world loads'
