"""Forward kinematics of URDF text with urdf_parser_py: an independent reader for tests."""

from __future__ import annotations

import math

import numpy as np
from urdf_parser_py import urdf


def _rpy_matrix(rpy) -> np.ndarray:
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def _axis_angle(axis, angle) -> np.ndarray:
    a = np.asarray(axis, float)
    a = a / np.linalg.norm(a)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


def _origin(joint) -> np.ndarray:
    t = np.eye(4)
    if joint.origin is not None:
        t[:3, :3] = _rpy_matrix(joint.origin.rpy or (0, 0, 0))
        t[:3, 3] = joint.origin.xyz or (0, 0, 0)
    return t


def urdf_forward_kinematics(text: str, positions: dict[str, float], root_pose=None) -> dict:
    """4x4 world transform of every link of a URDF, given 1-DOF joint positions.

    Mimic joints follow their leader as the URDF says. ``root_pose`` places the root link.
    """
    robot = urdf.URDF.from_xml_string(text)
    by_name = {j.name: j for j in robot.joints}

    def q_of(joint):
        if joint.mimic is not None:
            lead = by_name[joint.mimic.joint]
            return (joint.mimic.multiplier if joint.mimic.multiplier is not None else 1.0) * \
                q_of(lead) + (joint.mimic.offset or 0.0)
        return positions.get(joint.name, 0.0)

    world = {robot.get_root(): np.eye(4) if root_pose is None else np.asarray(root_pose)}
    children = {}
    for joint in robot.joints:
        children.setdefault(joint.parent, []).append(joint)
    stack = [robot.get_root()]
    while stack:
        parent = stack.pop()
        for joint in children.get(parent, []):
            t = world[parent] @ _origin(joint)
            motion = np.eye(4)
            if joint.type in ('revolute', 'continuous'):
                motion[:3, :3] = _axis_angle(joint.axis, q_of(joint))
            elif joint.type == 'prismatic':
                motion[:3, 3] = np.asarray(joint.axis, float) * q_of(joint)
            world[joint.child] = t @ motion
            stack.append(joint.child)
    return world
