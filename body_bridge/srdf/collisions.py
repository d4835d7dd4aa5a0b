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

import numpy as np

from ..model import JointType, Model
from ..sim.building.touching import ShapeContacts

__all__ = ['adjacent_pairs', 'never_colliding', 'colliding_pairs',
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


def _range(joint) -> tuple[float, float]:
    lo, hi = joint.limits.lower, joint.limits.upper
    if joint.type == JointType.CONTINUOUS or lo is None or hi is None or \
            not (math.isfinite(lo) and math.isfinite(hi)):
        span = math.pi if joint.type in (JointType.REVOLUTE, JointType.CONTINUOUS) else 1.0
        return -span, span
    return float(lo), float(hi)


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
    checker = ShapeContacts(model, margin)
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
