"""A ros2_control user's controllers attached through topic_based_ros2_control (the hardware
plugin Isaac Sim users use), as that plugin talks: every control cycle one
sensor_msgs/JointState with every joint's name and, per joint, the fields of its command
interfaces, published reliable with depth 1; joint states read best effort (SensorDataQoS);
both on the topics the bridge's parameters name."""

from __future__ import annotations

import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from rclpy.qos import QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
from sensor_msgs.msg import JointState

from conftest import SAMPLE_ARM
from test_end_to_end import STARTUP, spin_until

JOINTS = ['shoulder_yaw', 'shoulder_pitch', 'elbow_pitch', 'wrist_pitch']
#: What the plugin's publisher uses (rclcpp::QoS(1): reliable, volatile, keep last 1).
PLUGIN_COMMANDS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE)


@pytest.mark.parametrize('field, values', [
    ('position', [0.3, -0.2, 0.5, 0.1]),
    ('velocity', [0.2, 0.0, -0.1, 0.0]),
    ('effort', [0.5, 1.0, -0.5, 0.2]),
])
def test_commands_as_the_plugin_sends_them_move_the_arm(ros, bridge, field, values):
    # The plugin's topics (its defaults, /robot_joint_commands and /robot_joint_states, here
    # under a namespace of the test) and its publisher's depth set as the bridge's parameters.
    ns = f'/tb_{field}'
    proc = bridge(SAMPLE_ARM, '-r', f'__ns:={ns}',
                  '-p', f'joint_commands_topic:={ns}/robot_joint_commands',
                  '-p', f'joint_states_topic:={ns}/robot_joint_states',
                  '-p', 'joint_commands_depth:=1')
    node = ros.create_node('topic_based_system', namespace=ns)
    states: list[JointState] = []
    node.create_subscription(JointState, 'robot_joint_states', states.append,
                             qos_profile_sensor_data)
    commands = node.create_publisher(JointState, 'robot_joint_commands', PLUGIN_COMMANDS)
    spin_until(ros, node, lambda: states and commands.get_subscription_count() > 0, STARTUP,
               'robot_joint_states and the command subscription', proc)
    # The bridge's own names are not served any more.
    assert not node.get_publishers_info_by_topic(f'{ns}/joint_states')
    assert not node.get_subscriptions_info_by_topic(f'{ns}/joint_commands')

    def send():
        msg = JointState()
        msg.header.stamp = node.get_clock().now().to_msg()
        msg.name = list(JOINTS)
        getattr(msg, field).extend(values)  # one command interface per joint
        commands.publish(msg)

    def reached():
        send()  # the plugin publishes every control cycle
        last = states[-1]
        got = [getattr(last, field)[list(last.name).index(j)] for j in JOINTS]
        return all(abs(a - b) < 0.02 for a, b in zip(got, values))
    spin_until(ros, node, reached, 30.0, f'the {field} commands to take', proc)
    node.destroy_node()
