"""An SRDF for MoveIt from a model, and the controller files that go with it.

``python -m body_bridge srdf MODEL -o robot.srdf`` writes ``robot.srdf`` (planning groups,
end effectors, ``home`` states, pairs whose collisions need not be checked: see
:mod:`body_bridge.srdf.groups` and :mod:`body_bridge.srdf.collisions`) and beside it

* ``robot.moveit_controllers.yaml``: MoveIt's simple controller manager, one
  FollowJointTrajectory controller per group and one GripperCommand controller per hand;
* ``robot.bridge.yaml``: the bridge's parameter file declaring those trajectory controllers
  (the grippers of manipulators are there without one), so that the action names match.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..model import Model
from . import collisions as C
from .groups import EndEffector, Group, controller_name, home_state, plan_groups

__all__ = ['Srdf', 'make_srdf', 'write_srdf', 'DEFAULT_SAMPLES']

#: Configurations sampled for never-colliding pairs (MoveIt Setup Assistant's default).
DEFAULT_SAMPLES = 10000


@dataclass
class Srdf:
    """What the SRDF says: groups, end effectors, and disabled pairs with their reasons."""

    model: Model
    groups: list[Group]
    effectors: list[EndEffector]
    disabled: dict[tuple[str, str], str]
    samples: int
    seed: int


def _rules(model: Model):
    source = model.source or ''
    if not source.endswith('.body'):
        return None
    from ..formats.choreonoid.groups import read_groups
    return read_groups(source, [link.name for link in model.links])


def make_srdf(model: Model, samples: int = DEFAULT_SAMPLES, seed: int = 0) -> Srdf:
    """Groups and disabled collision pairs of a model.

    Args:
        model: the model.
        samples: configurations sampled for never-colliding pairs.
        seed: the sampling's seed.

    Raises:
        ModelError: the Body file's link groups or collision rules are malformed.
    """
    rules = _rules(model)
    groups, effectors = plan_groups(model, rules)
    disabled = {p: 'Adjacent' for p in C.adjacent_pairs(model)}
    # A Body file's collision_detection_rules are in model.adjacent already, as the loader
    # applied them in order (enabled_* rules taking pairs out again).
    declared = {C.pair(a, b) for a, b in model.adjacent}
    for p in declared:
        disabled.setdefault(p, 'Declared')
    if samples > 0:
        for p in C.never_colliding(model, samples, seed, set(disabled)):
            disabled[p] = 'Never'
    return Srdf(model, groups, effectors, disabled, samples, seed)


def _srdf_xml(srdf: Srdf) -> str:
    model = srdf.model
    robot = ET.Element('robot', name=model.name)
    robot.append(ET.Comment(f' written by body_bridge from {os.path.basename(model.source or "")}'
                            f'; never-colliding pairs from {srdf.samples} configurations, '
                            f'seed {srdf.seed} '))
    for group in srdf.groups:
        element = ET.SubElement(robot, 'group', name=group.name)
        if group.chain is not None:
            ET.SubElement(element, 'chain', base_link=group.chain[0], tip_link=group.chain[1])
        for link in group.links:
            ET.SubElement(element, 'link', name=link)
        for joint in group.joint_elements:
            ET.SubElement(element, 'joint', name=joint)
        for sub in group.subgroups:
            ET.SubElement(element, 'group', name=sub)
    for group in srdf.groups:
        values = home_state(model, group)
        if values:
            state = ET.SubElement(robot, 'group_state', name='home', group=group.name)
            for joint, value in values.items():
                ET.SubElement(state, 'joint', name=joint, value=f'{value:.9g}')
    for effector in srdf.effectors:
        ET.SubElement(robot, 'end_effector', name=effector.name,
                      parent_link=effector.parent_link, group=effector.group,
                      parent_group=effector.parent_group)
    for (a, b), reason in sorted(srdf.disabled.items()):
        ET.SubElement(robot, 'disable_collisions', link1=a, link2=b, reason=reason)
    ET.indent(robot)
    return '<?xml version="1.0"?>\n' + ET.tostring(robot, encoding='unicode') + '\n'


def _controllers(srdf: Srdf) -> tuple[dict, dict]:
    """MoveIt's controllers file and the bridge's parameter file, as mappings."""
    moveit, bridge, names = {}, {}, []
    by_name = {g.name: g for g in srdf.groups}
    defaults: set[frozenset[str]] = set()  # joint sets that have their default controller
    for group in srdf.groups:
        if group.gripper:
            name = f'{group.name[:-len("_hand")]}_gripper'
            moveit[name] = {'type': 'GripperCommand', 'action_ns': 'gripper_command',
                            'default': _first(defaults, group.gripper),
                            'joints': list(group.gripper)}
        elif group.joints and not any(by_name[s].joints for s in group.subgroups):
            name = controller_name(group.name)
            moveit[name] = {'type': 'FollowJointTrajectory',
                            'action_ns': 'follow_joint_trajectory',
                            'default': _first(defaults, group.joints),
                            'joints': list(group.joints)}
            bridge[name] = {'type': 'joint_trajectory_controller/JointTrajectoryController',
                            'joints': list(group.joints)}
        else:
            continue
        names.append(name)
    moveit_file = {
        'moveit_controller_manager':
            'moveit_simple_controller_manager/MoveItSimpleControllerManager',
        'moveit_simple_controller_manager': {'controller_names': names, **moveit}}
    bridge_file = {'/**': {'ros__parameters': {'controllers': bridge}}}
    return moveit_file, bridge_file


def _first(defaults: set[frozenset[str]], joints) -> bool:
    """True for the first controller of a joint set (MoveIt's default for those joints), False
    for the next ones: two defaults on the same joints would leave MoveIt to pick either."""
    key = frozenset(joints)
    if key in defaults:
        return False
    defaults.add(key)
    return True


def write_srdf(srdf: Srdf, path: str | os.PathLike) -> list[Path]:
    """Write the SRDF at ``path`` and the two controller files beside it; their paths."""
    path = Path(path)
    stem = path.name[:-len('.srdf')] if path.name.endswith('.srdf') else path.name
    moveit, bridge = _controllers(srdf)
    out = [path, path.with_name(f'{stem}.moveit_controllers.yaml'),
           path.with_name(f'{stem}.bridge.yaml')]
    out[0].write_text(_srdf_xml(srdf))
    out[1].write_text(yaml.safe_dump(moveit, sort_keys=False))
    out[2].write_text(yaml.safe_dump(bridge, sort_keys=False))
    return out
