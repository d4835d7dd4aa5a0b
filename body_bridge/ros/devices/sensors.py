"""Sensor topics: one publisher group per simulated device, filled from the SensorSuite.

Topics (relative to the node's namespace; ``<device>`` is the device name, with characters a
topic name cannot hold replaced by ``_``), all with the sensor-data QoS:

* IMU, accelerometer, gyro: ``<device>`` sensor_msgs/Imu (REP-145: a quantity the device does
  not report has -1 in element 0 of its covariance).
* force sensor: ``<device>`` geometry_msgs/WrenchStamped.
* range sensor: ``<device>`` sensor_msgs/Range (one beam), ``<device>/scan`` LaserScan (yaw
  scanning), ``<device>/points`` PointCloud2 x, y, z (yaw and pitch); REP-117 ranges.
* camera: ``<device>/image_raw`` (rgb8) + ``<device>/camera_info``, ``<device>/depth/image``
  (32FC1, metres along the optical axis) + ``<device>/depth/camera_info``, ``<device>/points``
  (organised PointCloud2 x, y, z [, rgb] in the optical frame; NaN where nothing was seen);
  ``<device>/image_raw/compressed`` and ``<device>/depth/image/compressedDepth``
  (CompressedImage as image_transport's plug-ins write them, see :mod:`.compression`).

A device is read only when it is due and one of its topics has a subscriber, so a camera nobody
watches costs nothing. Each device has the run-time parameters ``devices.<device>.on`` (bool),
``devices.<device>.rate`` [Hz] and those of :mod:`.device_settings` (noise, compression).
"""

from __future__ import annotations

import array
import re
import sys
import threading

from rcl_interfaces.msg import ParameterDescriptor, ParameterType, SetParametersResult
from sensor_msgs.msg import CameraInfo, CompressedImage, Image, LaserScan, PointCloud2, Range

from ... import urdf as urdf_writer
from ...device_overlay import Overlay
from ...errors import ModelError
from ...sim.sensing.render import RenderError
from ...sim.sensing.sensors import (CameraSampler, ForceSampler, InertialSampler, RangeSampler,
                                    SensorSuite)
from . import device_settings
from .packed import DevicePublisher, ImuPublisher, WrenchPublisher, _Instant
from ..stream.compression import compress_color, compress_depth
from ..stream.encoder import BackgroundEncoder
from ..stream.messages import (camera_info, camera_points, cloud_fields, fill_cloud,
                       image_message, range_points, stamp_of)

__all__ = ['SensorPublishers', 'DevicePublisher', 'ImuPublisher', 'WrenchPublisher',
           'RangePublisher', 'CameraPublisher', 'topic_name', 'parameter_prefix', 'camera_info',
           'image_message', 'cloud_fields', 'camera_points', 'range_points']

_BIG_ENDIAN = sys.byteorder == 'big'
_TOKEN = re.compile(r'[^A-Za-z0-9_]')


def topic_name(device_name: str) -> str:
    """The relative topic name of a device: ``/`` separates namespaces (an environment's
    ``<body>/<device>``); other characters a topic cannot hold become ``_``."""
    parts = []
    for part in device_name.split('/'):
        token = _TOKEN.sub('_', part) or '_'
        parts.append('_' + token if token[0].isdigit() else token)
    return '/'.join(parts)


def parameter_prefix(topic: str) -> str:
    """``devices.<topic>`` with namespaces as parameter namespaces (``/`` -> ``.``)."""
    return 'devices.' + topic.replace('/', '.')


# --- one publisher group per device ----------------------------------------------------------


class RangePublisher(DevicePublisher):
    """Range (one beam), LaserScan on ``<device>/scan`` (yaw), PointCloud2 on
    ``<device>/points`` (yaw and pitch)."""

    def __init__(self, node, sampler: RangeSampler, topic, frame_id):
        super().__init__(node, sampler, topic, frame_id)
        s = sampler
        self.shape = s.layout
        if s.layout == 'single':
            self.pub = self._publisher(Range, topic)
            msg = self.msg = Range()
            msg.radiation_type = Range.INFRARED
            msg.field_of_view = 0.0  # one ray
            msg.min_range, msg.max_range = s.min_distance, s.max_distance
        elif s.layout == 'scan':
            self.pub = self._publisher(LaserScan, f'{topic}/scan')
            msg = self.msg = LaserScan()
            msg.angle_min = float(s.yaw[0])
            msg.angle_max = float(s.yaw[-1])
            msg.angle_increment = float(s.yaw[1] - s.yaw[0]) if s.yaw.size > 1 else 0.0
            msg.time_increment = 0.0  # every beam at the same instant
            msg.range_min, msg.range_max = s.min_distance, s.max_distance
        else:
            self.pub = self._publisher(PointCloud2, f'{topic}/points')
            msg = self.msg = PointCloud2()
            msg.is_dense = True
        msg.header.frame_id = frame_id

    def tick(self, instant: _Instant | None = None) -> None:
        if not self._watched(self.pub):
            return
        r = self.sampler.read()
        msg = self.msg
        msg.header.stamp = stamp_of(r.time)
        if self.shape == 'single':
            msg.range = float(r.ranges.reshape(-1)[0])
        elif self.shape == 'scan':
            msg.scan_time = self.sampler.period
            msg.ranges = array.array('f', r.ranges.reshape(-1).tobytes())
        else:
            fill_cloud(msg, range_points(self.sampler.directions, r.ranges), rgb=False)
        self.pub.publish(msg)


