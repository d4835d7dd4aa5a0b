"""``ContinuousTrack`` nodes (Choreonoid's TrackedVehicle): a chain of shoe links, approximated.

In Choreonoid the chain is a free loop of ``num_joints`` shoes that the wheels drive through
their contacts. Here the chain becomes one link, fixed to its parent where the first shoe is,
with a joint of type ``track`` (``pseudo_continuous_track``) about the chain's joint axis: its
collision shapes are a rigid belt around where the shoes are at their initial angles (a box
between the two ends and a cylinder at each end, as wide as the shoes), its visuals the shoes
where they start, its mass theirs. The track's velocity is the belt's surface speed [m/s];
the loader warns that the chain is approximated.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...model import Box, Cylinder, Pose, Shape, Sphere, axis_angle_matrix
from .elements import LinkParts
from .links import LinkSpec, combine_masses

__all__ = ['belt_of_chain']


def belt_of_chain(first: LinkSpec, count: int, offset: np.ndarray, angles: list[float],
                  axis: np.ndarray) -> LinkSpec:
    """One track link for a chain of ``count`` shoes like ``first``.

    Args:
        first: the first shoe as read (its parts in its own frame).
        count: shoes in the chain.
        offset: each shoe's joint origin in the previous shoe's frame [m].
        angles: the initial joint angles [rad], one per joint after the first shoe.
        axis: the joints' axis (unit, shoe frame).
    """
    poses, pose = [Pose()], Pose()
    for i in range(1, count):
        angle = angles[i - 1] if i - 1 < len(angles) else 0.0
        pose = pose @ Pose(offset, first.offset.rot) @ Pose(np.zeros(3),
                                                            axis_angle_matrix(axis, angle))
        poses.append(pose)
    parts = LinkParts(first.name)
    for p in poses:
        parts.visuals.extend(replace(s, pose=p @ s.pose) for s in first.parts.visuals)
    masses = []
    if first.inertial is not None:
        i = first.inertial
        masses = [(i.mass, p.rot @ i.com + p.pos, p.rot @ i.inertia @ p.rot.T) for p in poses]
    parts.collisions.extend(_belt(first, poses, axis))
    return replace(first, joint_type='pseudo_continuous_track', axis=axis, parts=parts,
                   inertial=combine_masses(masses), shoes=count)


def _belt(first: LinkSpec, poses: list[Pose], axis: np.ndarray) -> list[Shape]:
    """A box between the chain's ends and a cylinder at each end, around the shoes."""
    points = np.array([p.rot @ c + p.pos for p in poses for s in first.parts.collisions
                       for c in _corners(s)]).reshape(-1, 3)
    if not len(points):
        return []
    along = first.offset.rot @ np.array([1.0, 0.0, 0.0])
    along = along - axis * (along @ axis)
    along /= np.linalg.norm(along)
    up = np.cross(along, axis)
    frame = np.column_stack([along, axis, up])
    local = points @ frame  # coordinates along, across, up
    low, high = local.min(axis=0), local.max(axis=0)
    size = high - low
    radius = size[2] / 2
    centre = frame @ ((low + high) / 2)
    ends = max(size[0] / 2 - radius, 0.0)
    turned = np.column_stack([along, -up, axis])  # a cylinder's z along the axis
    source = first.source
    return [Shape(Box((2 * ends, size[1], size[2])), Pose(centre, frame), source=source),
            Shape(Cylinder(radius, size[1]), Pose(centre - along * ends, turned),
                  source=source),
            Shape(Cylinder(radius, size[1]), Pose(centre + along * ends, turned),
                  source=source)]


def _corners(shape: Shape) -> list[np.ndarray]:
    """Points of a collision shape's bounding box in the shoe frame (boxes exactly)."""
    g = shape.geometry
    if isinstance(g, Box):
        half = np.asarray(g.size) / 2
    elif isinstance(g, Sphere):
        half = np.full(3, g.radius)
    elif isinstance(g, Cylinder):
        half = np.array([g.radius, g.radius, g.length / 2])
    else:
        return [shape.pose.pos]
    signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
    return [shape.pose.rot @ (s * half) + shape.pose.pos for s in signs]
