"""A node under test beside a sweep's run (test_sweep.py): it counts the sample arm's
joint states it hears, and when stopped (SIGINT) writes what it heard, its domain and its
use_sim_time into ``heard.json`` in the run's folder. ``--fail`` makes it end at once with
status 3, as a controller that crashes."""

from __future__ import annotations

import json
import os
import signal
import sys

if '--fail' in sys.argv:
    sys.exit(3)

import rclpy  # noqa: E402
from rclpy.node import Node  # noqa: E402
from rclpy.signals import SignalHandlerOptions  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

stop = []
rclpy.init(args=sys.argv, signal_handler_options=SignalHandlerOptions.NO)
signal.signal(signal.SIGINT, lambda *_: stop.append(1))
node = Node('listener')
heard = {'joint_states': 0}


def count(_msg) -> None:
    heard['joint_states'] += 1


node.create_subscription(JointState, '/arm/joint_states', count, 10)
while not stop:
    rclpy.spin_once(node, timeout_sec=0.05)
heard['use_sim_time'] = node.get_parameter('use_sim_time').value
heard['domain'] = os.environ.get('ROS_DOMAIN_ID')
heard['index'] = os.environ.get('BODY_BRIDGE_RUN_INDEX')
with open(os.path.join(os.environ['BODY_BRIDGE_RUN_DIR'], 'heard.json'), 'w') as f:
    json.dump(heard, f)
node.destroy_node()
rclpy.shutdown()
