"""Start the body_bridge node on a model (or several sharing one world), and rviz2 if asked.

    ros2 launch body_bridge sim.launch.py model:=/path/to/robot.body rviz:=true
    ros2 launch body_bridge sim.launch.py model:=sample_arm namespace:=arm
    ros2 launch body_bridge sim.launch.py model:="sample_arm floor=/path/to/floor.body"

Arguments (``ros2 launch body_bridge sim.launch.py --show-args`` lists them):

* ``model``: a model file or the name of a bundled model; several, separated by spaces (each
  optionally ``NAME=MODEL``), run in one process and one physics world, one node per model in
  the namespace ``<namespace>/<NAME>`` with frame prefix ``<NAME>/``.
* ``namespace``, ``params_file`` (default: the package's ``config/body_bridge.yaml``),
  ``use_sim_time`` (for the bridge node itself and rviz2).
* ``real_time_factor``, ``simulate``: the node parameters of those names. Left at their
  defaults (the node's), the parameter file decides; any other value overrides it.
* ``rviz``: start rviz2 in the same namespace with ``rviz_config`` (default: the package's
  ``config/body_bridge.rviz``, made for the sample arm; ``python -m body_bridge rviz MODEL``
  writes one for any model).
* ``log_level``: the node's ROS log level (``warn`` hides the topic table and status lines).

Only launch and launch_ros APIs that Humble, Jazzy and Kilted all have are used.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

#: The node's defaults of the parameters that are also launch arguments.
_NODE_DEFAULTS = {'real_time_factor': 1.0, 'simulate': True}


def _flag(text):
    return text.strip().lower() in ('true', '1', 'yes', 'on')


def _nodes(context):
    def value(name):
        return LaunchConfiguration(name).perform(context)
    use_sim_time = _flag(value('use_sim_time'))
    overrides = {'use_sim_time': use_sim_time}
    real_time_factor = float(value('real_time_factor'))
    if real_time_factor != _NODE_DEFAULTS['real_time_factor']:
        overrides['real_time_factor'] = real_time_factor
    simulate = _flag(value('simulate'))
    if simulate != _NODE_DEFAULTS['simulate']:
        overrides['simulate'] = simulate
    nodes = [Node(
        package='body_bridge',
        executable='bridge',
        namespace=value('namespace'),
        output='screen',
        arguments=[*value('model').split(), '--ros-args', '--log-level', value('log_level')],
        parameters=[value('params_file'), overrides],
    )]
    if _flag(value('rviz')):
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
        DeclareLaunchArgument('use_sim_time', default_value='false',
                              description='Let the bridge node and rviz2 run on simulated time'),
        DeclareLaunchArgument('real_time_factor', default_value='1.0',
                              description='Simulated seconds per wall-clock second; 0: as fast '
                              'as possible (default: the parameter file\'s)'),
        DeclareLaunchArgument('simulate', default_value='true',
                              description='false: robot_description and TF from an external '
                              'joint_states only (default: the parameter file\'s)'),
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
