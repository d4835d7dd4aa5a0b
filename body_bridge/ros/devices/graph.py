"""What the bridge publishes for a model, worked out from the model alone (nothing runs).

``info`` prints these topics and ``rviz`` builds its displays from them; the node's own
publishers are made by :mod:`body_bridge.ros.devices.sensors` from the same rules (a test holds the
two together).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...model import Device, DeviceKind, Model
from ...sim.sensing.optical import CAMERA_FORMATS, camera_intrinsics, scan_angles
from ...sim.sensing.samplers import DeviceRefused
from .sensors import topic_name

__all__ = ['Topic', 'DeviceTopics', 'device_topics']


@dataclass(frozen=True)
class Topic:
    """A topic of the bridge.

    Attributes:
        name: relative to the node's namespace (absolute when it starts with ``/``).
        type: the message type, ``package/msg/Name``.
        rate: messages per simulated second [Hz] while someone subscribes.
    """

    name: str
    type: str
    rate: float


@dataclass(frozen=True)
class DeviceTopics:
    """The topics of one device, or why it has none.

    Attributes:
        device: the model's device.
        topics: what it publishes (empty when it is not simulated).
        note: why it publishes nothing ('' when it does).
    """

    device: Device
    topics: tuple[Topic, ...]
    note: str = ''


_INERTIAL = (DeviceKind.IMU, DeviceKind.ACCELEROMETER, DeviceKind.GYRO)


def device_topics(model: Model, control_rate: float = 100.0) -> list[DeviceTopics]:
    """The topics of every device of ``model``, in model order.

    Args:
        model: the model.
        control_rate: the node's ``control_rate`` [Hz] (inertial and force sensors publish
            once per control period unless a devices file sets a rate).
    """
    out, taken = [], set()
    for device in model.devices:
        base = topic_name(device.name)
        while base in taken:
            base += '_'
        try:
            topics = _topics(device, base, control_rate)
        except DeviceRefused as err:
            out.append(DeviceTopics(device, (), f'not simulated: {err}'))
            continue
        if topics is None:
            note = ('lights the rendered scene' if device.kind == DeviceKind.LIGHT else
                    'not simulated (a TF frame only)')
            out.append(DeviceTopics(device, (), note))
            continue
        taken.add(base)
        out.append(DeviceTopics(device, tuple(topics)))
    return out


def _topics(device: Device, base: str, control_rate: float) -> list[Topic] | None:
    p = device.params
    if device.kind in _INERTIAL:
        return [Topic(base, 'sensor_msgs/msg/Imu', control_rate)]
    if device.kind == DeviceKind.FORCE:
        return [Topic(base, 'geometry_msgs/msg/WrenchStamped', control_rate)]
    if device.kind == DeviceKind.RANGE:
        return _range_topics(p, base, control_rate)
    if device.kind == DeviceKind.CAMERA:
        return _camera_topics(p, base, control_rate)
    return None


def _range_topics(p, base: str, control_rate: float) -> list[Topic]:
    rate = float(p['scan_rate']) if 'scan_rate' in p else \
        1.0 / float(p['scan_time']) if p.get('scan_time', 0.0) > 0.0 else control_rate
    if 'fx' in p:
        camera_intrinsics({**p, 'near_clip_distance': 0.01, 'far_clip_distance': 1.0})
        return [Topic(f'{base}/points', 'sensor_msgs/msg/PointCloud2', rate)]
    yaw, pitch = scan_angles(p)
    if yaw.size * pitch.size == 1 and yaw[0] == 0.0 and pitch[0] == 0.0:
        return [Topic(base, 'sensor_msgs/msg/Range', rate)]
    if pitch.size == 1 and pitch[0] == 0.0:
        return [Topic(f'{base}/scan', 'sensor_msgs/msg/LaserScan', rate)]
    return [Topic(f'{base}/points', 'sensor_msgs/msg/PointCloud2', rate)]


def _camera_topics(p, base: str, control_rate: float) -> list[Topic]:
    fmt = str(p.get('format', 'COLOR')).upper()
    if fmt not in CAMERA_FORMATS:
        raise DeviceRefused(f'format {fmt} is not one of {", ".join(CAMERA_FORMATS)}')
    lens = str(p.get('lens_type', 'NORMAL')).upper()
    if lens == 'NORMAL' or fmt != 'COLOR':
        camera_intrinsics(p)
    rate = float(p['frame_rate']) if p.get('frame_rate') else control_rate
    color, depth = CAMERA_FORMATS[fmt]
    points = fmt.endswith('POINT_CLOUD')
    image, info = 'sensor_msgs/msg/Image', 'sensor_msgs/msg/CameraInfo'
    topics = []
    if color:
        topics += [Topic(f'{base}/image_raw', image, rate),
                   Topic(f'{base}/camera_info', info, rate)]
    if depth and not points:
        topics += [Topic(f'{base}/depth/image', image, rate),
                   Topic(f'{base}/depth/camera_info', info, rate)]
    if points:
        topics.append(Topic(f'{base}/points', 'sensor_msgs/msg/PointCloud2', rate))
    return topics
