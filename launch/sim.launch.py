"""Start the body_bridge node on a model, or on several models sharing one world.

    ros2 launch body_bridge sim.launch.py model:=/path/to/robot.body
    ros2 launch body_bridge sim.launch.py model:=sample_arm namespace:=arm
    ros2 launch body_bridge sim.launch.py model:="sample_arm floor=/path/to/floor.body"

``model`` holds one model, or several separated by spaces, each optionally ``NAME=MODEL``:
several models run in one process and one physics world, one node per model in the namespace
``<namespace>/<NAME>`` with frame prefix ``<NAME>/``.

Only launch and launch_ros APIs that Humble, Jazzy and Kilted all have are used.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node


def _bridge(context):
    def value(name):
        return LaunchConfiguration(name).perform(context)
    return [Node(
        package='body_bridge',
        executable='bridge',
        namespace=value('namespace'),
        output='screen',
        arguments=value('model').split(),
        parameters=[
            value('params_file'),
            {'use_sim_time': value('use_sim_time').strip().lower() in ('true', '1', 'yes')},
        ],
    )]


def generate_launch_description():
    share = get_package_share_directory('body_bridge')
    arguments = [
        DeclareLaunchArgument('model', default_value='sample_arm',
                              description='Model file or bundled model name; several, separated '
                              'by spaces (each optionally NAME=MODEL), share one world'),
        DeclareLaunchArgument('namespace', default_value='',
                              description='Namespace of the node and its topics'),
        DeclareLaunchArgument('params_file',
                              default_value=os.path.join(share, 'config', 'body_bridge.yaml'),
                              description='ROS parameter file for the node(s)'),
        DeclareLaunchArgument('use_sim_time', default_value='false',
                              description='Let the node itself run on simulated time'),
    ]
    return LaunchDescription([*arguments, OpaqueFunction(function=_bridge)])