class CameraPublisher(DevicePublisher):
    """The images, CameraInfo and point cloud of a camera's format; renders only what is
    watched, and nothing when only CameraInfo is."""

    def __init__(self, node, sampler: CameraSampler, topic, frame_id):
        super().__init__(node, sampler, topic, frame_id)
        s = sampler
        self.image_pub = self._publisher(Image, f'{topic}/image_raw') if s.color else None
        self.info_pub = self._publisher(CameraInfo, f'{topic}/camera_info') if s.color else None
        self.depth_pub = self._publisher(Image, f'{topic}/depth/image') \
            if s.depth and not s.points else None
        self.depth_info_pub = self._publisher(CameraInfo, f'{topic}/depth/camera_info') \
            if self.depth_pub is not None else None
        self.points_pub = self._publisher(PointCloud2, f'{topic}/points') if s.points else None
        self.compressed_pub = self._publisher(CompressedImage, f'{topic}/image_raw/compressed') \
            if s.color else None
        self.depth_compressed_pub = self._publisher(
            CompressedImage, f'{topic}/depth/image/compressedDepth') \
            if self.depth_pub is not None else None
        self.compression, self.depth_compression = device_settings.defaults()
        self.encoders = [None if p is None else BackgroundEncoder(node, p, frame_id, encode) for
                         p, encode in ((self.compressed_pub, compress_color),
                                       (self.depth_compressed_pub, compress_depth))]
        self.info = camera_info(s.intrinsics, frame_id, s.distortion_model)
        self.image, self.depth_image, self.cloud = Image(), Image(), PointCloud2()
        for msg in (self.image, self.depth_image, self.cloud):
            msg.header.frame_id = frame_id
        self.cloud.is_dense = False
        self._failed = False

    def tick(self, instant: _Instant | None = None) -> None:
        s = self.sampler
        # Each topic's subscribers counted once: one that comes during the tick gets the next.
        image, depth = self._watched(self.image_pub), self._watched(self.depth_pub)
        compressed = self._watched(self.compressed_pub)
        depth_compressed = self._watched(self.depth_compressed_pub)
        want_points = self._watched(self.points_pub)
        want_rgb = image or compressed or (want_points and s.color)
        want_depth = depth or depth_compressed or want_points
        stamp = None
        if (want_rgb or want_depth) and not self._failed:
            try:
                r = s.read(color=want_rgb, depth=want_depth)
            except RenderError as err:
                self._failed = True
                self.node.get_logger().error(f'camera {s.name!r} cannot render and stops: {err}')
                return
            stamp = stamp_of(r.time)
            if image:
                self.image.header.stamp = stamp
                self.image_pub.publish(image_message(self.image, r.rgb, 'rgb8'))
            if depth:
                self.depth_image.header.stamp = stamp
                self.depth_pub.publish(image_message(self.depth_image, r.depth, '32FC1'))
            if compressed:  # compressed in their own threads
                self.encoders[0].submit(stamp, r.rgb, self.compression)
            if depth_compressed:
                self.encoders[1].submit(stamp, r.depth, self.depth_compression)
            if want_points:
                self.cloud.header.stamp = stamp
                rgb = r.rgb if s.color else None
                points = camera_points(s.intrinsics, r.depth, rgb)
                self.points_pub.publish(fill_cloud(self.cloud, points, rgb is not None))
        stamp = stamp or stamp_of(s.sim.time)
        self.info.header.stamp = stamp
        for pub in (self.info_pub, self.depth_info_pub):
            if self._watched(pub):
                pub.publish(self.info)


_OUTPUTS = {InertialSampler: ImuPublisher, ForceSampler: WrenchPublisher,
            RangeSampler: RangePublisher, CameraSampler: CameraPublisher}


# --- the node's side -----------------------------------------------------------------------


