"""Start the body_bridge node on a model.

    ros2 launch body_bridge sim.launch.py model:=/path/to/robot.body
    ros2 launch body_bridge sim.launch.py model:=sample_arm namespace:=arm

Only launch and launch_ros APIs that Humble, Jazzy and Kilted all have are used.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node


def generate_launch_description():
    share = get_package_share_directory('body_bridge')
    arguments = [
        DeclareLaunchArgument('model', default_value='sample_arm',
                              description='Model file, or the name of a bundled model'),
        DeclareLaunchArgument('namespace', default_value='',
                              description='Namespace of the node and its topics'),
        DeclareLaunchArgument('params_file',
                              default_value=os.path.join(share, 'config', 'body_bridge.yaml'),
                              description='ROS parameter file for the node'),
        DeclareLaunchArgument('use_sim_time', default_value='false',
                              description='Let the node itself run on simulated time'),
    ]
    node = Node(
        package='body_bridge',
        executable='bridge',
        name='body_bridge',
        namespace=LaunchConfiguration('namespace'),
        output='screen',
        parameters=[
            LaunchConfiguration('params_file'),
            {'model': LaunchConfiguration('model'),
             'use_sim_time': LaunchConfiguration('use_sim_time')},
        ],
    )
    return LaunchDescription([*arguments, node])
