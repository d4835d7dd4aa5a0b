"""Ball casters: spheres that hold a wheeled robot up beside its wheels, and should roll.

A ball caster is a link whose collision shape is a sphere, on a ball joint (it turns freely:
it rolls) or on a joint the file declares as a ball joint but holds still
(``Model.welded_balls``: OpenRAVE's spherical joint with ``enable="false"``; the model
welds it, so it drags over the ground). Its contact point is below the sphere's centre by
its radius, at the initial pose; like a wheel (:mod:`.rootchoice`) it hangs from the root
through no free or ball joint above its own.

The ``casters`` parameter names caster links that roll: their contacts are made
frictionless (:func:`roll_casters`: MuJoCo's ``condim`` 1 at a priority above every other
geom's, so a contact with them has no friction whatever the other geom says), as an ideal
ball caster that carries the robot and resists no motion.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from ...kinematics import forward_kinematics
from ...model import JointType, Model, Sphere
from ..mechanics.forces import collision_geoms

__all__ = ['Caster', 'ball_casters', 'held_by_root', 'check_caster_names', 'caster_note',
           'roll_casters', 'ROLLING_PRIORITY']

#: Contact priority of the geoms of rolling casters (the contact materials' priorities are
#: the count of their friction values, far below).
ROLLING_PRIORITY = 1000


@dataclass(frozen=True)
class Caster:
    """A ball caster: its link, its joint, the world point [m] where it touches the ground at
    the initial pose, and whether the file welds it (it drags) or lets it turn (it rolls)."""

    link: str
    joint: str
    point: np.ndarray
    welded: bool


def ball_casters(model: Model) -> list[Caster]:
    """The model's ball casters (see the module text), in model order."""
    poses = forward_kinematics(model, {})
    parent_joint = {j.child: j for j in model.joints}
    welded = set(model.welded_balls)
    out = []
    for joint in model.joints:
        if joint.type != JointType.BALL and joint.name not in welded:
            continue
        if not held_by_root(model, parent_joint, joint.parent):
            continue
        pose = poses[joint.child]
        points = [(pose @ s.pose).pos - np.array([0.0, 0.0, s.geometry.radius])
                  for s in model.link(joint.child).collisions if isinstance(s.geometry, Sphere)]
        if points:
            low = min(points, key=lambda p: float(p[2]))
            out.append(Caster(joint.child, joint.name, low, joint.name in welded))
    return out


def held_by_root(model: Model, parent_joint, link: str) -> bool:
    """Whether a link hangs from the root through no free or ball joint (a wheel of another
    free body, a Chrono chassis on its ground, does not carry the root)."""
    while link != model.root:
        joint = parent_joint.get(link)
        if joint is None or joint.type in (JointType.FREE, JointType.BALL):
            return False
        link = joint.parent
    return True


def check_caster_names(model: Model, names: list[str]) -> tuple[str, ...]:
    """The links named, each once, in order.

    Raises:
        ValueError: a name that is no link, or a link without a sphere collision shape.
    """
    for name in names:
        try:
            link = model.link(name)
        except KeyError:
            raise ValueError(f'{name!r} is not a link of {model.name}') from None
        if not any(isinstance(s.geometry, Sphere) for s in link.collisions):
            raise ValueError(f'link {name!r} has no sphere collision shape: it is no ball '
                             'caster')
    return tuple(dict.fromkeys(names))


def caster_note(casters: list[Caster], rolling: tuple[str, ...]) -> str | None:
    """The start-up line about casters the file welds (None: none touching the ground, or
    every one rolling)."""
    dragging = [c.link for c in casters if c.welded and c.link not in rolling]
    if not dragging:
        return None
    every = ' '.join(dict.fromkeys([*rolling, *dragging]))
    return (f'ball casters {", ".join(dragging)} drag: the file welds their ball joints '
            f'(disabled), so they slide on the ground and hold the robot back; set '
            f'casters:="{every}" to let them roll')


def roll_casters(spec: mujoco.MjSpec, links: tuple[str, ...]) -> None:
    """Make the contacts of the links' collision geoms frictionless (a link the spec lacks is
    passed over: the names were checked against the model at start, and a model checked
    for a reload is built with the running one's options)."""
    for link in links:
        if spec.body(link) is None:
            continue
        for geom in collision_geoms(spec, link):
            geom.condim = 1
            geom.priority = ROLLING_PRIORITY
