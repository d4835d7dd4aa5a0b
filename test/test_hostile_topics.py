"""Hostile topics: a command flood with broken and oversized messages, subscribers that vanish
or stall, a controller with incompatible QoS. The bridge keeps its rate, its memory stays flat,
and each problem is reported at most once per second.

Each test runs the bridge and the hostile party in their own processes; this process watches
as a user's tools would (``/clock``, ``joint_states``) and reads the bridge's resident memory
from ``/proc``.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from conftest import REPO, SAMPLE_ARM
from test_end_to_end import STARTUP, Probe

HOSTILE = Path(__file__).with_name('hostile_publisher.py')
#: Flood: messages per second and seconds.
FLOOD_RATE, FLOOD_SECONDS = 10_000, 10.0


def cpu_seconds(pid: int) -> float:
    """User and system CPU time a process used so far [s] (Linux /proc)."""
    fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def rss_mb(pid: int) -> float:
    """Resident memory of a process [MB] (Linux /proc)."""
    for line in Path(f'/proc/{pid}/status').read_text().splitlines():
        if line.startswith('VmRSS:'):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f'no VmRSS for {pid}')


class Watch:
    """Samples the bridge once a second: simulated time (from /clock) and resident memory."""

    def __init__(self, probe: Probe, pid: int):
        self.probe, self.pid = probe, pid
        self.samples: list[tuple[float, float, float]] = []  # (wall, simulated, rss)

    def run(self, seconds: float, proc, until=None) -> None:
        end = time.monotonic() + seconds
        next_sample = time.monotonic()
        while time.monotonic() < end and (until is None or until.poll() is None):
            self.probe.spin_until(lambda due=next_sample: time.monotonic() >= due, 5.0,
                                  'a second', proc)
            self.samples.append((time.monotonic(), self.probe.clock[-1], rss_mb(self.pid)))
            next_sample += 1.0

    def rate(self, first: int = 1) -> float:
        """Simulated seconds per wall second over the samples from ``first`` on."""
        (w0, s0, _), (w1, s1, _) = self.samples[first], self.samples[-1]
        return (s1 - s0) / (w1 - w0)

    def memory_growth(self, first: int = 2) -> float:
        """Resident memory at the end minus at sample ``first`` [MB]."""
        return self.samples[-1][2] - self.samples[first][2]

    def mb(self) -> str:
        return ' '.join(f'{rss:.0f}' for _, _, rss in self.samples)


def hostile(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(HOSTILE), *args], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def report_times(log: str, pattern: str) -> list[float]:
    """Log stamps [s] of the lines matching ``pattern``."""
    out = []
    for line in log.splitlines():
        if re.search(pattern, line):
            stamp = re.search(r'\[(\d+\.\d+)\]', line)
            if stamp:
                out.append(float(stamp.group(1)))
    return out


def at_most_once_per_second(stamps: list[float]) -> bool:
    """Reports at least a second apart (a log stamp is taken when the logger runs, a few ms
    after the throttle read its clock: 0.9 s is allowed)."""
    return all(b - a >= 0.9 for a, b in zip(stamps, stamps[1:], strict=False))


@pytest.fixture
def probe(ros):
    p = Probe(ros, 'hostile_topics_probe')
    yield p
    p.close()


def test_a_command_flood_keeps_the_rate_and_the_memory(bridge, probe):
    proc = bridge(SAMPLE_ARM)
    probe.spin_until(lambda: len(probe.clock) > 10, STARTUP, '/clock', proc)
    watch = Watch(probe, proc.proc.pid)
    watch.run(3.0, proc)  # before: the rate and memory of a quiet bridge
    quiet = watch.rate(0)
    cpu_before = cpu_seconds(proc.proc.pid)
    flood = hostile('--rate', str(FLOOD_RATE), '--seconds', str(FLOOD_SECONDS))
    during = Watch(probe, proc.proc.pid)
    during.run(FLOOD_SECONDS + 20.0, proc, until=flood)
    out, err = flood.communicate(timeout=30)
    cpu = cpu_seconds(proc.proc.pid) - cpu_before
    assert flood.returncode == 0, err
    sent = json.loads(out.strip().splitlines()[-1])
    print(f'flood: {sent["total"]} messages in {sent["seconds"]:.1f} s '
          f'({sent["rate"]:.0f}/s); simulated/wall time {during.rate():.3f} '
          f'(quiet {quiet:.3f}); bridge CPU {cpu:.1f} s in '
          f'{during.samples[-1][0] - during.samples[0][0]:.1f} s; '
          f'resident memory each second [MB]: {watch.mb()} | {during.mb()}')
    assert sent['rate'] > 0.8 * FLOOD_RATE, sent  # the flood was a flood
    assert sent['sent']['oversized'] >= 50, sent
    assert during.rate() > 0.9, during.samples  # the simulation kept real time
    # The first oversized messages grow DDS and allocator buffers once (measured: +45 MB in
    # the flood's first 3 to 5 s); then memory is flat while the flood goes on (measured:
    # within 2 MB over its last 5 s).
    assert during.memory_growth(first=0) < 100.0, during.mb()
    last = [rss for _, _, rss in during.samples[-5:]]
    assert max(last) - min(last) < 5.0, during.mb()
    log = proc.output()
    # Every kind of broken message is reported, each at most once per second.
    for problem in (r'a value is NaN or infinite', r"unknown joint", r'names but \d+ values',
                    r'must fill exactly one of position'):
        stamps = report_times(log, problem)
        assert stamps, f'{problem!r} never reported:\n{log[-3000:]}'
        assert at_most_once_per_second(stamps), (problem, stamps)
    assert 'Traceback' not in log


SUBSCRIBER = '''
import sys, time, rclpy
from rclpy.qos import qos_profile_sensor_data
from sensor_msgs.msg import Imu, JointState, Range
from tf2_msgs.msg import TFMessage
from body_bridge.ros.stream import qos
rclpy.init()
node = rclpy.create_node('vanishing_subscriber')
got = []
node.create_subscription(JointState, 'joint_states', got.append, qos.JOINT_STATES)
node.create_subscription(TFMessage, '/tf', got.append, qos.TF)
node.create_subscription(Imu, 'imu', got.append, qos.SENSOR)
node.create_subscription(Range, 'range', got.append, qos.SENSOR)
while len(got) < 50:
    rclpy.spin_once(node, timeout_sec=0.1)
print('subscribed', flush=True)
while True:
    rclpy.spin_once(node, timeout_sec=0.1)
'''


def test_subscribers_that_stall_or_vanish_do_not_slow_the_bridge(bridge, probe):
    proc = bridge(SAMPLE_ARM)
    probe.spin_until(lambda: len(probe.clock) > 10, STARTUP, '/clock', proc)
    subscribers = [subprocess.Popen([sys.executable, '-c', SUBSCRIBER], cwd=REPO,
                                    stdout=subprocess.PIPE, text=True) for _ in range(2)]
    try:
        for sub in subscribers:
            assert sub.stdout.readline().strip() == 'subscribed'
        watch = Watch(probe, proc.proc.pid)
        watch.run(2.0, proc)
        os.kill(subscribers[0].pid, signal.SIGSTOP)  # alive, reliable, never reading again
        os.kill(subscribers[1].pid, signal.SIGKILL)  # gone without saying goodbye
        before = len(watch.samples) - 1  # the last sample before the signals
        watch.run(8.0, proc)
        (w0, s0, _), (w1, s1, _) = watch.samples[before], watch.samples[-1]
        lost = (w1 - w0) - (s1 - s0)
        print(f'stalled and killed subscribers: simulated/wall time {watch.rate():.3f}, '
              f'{watch.rate(len(watch.samples) - 4):.3f} over the last 3 s; {lost:.2f} s lost; '
              f'memory {watch.samples[0][2]:.0f} -> {watch.samples[-1][2]:.0f} MB')
        # Fast DDS's shared-memory transport: a reader stopped or killed at the instant it
        # holds its port's lock holds every writer to that port until the lock times out and
        # the port is checked again (measured here: 2.3 to 2.4 s, 3 times in 73 stops;
        # docs/bad-input.md). That pause is the middleware's; the bridge itself then keeps
        # real time.
        assert lost < 3.0, watch.samples
        assert watch.rate(len(watch.samples) - 4) > 0.95, watch.samples
        assert watch.samples[-1][2] - watch.samples[2][2] < 10.0, watch.samples
    finally:
        for sub in subscribers:
            if sub.poll() is None:
                os.kill(sub.pid, signal.SIGKILL)
            sub.wait()
    log = proc.output()
    assert 'Traceback' not in log and 'WARN' not in log, log


def test_a_controller_with_incompatible_qos_is_reported(bridge, probe):
    proc = bridge(SAMPLE_ARM)
    probe.spin_until(lambda: len(probe.states) > 10, STARTUP, 'joint_states', proc)
    index = list(probe.states[-1].name).index('shoulder_yaw')
    controller = hostile('--qos', 'best_effort', '--mix', 'valid', '--rate', '100',
                         '--seconds', '4')
    _, err = controller.communicate(timeout=60)
    assert controller.returncode == 0, err
    log = proc.output()
    lines = [line for line in log.splitlines() if 'joint_commands: a publisher offers QoS' in line]
    assert len(lines) == 1, log  # one publisher, one report
    assert '(RELIABILITY); none of its messages are received: publish commands reliable' in \
        lines[0], lines
    assert abs(probe.states[-1].position[index]) < 0.01  # its commands never arrived
