"""Scale: how the cost of a control period grows with the number of joints and of devices.

Chains of 1, 10, 30 and 100 joints (``chains.py``), then longer ones until the bridge can no
longer keep real time (its work per control period exceeds the period): that size is
interpolated between the last two chains measured (log-log). Devices: the 30-joint chain with
0 to 100 IMUs, each published at the control rate. Every point is measured as the throughput
figures are (the stepping thread's CPU time per period against raw ``mj_step``, side by
side), with a subscriber in another process on every topic.
"""

from __future__ import annotations

import math
from contextlib import ExitStack

from chains import write_chain
from throughput import bridge_under_test, overhead

__all__ = ['run']

JOINTS = (1, 10, 30, 100)
#: Longer chains tried, in order, until real time is lost.
LONGER = (200, 300, 500, 700, 1000, 1500, 2000)
LONGER_QUICK = (300, 1000)
DEVICES = (0, 10, 30, 100)


def _measure(context, listener, paths: dict, seconds, repeats, parameters) -> dict:
    """name -> (cost per period, period) of each model; all nodes created and subscribed to
    at once (matching takes up to seconds here), then measured one after another."""
    out = {}
    with ExitStack() as stack:
        bridges = {name: stack.enter_context(bridge_under_test(
            context, path, f'/bench_scale_{name}', parameters)) for name, path in paths.items()}
        for bridge in bridges.values():
            listener.send('add', ns=bridge.namespace, topics=bridge.topics())
        for name, bridge in bridges.items():
            bridge.wait_for_subscribers(True)
            periods = max(3, round(seconds / bridge.world.period))
            out[name] = (overhead(bridge, periods * bridge.world.period, repeats),
                         bridge.world.period)
        for bridge in bridges.values():
            bridge.forget(listener)
    return out


def _where_lost(sizes: list[int], rtfs: list[float]) -> float:
    """The size at which the real-time factor falls below 1: interpolated (log-log) between
    the last size that kept it and the first that did not; inf when all did."""
    for k, (n, rtf) in enumerate(zip(sizes, rtfs)):
        if rtf < 1.0:
            if k == 0:
                return float(n)
            n0, rtf0 = sizes[k - 1], rtfs[k - 1]
            t = math.log(rtf0) / (math.log(rtf0) - math.log(rtf))
            return math.exp(math.log(n0) + t * (math.log(n) - math.log(n0)))
    return math.inf


def _chain_figures(figures, joints, cost, period) -> tuple[float, float]:
    """The figures of one chain; its real-time factors, bridge and raw."""
    rtf = period / cost['bridge'].cpu
    figures.add(f'scale_chain{joints}_bridge_period', 1e6 * cost['bridge'].cpu, 'us')
    figures.add(f'scale_chain{joints}_raw_period', 1e6 * cost['raw'].cpu, 'us')
    figures.add(f'scale_chain{joints}_ratio', cost['raw'].cpu / cost['bridge'].cpu, 'x')
    figures.add(f'scale_chain{joints}_bridge_rtf', rtf, 'x')
    return rtf, period / cost['raw'].cpu


def _joints(figures, context, listener, scratch, quick, parameters) -> None:
    seconds, repeats = (0.05, 3) if quick else (0.5, 7)
    paths = {f'chain{n}': write_chain(scratch, n) for n in JOINTS}
    measured = _measure(context, listener, paths, seconds, repeats, parameters)
    sizes = list(JOINTS)
    rtfs = [_chain_figures(figures, n, *measured[f'chain{n}']) for n in JOINTS]
    for joints in (LONGER_QUICK if quick else LONGER):
        if min(bridge for bridge, _ in rtfs) < 1.0:
            break
        name = f'chain{joints}'
        cost, period = _measure(context, listener, {name: write_chain(scratch, joints)},
                                seconds / 5, repeats, parameters)[name]
        sizes.append(joints)
        rtfs.append(_chain_figures(figures, joints, cost, period))
    figures.add('scale_realtime_lost_joints', _where_lost(sizes, [b for b, _ in rtfs]),
                'joints')
    # Where raw mj_step itself falls behind (inf: not within the chains tried).
    figures.add('scale_realtime_lost_joints_raw', _where_lost(sizes, [r for _, r in rtfs]),
                'joints')


def _devices(figures, context, listener, scratch, quick, parameters) -> None:
    seconds, repeats = (0.05, 3) if quick else (0.5, 7)
    paths = {f'chain30_imu{n}': write_chain(scratch, 30, imus=n) for n in DEVICES}
    measured = _measure(context, listener, paths, seconds, repeats, parameters)
    points = []
    for count in DEVICES:
        cost, period = measured[f'chain30_imu{count}']
        points.append((count, cost['bridge'].cpu))
        figures.add(f'scale_devices{count}_bridge_period', 1e6 * cost['bridge'].cpu, 'us')
        figures.add(f'scale_devices{count}_ratio', cost['raw'].cpu / cost['bridge'].cpu, 'x')
    (n0, c0), (n1, c1) = points[0], points[-1]
    per_device = (c1 - c0) / (n1 - n0)
    figures.add('scale_cost_per_device', 1e6 * per_device, 'us')
    figures.add('scale_realtime_lost_devices_estimate',
                (period - c0) / per_device if per_device > 0 else math.inf, 'devices')


def run(figures, context, listener, quick: bool, scratch, parameters: dict) -> None:
    _joints(figures, context, listener, scratch, quick, parameters)
    _devices(figures, context, listener, scratch, quick, parameters)
