"""Physics overhead: the bridge's stepping thread against raw ``mj_step`` of the same model.

The bridge side is one turn of the node's stepping loop per control period
(``SimulationRunner.advance``: commands applied, servos set, the physics stepped, then
``joint_states``, ``/tf``, ``/clock`` and every device that is due built and published),
as fast as possible, without the pacing. The raw side is ``mujoco.mj_step`` on the same
compiled model (the same actuators, as the bridge has set them), from the same state, for the
same simulated time. The two run alternately; each side's median is taken.

Throughput ratio = raw time / bridge time (1 means the bridge costs nothing; 0.5 that it
costs as much again as the physics). Measured twice: with nobody listening (devices and state
topics nobody subscribes to are not even read or filled) and with a subscriber in another
process on every topic but the cameras' (the realistic case: a controller and rviz are
listening).

With the subscriber, a run of its own counts the messages written a period and the stepping
thread's CPU inside rclpy's ``publish`` (serialisation and the middleware's write, the
subscriber's wake-up included): ``*_ratio_ceiling`` is raw time / (raw time + that), the
ratio the bridge would reach if everything but the physics and the writes cost nothing;
``*_ratio_of_ceiling`` is the ratio over that ceiling, and ``*_cost_unsubscribed`` the
stepping thread's CPU with nobody listening over raw ``mj_step``'s (issue 38's goals).
"""

from __future__ import annotations

import time
from contextlib import ExitStack, contextmanager

import mujoco
from figures import Cost, side_by_side, timed

__all__ = ['BridgeUnderTest', 'bridge_under_test', 'overhead', 'run']


class BridgeUnderTest:
    """A bridge node and its runner in this process, stepped by the benchmark.

    Args:
        context: the rclpy context.
        model: model file or bundled name.
        namespace: the node's namespace.
        parameters: more node parameters, name -> value.
    """

    def __init__(self, context, model: str, namespace: str, parameters: dict | None = None):
        from rclpy.parameter import Parameter

        from body_bridge.ros.node.node import BridgeNode
        from body_bridge.ros.node.runner import SimulationRunner
        overrides = [Parameter('model', value=str(model))]
        overrides += [Parameter(k, value=v) for k, v in (parameters or {}).items()]
        self.node = BridgeNode(shared=True, context=context, namespace=namespace,
                               parameter_overrides=overrides)
        self.runner = SimulationRunner([self.node])
        self.world = self.runner.world
        self.namespace = namespace
        self._raw = mujoco.MjData(self.world.mj)

    def publishers(self, cameras=False) -> list:
        """The node's per-period publishers (and its devices', cameras only if asked: True for
        every camera, or a list of camera names)."""
        from body_bridge.sim.sensing.sensors import CameraSampler
        node = self.node
        pubs = [node._state_pub, node._tf_pub, node._clock_pub]
        for name, output in node.sensors.outputs.items():
            watched = cameras is True or (bool(cameras) and name in cameras)
            if watched or not isinstance(output.sampler, CameraSampler):
                pubs += output.publishers
        return [p for p in pubs if p is not None]

    def topics(self, cameras=False) -> list[tuple[str, str, bool]]:
        """(name, type, reliable) of every topic of :meth:`publishers`."""
        from rclpy.qos import ReliabilityPolicy
        out = []
        for pub in self.publishers(cameras):
            kind = pub.msg_type
            package = kind.__module__.split('.')[0]
            reliable = pub.qos_profile.reliability == ReliabilityPolicy.RELIABLE
            out.append((pub.topic_name, f'{package}/msg/{kind.__name__}', reliable))
        return out

    def listen(self, listener, cameras=False) -> None:
        """Have the listener subscribe to every per-period topic; wait until it has."""
        listener.send('add', ns=self.namespace, topics=self.topics(cameras))
        self.wait_for_subscribers(True, cameras)

    def forget(self, listener) -> None:
        """Have the listener unsubscribe (not waited for: the node goes)."""
        listener.send('drop', ns=self.namespace)

    def wait_for_subscribers(self, present: bool, cameras=False,
                             timeout: float = 15.0) -> None:
        """Until every publisher has a subscriber (``present``) or none has one."""
        deadline = time.monotonic() + timeout
        while True:
            counts = [p.get_subscription_count() for p in self.publishers(cameras)]
            if all(counts) if present else not any(counts):
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f'{self.namespace}: subscribers not '
                                   f'{"matched" if present else "gone"}: {counts}')
            time.sleep(0.05)

    def wait_heard(self, listener, timeout: float = 15.0) -> None:
        """Step until the listener has received a message of this node's (matching on the
        publishers' side can come before the listener's side takes data)."""
        deadline = time.monotonic() + timeout
        while True:
            counts = listener.send('report')['counts']
            if any(n > 0 for topic, n in counts.items()
                   if topic.startswith(self.namespace + '/')):
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f'{self.namespace}: the listener heard nothing')
            self.runner.advance()
            time.sleep(0.01)

    def bridge(self, periods: int) -> Cost:
        """What ``periods`` turns of the stepping loop cost."""
        advance = self.runner.advance

        def turns():
            for _ in range(periods):
                advance()
        return timed(turns)

    def raw(self, periods: int) -> Cost:
        """What raw mj_step costs over the same simulated time, from the bridge's current
        state."""
        mj, raw = self.world.mj, self._raw
        mujoco.mj_copyData(raw, mj, self.world.data)
        return timed(lambda: mujoco.mj_step(mj, raw, nstep=periods * self.world.substeps))

    def close(self) -> None:
        self.node.sensors.suite.close()
        self.node.destroy_node()


