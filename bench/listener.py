"""A subscriber in its own process, as a user's controller or rviz would be: it subscribes to
the bridge's topics and counts what arrives.

    python bench/listener.py        (started by the benchmarks; JSON lines on stdin/stdout)

Commands, one JSON object per line on standard input; each is answered by one JSON line:

* ``{"op": "add", "ns": "/x", "cameras": false}``: subscribe to every topic under the
  namespace (camera topics only with ``cameras``: true for every camera, or a list of camera
  names, ``["Kinect"]``), and to ``/tf`` and ``/clock``; topics that appear later are
  subscribed to as they appear (the graph can take seconds to show them).
* ``{"op": "add", "ns": "/x", "topics": [[name, type, reliable], ...]}``: subscribe to these
  topics now (type as ``sensor_msgs/msg/Imu``; reliable or best effort).
* ``{"op": "drop", "ns": "/x"}``: unsubscribe from them (and from ``/tf``, ``/clock`` when no
  namespace is left).
* ``{"op": "reset"}``: counters back to zero.
* ``{"op": "report"}``: messages received per topic, and the span of ``/clock`` seen since the
  last reset: ``clock`` = [first simulated time, its wall time, last simulated time, its
  wall time] [s].
* ``{"op": "quit"}``.
"""

from __future__ import annotations

import importlib
import json
import select
import subprocess
import sys
import time
from pathlib import Path

#: Topics a camera publishes (not subscribed to unless asked).
CAMERA_SUFFIXES = ('/image_raw', '/camera_info', '/depth/image', '/depth/camera_info')
#: Its compressed images: subscribed to only when named (``topics``), since a subscriber makes
#: the bridge compress every frame.
COMPRESSED_SUFFIXES = ('/image_raw/compressed', '/depth/image/compressedDepth')
#: Published once, latched: not what the benchmarks count.
SKIPPED = ('/robot_description', '/tf_static', '/parameter_events', '/rosout')
GLOBAL = ('/tf', '/clock')


def _message_type(name: str):
    package, kind, message = name.split('/')
    return getattr(importlib.import_module(f'{package}.{kind}'), message)


class Listener:
    """Subscriptions by namespace, and what they received."""

    def __init__(self, node):
        self.node = node
        self.spaces: dict[str, bool | tuple] = {}  # namespace -> with cameras (or which)
        self.given: dict[str, list] = {}  # namespace -> its topics named by the client
        self.subs: dict[str, object] = {}
        self.counts: dict[str, int] = {}
        self.clock: list[float] | None = None

    def wanted(self, topic: str) -> bool:
        if any(topic == t[0] for topics in self.given.values() for t in topics):
            return True
        if topic in GLOBAL:
            return bool(self.spaces)
        if topic.endswith(SKIPPED) or '/_action/' in topic or topic.endswith(COMPRESSED_SUFFIXES):
            return False  # action internals: not state; compressed images: only when named
        for space, cameras in self.spaces.items():
            if topic.startswith(space + '/'):
                if isinstance(cameras, tuple) and cameras:
                    if any(topic.startswith(f'{space}/{name}/') for name in cameras):
                        return True
                    cameras = False
                return cameras or not self._is_camera(topic)
        return False

    def _is_camera(self, topic: str) -> bool:
        """Camera topics; a camera's point cloud has camera topics beside it."""
        if topic.endswith(CAMERA_SUFFIXES):
            return True
        if not topic.endswith('/points'):
            return False
        base = topic[:-len('/points')]
        return any(name.startswith(base + '/') and name.endswith(CAMERA_SUFFIXES)
                   for name, _ in self.node.get_topic_names_and_types())

    def refresh(self) -> None:
        """Subscribe to the wanted topics that exist, drop the unwanted ones."""
        from rclpy.qos import ReliabilityPolicy
        for topics in self.given.values():
            for topic, kind, reliable in topics:
                self._subscribe(topic, kind, reliable)
        if self.spaces:
            for topic, types in self.node.get_topic_names_and_types():
                if topic in self.subs or not self.wanted(topic):
                    continue
                publishers = self.node.get_publishers_info_by_topic(topic)
                if publishers:
                    self._subscribe(topic, types[0], all(
                        p.qos_profile.reliability == ReliabilityPolicy.RELIABLE
                        for p in publishers))
        for topic in [t for t in self.subs if not self.wanted(t)]:
            self.node.destroy_subscription(self.subs.pop(topic))

    def _subscribe(self, topic: str, kind: str, reliable: bool) -> None:
        from rclpy.qos import QoSProfile, ReliabilityPolicy
        if topic in self.subs:
            return
        qos = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE if reliable
                         else ReliabilityPolicy.BEST_EFFORT)
        self.subs[topic] = self.node.create_subscription(
            _message_type(kind), topic, self._counter(topic), qos)

    def _counter(self, topic: str):
        def count(msg) -> None:
            self.counts[topic] = self.counts.get(topic, 0) + 1
            if topic == '/clock':
                now = time.monotonic()
                sim = msg.clock.sec + 1e-9 * msg.clock.nanosec
                if self.clock is None:
                    self.clock = [sim, now, sim, now]
                else:
                    self.clock[2:] = [sim, now]
        return count

    def handle(self, command: dict) -> dict:
        op = command.get('op')
        if op == 'add' and 'topics' in command:
            self.given[command['ns']] = [tuple(t) for t in command['topics']]
        elif op == 'add':
            cameras = command.get('cameras')
            self.spaces[command['ns'].rstrip('/')] = (tuple(cameras) if isinstance(cameras, list)
                                                      else bool(cameras))
        elif op == 'drop':
            self.spaces.pop(command['ns'].rstrip('/'), None)
            self.given.pop(command['ns'], None)
        elif op == 'reset':
            self.counts, self.clock = {}, None
        elif op == 'report':
            return {'counts': self.counts, 'clock': self.clock,
                    'subscriptions': sorted(self.subs)}
        elif op != 'quit':
            return {'error': f'unknown op {op!r}'}
        self.refresh()
        return {'ok': True}


class ListenerProcess:
    """The client side: starts ``listener.py`` in its own process and talks to it."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve())],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self._read()  # ready

    def _read(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError('the listener process exited')
        return json.loads(line)

    def send(self, op: str, **args) -> dict:
        self.proc.stdin.write(json.dumps({'op': op, **args}) + '\n')
        self.proc.stdin.flush()
        return self._read()

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send('quit')
                self.proc.wait(timeout=10)
            except (RuntimeError, OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


def main() -> int:
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    rclpy.init()
    node = rclpy.create_node('bench_listener')
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    listener = Listener(node)
    next_refresh = 0.0
    print(json.dumps({'ready': True}), flush=True)
    try:
        while True:
            executor.spin_once(timeout_sec=0.002)
            now = time.monotonic()
            if now >= next_refresh:
                listener.refresh()
                next_refresh = now + 0.2
            if select.select([sys.stdin], [], [], 0)[0]:
                line = sys.stdin.readline()
                if not line:
                    break
                command = json.loads(line)
                print(json.dumps(listener.handle(command)), flush=True)
                if command.get('op') == 'quit':
                    break
    except KeyboardInterrupt:
        pass
    finally:
        node.destroy_node()
        rclpy.shutdown()
    return 0


if __name__ == '__main__':
    sys.exit(main())
