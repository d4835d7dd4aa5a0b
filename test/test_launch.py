"""launch/sim.launch.py, run with stand-in ``launch``/``launch_ros`` modules (the real ones are
not installable here): its arguments match the node's parameters, the nodes it starts get
what the arguments say, and what it names exists in the installed package.

The stand-ins keep to what the real modules do where it matters:

* launch_ros writes each dictionary of a Node's ``parameters`` to a file under ``/**`` (the
  node has no fully specified name) and passes every entry as ``--params-file``, in order, after
  the node's ``arguments`` and ``--ros-args -r __ns:=<namespace>``; rcl lets a later ``/**``
  value win over an earlier one (a section naming the node still wins over ``/**``);
* an OpaqueFunction's actions run only after it returned: an exception in it starts nothing,
  and launch prints the exception's message;
* ``get_package_share_directory`` raises ``PackageNotFoundError`` for a package not installed;
* ``ros2 launch --show-args`` prints each argument's description, then ``(default: '...')``.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
import types

import pytest
import yaml

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from body_bridge.ros.node.params import PARAMETERS

from conftest import REPO

LAUNCH = REPO / 'launch' / 'sim.launch.py'


class _Recorder:
    """Stands in for a launch class: keeps the arguments it was made with."""

    made: list = []

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs
        type(self).made.append(self)


class _Configuration:
    def __init__(self, name):
        self.name = name

    def perform(self, context):
        return context.values[self.name]


class _PackageNotFoundError(KeyError):
    pass


def _stand_ins(share: str, installed: set[str]) -> dict[str, types.ModuleType]:
    modules = {}
    for name in ('launch', 'launch.actions', 'launch.substitutions', 'launch_ros',
                 'launch_ros.actions', 'ament_index_python', 'ament_index_python.packages'):
        modules[name] = types.ModuleType(name)

    def share_directory(package):
        if package not in installed:
            raise _PackageNotFoundError(f"package '{package}' not found")
        return share if package == 'body_bridge' else f'/opt/ros/share/{package}'
    modules['launch'].LaunchDescription = lambda entities: list(entities)
    actions = modules['launch.actions']
    for name in ('DeclareLaunchArgument', 'OpaqueFunction', 'Shutdown'):
        setattr(actions, name, type(name, (_Recorder,), {'made': []}))
    modules['launch.substitutions'].LaunchConfiguration = _Configuration
    modules['launch_ros.actions'].Node = type('Node', (_Recorder,), {'made': []})
    packages = modules['ament_index_python.packages']
    packages.get_package_share_directory = share_directory
    packages.PackageNotFoundError = _PackageNotFoundError
    return modules


def _load(monkeypatch, installed=('body_bridge', 'rviz2')):
    """generate_launch_description() and a way to run its OpaqueFunction with values."""
    share = '/opt/ros/share/body_bridge'
    modules = _stand_ins(share, set(installed))
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    spec = importlib.util.spec_from_file_location('sim_launch', LAUNCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    entities = module.generate_launch_description()
    declared = [e for e in entities if type(e).__name__ == 'DeclareLaunchArgument']
    arguments = {e.args[0]: e.kwargs['default_value'] for e in declared}
    opaque = next(e for e in entities if type(e).__name__ == 'OpaqueFunction')

    def nodes(**given):
        context = types.SimpleNamespace(values={**arguments, **given})
        return opaque.kwargs['function'](context)
    return types.SimpleNamespace(arguments=arguments, declared=declared, nodes=nodes,
                                 share=share, made=modules['launch_ros.actions'].Node.made)


@pytest.fixture
def launch(monkeypatch):
    return _load(monkeypatch)


def test_imports_only_launch_apis():
    modules = set()
    for node in ast.walk(ast.parse(LAUNCH.read_text())):
        if isinstance(node, ast.ImportFrom):
            modules.add(node.module)
        elif isinstance(node, ast.Import):
            modules.update(a.name for a in node.names)
    assert modules <= {'os', 'yaml', 'launch', 'launch.actions', 'launch.substitutions',
                       'launch_ros.actions', 'ament_index_python.packages'}


def test_arguments_and_defaults_match_the_node(launch):
    args = launch.arguments
    assert set(args) == {'model', 'namespace', 'params_file', 'use_sim_time', 'real_time_factor',
                         'simulate', 'rviz', 'rviz_config', 'log_level', 'record', 'foxglove'}
    assert args['record'] == '' and args['foxglove'] == ''
    assert args['model'] == PARAMETERS['model'][0]
    # empty: the parameter file decides (its value is the node's default)
    assert args['real_time_factor'] == '' and args['simulate'] == ''
    # empty: use_sim_time follows simulate
    assert args['use_sim_time'] == '' and args['rviz'] == 'false'
    assert args['params_file'] == os.path.join(launch.share, 'config', 'body_bridge.yaml')
    assert args['rviz_config'] == os.path.join(launch.share, 'config', 'body_bridge.rviz')


def test_show_args_prints_one_default_per_argument(launch):
    for argument in launch.declared:
        kw = argument.kwargs
        shown = f"{kw['description']}\n(default: '{kw['default_value']}')"
        assert shown.lower().count('default') == 1, shown


def test_defaults_start_the_bridge_alone_on_simulated_time(launch):
    [bridge] = launch.nodes()
    kw = bridge.kwargs
    assert (kw['package'], kw['executable'], kw['namespace']) == ('body_bridge', 'bridge', '')
    assert kw['arguments'] == ['sample_arm', '--ros-args', '--log-level', 'info']
    # real_time_factor and simulate are left to the parameter file
    assert kw['parameters'] == [launch.arguments['params_file'], {'use_sim_time': True}]
    # the bridge's exit (a bad model, Ctrl-C) ends the launch, rviz2 with it
    assert type(kw['on_exit']).__name__ == 'Shutdown'


def test_arguments_reach_the_nodes(launch):
    bridge, rviz = launch.nodes(model='arm=sample_arm floor=/tmp/floor.body', namespace='lab',
                                use_sim_time='false', real_time_factor='0', simulate='false',
                                rviz='true', log_level='warn')
    kw = bridge.kwargs
    assert kw['namespace'] == 'lab'
    assert kw['arguments'] == ['arm=sample_arm', 'floor=/tmp/floor.body', '--ros-args',
                               '--log-level', 'warn']
    assert kw['parameters'][1] == {'use_sim_time': False, 'real_time_factor': 0.0,
                                   'simulate': False}
    rk = rviz.kwargs
    assert (rk['package'], rk['executable'], rk['namespace']) == ('rviz2', 'rviz2', 'lab')
    assert rk['arguments'] == ['-d', launch.arguments['rviz_config']]
    assert rk['parameters'] == [{'use_sim_time': False}]


def test_record_and_foxglove_reach_the_node(launch):
    [bridge] = launch.nodes(record='/tmp/run1', foxglove='8765')
    assert bridge.kwargs['parameters'][1] == {'use_sim_time': True, 'record': '/tmp/run1',
                                              'foxglove_port': 8765}


def test_rviz_runs_on_simulated_time_by_default(launch):
    _, rviz = launch.nodes(rviz='true')
    assert rviz.kwargs['parameters'] == [{'use_sim_time': True}]


def _sim_time(launch, **given) -> tuple[bool, bool]:
    """use_sim_time as the launch gives it to the bridge and to rviz2."""
    bridge, rviz = launch.nodes(rviz='true', **given)
    return bridge.kwargs['parameters'][1]['use_sim_time'], rviz.kwargs['parameters'][0][
        'use_sim_time']


def test_use_sim_time_follows_simulate_unless_given(launch, tmp_path):
    assert _sim_time(launch) == (True, True)  # the shipped file simulates
    assert _sim_time(launch, simulate='true') == (True, True)
    # a robot_state_publisher for a real robot: nobody publishes /clock
    assert _sim_time(launch, simulate='false') == (False, False)
    assert _sim_time(launch, simulate='False') == (False, False)
    # given, it wins either way
    assert _sim_time(launch, simulate='false', use_sim_time='true') == (True, True)
    assert _sim_time(launch, simulate='true', use_sim_time='false') == (False, False)


def test_use_sim_time_follows_the_simulate_of_the_parameter_file(launch, tmp_path):
    def with_file(sections, **given):
        path = tmp_path / 'p.yaml'
        path.write_text(yaml.safe_dump(sections))
        return _sim_time(launch, params_file=str(path), **given)
    off = {'ros__parameters': {'simulate': False}}
    on = {'ros__parameters': {'simulate': True}}
    assert with_file({'/**': off}) == (False, False)
    assert with_file({'/**': {'ros__parameters': {'simulate': 'false'}}}) == (False, False)
    assert with_file({'/**': {'ros__parameters': {'model': 'x'}}}) == (True, True)  # default
    assert with_file({'/**': on, '/**/body_bridge': off}) == (False, False)  # the node's wins
    assert with_file({'/**': off, 'body_bridge': on}) == (True, True)
    assert with_file({'/**': off}, simulate='true') == (True, True)  # the argument wins
    assert with_file({'/**': off}, use_sim_time='true') == (True, True)
    assert _sim_time(launch, params_file=str(tmp_path / 'missing.yaml')) == (True, True)
    (tmp_path / 'bad.yaml').write_text('/**: [')
    assert _sim_time(launch, params_file=str(tmp_path / 'bad.yaml')) == (True, True)


def test_without_rviz2_nothing_starts_and_the_message_says_what_to_install(monkeypatch):
    launch = _load(monkeypatch, installed=('body_bridge',))
    monkeypatch.setenv('ROS_DISTRO', 'jazzy')
    with pytest.raises(RuntimeError) as err:
        launch.nodes(rviz='true')
    assert 'sudo apt install ros-jazzy-rviz2' in str(err.value)
    assert '\n' not in str(err.value)
    assert launch.made == []  # no bridge left running behind the failed launch
    [bridge] = launch.nodes()  # rviz:=false needs no rviz2
    assert bridge.kwargs['executable'] == 'bridge'


def test_a_bad_number_is_one_line(launch):
    with pytest.raises(ValueError, match=r'^real_time_factor:=fast is not a number$'):
        launch.nodes(real_time_factor='fast')
    assert launch.made == []


def _launched(node, tmp_path) -> list[str]:
    """The command line launch_ros gives a Node (after the executable)."""
    kw = node.kwargs
    args = [*kw['arguments'], '--ros-args']
    if kw['namespace']:
        args += ['-r', f"__ns:=/{kw['namespace']}"]
    for index, entry in enumerate(kw['parameters']):
        if isinstance(entry, dict):
            path = tmp_path / f'launch_params_{index}.yaml'
            path.write_text(yaml.dump({'/**': {'ros__parameters': entry}}))
            entry = str(path)
        args += ['--params-file', entry]
    return args


_PROBE = '''
import json, sys
import rclpy
from rclpy.utilities import remove_ros_args
from body_bridge.ros.process.launcher import create_nodes
rclpy.init(args=sys.argv)
nodes = []
create_nodes(remove_ros_args(sys.argv)[1:], sys.argv, nodes)
print(json.dumps([{'name': n.get_fully_qualified_name(), 'frame_prefix': n.prefix,
                   'real_time_factor': n.params['real_time_factor'],
                   'simulate': n.params['simulate'],
                   'use_sim_time': n.get_parameter('use_sim_time').value} for n in nodes]))
for n in nodes:
    n.destroy_node()
rclpy.shutdown()
'''


def _bridge_nodes(node, tmp_path) -> list[dict]:
    """The bridge nodes the launched command line makes: name, frame prefix, parameters."""
    proc = subprocess.run([sys.executable, '-c', _PROBE, *_launched(node, tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_several_models_keep_their_frame_prefixes_with_the_parameter_file(launch, tmp_path):
    [bridge] = launch.nodes(model='a=sample_arm b=sample_arm',
                            params_file=str(REPO / 'config' / 'body_bridge.yaml'))
    nodes = _bridge_nodes(bridge, tmp_path)
    assert [(n['name'], n['frame_prefix']) for n in nodes] == [
        ('/a/body_bridge', 'a/'), ('/b/body_bridge', 'b/')]
    assert all(n['use_sim_time'] for n in nodes)


def test_an_explicit_argument_overrides_the_parameter_file(launch, tmp_path):
    params = yaml.safe_load((REPO / 'config' / 'body_bridge.yaml').read_text())
    params['/**']['ros__parameters'].update(real_time_factor=2.0, simulate=False)
    mine = tmp_path / 'mine.yaml'
    mine.write_text(yaml.safe_dump(params))
    # left empty, the file's values hold ...
    [bridge] = launch.nodes(params_file=str(mine), namespace='lab')
    [node] = _bridge_nodes(bridge, tmp_path)
    assert (node['name'], node['real_time_factor'], node['simulate']) == (
        '/lab/body_bridge', 2.0, False)
    assert node['use_sim_time'] is False  # not simulating: nobody publishes /clock
    # ... and a value given, even the node's default, overrides them
    [bridge] = launch.nodes(params_file=str(mine), real_time_factor='1.0', simulate='true')
    [node] = _bridge_nodes(bridge, tmp_path)
    assert (node['real_time_factor'], node['simulate'], node['use_sim_time']) == (
        1.0, True, True)


def test_the_bridge_accepts_what_the_launch_file_passes(launch, tmp_path):
    """The node's command line, as launch_ros builds it, starts and stops cleanly."""
    [bridge] = launch.nodes(real_time_factor='2.0', log_level='warn')
    args = _launched(bridge, tmp_path)
    args[args.index(launch.arguments['params_file'])] = str(REPO / 'config' / 'body_bridge.yaml')
    script = ('import sys; from body_bridge.ros.process.launcher import main; sys.argv[0] = "bridge"; '
              'main()')
    proc = subprocess.Popen([sys.executable, '-c', script, *args, '-p', 'start_paused:=true'],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    try:
        out, _ = proc.communicate(timeout=8)
    except subprocess.TimeoutExpired:
        proc.send_signal(2)
        out, _ = proc.communicate(timeout=10)
    assert proc.returncode == 0 and 'Traceback' not in out and '[INFO]' not in out, out


@pytest.fixture(scope='module')
def installed(tmp_path_factory):
    """The package built as the README says (colcon build --packages-select body_bridge)."""
    colcon = os.path.join(os.path.dirname(sys.executable), 'colcon')
    work = tmp_path_factory.mktemp('colcon')
    proc = subprocess.run([colcon, 'build', '--packages-select', 'body_bridge',
                           '--base-paths', str(REPO), '--build-base', str(work / 'build'),
                           '--install-base', str(work / 'install')],
                          cwd=work, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return work / 'install'


def test_what_the_launch_file_names_is_installed(launch, installed):
    package = installed / 'body_bridge'
    share = package / 'share' / 'body_bridge'
    assert (share / 'launch' / 'sim.launch.py').read_text() == LAUNCH.read_text()
    for argument in ('params_file', 'rviz_config'):
        relative = os.path.relpath(launch.arguments[argument], launch.share)
        assert (share / relative).is_file(), relative
    assert os.access(package / 'lib' / 'body_bridge' / 'bridge', os.X_OK)
    from body_bridge.paths import bundled_models
    assert launch.arguments['model'] in bundled_models()
    assert (share / 'models' / 'sample_arm' / 'sample_arm.body').is_file()


def test_sourcing_the_install_finds_the_package(installed):
    """``source install/setup.bash`` (README) puts the package on the ament index."""
    script = f'source {installed / "setup.bash"} && echo "$AMENT_PREFIX_PATH"'
    proc = subprocess.run(['bash', '-c', script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1].split(':')[0] == str(installed / 'body_bridge')


def test_ros2_run_body_bridge_help_names_the_command(installed):
    """``ros2 run body_bridge body_bridge --help`` runs the installed script."""
    package = installed / 'body_bridge'
    [site] = package.glob('lib/python3*/site-packages')
    env = dict(os.environ, PYTHONPATH=f'{site}{os.pathsep}{os.environ.get("PYTHONPATH", "")}')
    proc = subprocess.run([str(package / 'lib' / 'body_bridge' / 'body_bridge'), '--help'],
                          capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith('usage: body_bridge '), proc.stdout
