"""Track devices of the physics plug-ins as tracks: ``AGXVehicleContinuousTrackDevice``
(AGX Dynamics) and ``PxContinuousTrack`` (PhysX) describe a belt of shoes around named wheels.

The belt is approximated: the link holding the device (fixed to its parent, as in AgxTank and
PxTank) becomes a joint of type ``track`` named after it, its collision shapes a rigid belt
around the wheels: a box from the first to the last wheel centre and a cylinder at each end,
the wheels' radius plus the belt's thickness, the belt's width across. The wheels keep their
joints and visuals; their collision shapes are the belt's. Parameters read: AGX
``sprocketNames``, ``rollerNames``, ``idlerNames``, ``nodeThickness``, ``nodeWidth``; PhysX
``sprocket``, ``idler``, ``sprocket_radius``, ``idler_radius``, ``thickness``, ``width``.
Lengths [m].
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...model import Box, Cylinder, Device, Joint, JointType, Model, Pose, Shape

__all__ = ['approximate_belts', 'TRACK_DEVICES']

TRACK_DEVICES = ('AGXVehicleContinuousTrackDevice', 'PxContinuousTrack')


def approximate_belts(model: Model) -> Model:
    """The model with each track device's link a track (see the module text)."""
    links = {link.name: link for link in model.links}
    joints = {joint.child: joint for joint in model.joints}
    warnings = list(model.warnings)
    for joint in model.joints:
        if joint.type == JointType.TRACK and joint.meta.get('shoes'):
            inside = _wheels_inside(joint, links, joints)
            if inside:
                warnings.append(f'{joint.source or model.source}: the wheels inside the belt of '
                                f'{joint.name!r} ({", ".join(inside)}) lose their collision '
                                'shapes: the belt rests on them')
    for device in model.devices:
        if device.type_name not in TRACK_DEVICES:
            continue
        where = device.source or model.source or ''
        note = _approximate(device, links, joints, model)
        warnings = [w for w in warnings if not (w.startswith(f'{where}: ') and
                                                f"{device.type_name} '{device.name}'" in w)]
        warnings.append(f'{where}: {device.type_name} {device.name!r}: {note}')
    return replace(model, links=tuple(links[link.name] for link in model.links),
                   joints=tuple(joints[j.child] for j in model.joints),
                   warnings=tuple(warnings))


def _wheels(device: Device) -> tuple[list[str], float, float, float]:
    """Wheel links, radius given (0: none), thickness and width of the belt [m]."""
    p = device.params
    if device.type_name == 'PxContinuousTrack':
        names = [n for n in (p.get('sprocket'), p.get('idler')) if isinstance(n, str)]
        radius = max(float(p.get('sprocket_radius', 0) or 0), float(p.get('idler_radius', 0) or 0))
        return names, radius, float(p.get('thickness', 0) or 0), float(p.get('width', 0) or 0)
    names = []
    for key in ('sprocketNames', 'rollerNames', 'idlerNames'):
        value = p.get(key) or []
        names.extend(n for n in ([value] if isinstance(value, str) else value)
                     if isinstance(n, str))
    return names, 0.0, float(p.get('nodeThickness', 0) or 0), float(p.get('nodeWidth', 0) or 0)


def _approximate(device: Device, links, joints, model: Model) -> str:
    """Make the device's link a track; a note saying what was done (or why not)."""
    names, radius, thickness, width = _wheels(device)
    names = [n for n in names if n in links]
    joint = joints.get(device.link)
    if len(names) < 2 or joint is None or joint.type != JointType.FIXED:
        return ('kept as a device of kind "other": it needs two wheels that exist and a '
                'link fixed to its parent; the belt is not simulated')
    belt = links[device.link]
    inverse = belt.pose.inverse()
    centres = np.array([(inverse @ links[n].pose).pos for n in names])
    wheel_joint = joints[names[0]]
    axis = (inverse @ links[names[0]].pose).rot @ wheel_joint.axis \
        if wheel_joint.type.dof == 1 else np.array([0.0, 1.0, 0.0])
    axis = axis / np.linalg.norm(axis)
    radii = [s.geometry.radius for n in names for s in links[n].collisions
             if isinstance(s.geometry, Cylinder)]
    radius = (radius or max(radii, default=0.0)) + thickness
    width = width or 2 * radius
    along = centres[-1] - centres[0]
    along -= axis * (along @ axis)
    along /= np.linalg.norm(along)
    up = np.cross(along, axis)
    offsets = (centres - centres[0]) @ along
    first, last = centres[0] + along * offsets.min(), centres[0] + along * offsets.max()
    middle, length = (first + last) / 2, float(offsets.max() - offsets.min())
    box_rot = np.column_stack([along, axis, up])
    cyl_rot = np.column_stack([along, -up, axis])  # the cylinder's z along the axis
    shapes = (Shape(Box((length, width, 2 * radius)), Pose(middle, box_rot),
                    source=device.source),
              Shape(Cylinder(radius, width), Pose(first, cyl_rot), source=device.source),
              Shape(Cylinder(radius, width), Pose(last, cyl_rot), source=device.source))
    links[belt.name] = replace(belt, collisions=belt.collisions + shapes)
    for name in names:
        links[name] = replace(links[name], collisions=())
    joints[belt.name] = Joint(name=joint.name, type=JointType.TRACK, parent=joint.parent,
                              child=joint.child, axis=axis, source=joint.source, meta=joint.meta)
    return (f'the belt is approximated: joint {joint.name!r} is a track (surface speed [m/s]) '
            f'whose link is a rigid belt around {", ".join(names)}')


def _wheels_inside(joint, links, joints) -> list[str]:
    """Links on the belt's parent whose round shapes lie inside the belt (a chain's wheels):
    their collision shapes are dropped."""
    belt = links[joint.child]
    boxes = [s for s in belt.collisions if isinstance(s.geometry, Box)]
    if not boxes:
        return []
    box = boxes[0]
    world = belt.pose @ box.pose
    half = np.asarray(box.geometry.size) / 2 + np.array([max(box.geometry.size[2] / 2, 0), 0, 0])
    inside = []
    for child, j in joints.items():
        if j.parent != joint.parent or child == joint.child or j.type.rigid:
            continue
        link = links[child]
        round_ = [s for s in link.collisions if isinstance(s.geometry, (Cylinder,))]
        if not round_:
            continue
        centre = world.inverse() @ (link.pose @ round_[0].pose)
        if np.all(np.abs(centre.pos) <= half + 1e-9):
            links[child] = replace(link, collisions=())
            inside.append(child)
    return inside