class SensorPublishers:
    """Every device of the node's simulation on its topics.

    Created once by the node after its Simulation; it registers itself in
    ``node.period_outputs`` (and, when a device is faster than the control rate, in the
    simulation's per-step hooks, so it is read at its own instants).
    """

    def __init__(self, node, overlay: Overlay | None = None):
        self.node = node
        self.sim = node.sim
        self.suite = SensorSuite(self.sim, device_settings.seeded(node, overlay))
        log = node.get_logger()
        for line in self.suite.warnings:
            log.warning(line)
        frames = self.sim.model.device_frames()
        self.outputs: dict[str, DevicePublisher] = {}
        taken: set[str] = set()
        for name, sampler in self.suite.samplers.items():
            topic = topic_name(name)
            while topic in taken:
                topic += '_'
            taken.add(topic)
            if topic != name:
                log.warning(f'device {name!r} publishes under the name {topic!r} (a topic name '
                            'holds only letters, digits, _ and /)')
            frame = node.frame(frames[name])
            if isinstance(sampler, CameraSampler):
                frame = node.frame(urdf_writer.optical_frame(frames[name]))
            self.outputs[name] = _OUTPUTS[type(sampler)](node, sampler, topic, frame)
        self._params = self._declare_parameters()
        self._changes: list = []  # parameter changes for the simulation's thread
        self._changes_lock = threading.Lock()
        node.add_on_set_parameters_callback(self._on_set_parameters)
        self._fast = False
        self._update_hooks()
        node.period_outputs.append(self.on_period)

    def _declare_parameters(self) -> dict[str, tuple[str, str]]:
        """devices.<topic>.on and devices.<topic>.rate; returns parameter -> (device, field).

        Raises:
            ModelError: a value given at start (``--ros-args -p``) that is not a bool or a
                positive rate.
        """
        params = {}
        for name, out in self.outputs.items():
            s = out.sampler
            base = parameter_prefix(out.topic)
            # Dynamic typing: a rate written 200 (an integer) is as good as 200.0.
            on = self.node.declare_parameter(f'{base}.on', s.enabled, ParameterDescriptor(
                type=ParameterType.PARAMETER_BOOL, dynamic_typing=True,
                description=f'Whether device {name!r} is simulated and published.'))
            rate = self.node.declare_parameter(f'{base}.rate', float(s.rate), ParameterDescriptor(
                type=ParameterType.PARAMETER_DOUBLE, dynamic_typing=True,
                description=f'Readings of device {name!r} per simulated second [Hz].'))
            for parameter, what in ((on, 'on'), (rate, 'rate')):
                problem = device_settings.invalid(what, parameter.value)
                if problem:
                    raise ModelError(None, None, f'parameter {parameter.name} {problem}')
            s.enabled = on.value
            if float(rate.value) != s.rate:
                s.set_rate(float(rate.value))
            params[f'{base}.on'] = (name, 'on')
            params[f'{base}.rate'] = (name, 'rate')
            params.update({parameter: (name, what) for parameter, what in
                           device_settings.declare(self.node, base, out).items()})
        return params

    def _on_set_parameters(self, parameters) -> SetParametersResult:
        """Validate here (the executor's thread); apply in the simulation's thread."""
        changes = []
        for p in parameters:
            if p.name not in self._params:
                continue
            name, what = self._params[p.name]
            problem = device_settings.invalid(what, p.value)
            if problem:
                return SetParametersResult(successful=False, reason=f'{p.name} {problem}')
            value = p.value if what == 'on' else float(p.value) if what == 'rate' else \
                device_settings.convert(what, p.value)
            changes.append((self.outputs[name], what, value))
        with self._changes_lock:
            self._changes.extend(changes)
        return SetParametersResult(successful=True)

    def _apply_changes(self) -> None:
        with self._changes_lock:
            changes, self._changes = self._changes, []
        for output, what, value in changes:
            if what == 'on':
                output.sampler.enabled = value
            elif what == 'rate':
                output.sampler.set_rate(value)
            else:
                device_settings.apply(output, what, value)
        if changes:
            self._update_hooks()

    def _update_hooks(self) -> None:
        """Read at every physics step when a device is faster than the control rate."""
        fast = any(o.sampler.enabled and o.sampler.period < self.sim.period * (1 - 1e-9)
                   for o in self.outputs.values())
        if fast and not self._fast:
            self.sim.step_hooks.append(self.on_step)
        elif not fast and self._fast:
            self.sim.step_hooks.remove(self.on_step)
        self._fast = fast

    def on_step(self, sim) -> None:
        """Per physics step (only with fast devices): publish what is due now."""
        self._publish_due()

    def on_period(self, stamp) -> None:
        """After each control period: publish what is due."""
        self._publish_due()

    def _publish_due(self) -> None:
        if self._changes:
            self._apply_changes()
        instant = None
        for sampler in self.suite.due():
            if instant is None:
                instant = _Instant(self.suite)
            try:
                self.outputs[sampler.name].tick(instant)
            except Exception:
                if self.node.context.ok():
                    raise
                return  # the node is shutting down: its publishers are gone
