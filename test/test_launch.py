"""launch/sim.launch.py, run with stand-in ``launch``/``launch_ros`` modules (the real ones are
not installable here): its arguments match the node's parameters, the nodes it starts get
what the arguments say, and what it names exists in the installed package."""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
import types

import pytest
import yaml

from body_bridge.ros.params import PARAMETERS

from conftest import REPO

LAUNCH = REPO / 'launch' / 'sim.launch.py'


class _Recorder:
    """Stands in for a launch class: keeps the arguments it was made with."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


class _Configuration:
    def __init__(self, name):
        self.name = name

    def perform(self, context):
        return context.values[self.name]


def _stand_ins(share: str) -> dict[str, types.ModuleType]:
    modules = {}
    for name in ('launch', 'launch.actions', 'launch.substitutions', 'launch_ros',
                 'launch_ros.actions', 'ament_index_python', 'ament_index_python.packages'):
        modules[name] = types.ModuleType(name)
    modules['launch'].LaunchDescription = lambda entities: list(entities)
    modules['launch.actions'].DeclareLaunchArgument = type('DeclareLaunchArgument',
                                                           (_Recorder,), {})
    modules['launch.actions'].OpaqueFunction = type('OpaqueFunction', (_Recorder,), {})
    modules['launch.substitutions'].LaunchConfiguration = _Configuration
    modules['launch_ros.actions'].Node = type('Node', (_Recorder,), {})
    modules['ament_index_python.packages'].get_package_share_directory = lambda pkg: share
    return modules


@pytest.fixture
def launch(monkeypatch):
    """generate_launch_description() and a way to run its OpaqueFunction with values."""
    share = '/opt/ros/share/body_bridge'
    for name, module in _stand_ins(share).items():
        monkeypatch.setitem(sys.modules, name, module)
    spec = importlib.util.spec_from_file_location('sim_launch', LAUNCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    entities = module.generate_launch_description()
    arguments = {e.args[0]: e.kwargs['default_value'] for e in entities
                 if type(e).__name__ == 'DeclareLaunchArgument'}
    opaque = next(e for e in entities if type(e).__name__ == 'OpaqueFunction')

    def nodes(**given):
        context = types.SimpleNamespace(values={**arguments, **given})
        return opaque.kwargs['function'](context)
    return types.SimpleNamespace(arguments=arguments, nodes=nodes, share=share)


def test_imports_only_launch_apis():
    modules = set()
    for node in ast.walk(ast.parse(LAUNCH.read_text())):
        if isinstance(node, ast.ImportFrom):
            modules.add(node.module)
        elif isinstance(node, ast.Import):
            modules.update(a.name for a in node.names)
    assert modules <= {'os', 'launch', 'launch.actions', 'launch.substitutions',
                       'launch_ros.actions', 'ament_index_python.packages'}


def test_arguments_and_defaults_match_the_node(launch):
    args = launch.arguments
    assert set(args) == {'model', 'namespace', 'params_file', 'use_sim_time', 'real_time_factor',
                         'simulate', 'rviz', 'rviz_config', 'log_level'}
    assert args['model'] == PARAMETERS['model'][0]
    assert float(args['real_time_factor']) == PARAMETERS['real_time_factor'][0]
    assert (args['simulate'] == 'true') == PARAMETERS['simulate'][0]
    assert args['use_sim_time'] == 'false' and args['rviz'] == 'false'
    assert args['params_file'] == os.path.join(launch.share, 'config', 'body_bridge.yaml')
    assert args['rviz_config'] == os.path.join(launch.share, 'config', 'body_bridge.rviz')


def test_defaults_start_the_bridge_alone_with_the_parameter_file(launch):
    [bridge] = launch.nodes()
    kw = bridge.kwargs
    assert (kw['package'], kw['executable'], kw['namespace']) == ('body_bridge', 'bridge', '')
    assert kw['arguments'] == ['sample_arm', '--ros-args', '--log-level', 'info']
    # at their defaults, real_time_factor and simulate are left to the parameter file
    assert kw['parameters'] == [launch.arguments['params_file'], {'use_sim_time': False}]


def test_arguments_reach_the_nodes(launch):
    bridge, rviz = launch.nodes(model='arm=sample_arm floor=/tmp/floor.body', namespace='lab',
                                use_sim_time='true', real_time_factor='0', simulate='false',
                                rviz='true', log_level='warn')
    kw = bridge.kwargs
    assert kw['namespace'] == 'lab'
    assert kw['arguments'] == ['arm=sample_arm', 'floor=/tmp/floor.body', '--ros-args',
                               '--log-level', 'warn']
    assert kw['parameters'][1] == {'use_sim_time': True, 'real_time_factor': 0.0,
                                   'simulate': False}
    rk = rviz.kwargs
    assert (rk['package'], rk['executable'], rk['namespace']) == ('rviz2', 'rviz2', 'lab')
    assert rk['arguments'] == ['-d', launch.arguments['rviz_config']]
    assert rk['parameters'] == [{'use_sim_time': True}]


def test_the_bridge_accepts_what_the_launch_file_passes(launch, tmp_path):
    """The node's command line, as launch_ros builds it, starts and stops cleanly."""
    [bridge] = launch.nodes(real_time_factor='2.0', log_level='warn')
    params = tmp_path / 'overrides.yaml'
    overrides = bridge.kwargs['parameters'][1]
    params.write_text(yaml.safe_dump({'/**': {'ros__parameters': overrides}}))
    # what launch_ros runs: the executable, the node's arguments, then its parameter files
    args = [*bridge.kwargs['arguments'],
            '--params-file', str(REPO / 'config' / 'body_bridge.yaml'),
            '--params-file', str(params), '-p', 'start_paused:=true']
    script = ('import sys; from body_bridge.ros.launcher import main; sys.argv[0] = "bridge"; '
              'main()')
    proc = subprocess.Popen([sys.executable, '-c', script, *args], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = proc.communicate(timeout=8)
    except subprocess.TimeoutExpired:
        proc.send_signal(2)
        out, _ = proc.communicate(timeout=10)
    assert proc.returncode == 0 and 'Traceback' not in out and '[INFO]' not in out, out


@pytest.fixture(scope='module')
def installed(tmp_path_factory):
    colcon = os.path.join(os.path.dirname(sys.executable), 'colcon')
    work = tmp_path_factory.mktemp('colcon')
    proc = subprocess.run([colcon, 'build', '--base-paths', str(REPO), '--build-base',
                           str(work / 'build'), '--install-base', str(work / 'install')],
                          cwd=work, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return work / 'install' / 'body_bridge'


def test_what_the_launch_file_names_is_installed(launch, installed):
    share = installed / 'share' / 'body_bridge'
    assert (share / 'launch' / 'sim.launch.py').read_text() == LAUNCH.read_text()
    for argument in ('params_file', 'rviz_config'):
        relative = os.path.relpath(launch.arguments[argument], launch.share)
        assert (share / relative).is_file(), relative
    assert os.access(installed / 'lib' / 'body_bridge' / 'bridge', os.X_OK)
    from body_bridge.paths import bundled_models
    assert launch.arguments['model'] in bundled_models()
    assert (share / 'models' / 'sample_arm' / 'sample_arm.body').is_file()
