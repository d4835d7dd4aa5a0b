"""The floor of the command-to-state latency: a plain rclpy node, no simulation.

    python bench/plain_node.py NAMESPACE JOINT [RATE]

Takes ``joint_commands`` (sensor_msgs/JointState, the bridge's QoS) and publishes
``joint_states`` (the bridge's QoS) on its next timer tick at RATE Hz (default 100), with
the last effort commanded for JOINT: what the bridge does without the simulation, its
servos, its other messages or its stepping thread. ``bench/latency.py`` times it with the
same harness as the bridge, in the same run (``command_to_state_latency_plain_median``).
Runs until SIGINT or SIGTERM.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    namespace, joint = argv[0], argv[1]
    rate = float(argv[2]) if len(argv) > 2 else 100.0
    import rclpy
    from rclpy.executors import ExternalShutdownException
    from sensor_msgs.msg import JointState

    from body_bridge.ros.stream import qos

    rclpy.init()
    node = rclpy.create_node('plain_node', namespace=namespace)
    state = JointState(name=[joint], position=[0.0], velocity=[0.0], effort=[0.0])
    publisher = node.create_publisher(JointState, 'joint_states', qos.JOINT_STATES)

    def command(msg: JointState) -> None:
        if joint in msg.name and msg.effort:
            state.effort = [float(msg.effort[list(msg.name).index(joint)])]

    def tick() -> None:
        state.header.stamp = node.get_clock().now().to_msg()
        publisher.publish(state)

    node.create_subscription(JointState, 'joint_commands', command, qos.COMMANDS)
    node.create_timer(1.0 / rate, tick)
    signal.signal(signal.SIGTERM, lambda *_: rclpy.try_shutdown())
    try:
        rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == '__main__':
    sys.exit(main())
