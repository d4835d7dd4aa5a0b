"""OpenRAVE ``<Manipulator>``, ``<AttachedSensor>`` and environment ``<sensor>`` elements."""

from __future__ import annotations

import numpy as np

from .context import Context
from .joints import check_attributes
from .raw import RawManipulator, RawSensor, TransformTags, scaled
from .xmlfile import Element

__all__ = ['read_manipulator', 'read_attached_sensor', 'read_sensor']


def read_manipulator(ctx: Context, element: Element) -> RawManipulator:
    """A ``<Manipulator>``: base, effector, gripper joints, closing and palm directions, tool."""
    manip = RawManipulator(element.attr('name') or 'manipulator', element)
    check_attributes(ctx, element, ('name',))
    tags = TransformTags()
    for child in element.children:
        tag = child.tag
        if tags.read(child):
            continue
        if tag == 'effector':
            manip.effector = child.word()
        elif tag == 'base':
            manip.base = child.word()
        elif tag in ('joints', 'gripperjoints'):
            manip.gripper_joints = child.words()
        elif tag in ('closingdirection', 'closingdir'):
            manip.closing_direction = [float(np.sign(v)) for v in child.numbers()]
        elif tag in ('direction', 'palmdirection'):
            v = scaled(child.numbers(3))
            manip.direction = v / np.linalg.norm(v) if v is not None else \
                np.array([0.0, 0.0, 1.0])
        elif tag == 'iksolver':
            manip.ik_solver = child.text.strip()
        else:
            ctx.warn(child, f'<{tag}> in a Manipulator is not supported and was '
                                 'ignored')
    manip.tool = tags.matrix()
    return manip

def read_attached_sensor(ctx: Context, element: Element, sensor: RawSensor) -> RawSensor:
    """An ``<AttachedSensor>``: its link, transform and ``<sensor>``."""
    check_attributes(ctx, element, ('name',))
    tags = TransformTags()
    for child in element.children:
        tag = child.tag
        if tags.read(child):
            continue
        if tag == 'link':
            sensor.link = child.word()
        elif tag == 'sensor':
            _sensor_body(ctx, child, sensor)
        else:
            ctx.warn(child, f'<{tag}> in an AttachedSensor is not supported and was '
                                 'ignored')
    sensor.transform = tags.matrix()
    return sensor

def read_sensor(ctx: Context, element: Element, sensor: RawSensor) -> RawSensor:
    """An environment ``<sensor>``: its own transform, parameters and type."""
    tags = TransformTags()
    params = [c for c in element.children if not tags.read(c)]
    sensor.transform = tags.matrix()
    clone = Element(element.tag, dict(element.attrs), element.path, element.line, params)
    _sensor_body(ctx, clone, sensor)
    return sensor

def _sensor_body(ctx: Context, element: Element, sensor: RawSensor) -> None:
    attrs = dict(element.attrs)
    children = list(element.children)
    name = attrs.pop('file', None)
    if name:
        root = ctx.include(element, name, ('sensor',))
        attrs = {**root.attrs, **attrs}
        children = root.children + children
    sensor.type = attrs.get('type')
    sensor.params = children
    sensor.sensor_element = element
    if attrs.get('args'):
        ctx.warn(element, 'sensor args are deprecated in OpenRAVE and were ignored')
