"""Forward kinematics on the neutral model (no physics), for the state-publisher mode."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .model import Joint, JointType, Model, Pose, axis_angle_matrix

__all__ = ['joint_transform', 'forward_kinematics']


def joint_transform(model: Model, joint: Joint, q: float) -> Pose:
    """The child link frame in the parent link frame at joint position ``q`` [rad or m]."""
    origin = model.joint_origin(joint)
    if joint.type in (JointType.REVOLUTE, JointType.CONTINUOUS):
        return origin @ Pose(np.zeros(3), axis_angle_matrix(joint.axis, q))
    if joint.type == JointType.PRISMATIC:
        return origin @ Pose(joint.axis * q, np.eye(3))
    return origin


def forward_kinematics(model: Model, positions: Mapping[str, float]) -> dict[str, Pose]:
    """World pose of every link; joints missing from ``positions`` are at their initial value."""
    world = {model.root: model.link(model.root).pose}
    for joint in model.ordered_joints():
        q = positions.get(joint.name, joint.initial)
        world[joint.child] = world[joint.parent] @ joint_transform(model, joint, q)
    return world
