"""The QoS of every topic of the ROS contract (DESIGN.md), in one place."""

from rclpy.qos import (DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy,
                       qos_profile_sensor_data)

__all__ = ['LATCHED', 'TF', 'TF_STATIC', 'JOINT_STATES', 'CLOCK', 'SENSOR', 'COMMANDS',
           'joint_topic']

#: robot_description: reliable, transient local, depth 1 (late joiners get it).
LATCHED = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                     reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
#: /tf, as tf2_ros.TransformBroadcaster: reliable, volatile, depth 100.
TF = QoSProfile(depth=100, history=HistoryPolicy.KEEP_LAST,
                reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.VOLATILE)
#: /tf_static, as tf2_ros.StaticTransformBroadcaster: reliable, transient local, depth 1.
TF_STATIC = LATCHED
#: joint_states: reliable, depth 10.
JOINT_STATES = QoSProfile(depth=10, history=HistoryPolicy.KEEP_LAST,
                          reliability=ReliabilityPolicy.RELIABLE,
                          durability=DurabilityPolicy.VOLATILE)
#: /clock: depth 1 (reliable, so both reliable and best-effort subscribers match).
CLOCK = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                   reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.VOLATILE)
#: Sensor topics: the sensor-data profile (best effort, depth 5).
SENSOR = qos_profile_sensor_data
#: Command topics: reliable, depth 10.
COMMANDS = JOINT_STATES


def joint_topic(params, topic: str) -> tuple[str, QoSProfile]:
    """The name and QoS of ``joint_states`` or ``joint_commands`` from the node's parameters
    (``<topic>_topic``, ``<topic>_reliability``, ``<topic>_depth``: volatile, keep last)."""
    reliability = ReliabilityPolicy.BEST_EFFORT if \
        params[f'{topic}_reliability'] == 'best_effort' else ReliabilityPolicy.RELIABLE
    return params[f'{topic}_topic'], QoSProfile(
        depth=params[f'{topic}_depth'], history=HistoryPolicy.KEEP_LAST,
        reliability=reliability, durability=DurabilityPolicy.VOLATILE)
