"""A model described for people (``info``: a tree) and for programs (``info --json``).

Lengths are in metres, angles in radians (degrees in brackets for joint ranges), masses in
kilograms. Device topics are the ones the bridge publishes (:mod:`body_bridge.ros.devices.graph`).
"""

from __future__ import annotations

import math

import numpy as np

from .model import Device, DeviceKind, Joint, JointType, Model

__all__ = ['describe', 'tree', 'joint_text', 'urdf_links']

_AXES = {(1, 0, 0): 'x', (0, 1, 0): 'y', (0, 0, 1): 'z',
         (-1, 0, 0): '-x', (0, -1, 0): '-y', (0, 0, -1): '-z'}


def _limit(value):
    return None if value is None else float(value)


def urdf_links(model: Model) -> tuple[int, str]:
    """The number of links of the model's URDF, and why it is more than the model's:
    ``(14, "the model's 6, 7 device frames, 1 camera optical frame")`` (every named frame,
    device and camera optical frame is a fixed child link in the URDF, so that TF knows it)."""
    cameras = sum(d.kind == DeviceKind.CAMERA for d in model.devices)
    parts = [(len(model.frames), 'named frame'), (len(model.devices), 'device frame'),
             (cameras, 'camera optical frame')]
    total = len(model.links) + sum(n for n, _ in parts)
    words = [f"the model's {len(model.links)}"] + \
        [f'{n} {what}' + ('' if n == 1 else 's') for n, what in parts if n]
    return total, ', '.join(words)


def describe(model: Model, topics: dict[str, list] | None = None) -> dict:
    """The model as plain data: links, joints, devices (with their topics), total mass."""
    topics = topics or {}
    return {
        'name': model.name,
        'root': model.root,
        'root_joint': model.root_joint.value,
        'links': [{'name': link.name,
                   'mass': 0.0 if link.inertial is None else link.inertial.mass}
                  for link in model.links],
        'joints': [{'name': j.name, 'type': j.type.value, 'parent': j.parent, 'child': j.child,
                    'axis': [float(a) for a in j.axis],
                    'limits': {'lower': _limit(j.limits.lower), 'upper': _limit(j.limits.upper),
                               'velocity': _limit(j.limits.velocity),
                               'effort': _limit(j.limits.effort)},
                    'mimic': None if j.mimic is None else j.mimic.joint}
                   for j in model.joints],
        'devices': [{'name': d.name, 'kind': d.kind.value, 'type': d.type_name, 'link': d.link,
                     'topics': [{'name': t.name, 'type': t.type, 'rate': t.rate}
                                for t in topics.get(d.name, [])]}
                    for d in model.devices],
        'closures': [{'name': c.name, 'type': c.type, 'link1': c.link1, 'link2': c.link2}
                     for c in model.closures],
        'mass': float(model.total_mass),
    }


def _axis(axis: np.ndarray) -> str:
    key = tuple(int(round(a)) for a in axis)
    if key in _AXES and np.allclose(axis, key, atol=1e-9):
        return _AXES[key]
    return '(' + ', '.join(f'{a:.3g}' for a in axis) + ')'


def _range(joint: Joint) -> str:
    lim = joint.limits
    if joint.type == JointType.CONTINUOUS or (lim.lower is None and lim.upper is None):
        return 'unlimited'
    lo = -math.inf if lim.lower is None else lim.lower
    hi = math.inf if lim.upper is None else lim.upper
    if joint.type == JointType.PRISMATIC:
        return f'{lo:.4g}..{hi:.4g} m'
    return f'{lo:.4g}..{hi:.4g} rad [{math.degrees(lo):.4g}..{math.degrees(hi):.4g} deg]'


