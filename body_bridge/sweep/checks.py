"""Checks that give a run its verdict, evaluated on the simulation while the run steps.

    checks:
      on_table: {inside: crate, box: [[-1, -1, 0], [1, 1, 0.3]], at: end}   # or always, or t [s]
      pushed:   {moved: crate, at_least: 0.02}            # [m]; or at_most
      elbow:    {joint: arm/elbow_pitch, range: [-1.6, 1.6], at: always}    # [rad or m]
      stable:   {no_divergence: true}
      imu:      {topic: /arm/base_imu, min_rate: 90}      # [Hz] of simulated time
      touched:  {contact: [arm/hand, crate], expect: true}   # false: must not touch

``inside``, ``moved`` and ``contact`` take an entity (its root link) or ENTITY/LINK; ``joint``
takes MODEL/JOINT. Each check measures something (its metrics, columns of the table beside
its verdict): ``inside`` the position [m] and how far outside the box it got; ``moved`` the
distance from the start; ``joint`` the smallest and largest position seen; ``no_divergence``
the number of divergence resets; ``topic`` the rate; ``contact`` the first time the two
touched [s] (NaN: never). Nothing reads a bag afterwards.
"""

from __future__ import annotations

import math

import numpy as np

from ..formats.yamlsource import kind_of
from .spec import CHECK_KINDS, CheckSpec

__all__ = ['CHECK_KINDS', 'Check', 'make_check', 'TopicCounter', 'RunView']

class RunView:
    """What a check sees of a run: the simulations by entity, the world, the topic counts.

    Attributes:
        sims: entity name -> its Simulation.
        world: the World they share.
        counts: topic -> messages published so far (checks that watch topics).
        duration: the simulated duration of the run [s].
    """

    def __init__(self, sims: dict, world, counts: dict, duration: float):
        self.sims, self.world, self.counts, self.duration = sims, world, counts, duration

    @property
    def time(self) -> float:
        return float(self.world.data.time)


class TopicCounter:
    """A sink of the outlets (ros/stream/outlets.py) that counts the messages of some topics;
    it makes them computed as a subscriber would."""

    def __init__(self, topics):
        self.counts = {topic: 0 for topic in topics}

    def wants(self, channel) -> bool:
        return channel.topic in self.counts

    def subscribers(self, channel) -> int:
        return 1

    def add_channel(self, channel) -> None:
        pass

    def write(self, channel, data: bytes, time_ns: int) -> None:
        self.counts[channel.topic] += 1


class Check:
    """One check of a run: ``start``, then ``period`` after every control period, then
    ``finish`` -> (passed, metrics)."""

    topics: tuple[str, ...] = ()

    def __init__(self, name: str):
        self.name = name

    def start(self, run: RunView) -> None:
        pass

    def period(self, run: RunView) -> None:
        pass

    def finish(self, run: RunView) -> tuple[bool, dict[str, float]]:
        raise NotImplementedError


def _when(plan, spec: CheckSpec, default: str):
    at = spec.args.get('at', default)
    if at in ('end', 'always'):
        return at
    if isinstance(at, (int, float)) and not isinstance(at, bool) and \
            0 <= at <= plan.sweep.duration:
        return float(at)
    raise plan.fail(spec.line, f'checks.{spec.name}.at: end, always or a time in [0, '
                    f'{plan.sweep.duration:g}] s, not {at!r}')


def _pair(plan, spec: CheckSpec, key: str, what: str, ordered: bool) -> tuple[float, float]:
    value = spec.args.get(key)
    if not isinstance(value, list) or len(value) != 2 or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
            for v in value):
        raise plan.fail(spec.line, f'checks.{spec.name}.{key}: {what}, not {value!r}')
    if ordered and value[1] < value[0]:
        raise plan.fail(spec.line, f'checks.{spec.name}.{key}: the range {value} is negative')
    return float(value[0]), float(value[1])


class _Instants(Check):
    """A check of one quantity at the end, at a time, or at every period."""

    def __init__(self, name: str, when):
        super().__init__(name)
        self.when = when
        self.seen = False

    def due(self, run: RunView) -> bool:
        if self.when == 'always':
            return True
        hit = isinstance(self.when, float) and not self.seen and run.time >= self.when - 1e-9
        self.seen = self.seen or hit
        return hit

    def start(self, run: RunView) -> None:
        if self.when == 'always' or self.when == 0.0:
            self.seen = True
            self.look(run)

    def period(self, run: RunView) -> None:
        if self.due(run):
            self.look(run)

    def finish(self, run: RunView):
        if self.when == 'end' or not self.seen:
            self.look(run)
        return self.verdict()


class Inside(_Instants):
    def __init__(self, plan, spec: CheckSpec):
        super().__init__(spec.name, _when(plan, spec, 'end'))
        self.entity, self.link = plan.entity_link(_text(plan, spec, 'inside'), spec.line)
        box = spec.args.get('box')
        if not isinstance(box, list) or len(box) != 2 or not all(
                isinstance(c, list) and len(c) == 3 and all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) for v in c)
                for c in box):
            raise plan.fail(spec.line, f'checks.{spec.name}.box: two corners [[x, y, z], '
                            f'[x, y, z]] [m], not {box!r}')
        self.low, self.high = np.minimum(*map(np.array, box)), np.maximum(*map(np.array, box))
        self.outside, self.position = 0.0, None

    def look(self, run: RunView) -> None:
        self.position = run.sims[self.entity].body_pose(self.link)[0]
        gap = np.maximum(self.low - self.position, 0) + np.maximum(self.position - self.high, 0)
        self.outside = max(self.outside, float(np.linalg.norm(gap)))

    def verdict(self):
        x, y, z = (float(v) for v in self.position)
        return self.outside == 0.0, {'x': x, 'y': y, 'z': z, 'outside': self.outside}


