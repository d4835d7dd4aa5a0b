"""Parameters set while the bridge runs (ros/node/settable.py), the check of a model before a
reload (ros/node/reload.py) and the model choices made from parameters (ros/node/model_choices.py), in
this process on a node stand-in that holds the parameters. ``ros2 param set`` and
``~/reload`` on a running bridge are in test_runtime_params.py and test_hostile_reload.py."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from body_bridge.errors import ParameterError
from body_bridge.ros.node import reload as reload_module
from body_bridge.ros.node.model_choices import apply_model_choices
from body_bridge.ros.node.params import PARAMETERS
from body_bridge.ros.node.reload import reload_problem
from body_bridge.ros.node.settable import on_set_parameters
from body_bridge.sim.building.options import SimOptions

from conftest import REPO, SAMPLE_ARM
from test_drive_units import _cart

BOX = str(REPO / 'test' / 'data' / 'choreonoid' / 'box.body')


class Node:
    """What the node gives these modules: its parameters, groups of them, warnings."""

    def __init__(self, tmp_path, groups=None, **params):
        self.params = {name: default for name, (default, _, _) in PARAMETERS.items()}
        self.params.update({'mesh_directory': str(tmp_path), **params})
        self.groups = groups or {}
        self.warnings, self.restarts = [], []
        self.runner = SimpleNamespace(nodes=[self], real_time_factor=1.0)

    def get_parameters_by_prefix(self, prefix):
        return {rest: SimpleNamespace(value=value) for rest, value in
                self.groups.get(prefix, {}).items()}

    def get_fully_qualified_name(self):
        return '/arm/body_bridge'

    def warn_throttled(self, text):
        self.warnings.append(text)

    def request_restart(self, spec):
        self.restarts.append(spec)

    def sim_options(self):
        return SimOptions()


def param(name, value):
    return SimpleNamespace(name=name, value=value)


def answer(node, *parameters):
    result = on_set_parameters(node, list(parameters))
    return result.successful, result.reason


def test_real_time_factor_paces_the_world(tmp_path):
    node = Node(tmp_path)
    assert answer(node, param('real_time_factor', 0.5)) == (True, '')
    assert node.runner.real_time_factor == 0.5 and node.params['real_time_factor'] == 0.5
    assert answer(node, param('real_time_factor', 0)) == (True, '')
    assert node.runner.real_time_factor == 0.0 and type(node.params['real_time_factor']) is float


@pytest.mark.parametrize('value', [-0.5, math.nan, math.inf, True, 'fast', None])
def test_a_bad_real_time_factor_is_refused_and_the_pace_kept(tmp_path, value):
    node = Node(tmp_path)
    assert answer(node, param('real_time_factor', value)) == (
        False, f'real_time_factor must be 0 or a positive number, not {value!r}')
    assert node.runner.real_time_factor == 1.0


def test_real_time_factor_is_the_first_node_s_of_a_world(tmp_path):
    node, first = Node(tmp_path), Node(tmp_path)
    node.runner.nodes = [first, node]
    assert answer(node, param('real_time_factor', 2.0)) == (
        False, "real_time_factor is the world's: set it on /arm/body_bridge")
    node.runner = None
    assert answer(node, param('real_time_factor', 2.0)) == (
        False, 'real_time_factor: nothing to pace, the node does not simulate')


@pytest.mark.parametrize('name, reason', [
    ('gains.elbow_pitch.p', 'gains.elbow_pitch.p is read-only: the servos are tuned at start'),
    ('controllers.arm.type', 'controllers.arm.type is read-only: the command topics are made '
     'at start')])
def test_the_parameter_groups_are_read_only(tmp_path, name, reason):
    assert answer(Node(tmp_path), param('use_sim_time', True), param(name, 1.0)) == \
        (False, reason)


def test_other_parameters_are_taken(tmp_path):
    assert answer(Node(tmp_path), param('gains', 1.0), param('use_sim_time', True)) == \
        (True, '')


@pytest.mark.parametrize('value', ['', 3, None])
def test_a_model_that_is_no_name_is_refused(tmp_path, value):
    node = Node(tmp_path)
    assert answer(node, param('model', value)) == (
        False, 'model must be a file or a bundled model name')
    assert node.restarts == []


def test_a_good_model_restarts_the_bridge_and_a_bad_one_is_refused(tmp_path):
    node = Node(tmp_path)
    assert answer(node, param('model', BOX)) == (True, '')
    assert node.restarts == [BOX] and node.warnings == []
    missing = str(tmp_path / 'gone.body')
    ok, reason = answer(node, param('model', missing))
    assert not ok and 'gone.body' in reason and '\n' not in reason
    assert node.restarts == [BOX]
    assert node.warnings == [f'parameter model: {missing} refused, the running model goes on: '
                             f'{reason}']


def test_a_reload_checks_the_parameters_against_the_new_model(tmp_path):
    arm = {'gains': {'elbow_pitch.p': 200.0}}
    assert reload_problem(Node(tmp_path, arm), SAMPLE_ARM) is None
    assert reload_problem(Node(tmp_path, arm), BOX).startswith(
        "parameter gains.elbow_pitch.p: 'elbow_pitch' is not a joint")
    assert reload_problem(Node(tmp_path, {'initial_positions': {'knee': 0.1}}),
                          SAMPLE_ARM).startswith('parameter initial_positions.knee: ')
    controllers = {'controllers': {'arm.type': 'effort_controllers/JointGroupEffortController',
                                   'arm.joints': ['elbow_pitch']}}
    assert reload_problem(Node(tmp_path, controllers), SAMPLE_ARM) is None
    assert reload_problem(Node(tmp_path, controllers, kinematic=True), SAMPLE_ARM).startswith(
        'parameter controllers.arm.type: the model is kinematic')
    gripper = {'controllers': {'hand.type': 'position_controllers/GripperActionController',
                               'hand.joint': 'wrist_pitch', 'hand.closing_direction': 2}}
    assert reload_problem(Node(tmp_path, gripper), SAMPLE_ARM).startswith(
        'parameter controllers.hand.closing_direction: must be one +1 or -1')


def test_a_reload_reads_the_devices_file(tmp_path):
    missing = str(tmp_path / 'none.yaml')
    assert 'none.yaml' in reload_problem(Node(tmp_path, devices_file=missing), BOX)


def test_a_reload_builds_the_world_only_when_the_node_simulates(tmp_path, monkeypatch):
    import body_bridge.sim.building.world as world
    built = []
    monkeypatch.setattr(world, 'World', built.append)
    arm = {'initial_positions': {'elbow_pitch': 0.4}}
    assert reload_problem(Node(tmp_path, arm), SAMPLE_ARM) is None
    ((model, options),) = built[0]
    assert model.name and options.initial_positions == {'elbow_pitch': 0.4}
    assert reload_problem(Node(tmp_path, arm, simulate=False), SAMPLE_ARM) is None
    assert len(built) == 1


def test_a_reload_that_fails_unexpectedly_is_one_line(tmp_path, monkeypatch):
    def broken(model, mesh_dir):
        raise OSError('disk full')
    monkeypatch.setattr(reload_module.urdf_writer, 'to_urdf', broken)
    assert reload_problem(Node(tmp_path), BOX) == \
        f'{BOX}: the model cannot be loaded (OSError: disk full)'


def test_the_urdf_meshes_go_to_the_mesh_directory(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr(reload_module.urdf_writer, 'to_urdf',
                        lambda model, mesh_dir: seen.append(mesh_dir))
    monkeypatch.setattr(reload_module, 'cache_dir', lambda name: f'/cache/{name}')
    reload_problem(Node(tmp_path), BOX)
    reload_problem(Node(tmp_path, mesh_directory=''), BOX)
    assert seen == [str(tmp_path), '/cache/meshes']


def _chooser(**params):
    values = {name: default for name, (default, _, _) in PARAMETERS.items()}
    values.update(params)
    return SimpleNamespace(params=values, model=_cart())


def test_the_root_and_passive_joints_are_chosen_and_said():
    node = _chooser(root='fixed', passive_joints='wheel_l, wheel_r wheel_l')
    apply_model_choices(node)
    assert node.root_taken == 'fixed' and node.model.passive_joints == ('wheel_l', 'wheel_r')
    assert node.start_notes[0].startswith('root: fixed (')
    assert node.start_notes[1] == ('passive joints (free, no servo holds them until a command '
                                   'names them): wheel_l, wheel_r')


def test_no_passive_joints_no_note():
    node = _chooser(root='auto')
    apply_model_choices(node)
    assert node.root_taken == 'free' and len(node.start_notes) == 1


def test_without_simulation_the_model_is_taken_as_it_is():
    node = _chooser(simulate=False, root='nonsense')
    model = node.model
    apply_model_choices(node)
    assert (node.root_taken, node.start_notes, node.model) == (None, [], model)


@pytest.mark.parametrize('params, message', [
    ({'root': 'floating'}, "parameter root: 'floating' is not one of"),
    ({'passive_joints': 'knee'}, "parameter passive_joints: 'knee' is not a joint of cart")])
def test_bad_choices_are_one_line(params, message):
    with pytest.raises(ParameterError) as err:
        apply_model_choices(_chooser(**params))
    assert str(err.value).startswith(message) and '\n' not in str(err.value)


def test_a_reload_loads_the_model_with_the_material_table(tmp_path, monkeypatch):
    loaded = []
    real = reload_module.load_model
    monkeypatch.setattr(reload_module, 'load_model',
                        lambda path, table: loaded.append(table) or real(path, table))
    reload_problem(Node(tmp_path, material_table='/lab/materials.yaml'), BOX)
    reload_problem(Node(tmp_path), BOX)
    assert loaded == ['/lab/materials.yaml', None]


def test_welded_casters_are_said_with_what_to_set_and_rolling_ones_are_taken():
    from body_bridge.formats import load_model
    diffbot = load_model(REPO / 'test' / 'data' / 'openrave' / 'diffbot.robot.xml')
    node = _chooser()
    node.model = diffbot
    apply_model_choices(node)
    assert node.casters == () and node.start_notes == [
        'root: free (its wheels carry it (wheel_left, wheel_right) with ball casters '
        'caster_front, caster_back)',
        'ball casters caster_front, caster_back drag: the file welds their ball joints '
        '(disabled), so they slide on the ground and hold the robot back; set '
        'casters:="caster_front caster_back" to let them roll']
    node = _chooser(casters='caster_back, caster_front')
    node.model = diffbot
    apply_model_choices(node)
    assert node.casters == ('caster_back', 'caster_front') and node.start_notes[1:] == [
        'ball casters caster_back, caster_front roll (their contacts are frictionless: the '
        'casters parameter)']
    node = _chooser(casters='caster_back', root='fixed')  # a fixed robot: nothing drags
    node.model = diffbot
    apply_model_choices(node)
    assert node.start_notes[1:] == ['ball casters caster_back roll (their contacts are '
                                    'frictionless: the casters parameter)']
    node = _chooser(casters='chassis')
    node.model = diffbot
    with pytest.raises(ParameterError) as err:
        apply_model_choices(node)
    assert str(err.value) == ("parameter casters: link 'chassis' has no sphere collision "
                              "shape: it is no ball caster")