def joint_text(joint: Joint) -> str:
    """One line: type, axis, range, velocity and effort limits, coupling."""
    if joint.type in (JointType.FIXED, JointType.FREE, JointType.BALL):
        return f'{joint.type.value} joint {joint.name}'
    if joint.type == JointType.TRACK:
        speed = f', {joint.limits.velocity:.4g} m/s' if joint.limits.velocity else ''
        return f'track {joint.name} on {joint.child}, surface along {_axis(joint.axis)} x ' \
            f'normal{speed}'
    prismatic = joint.type == JointType.PRISMATIC
    parts = [f'{joint.type.value} joint {joint.name} along {_axis(joint.axis)}'
             if prismatic else f'{joint.type.value} joint {joint.name} about {_axis(joint.axis)}',
             _range(joint)]
    if joint.limits.velocity:
        parts.append(f'{joint.limits.velocity:.4g} {"m/s" if prismatic else "rad/s"}')
    if joint.limits.effort:
        parts.append(f'{joint.limits.effort:.4g} {"N" if prismatic else "N m"}')
    mimic = joint.mimic
    if mimic is not None:
        sign = '-' if mimic.offset < 0 else '+'
        parts.append(f'= {mimic.expression}' if mimic.expression else
                     f'= {mimic.multiplier:.4g} {mimic.joint} {sign} {abs(mimic.offset):.4g}')
    return ', '.join(parts)


def _device_text(device: Device, entry) -> str:
    kind = device.kind.value + (f' ({device.type_name})' if device.type_name else '')
    if entry is None or not entry.topics:
        note = entry.note if entry is not None else ''
        return f'device {device.name}: {kind}' + (f', {note}' if note else '')
    rates = {t.rate for t in entry.topics}
    names = ', '.join(t.name for t in entry.topics)
    rate = f', {rates.pop():g} Hz' if len(rates) == 1 else ''
    return f'device {device.name}: {kind} -> {names}{rate}'


def tree(model: Model, device_topics: list | None = None, source: str | None = None) -> str:
    """The model as an indented tree of links, with joints, devices and frames.

    Args:
        model: the model.
        device_topics: :class:`~body_bridge.ros.devices.graph.DeviceTopics` per device (topics are
            left out without them).
        source: the path shown in the title (default: the model's source).
    """
    entries = {e.device.name: e for e in device_topics or []}
    movable = len(model.movable_joints)
    lines = [f'{model.name}: {len(model.links)} links, {movable} moving joints, '
             f'{len(model.devices)} devices, {model.total_mass:.6g} kg',
             f'  from {source or model.source}',
             '  as URDF: {} links ({})'.format(*urdf_links(model)),
             'world']
    children: dict[str, list[Joint]] = {}
    for joint in model.joints:
        children.setdefault(joint.parent, []).append(joint)
    devices: dict[str, list[Device]] = {}
    for device in model.devices:
        devices.setdefault(device.link, []).append(device)
    frames: dict[str, list] = {}
    for frame in model.frames:
        frames.setdefault(frame.link, []).append(frame)

    def link_line(name: str, joint: Joint | None) -> str:
        link = model.link(name)
        mass = 0.0 if link.inertial is None else link.inertial.mass
        via = f'  ({model.root_joint.value} to the world)' if joint is None else \
            f'  ({joint_text(joint)})'
        return f'{name}  {mass:.4g} kg{via}'

    def walk(name: str, joint: Joint | None, prefix: str, last: bool) -> None:
        lines.append(f'{prefix}{"└── " if last else "├── "}{link_line(name, joint)}')
        inner = prefix + ('    ' if last else '│   ')
        items = [('device', d) for d in devices.get(name, [])] + \
                [('frame', f) for f in frames.get(name, [])] + \
                [('joint', j) for j in children.get(name, [])]
        for index, (what, item) in enumerate(items):
            end = index == len(items) - 1
            if what == 'joint':
                walk(item.child, item, inner, end)
                continue
            text = _device_text(item, entries.get(item.name)) if what == 'device' else \
                f'frame {item.name}'
            lines.append(f'{inner}{"└── " if end else "├── "}{text}')

    walk(model.root, None, '', True)
    if model.closures:
        lines.append('loop closures (enforced by the integrator, not in the URDF):')
        lines += [f'  {c.name}: {c.type} between {c.link1} and {c.link2}'
                  for c in model.closures]
    extras = [(len(model.motors), 'motors'), (len(model.springs), 'springs'),
              (len(model.bushings), 'bushings'), (len(model.loads), 'loads')]
    if any(n for n, _ in extras):
        lines.append('forces: ' + ', '.join(f'{n} {what}' for n, what in extras if n))
    return '\n'.join(lines)
