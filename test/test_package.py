"""The ament_python package: metadata, launch file, parameter file, a colcon build."""

import ast
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
import yaml

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from body_bridge.ros.node.node import PARAMETERS

from conftest import REPO


def test_package_xml_declares_every_runtime_dependency():
    root = ET.parse(REPO / 'package.xml').getroot()
    assert root.get('format') == '3'
    assert root.findtext('name') == 'body_bridge'
    assert root.find('export/build_type').text == 'ament_python'
    deps = {e.text for e in root if e.tag in ('exec_depend', 'depend')}
    assert {'rclpy', 'std_msgs', 'geometry_msgs', 'sensor_msgs', 'tf2_msgs', 'rosgraph_msgs',
            'std_srvs', 'trajectory_msgs', 'urdfdom_py', 'python3-numpy', 'python3-yaml',
            'python3-mujoco-pip'} <= deps


def test_every_imported_ros_package_is_declared():
    root = ET.parse(REPO / 'package.xml').getroot()
    deps = {e.text for e in root if e.tag in ('exec_depend', 'depend')}
    ros_packages = set()
    for path in (REPO / 'body_bridge').rglob('*.py'):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                top = node.module.split('.')[0]
            elif isinstance(node, ast.Import):
                top = node.names[0].name.split('.')[0]
            else:
                continue
            if top.endswith('_msgs') or top.endswith('_srvs') or top in (
                    'rclpy', 'builtin_interfaces', 'rcl_interfaces', 'ament_index_python'):
                ros_packages.add(top)
    assert ros_packages <= deps, ros_packages - deps


def test_launch_file_uses_only_launch_apis():
    tree = ast.parse((REPO / 'launch' / 'sim.launch.py').read_text())
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            modules.add(node.module.split('.')[0])
        elif isinstance(node, ast.Import):
            modules.update(a.name.split('.')[0] for a in node.names)
    # yaml: launch itself depends on it (python3-yaml), to read the parameter file's simulate
    assert modules <= {'os', 'yaml', 'launch', 'launch_ros', 'ament_index_python'}
    text = (REPO / 'launch' / 'sim.launch.py').read_text()
    for argument in ('model', 'namespace', 'params_file', 'use_sim_time'):
        assert f"DeclareLaunchArgument('{argument}'" in text
    assert "executable='bridge'" in text and "package='body_bridge'" in text


def test_parameter_file_holds_the_node_defaults():
    """Every default, except frame_prefix: under /** it would reach every model of a world
    and take the place of their own prefixes (<NAME>/), so the file only mentions it."""
    text = (REPO / 'config' / 'body_bridge.yaml').read_text()
    params = yaml.safe_load(text)['/**']['ros__parameters']
    assert set(params) == set(PARAMETERS) - {'frame_prefix'}
    for name, default in params.items():
        assert default == PARAMETERS[name][0], name
    assert '# frame_prefix: ""' in text


@pytest.fixture(scope='module')
def colcon_install(tmp_path_factory):
    colcon = os.path.join(os.path.dirname(sys.executable), 'colcon')
    assert os.path.exists(colcon), 'colcon is missing: tools/setup.sh installs it'
    work = tmp_path_factory.mktemp('colcon')
    proc = subprocess.run([colcon, 'build', '--base-paths', str(REPO), '--build-base',
                           str(work / 'build'), '--install-base', str(work / 'install')],
                          cwd=work, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return work / 'install' / 'body_bridge'


def test_colcon_build_installs_what_ros_tools_need(colcon_install):
    share = colcon_install / 'share' / 'body_bridge'
    assert (colcon_install / 'share/ament_index/resource_index/packages/body_bridge').exists()
    for relative in ('package.xml', 'launch/sim.launch.py', 'config/body_bridge.yaml',
                     'models/sample_arm/sample_arm.body'):
        assert (share / relative).is_file(), relative
    # ros2 run body_bridge bridge / the launch file's executable
    assert os.access(colcon_install / 'lib' / 'body_bridge' / 'bridge', os.X_OK)


def test_installed_package_finds_its_bundled_model(colcon_install, tmp_path):
    site = next((colcon_install / 'lib').glob('python3*/site-packages'))
    env = dict(os.environ, AMENT_PREFIX_PATH=str(colcon_install),
               PYTHONPATH=str(site))
    # From outside the source tree, as an installed package.
    proc = subprocess.run([str(colcon_install / 'lib' / 'body_bridge' / 'body_bridge'),
                           'info', 'sample_arm', '--json'],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)['name'] == 'sample_arm'


def test_check_urdf_is_installed():
    assert shutil.which('check_urdf')
