"""Command-to-state latency of the bridge, measured from another process as a controller sees it.

    python bench/latency.py [--samples N] [--model MODEL] [--joint JOINT]
                            [--real-time-factor R] [--control-rate HZ]

Starts the bridge in its own process (its own DDS domain, this machine only), then repeats:
publish an effort command on ``joint_commands`` and wait for the first ``joint_states``
message whose effort for that joint is the commanded value (an effort is applied exactly, so
the state that shows it is the first that reflects the command). The wall time between the
two is one sample; commands are sent at phases spread evenly over the control period (the
k-th a fraction k times the golden ratio, modulo 1, of a period after the previous state
arrived): a command waits for the next period, so the median is about half a period plus
the bridge's own delay, and phases drawn at random would move that median by about 0.3 ms
(one standard error over 300 samples) from run to run.

Prints ``name value unit`` lines: the median and the 99th percentile of the latency [ms], and
the control period they should be compared with. In the suite (``run.py --only latency``) a
plain rclpy node that takes the command and publishes a JointState on its next timer tick
(``plain_node.py``) is timed by the same harness in the same run: the floor the bridge's
median is measured against (``command_to_state_latency_over_plain``).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: The golden ratio's fractional part: its multiples modulo 1 spread evenly over [0, 1).
GOLDEN = (5 ** 0.5 - 1) / 2


def _arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--samples', type=int, default=300, help='commands to time')
    parser.add_argument('--model', default='sample_arm', help='model file or bundled name')
    parser.add_argument('--joint', default='shoulder_yaw',
                        help='joint to command (a vertical axis keeps gravity out of it)')
    parser.add_argument('--real-time-factor', type=float, default=1.0)
    parser.add_argument('--control-rate', type=float, default=100.0, help='[Hz]')
    parser.add_argument('--timeout', type=float, default=60.0,
                        help='wall time allowed for start-up and for each sample [s]')
    return parser.parse_args(argv)


def _isolate() -> None:
    """A DDS domain of our own on this machine (before rclpy is imported)."""
    if 'ROS_DOMAIN_ID' not in os.environ:
        os.environ['ROS_DOMAIN_ID'] = str(random.Random(os.getpid()).randint(101, 200))
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    os.environ.pop('ROS_LOCALHOST_ONLY', None)


def _start_bridge(args, log) -> subprocess.Popen:
    cmd = [sys.executable, '-m', 'body_bridge', 'sim', args.model, '--ros-args',
           '-r', '__ns:=/latency_bench', '-p', f'real_time_factor:={args.real_time_factor}',
           '-p', f'control_rate:={args.control_rate}']
    return subprocess.Popen(cmd, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)


def _percentile(values, fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def measure(args) -> list[float]:
    """Latencies [s] of ``args.samples`` commands."""
    import rclpy
    from sensor_msgs.msg import JointState

    from body_bridge.ros.stream import qos

    rclpy.init()
    node = rclpy.create_node('latency_bench', namespace='/latency_bench')
    received: list[tuple[float, JointState]] = []
    node.create_subscription(JointState, 'joint_states',
                             lambda m: received.append((time.perf_counter(), m)), qos.JOINT_STATES)
    pub = node.create_publisher(JointState, 'joint_commands', qos.COMMANDS)

    def spin_until(predicate, what):
        deadline = time.monotonic() + args.timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise TimeoutError(f'timed out waiting for {what}')
            rclpy.spin_once(node, timeout_sec=0.01)

    try:
        spin_until(lambda: len(received) > 5 and pub.get_subscription_count() > 0,
                   'the bridge to start')
        index = list(received[-1][1].name).index(args.joint)
        latencies = []
        for k in range(args.samples):
            effort = (0.01 + 1e-5 * k) * (1 if k % 2 else -1)  # distinct, small, alternating
            received.clear()
            sent = time.perf_counter()
            pub.publish(JointState(name=[args.joint], effort=[effort]))

            def reflected(effort=effort):
                return any(abs(m.effort[index] - effort) < 1e-12 for _, m in received)
            spin_until(reflected, f'the state of command {k}')
            arrived = next(t for t, m in received if abs(m.effort[index] - effort) < 1e-12)
            latencies.append(arrived - sent)
            time.sleep(((k * GOLDEN) % 1.0) / args.control_rate)  # the next phase
        return latencies
    finally:
        node.destroy_node()
        rclpy.shutdown()


def _start_plain(args, log) -> subprocess.Popen:
    cmd = [sys.executable, str(REPO / 'bench' / 'plain_node.py'), '/latency_bench', args.joint,
           str(args.control_rate)]
    return subprocess.Popen(cmd, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)


def _run_bridge_and_measure(args, start=_start_bridge) -> list[float]:
    """Start the bridge (or what ``start`` starts), time the commands, stop it; latencies [s].

    Raises:
        TimeoutError: the bridge did not start or answer (the message has its output).
    """
    _isolate()
    with tempfile.TemporaryFile('w+') as log:
        bridge = start(args, log)
        try:
            return measure(args)
        except TimeoutError as err:
            log.seek(0)
            raise TimeoutError(f'{err}; bridge output:\n{log.read()}') from err
        finally:
            bridge.send_signal(2)
            try:
                bridge.wait(timeout=10)
            except subprocess.TimeoutExpired:
                bridge.kill()
                bridge.wait()


def run(figures, samples: int = 300) -> None:
    """Add the latency figures (the defaults of the command line, ``samples`` commands), and
    those of a plain rclpy node timed the same way in the same run (``plain_node.py``: the
    command taken, a JointState published on its next timer tick at the control rate, no
    simulation): halves of the samples in the order bridge, plain, plain, bridge."""
    half = max(1, samples // 2)
    args = _arguments(['--samples', str(half)])
    ms: dict[str, list[float]] = {'bridge': [], 'plain': []}
    for side in ('bridge', 'plain', 'plain', 'bridge'):
        start = _start_bridge if side == 'bridge' else _start_plain
        ms[side] += [1e3 * x for x in _run_bridge_and_measure(args, start)]
    bridge, plain = ms['bridge'], ms['plain']
    figures.add('command_to_state_latency_median', _percentile(bridge, 0.5), 'ms')
    figures.add('command_to_state_latency_p99', _percentile(bridge, 0.99), 'ms')
    figures.add('command_to_state_latency_samples', len(bridge), 'count')
    figures.add('command_to_state_latency_plain_median', _percentile(plain, 0.5), 'ms')
    figures.add('command_to_state_latency_plain_p99', _percentile(plain, 0.99), 'ms')
    figures.add('command_to_state_latency_over_plain',
                _percentile(bridge, 0.5) - _percentile(plain, 0.5), 'ms')
    figures.add('control_period', 1e3 / args.control_rate, 'ms')


def main(argv=None) -> int:
    args = _arguments(argv)
    try:
        latencies = _run_bridge_and_measure(args)
    except TimeoutError as err:
        print(f'error: {err}', file=sys.stderr)
        return 1
    ms = [1e3 * x for x in latencies]
    print(f'command_to_state_latency_median {_percentile(ms, 0.5):.3f} ms')
    print(f'command_to_state_latency_p99 {_percentile(ms, 0.99):.3f} ms')
    print(f'command_to_state_latency_samples {len(ms)} count')
    print(f'control_period {1e3 / args.control_rate:.3f} ms')
    return 0


if __name__ == '__main__':
    sys.exit(main())
