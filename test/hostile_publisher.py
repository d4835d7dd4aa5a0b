"""A buggy controller in its own process: floods a command topic with valid and broken messages.

    python test/hostile_publisher.py --rate 10000 --seconds 10 [--namespace NS]
                                     [--qos reliable|best_effort] [--mix valid|all]

Publishes ``joint_commands`` (sensor_msgs/JointState) at ``--rate`` messages per second for
``--seconds``, cycling through the kinds in ``KINDS`` (``--mix all``) or only valid position
commands (``--mix valid``); one in ``OVERSIZED_EVERY`` messages is an oversized one (100,000
names). Prints one JSON line at the end: messages sent per kind and the rate reached.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter

#: The joint every valid command moves (the bundled sample arm's vertical axis).
JOINT = 'shoulder_yaw'
#: One message in this many is oversized.
OVERSIZED_EVERY = 1000
OVERSIZED_NAMES = 100_000

KINDS = ('valid', 'nan', 'unknown_joint', 'length_mismatch', 'two_fields', 'infinite')


def _message(kind: str, i: int):
    from sensor_msgs.msg import JointState
    if kind == 'valid':
        return JointState(name=[JOINT], position=[0.5 * math.sin(i * 1e-3)])
    if kind == 'nan':
        return JointState(name=[JOINT], position=[math.nan])
    if kind == 'infinite':
        return JointState(name=[JOINT], effort=[-math.inf])
    if kind == 'unknown_joint':
        return JointState(name=[f'ghost_{i}'], position=[0.1])  # a new name every time
    if kind == 'length_mismatch':
        return JointState(name=[JOINT, 'elbow_pitch'], position=[0.1])
    return JointState(name=[JOINT], position=[0.1], velocity=[0.2])


def _oversized():
    from sensor_msgs.msg import JointState
    names = [f'joint_{k}' for k in range(OVERSIZED_NAMES)]
    return JointState(name=names, position=[0.0] * OVERSIZED_NAMES)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--rate', type=float, default=10000.0, help='[messages/s]')
    parser.add_argument('--seconds', type=float, default=10.0)
    parser.add_argument('--namespace', default='')
    parser.add_argument('--qos', choices=('reliable', 'best_effort'), default='reliable')
    parser.add_argument('--mix', choices=('valid', 'all'), default='all')
    parser.add_argument('--wait', type=float, default=30.0,
                        help='seconds to wait for the bridge to subscribe [s]')
    args = parser.parse_args(argv)

    import rclpy
    from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
    rclpy.init()
    node = rclpy.create_node('hostile_controller', namespace=args.namespace or None)
    qos = QoSProfile(depth=10, history=HistoryPolicy.KEEP_LAST,
                     reliability=ReliabilityPolicy.RELIABLE if args.qos == 'reliable'
                     else ReliabilityPolicy.BEST_EFFORT)
    pub = node.create_publisher(__import__('sensor_msgs.msg', fromlist=['JointState']).JointState,
                                'joint_commands', qos)
    deadline = time.monotonic() + args.wait
    if args.qos == 'reliable':  # (a best-effort writer never matches the bridge's reader)
        while pub.get_subscription_count() == 0 and time.monotonic() < deadline:
            rclpy.spin_once(node, timeout_sec=0.05)
    kinds = KINDS if args.mix == 'all' else ('valid',)
    prepared = {kind: [_message(kind, i) for i in range(64)] for kind in kinds}
    big = _oversized()
    sent = Counter()
    period = 1.0 / args.rate
    start = time.perf_counter()
    i = 0
    while True:
        now = time.perf_counter()
        if now - start >= args.seconds:
            break
        due = start + i * period
        if now < due:
            time.sleep(min(due - now, 1e-3))  # a controller's loop, not a busy wait
            continue
        if i % OVERSIZED_EVERY == OVERSIZED_EVERY - 1 and args.mix == 'all':
            pub.publish(big)
            sent['oversized'] += 1
        else:
            kind = kinds[i % len(kinds)]
            msg = prepared[kind][i % 64]
            if kind == 'unknown_joint':
                msg.name = [f'ghost_{i}']
            pub.publish(msg)
            sent[kind] += 1
        i += 1
    elapsed = time.perf_counter() - start
    print(json.dumps({'sent': dict(sent), 'total': i, 'seconds': elapsed,
                      'rate': i / elapsed}), flush=True)
    node.destroy_node()
    rclpy.shutdown()
    return 0


if __name__ == '__main__':
    sys.exit(main())
