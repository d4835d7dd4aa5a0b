"""Link pairs a planner need not check, as MoveIt's Setup Assistant decides them.

* ``Adjacent``: links joined by a joint, or by a chain of fixed joints (one rigid body);
* ``Declared``: pairs the model file excludes (OpenRAVE ``<adjacent>``, Choreonoid
  ``collision_detection_rules``);
* ``Never``: pairs that come within ``NEVER_MARGIN`` of each other in none of ``samples``
  configurations drawn uniformly within the joint limits (seeded), by MuJoCo's collision
  detection on the model's collision shapes (mimic joints where their formulas put them).
  The margin keeps pairs that only rarely touch (and might touch in a configuration the
  sample missed) out of the list.

Only links with collision shapes are paired.
"""

from __future__ import annotations

import itertools
import math
from collections import deque

import mujoco
import numpy as np

from ..model import JointType, Model
from ..sim.build import BuildOptions, build_spec
from ..sim.mimic import formula_of

__all__ = ['adjacent_pairs', 'chain_pairs', 'never_colliding', 'colliding_pairs',
           'sample_configurations', 'pair', 'NEVER_MARGIN']

#: Pairs closer than this [m] in any sampled configuration are not 'Never' pairs.
NEVER_MARGIN = 0.01


def pair(a: str, b: str) -> tuple[str, str]:
    """A link pair in a canonical order."""
    return (a, b) if a < b else (b, a)


def _rigid_groups(model: Model) -> dict[str, str]:
    """Each link -> the first link of the rigid body (fixed joints) it belongs to."""
    owner = {link.name: link.name for link in model.links}
    for joint in model.ordered_joints():
        if joint.type == JointType.FIXED:
            owner[joint.child] = owner[joint.parent]
    return owner


def adjacent_pairs(model: Model) -> set[tuple[str, str]]:
    """Links joined by a joint, directly or through fixed joints on either side."""
    owner = _rigid_groups(model)
    members: dict[str, list[str]] = {}
    for link, root in owner.items():
        members.setdefault(root, []).append(link)
    out = set()
    for root, links in members.items():
        out |= {pair(a, b) for a, b in itertools.combinations(links, 2)}
    for joint in model.joints:
        if joint.type != JointType.FIXED:
            for a in members[owner[joint.parent]]:
                for b in members[owner[joint.child]]:
                    out.add(pair(a, b))
    return out


def chain_pairs(model: Model, level: int) -> set[tuple[str, str]]:
    """Links at most ``level`` joints apart in the kinematic tree."""
    neighbours: dict[str, list[str]] = {link.name: [] for link in model.links}
    for joint in model.joints:
        neighbours[joint.parent].append(joint.child)
        neighbours[joint.child].append(joint.parent)
    out = set()
    for start in neighbours:
        seen, queue = {start: 0}, deque([start])
        while queue:
            link = queue.popleft()
            if seen[link] == level:
                continue
            for other in neighbours[link]:
                if other not in seen:
                    seen[other] = seen[link] + 1
                    queue.append(other)
        out |= {pair(start, other) for other in seen if other != start}
    return out


def _range(joint) -> tuple[float, float]:
    lo, hi = joint.limits.lower, joint.limits.upper
    if joint.type == JointType.CONTINUOUS or lo is None or hi is None or \
            not (math.isfinite(lo) and math.isfinite(hi)):
        span = math.pi if joint.type in (JointType.REVOLUTE, JointType.CONTINUOUS) else 1.0
        return -span, span
    return float(lo), float(hi)


class _Checker:
    """The model's collision shapes in MuJoCo, posed joint by joint; shapes closer than
    ``margin`` [m] count as touching."""

    def __init__(self, model: Model, margin: float = 0.0):
        spec = build_spec(model, BuildOptions(self_collision=True, ground_plane='off'))
        self.mj = spec.compile()
        self.mj.geom_margin[:] = margin
        self.data = mujoco.MjData(self.mj)
        self.free = [j for j in model.movable_joints if j.mimic is None and j.type.dof == 1]
        self.followers = [(j, formula_of(j)) for j in model.ordered_joints()
                          if j.mimic is not None and j.type.dof == 1]
        self.qadr = {j.name: int(self.mj.joint(j.name).qposadr[0])
                     for j in model.movable_joints if j.type.dof == 1}
        self.link_of = [self.mj.body(int(b)).name for b in self.mj.geom_bodyid]
        collide = (self.mj.geom_contype != 0) | (self.mj.geom_conaffinity != 0)
        self.links = sorted({self.link_of[g] for g in np.flatnonzero(collide)})

    def touching(self, q: np.ndarray) -> set[tuple[str, str]]:
        """Link pairs in contact with the free joints at ``q``."""
        qpos = self.data.qpos
        values = {}
        for joint, value in zip(self.free, q):
            qpos[self.qadr[joint.name]] = value
            values[joint.name] = value
        for joint, formula in self.followers:
            try:
                value = formula.evaluate({v: values.get(v, 0.0) for v in formula.variables})
            except ValueError:
                value = 0.0
            qpos[self.qadr[joint.name]] = values[joint.name] = value
        mujoco.mj_kinematics(self.mj, self.data)
        mujoco.mj_collision(self.mj, self.data)
        out = set()
        for contact in self.data.contact[:self.data.ncon]:
            a, b = self.link_of[contact.geom1], self.link_of[contact.geom2]
            if a != b:
                out.add(pair(a, b))
        return out


def sample_configurations(model: Model, samples: int, seed: int) -> np.ndarray:
    """(samples, n) positions of the model's free 1-DOF joints, uniform within their limits."""
    joints = [j for j in model.movable_joints if j.mimic is None and j.type.dof == 1]
    ranges = np.array([_range(j) for j in joints]).reshape(-1, 2)
    rng = np.random.default_rng(seed)
    return ranges[:, 0] + rng.random((samples, len(joints))) * (ranges[:, 1] - ranges[:, 0])


def colliding_pairs(model: Model, configurations, margin: float = 0.0
                    ) -> tuple[list[str], set[tuple[str, str]]]:
    """The links with collision shapes, and the pairs that touch (come closer than
    ``margin`` [m]) in any configuration."""
    checker = _Checker(model, margin)
    seen: set[tuple[str, str]] = set()
    for q in configurations:
        seen |= checker.touching(q)
    return checker.links, seen


def never_colliding(model: Model, samples: int, seed: int,
                    skip: set[tuple[str, str]] = frozenset()) -> set[tuple[str, str]]:
    """Pairs of links with collision shapes that come within ``NEVER_MARGIN`` in none of
    ``samples`` seeded configurations (``skip``: pairs already disabled, left out)."""
    links, seen = colliding_pairs(model, sample_configurations(model, samples, seed),
                                  NEVER_MARGIN)
    return {p for p in itertools.combinations(links, 2) if p not in seen and p not in skip}