class Moved(Check):
    def __init__(self, plan, spec: CheckSpec):
        super().__init__(spec.name)
        self.entity, self.link = plan.entity_link(_text(plan, spec, 'moved'), spec.line)
        bounds = [spec.args.get(k) for k in ('at_least', 'at_most')]
        if all(b is None for b in bounds) or not all(
                b is None or (isinstance(b, (int, float)) and not isinstance(b, bool) and b >= 0)
                for b in bounds):
            raise plan.fail(spec.line, f'checks.{spec.name}: at_least and/or at_most, a '
                            'distance >= 0 [m]')
        self.at_least, self.at_most = bounds

    def start(self, run: RunView) -> None:
        self.origin = run.sims[self.entity].body_pose(self.link)[0]

    def finish(self, run: RunView):
        distance = float(np.linalg.norm(run.sims[self.entity].body_pose(self.link)[0]
                                        - self.origin))
        ok = (self.at_least is None or distance >= self.at_least) and \
            (self.at_most is None or distance <= self.at_most)
        return ok, {'distance': distance}


class Joint(_Instants):
    def __init__(self, plan, spec: CheckSpec):
        super().__init__(spec.name, _when(plan, spec, 'always'))
        self.entity, self.joint = plan.entity_joint(_text(plan, spec, 'joint'), spec.line)
        self.low, self.high = _pair(plan, spec, 'range', 'a range [low, high] [rad or m]', True)
        self.least, self.most = math.inf, -math.inf

    def look(self, run: RunView) -> None:
        sim = run.sims[self.entity]
        q = float(sim.joint_positions()[sim.joint_names.index(self.joint)])
        self.least, self.most = min(self.least, q), max(self.most, q)

    def verdict(self):
        return self.low <= self.least and self.most <= self.high, \
            {'min': self.least, 'max': self.most}


class NoDivergence(Check):
    def __init__(self, plan, spec: CheckSpec):
        super().__init__(spec.name)
        if spec.args['no_divergence'] is not True:
            raise plan.fail(spec.line, f'checks.{spec.name}.no_divergence: write true')
        self.before = 0

    def start(self, run: RunView) -> None:
        self.before = run.world.watchdog.count

    def finish(self, run: RunView):
        resets = run.world.watchdog.count - self.before
        return resets == 0, {'resets': float(resets)}


class TopicRate(Check):
    def __init__(self, plan, spec: CheckSpec):
        super().__init__(spec.name)
        topic = _text(plan, spec, 'topic')
        topic = topic if topic.startswith('/') else '/' + topic
        if topic not in plan.topics:
            raise plan.fail(spec.line, f'checks.{spec.name}.topic: the world publishes no '
                            f'{topic} (it has {", ".join(sorted(plan.topics))})')
        rate = spec.args.get('min_rate')
        if not isinstance(rate, (int, float)) or isinstance(rate, bool) or not rate > 0:
            raise plan.fail(spec.line, f'checks.{spec.name}.min_rate: a rate > 0 [Hz], not '
                            f'{rate!r}')
        self.topics, self.min_rate = (topic,), float(rate)

    def finish(self, run: RunView):
        rate = run.counts.get(self.topics[0], 0) / run.duration
        return rate >= self.min_rate, {'rate': rate}


class Contact(Check):
    def __init__(self, plan, spec: CheckSpec):
        super().__init__(spec.name)
        pair = spec.args.get('contact')
        if not isinstance(pair, list) or len(pair) != 2 or \
                not all(isinstance(p, str) for p in pair):
            raise plan.fail(spec.line, f'checks.{spec.name}.contact: two bodies [A, B] '
                            '(ENTITY or ENTITY/LINK)')
        self.sides = [(*plan.entity_link(p, spec.line), '/' in p) for p in pair]
        expect = spec.args.get('expect', True)
        if not isinstance(expect, bool):
            raise plan.fail(spec.line, f'checks.{spec.name}.expect: true or false, not '
                            f'{kind_of(expect)}')
        self.expect, self.first = expect, math.nan
        self.plan_models = plan.models

    def start(self, run: RunView) -> None:
        mj = run.world.mj
        self.masks = []
        for entity, link, one in self.sides:
            sim = run.sims[entity]
            links = [link] if one else [l.name for l in self.plan_models[entity].links]
            mask = np.zeros(mj.nbody, dtype=bool)
            mask[[sim.body_id(name) for name in links]] = True
            self.masks.append(mask)
        self.period(run)

    def period(self, run: RunView) -> None:
        if not math.isnan(self.first) or run.world.data.ncon == 0:
            return
        mj, contact = run.world.mj, run.world.data.contact
        b1, b2 = mj.geom_bodyid[contact.geom1], mj.geom_bodyid[contact.geom2]
        a, b = self.masks
        if np.any((a[b1] & b[b2]) | (a[b2] & b[b1])):
            self.first = run.time

    def finish(self, run: RunView):
        touched = not math.isnan(self.first)
        return touched == self.expect, {'first': self.first}


def _text(plan, spec: CheckSpec, key: str) -> str:
    value = spec.args.get(key)
    if not isinstance(value, str) or not value:
        raise plan.fail(spec.line, f'checks.{spec.name}.{key}: a name, not {kind_of(value)}')
    return value


_CLASSES = {'inside': Inside, 'moved': Moved, 'joint': Joint, 'no_divergence': NoDivergence,
            'topic': TopicRate, 'contact': Contact}


def make_check(plan, spec: CheckSpec) -> Check:
    """The check ``spec`` describes, its names looked up in ``plan``'s world.

    Raises:
        ModelError: it names what the world does not have, or a value it cannot take
            (the sweep file's line).
    """
    return _CLASSES[spec.kind](plan, spec)
