"""Start the body_bridge node on a model (or several sharing one world), and rviz2 if asked.

    ros2 launch body_bridge sim.launch.py model:=/path/to/robot.body rviz:=true
    ros2 launch body_bridge sim.launch.py model:=sample_arm namespace:=arm
    ros2 launch body_bridge sim.launch.py model:="sample_arm floor=/path/to/floor.body"

Arguments (``ros2 launch body_bridge sim.launch.py --show-args`` lists them):

* ``model``: a model file or the name of a bundled model; several, separated by spaces (each
  optionally ``NAME=MODEL``), run in one process and one physics world, one node per model in
  the namespace ``<namespace>/<NAME>`` with frame prefix ``<NAME>/``.
* ``namespace``, ``params_file`` (default: the package's ``config/body_bridge.yaml``).
* ``use_sim_time``, for the bridge node itself and rviz2. Empty (the default), it follows
  ``simulate``: true when the bridge simulates (every stamp it publishes is simulated time, on
  ``/clock``), false when it does not (``simulate:=false``, or ``simulate: false`` in the
  parameter file: a robot_state_publisher for a real robot, whose time is the wall clock and
  where nobody publishes ``/clock``).
* ``real_time_factor``, ``simulate``: the node parameters of those names. Empty (the default),
  the parameter file decides; a value given overrides the file's ``/**`` section.
* ``record``: record what the bridge publishes into a new rosbag2 bag (MCAP) in this directory;
  ``foxglove``: serve the Foxglove WebSocket protocol at this port
  (docs/recording-and-foxglove.md). Empty (the default): neither.
* ``rviz``: start rviz2 in the same namespace with ``rviz_config`` (default: the package's
  ``config/body_bridge.rviz``, made for the sample arm; ``python -m body_bridge rviz MODEL``
  writes one for any model). When rviz2 is not installed the launch stops before it starts
  anything and says what to install.
* ``log_level``: the node's ROS log level (``warn`` hides the topic table and status lines).

The launch ends when the bridge exits (a bad model, Ctrl-C), rviz2 with it.

Only launch and launch_ros APIs that Humble, Jazzy and Kilted all have are used.
"""

import os

import yaml
from ament_index_python.packages import PackageNotFoundError, get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction, Shutdown
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node


def _flag(text):
    return text.strip().lower() in ('true', '1', 'yes', 'on')


def _number(name, text):
    try:
        return float(text)
    except ValueError:
        raise ValueError(f'{name}:={text} is not a number') from None


def _simulates(params_file):
    """The ``simulate`` parameter a parameter file gives the bridge node (a section naming
    the node wins over ``/**``, as rcl does); true when the file does not set it (the node's
    default)."""
    try:
        with open(params_file, encoding='utf-8') as f:
            sections = yaml.safe_load(f)
    except (OSError, yaml.YAMLError):
        return True  # the node reports an unreadable file itself, with its reason
    found = {}
    for key, section in (sections.items() if isinstance(sections, dict) else ()):
        values = section.get('ros__parameters') if isinstance(section, dict) else None
        if isinstance(values, dict) and 'simulate' in values:
            found[str(key).rstrip('/').endswith('body_bridge')] = values['simulate']
    value = found.get(True, found.get(False, True))
    return _flag(value) if isinstance(value, str) else bool(value)


def _require_rviz2():
    """Stop before any process starts when rviz2 is missing (a process started earlier would
    outlive the failed launch)."""
    try:
        get_package_share_directory('rviz2')
    except PackageNotFoundError:
        distro = os.environ.get('ROS_DISTRO') or '<distro>'
        raise RuntimeError(f'rviz:=true needs rviz2, which is not installed: install it with '
                           f'"sudo apt install ros-{distro}-rviz2" (or leave rviz:=false)'
                           ) from None


def _nodes(context):
    def value(name):
        return LaunchConfiguration(name).perform(context)
    rviz = _flag(value('rviz'))
    if rviz:
        _require_rviz2()
    simulate = value('simulate').strip()
    simulates = _flag(simulate) if simulate else _simulates(value('params_file'))
    given = value('use_sim_time').strip()
    use_sim_time = _flag(given) if given else simulates
    # Written by launch_ros into a parameter file under /** after params_file: a value given
    # here wins over the file's /** section.
    overrides = {'use_sim_time': use_sim_time}
    if value('real_time_factor').strip():
        overrides['real_time_factor'] = _number('real_time_factor', value('real_time_factor'))
    if simulate:
        overrides['simulate'] = _flag(simulate)
    if value('record').strip():
        overrides['record'] = value('record').strip()
    if value('foxglove').strip():
        overrides['foxglove_port'] = int(_number('foxglove', value('foxglove')))
    nodes = [Node(
        package='body_bridge',
        executable='bridge',
        namespace=value('namespace'),
        output='screen',
        arguments=[*value('model').split(), '--ros-args', '--log-level', value('log_level')],
        parameters=[value('params_file'), overrides],
        on_exit=Shutdown(reason='the bridge exited'),
    )]
    if rviz:
        nodes.append(Node(
            package='rviz2',
            executable='rviz2',
            namespace=value('namespace'),
            output='screen',
            arguments=['-d', value('rviz_config')],
            parameters=[{'use_sim_time': use_sim_time}],
        ))
    return nodes


def generate_launch_description():
    share = get_package_share_directory('body_bridge')
    arguments = [
        DeclareLaunchArgument('model', default_value='sample_arm',
                              description='Model file or bundled model name; several, separated '
                              'by spaces (each optionally NAME=MODEL), share one world'),
        DeclareLaunchArgument('namespace', default_value='',
                              description='Namespace of the node, its topics and rviz2'),
        DeclareLaunchArgument('params_file',
                              default_value=os.path.join(share, 'config', 'body_bridge.yaml'),
                              description='ROS parameter file for the node(s)'),
        DeclareLaunchArgument('use_sim_time', default_value='',
                              description='The bridge node and rviz2 run on the simulated time '
                              'of /clock, which stamps everything the bridge publishes. Empty: '
                              'as simulate (false when the bridge does not simulate)'),
        DeclareLaunchArgument('real_time_factor', default_value='',
                              description='Simulated seconds per wall-clock second; 0: as fast '
                              'as possible. Empty: as params_file says'),
        DeclareLaunchArgument('simulate', default_value='',
                              description='true: run the physics; false: robot_description and '
                              'TF from an external joint_states only. Empty: as params_file '
                              'says'),
        DeclareLaunchArgument('record', default_value='',
                              description='Record what the bridge publishes into a new rosbag2 '
                              'bag (MCAP) in this directory. Empty: no recording'),
        DeclareLaunchArgument('foxglove', default_value='',
                              description='Serve the Foxglove WebSocket protocol on 127.0.0.1 '
                              'at this port (the Foxglove app connects to 8765). Empty: no server'),
        DeclareLaunchArgument('rviz', default_value='false',
                              description='Start rviz2 with rviz_config'),
        DeclareLaunchArgument('rviz_config',
                              default_value=os.path.join(share, 'config', 'body_bridge.rviz'),
                              description='rviz2 configuration (python -m body_bridge rviz '
                              'MODEL writes one for a model)'),
        DeclareLaunchArgument('log_level', default_value='info',
                              description='ROS log level of the bridge node (debug, info, warn, '
                              'error)'),
    ]
    return LaunchDescription([*arguments, OpaqueFunction(function=_nodes)])
