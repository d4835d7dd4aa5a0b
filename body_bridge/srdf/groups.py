"""Planning groups, end effectors, home states and the controllers that drive them.

* An OpenRAVE manipulator is a chain group from its base to its effector, named as the
  manipulator; its gripper joints (and the joints that mimic them) are the group
  ``<manipulator>_hand``, the end effector ``<manipulator>_hand`` on the effector link.
* A Choreonoid link group is a group of its links (a group with subgroups lists them).
* A model with neither has one group of all its 1-DOF joints, named as the model (none when
  it has none).

Each group's ``home`` state puts its joints at their initial positions (clipped into their
limits). Each group with joints of its own gets a trajectory controller
``<group>_controller``, each hand a gripper ``<manipulator>_gripper`` (the bridge's gripper
of that manipulator): the names the MoveIt controllers file and the bridge's parameter file
written beside the SRDF use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..model import JointType, Model

__all__ = ['Group', 'EndEffector', 'plan_groups', 'home_state', 'controller_name']


@dataclass
class Group:
    """A planning group: a chain, or links, or joints; and its subgroups.

    ``joints`` are the group's commanded joints (no mimic joints), whatever defines it.
    """

    name: str
    chain: tuple[str, str] | None = None
    links: list[str] = field(default_factory=list)
    joint_elements: list[str] = field(default_factory=list)
    subgroups: list[str] = field(default_factory=list)
    joints: list[str] = field(default_factory=list)
    gripper: tuple[str, ...] = ()  # a hand: the joints its gripper closes


@dataclass
class EndEffector:
    name: str
    parent_link: str
    group: str
    parent_group: str


def _token(name: str) -> str:
    token = re.sub(r'[^A-Za-z0-9_]', '_', name)
    return token if re.match(r'[A-Za-z]', token) else f'g_{token}'


def controller_name(group: str) -> str:
    return f'{_token(group)}_controller'


def _chain_joints(model: Model, base: str, tip: str) -> list[str]:
    """The movable joints on the path from ``base`` down to ``tip``."""
    by_child = {j.child: j for j in model.joints}
    out, link = [], tip
    while link != base and link in by_child:
        joint = by_child[link]
        if joint.type != JointType.FIXED and joint.mimic is None:
            out.append(joint.name)
        link = joint.parent
    return out[::-1]


def _commanded(model: Model, links) -> list[str]:
    """The commanded joints whose child links are among ``links``."""
    links = set(links)
    return [j.name for j in model.movable_joints if j.child in links and j.mimic is None]


def plan_groups(model: Model, rules=None) -> tuple[list[Group], list[EndEffector]]:
    """The planning groups and end effectors of a model.

    Args:
        model: the model.
        rules: a Body file's :class:`~body_bridge.formats.choreonoid.groups.BodyRules`.
    """
    groups, effectors = [], []
    for manipulator in model.manipulators:
        arm = Group(manipulator.name, chain=(manipulator.base, manipulator.effector),
                    joints=_chain_joints(model, manipulator.base, manipulator.effector))
        groups.append(arm)
        hand = [j for j in manipulator.gripper_joints]
        if hand:
            followers = [j.name for j in model.movable_joints
                         if j.mimic is not None and j.mimic.joint in hand]
            closing = tuple(j for j, d in zip(manipulator.gripper_joints,
                                              manipulator.closing_direction) if d != 0)
            name = f'{manipulator.name}_hand'
            groups.append(Group(name, joint_elements=hand + followers, joints=hand,
                                gripper=closing))
            effectors.append(EndEffector(name, manipulator.effector, name, manipulator.name))
    if rules is not None:
        def add(group) -> None:
            for sub in group.groups:
                add(sub)
            groups.append(Group(group.name, links=list(group.links),
                                subgroups=[s.name for s in group.groups],
                                joints=_commanded(model, group.all_links())))
        for group in rules.groups:
            add(group)
    every = [j.name for j in model.movable_joints if j.type.dof == 1]
    if not groups and every:
        groups.append(Group(model.name, joint_elements=every, joints=[
            name for name in every if model.joint(name).mimic is None]))
    return groups, effectors


def home_state(model: Model, group: Group) -> dict[str, float]:
    """The group's joints at their initial positions, within their limits [rad or m]."""
    out = {}
    for name in group.joints:
        joint = model.joint(name)
        value, lo, hi = joint.initial, joint.limits.lower, joint.limits.upper
        if lo is not None:
            value = max(value, lo)
        if hi is not None:
            value = min(value, hi)
        out[name] = float(value)
    return out
