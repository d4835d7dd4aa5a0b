"""OpenRAVE ``<AttachedSensor>``/``<sensor>`` -> devices, ``<Manipulator>`` -> tool frames.

Sensor frames (OpenRAVE ``plugins/basesensors``): a ``BaseCamera`` looks along its +z with x
right and y down (its ``KK`` projects (x/z, y/z)); the model's camera frame looks along +x with
+z up, so the loader turns it. A ``BaseLaser2D`` scans about its z axis from angle 0 on +x,
which is the model's range convention already. ``BaseFlashLidar3D`` looks along +z like a
camera. Angles in the files are degrees (``minangle``, ``maxangle``, ``resolution``).
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import ModelError
from ...model import Device, DeviceKind, Frame, Manipulator, Pose, freeze
from .raw import RawManipulator, RawSensor, inverse
from .xmlfile import Element

__all__ = ['sensor_device', 'manipulator_parts', 'CAMERA_TURN']

#: The model's camera frame (x forward, z up) in OpenRAVE's camera frame (z forward, y down).
CAMERA_TURN = Pose((0, 0, 0), [[0, -1, 0], [0, 0, -1], [1, 0, 0]])

_KINDS = {
    'basecamera': DeviceKind.CAMERA,
    'baselaser2d': DeviceKind.RANGE,
    'basespinninglaser2d': DeviceKind.RANGE,
    'baseflashlidar3d': DeviceKind.RANGE,
    'baseforce6d': DeviceKind.FORCE,
}


def _kind(type_name: str) -> DeviceKind:
    key = type_name.strip().lower()
    if key in _KINDS:
        return _KINDS[key]
    if 'imu' in key:
        return DeviceKind.IMU
    if 'force' in key:
        return DeviceKind.FORCE
    if 'camera' in key:
        return DeviceKind.CAMERA
    if 'laser' in key or 'lidar' in key:
        return DeviceKind.RANGE
    return DeviceKind.OTHER


def _values(params: list[Element], warn, known: dict[str, int]) -> dict[str, np.ndarray]:
    """The parameter elements the kind knows (tag -> numbers), warning about the rest."""
    out = {}
    for element in params:
        if element.tag in known:
            count = known[element.tag]
            out[element.tag] = element.numbers(at_least=count)[:count] if count else \
                element.numbers()
        else:
            warn(element, f'sensor parameter <{element.tag}> is not supported and was ignored')
    return out


def _camera(params, warn) -> dict:
    v = _values(params, warn, {'kk': 4, 'width': 1, 'height': 1, 'framerate': 1, 'power': 1,
                               'color': 0, 'focal_length': 1})
    width = int(v['width'][0]) if 'width' in v else 640
    height = int(v['height'][0]) if 'height' in v else 480
    out = {'width': width, 'height': height,
           'frame_rate': float(v['framerate'][0]) if 'framerate' in v else 5.0}
    if 'kk' in v:
        fx, fy, cx, cy = (float(x) for x in v['kk'])
        out.update(fx=fx, fy=fy, cx=cx, cy=cy)
        side, focal = (height, fy) if height <= width else (width, fx)
        out['field_of_view'] = 2.0 * math.atan(0.5 * side / focal) if focal > 0 else \
            math.radians(60.0)
    else:
        out['field_of_view'] = math.radians(60.0)
    if 'power' in v:
        out['on'] = bool(v['power'][0])
    return out


def _laser(params, warn, spinning: bool) -> dict:
    known = {'minangle': 1, 'min_angle': 1, 'maxangle': 1, 'max_angle': 1, 'resolution': 1,
             'maxrange': 1, 'max_range': 1, 'minrange': 1, 'min_range': 1, 'scantime': 1,
             'time_scan': 1, 'time_increment': 1, 'color': 0, 'power': 1}
    if spinning:
        known.update(spinaxis=3, spinpos=3, spinspeed=1)
    v = _values(params, warn, known)

    def pick(*names, default):
        for name in names:
            if name in v:
                return float(v[name][0])
        return default
    scan_time = pick('scantime', 'time_scan', default=0.0)
    out = {'min_angle': math.radians(pick('minangle', 'min_angle', default=-90.0)),
           'max_angle': math.radians(pick('maxangle', 'max_angle', default=90.0)),
           'resolution': math.radians(pick('resolution', default=math.degrees(0.01))),
           'min_distance': pick('minrange', 'min_range', default=0.03),
           'max_distance': pick('maxrange', 'max_range', default=100.0),
           'scan_rate': 1.0 / scan_time if scan_time > 0 else 10.0}
    if 'power' in v:
        out['on'] = bool(v['power'][0])
    if spinning:
        out['spin_axis'] = tuple(float(x) for x in v.get('spinaxis', (1.0, 0.0, 0.0)))
        out['spin_position'] = tuple(float(x) for x in v.get('spinpos', (0.0, 0.0, 0.0)))
        out['spin_speed'] = pick('spinspeed', default=0.0)
    return out


def _flash_lidar(params, warn) -> dict:
    v = _values(params, warn, {'kk': 4, 'width': 1, 'height': 1, 'maxrange': 1,
                               'max_range': 1, 'minrange': 1, 'min_range': 1, 'scantime': 1,
                               'time_scan': 1, 'color': 0, 'power': 1})
    out = {'width': int(v['width'][0]) if 'width' in v else 64,
           'height': int(v['height'][0]) if 'height' in v else 64,
           'min_distance': float(v.get('minrange', v.get('min_range', [0.0]))[0]),
           'max_distance': float(v.get('maxrange', v.get('max_range', [100.0]))[0])}
    if 'kk' in v:
        out.update(zip(('fx', 'fy', 'cx', 'cy'), (float(x) for x in v['kk'])))
    return out


def sensor_device(sensor: RawSensor, name: str, link: str, link_pose: np.ndarray, warn):
    """The device of a sensor on ``link`` (``link_pose``: OpenRAVE's link frame in the model's
    link frame). None (with a warning) when the sensor has no ``<sensor>`` type."""
    if not sensor.type:
        warn(sensor.element, f'sensor {sensor.name!r} has no <sensor type=...>; it was ignored')
        return None
    kind = _kind(sensor.type)
    pose = Pose.from_matrix(link_pose @ sensor.transform)
    key = sensor.type.strip().lower()
    if kind == DeviceKind.CAMERA:
        params = _camera(sensor.params, warn)
        pose = pose @ CAMERA_TURN
    elif key == 'baseflashlidar3d':
        params = _flash_lidar(sensor.params, warn)
        pose = pose @ CAMERA_TURN
    elif kind == DeviceKind.RANGE:
        params = _laser(sensor.params, warn, spinning='spinning' in key)
    else:
        params = {}
        for element in sensor.params:
            try:
                values = element.numbers()
                params[element.tag] = tuple(float(x) for x in values) if len(values) != 1 \
                    else float(values[0])
            except ModelError:  # not numbers: kept as text
                params[element.tag] = element.text.strip()
        if kind == DeviceKind.OTHER:
            warn(sensor.sensor_element or sensor.element,
                 f'sensor type {sensor.type!r} is not known; kept as a device of kind other')
    return Device(name, kind, link, pose, freeze(params), sensor.type,
                  (sensor.sensor_element or sensor.element).where())


def manipulator_parts(manip: RawManipulator, name_of, frames: dict, links_by_name: dict,
                      taken: set, chain, warn):
    """The tool :class:`Frame` and the :class:`Manipulator` record, or None when it names
    links that do not exist (with a warning).

    Args:
        frames: raw link -> (model name, model frame F, OpenRAVE frame T), world 4x4.
        links_by_name: raw link name -> raw link.
        taken: frame and link names already used.
        chain: ``(base, effector) -> list of movable joint names`` in the model.
    """
    for role in ('base', 'effector'):
        if getattr(manip, role) is None or getattr(manip, role) not in links_by_name:
            warn(manip.element, f'manipulator {manip.name!r}: {role} link '
                                f'{getattr(manip, role)!r} does not exist; it was ignored')
            return None
    effector = links_by_name[manip.effector]
    eff_name, frame_f, frame_t = frames[effector]
    tool_name = name_of(manip.name)
    if tool_name in taken:
        tool_name = f'{tool_name}_tool'
    taken.add(tool_name)
    tool = Frame(tool_name, eff_name, Pose.from_matrix(inverse(frame_f) @ frame_t @ manip.tool),
                 manip.element.where())
    base_name = frames[links_by_name[manip.base]][0]
    arm = chain(base_name, eff_name)
    if arm is None:
        warn(manip.element, f'manipulator {manip.name!r}: base {manip.base!r} is not above '
                            f'effector {manip.effector!r} in the tree; no arm joints')
        arm = []
    gripper = []
    for joint in manip.gripper_joints:
        gripper.append(name_of(joint))
    closing = tuple(manip.closing_direction)
    if closing and len(closing) != len(gripper):
        warn(manip.element, f'manipulator {manip.name!r}: {len(closing)} closing directions '
                            f'for {len(gripper)} gripper joints')
    record = Manipulator(name_of(manip.name), base_name, eff_name, tool_name, tuple(arm),
                         tuple(gripper), closing, manip.direction, manip.ik_solver,
                         manip.element.where())
    return tool, record