@contextmanager
def bridge_under_test(context, model, namespace, parameters=None):
    bridge = BridgeUnderTest(context, model, namespace, parameters)
    try:
        yield bridge
    finally:
        bridge.close()


@contextmanager
def counted_writes():
    """Count rclpy's ``Publisher.publish`` calls and the calling thread's CPU inside them
    (the message's serialisation and the middleware's write, a subscriber's wake-up
    included) while the block runs; yields a dict with 'calls' and 'cpu' [s]."""
    from rclpy.publisher import Publisher
    original = Publisher.publish
    tally = {'calls': 0, 'cpu': 0.0}

    def publish(self, msg):
        start = time.thread_time()
        try:
            return original(self, msg)
        finally:
            tally['cpu'] += time.thread_time() - start
            tally['calls'] += 1
    Publisher.publish = publish
    try:
        yield tally
    finally:
        Publisher.publish = original


def writes(bridge: BridgeUnderTest, periods: int) -> tuple[float, float]:
    """Messages written a period, and the stepping thread's CPU inside those writes a
    period [s], over ``periods`` turns (a run of its own: the counting costs a little)."""
    with counted_writes() as tally:
        bridge.bridge(periods)
    return tally['calls'] / periods, tally['cpu'] / periods


def overhead(bridge: BridgeUnderTest, seconds: float, repeats: int) -> dict[str, Cost]:
    """Bridge and raw cost per control period, side by side (medians)."""
    periods = max(1, round(seconds / bridge.world.period))
    bridge.bridge(max(1, periods // 4))  # warm-up: first messages, caches
    costs = side_by_side({'bridge': lambda: bridge.bridge(periods),
                          'raw': lambda: bridge.raw(periods)}, repeats)
    return {side: cost / periods for side, cost in costs.items()}


def _report(figures, name: str, bridge: BridgeUnderTest, alone, heard, received,
            written) -> None:
    period = bridge.world.period
    prefix = f'throughput_{name}'
    raw, ours = heard['raw'], heard['bridge']
    figures.add(f'{prefix}_raw_period', 1e6 * raw.cpu, 'us')
    figures.add(f'{prefix}_bridge_period', 1e6 * ours.cpu, 'us')
    figures.add(f'{prefix}_ratio', raw.cpu / ours.cpu, 'x')
    figures.add(f'{prefix}_ratio_wall', raw.wall / ours.wall, 'x')
    # The stepping thread's CPU, and the whole process's (the middleware's threads' too).
    figures.add(f'{prefix}_bridge_process_period', 1e6 * ours.process, 'us')
    figures.add(f'{prefix}_ratio_process', raw.process / ours.process, 'x')
    figures.add(f'{prefix}_bridge_rtf_wall', period / ours.wall, 'x')
    figures.add(f'{prefix}_bridge_period_unsubscribed', 1e6 * alone['bridge'].cpu, 'us')
    figures.add(f'{prefix}_ratio_unsubscribed', alone['raw'].cpu / alone['bridge'].cpu, 'x')
    # What the middleware's writes cost the stepping thread: with the physics, a ceiling on
    # the ratio that no cut in the bridge's own code passes while it writes these messages.
    count, cpu = written
    figures.add(f'{prefix}_writes_per_period', count, 'count')
    figures.add(f'{prefix}_write_period', 1e6 * cpu, 'us')
    figures.add(f'{prefix}_ratio_ceiling', raw.cpu / (raw.cpu + cpu), 'x')
    # Issue 38's goals, against floors measured in this run: the ratio over its ceiling (1:
    # the bridge's own work costs nothing beside the writes), and the stepping thread with
    # nobody listening over raw mj_step (1: nothing beside the physics).
    figures.add(f'{prefix}_ratio_of_ceiling', (raw.cpu / ours.cpu) / (raw.cpu / (raw.cpu + cpu)),
                'x')
    figures.add(f'{prefix}_cost_unsubscribed', alone['bridge'].cpu / alone['raw'].cpu, 'x')
    figures.add(f'{prefix}_messages_received',
                sum(n for topic, n in received.items() if topic.startswith(bridge.namespace)),
                'count')


def run(figures, context, listener, models: dict, quick: bool) -> None:
    """Physics overhead of each model: name -> (model file, parameters).

    Every model's node is created first and measured alone; then the listener subscribes to
    all of them at once (matching takes up to seconds here) and each is measured again.
    """
    seconds, repeats = (0.2, 3) if quick else (1.0, 11)
    with ExitStack() as stack:
        bridges = {name: stack.enter_context(bridge_under_test(
            context, model, f'/bench_{name}', parameters))
            for name, (model, parameters) in models.items()}
        alone = {}
        for name, bridge in bridges.items():
            bridge.wait_for_subscribers(False)
            alone[name] = overhead(bridge, seconds, repeats)
        for bridge in bridges.values():
            listener.send('add', ns=bridge.namespace, topics=bridge.topics())
        for name, bridge in bridges.items():
            bridge.wait_for_subscribers(True)
            bridge.wait_heard(listener)
            listener.send('reset')
            heard = overhead(bridge, seconds, repeats)
            received = listener.send('report')['counts']
            written = writes(bridge, max(1, round(seconds / bridge.world.period)))
            _report(figures, name, bridge, alone[name], heard, received, written)
        for bridge in bridges.values():
            listener.send('drop', ns=bridge.namespace)
