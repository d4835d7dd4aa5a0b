"""The QoS of every topic of the ROS contract (DESIGN.md), in one place."""

from rclpy.qos import (DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy,
                       qos_profile_sensor_data)

try:
    from rclpy.event_handler import PublisherEventCallbacks
except ImportError:  # Humble
    from rclpy.qos_event import PublisherEventCallbacks

__all__ = ['LATCHED', 'TF', 'TF_STATIC', 'JOINT_STATES', 'CLOCK', 'SENSOR', 'COMMANDS',
           'joint_topic', 'NO_PUBLISHER_EVENTS']

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

#: The event callbacks of the node's publishers: none. rclpy gives every publisher two
#: handlers by default (incompatible QoS, incompatible type), each an entity the executor
#: polls in every turn: with the node's twenty-odd publishers they made a turn cost about
#: 0.5 ms, paid before each command is taken. The subscriber of a mismatched pair reports the
#: mismatch (rviz2, ``ros2 topic echo``), as the node does for its own command topics.
NO_PUBLISHER_EVENTS = PublisherEventCallbacks(use_default_callbacks=False)


def joint_topic(params, topic: str) -> tuple[str, QoSProfile]:
    """The name and QoS of ``joint_states`` or ``joint_commands`` from the node's parameters
    (``<topic>_topic``, ``<topic>_reliability``, ``<topic>_depth``: volatile, keep last)."""
    reliability = ReliabilityPolicy.BEST_EFFORT if \
        params[f'{topic}_reliability'] == 'best_effort' else ReliabilityPolicy.RELIABLE
    return params[f'{topic}_topic'], QoSProfile(
        depth=params[f'{topic}_depth'], history=HistoryPolicy.KEEP_LAST,
        reliability=reliability, durability=DurabilityPolicy.VOLATILE)
