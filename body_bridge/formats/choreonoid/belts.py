"""Track devices of the physics plug-ins as tracks: ``AGXVehicleContinuousTrackDevice``
(AGX Dynamics) and ``PxContinuousTrack`` (PhysX) describe a belt of shoes around named wheels.

The belt is approximated by a joint of type ``track`` named after the device: on the link
holding the device when that link is fixed to its parent (AgxTank, PxTank), else on a link
``<device>_belt`` of its own fixed to it (AizuSpiderNA's belts on the chassis and on the
flippers). Its collision shapes are a rigid belt around what the wheels' shapes reach in the
plane of the belt (their collision shapes, else their visuals; PhysX's radii when given),
plus the belt's thickness (grousers included): a box between the ends and a cylinder at each
end, the belt's width across. The wheels keep their joints and visuals; their collision
shapes are the belt's. Parameters read: AGX ``sprocketNames``, ``rollerNames``,
``guideNames``, ``idlerNames``, ``nodeThickness``, ``nodeThickerThickness``, ``nodeWidth``;
PhysX ``sprocket``, ``idler``, ``sprocket_radius``, ``idler_radius``, ``thickness``,
``grouser_height``, ``width``. Lengths [m].
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...model import Box, Cylinder, Device, Joint, JointType, Link, Mesh, Model, Pose, Shape

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
    # Replaced entries keep their place; belt links made for devices come last.
    return replace(model, links=tuple(links.values()), joints=tuple(joints.values()),
                   warnings=tuple(warnings))


def _wheels(device: Device) -> tuple[list[str], float, float, float]:
    """Wheel links, radius given (0: none), thickness and width of the belt [m]."""
    p = device.params
    if device.type_name == 'PxContinuousTrack':
        names = [n for n in (p.get('sprocket'), p.get('idler')) if isinstance(n, str)]
        radius = max(float(p.get('sprocket_radius', 0) or 0), float(p.get('idler_radius', 0) or 0))
        thickness = float(p.get('thickness', 0) or 0) + float(p.get('grouser_height', 0) or 0)
        return names, radius, thickness, float(p.get('width', 0) or 0)
    names = []
    for key in ('sprocketNames', 'rollerNames', 'guideNames', 'idlerNames'):
        value = p.get(key) or []
        names.extend(n for n in ([value] if isinstance(value, str) else value)
                     if isinstance(n, str))
    thickness = max(float(p.get(k, 0) or 0) for k in ('nodeThickness', 'nodeThickerThickness'))
    return names, 0.0, thickness, float(p.get('nodeWidth', 0) or 0)


def _approximate(device: Device, links, joints, model: Model) -> str:
    """Make the device's link a track; a note saying what was done (or why not)."""
    names, radius, thickness, width = _wheels(device)
    names = [n for n in names if n in links]
    joint = joints.get(device.link)
    if len(names) < 2:
        return ('kept as a device of kind "other": it needs two wheels that exist; the belt '
                'is not simulated')
    if joint is None or joint.type != JointType.FIXED:
        # The device is on the root or on a moving link (a flipper): a belt link of its own.
        name = f'{device.name}_belt'
        if name in links or any(j.name == device.name for j in joints.values()):
            return (f'kept as a device of kind "other": {name!r} or {device.name!r} is taken; '
                    'the belt is not simulated')
        links[name] = Link(name, links[device.link].pose, source=device.source)
        joint = joints[name] = Joint(name=device.name, type=JointType.FIXED, parent=device.link,
                                     child=name, source=device.source)
    belt = links[joint.child]
    inverse = belt.pose.inverse()
    centres = np.array([(inverse @ links[n].pose).pos for n in names])
    wheel_joint = joints[names[0]]
    axis = (inverse @ links[names[0]].pose).rot @ wheel_joint.axis \
        if wheel_joint.type.dof == 1 else np.array([0.0, 1.0, 0.0])
    axis = axis / np.linalg.norm(axis)
    along = centres[-1] - centres[0]
    along -= axis * (along @ axis)
    along /= np.linalg.norm(along)
    up = np.cross(along, axis)
    frame = np.column_stack([along, axis, up])
    # What the wheels reach in the belt's plane (their shapes, or the radius given).
    points = [inverse @ links[n].pose for n in names]
    reach = np.concatenate([_points(links[n], p) for n, p in zip(names, points)] +
                           [c + radius * np.array([s * along, s * up]).reshape(2, 3)
                            for c in centres for s in (-1, 1)] if radius else
                           [_points(links[n], p) for n, p in zip(names, points)])
    if not len(reach):
        reach = centres
    local = (reach - centres[0]) @ frame
    low, high = local.min(axis=0) - thickness, local.max(axis=0) + thickness
    half = (high[2] - low[2]) / 2
    ends = max((high[0] - low[0]) / 2 - half, 0.0)
    across = float(np.mean((centres - centres[0]) @ axis))
    centre = centres[0] + frame @ np.array([(low[0] + high[0]) / 2, across,
                                            (low[2] + high[2]) / 2])
    width = width or float(high[1] - low[1]) or 2 * half
    cyl_rot = np.column_stack([along, -up, axis])  # the cylinder's z along the axis
    shapes = (Shape(Box((2 * ends, width, 2 * half)), Pose(centre, frame), source=device.source),
              Shape(Cylinder(half, width), Pose(centre - along * ends, cyl_rot),
                    source=device.source),
              Shape(Cylinder(half, width), Pose(centre + along * ends, cyl_rot),
                    source=device.source))
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


def _points(link: Link, pose: Pose) -> np.ndarray:
    """Points that bound a wheel's shapes (collision shapes, else visuals: some wheels are
    only drawn), in the frame ``pose`` maps the link's frame into [m]."""
    out = []
    for shape in link.collisions or link.visuals:
        g = shape.geometry
        if isinstance(g, Mesh):
            local = np.asarray(g.vertices, float).reshape(-1, 3)
        else:
            if isinstance(g, Box):
                half = np.asarray(g.size, float) / 2
            elif isinstance(g, Cylinder):
                half = np.array([g.radius, g.radius, g.length / 2])
            elif hasattr(g, 'radius'):
                half = np.full(3, float(g.radius))
            else:
                continue
            local = _SIGNS * half
        out.append((local @ shape.pose.rot.T + shape.pose.pos) @ pose.rot.T + pose.pos)
    return np.concatenate(out) if out else np.zeros((0, 3))


_SIGNS = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
