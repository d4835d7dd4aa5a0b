"""The publishers of one device each, and the messages of inertial and force devices.

:class:`DevicePublisher` is what every device's publisher group shares (``sensors.py`` has
the range and camera ones). The IMU (accelerometer, gyro) and force messages are serialized
once and their numbers patched at every reading (``ros/stream/wire.py``); a device whose
reading is plain (no noise: ``sim/sensing/batch.py``) is written from one read of MuJoCo's
sensor data shared by every such device due at the same instant (:class:`_Instant`).
"""

from __future__ import annotations

from geometry_msgs.msg import WrenchStamped
from sensor_msgs.msg import Imu

from ...model import DeviceKind
from ...sim.sensing.sensors import DeviceSampler, ForceSampler, InertialSampler, SensorSuite
from ..stream import qos, wire
from ..stream.messages import covariance_of
from ..stream.outlets import watched

__all__ = ['DevicePublisher', 'ImuPublisher', 'WrenchPublisher']


class DevicePublisher:
    """The publishers of one device and the messages they reuse."""

    def __init__(self, node, sampler: DeviceSampler, topic: str, frame_id: str):
        self.node, self.sampler, self.topic, self.frame_id = node, sampler, topic, frame_id
        self.publishers = []

    def _publisher(self, msg_type, name: str):
        pub = self.node.create_publisher(msg_type, name, qos.SENSOR)
        self.publishers.append(pub)
        return pub

    _watched = staticmethod(watched)

    def tick(self, instant: _Instant | None = None) -> None:
        """The device is due: read it if anyone listens, and publish (``instant``: what
        the devices due at this instant share)."""
        raise NotImplementedError


class _Instant:
    """What the devices due at one instant share: the stamp, and one read of every plain
    inertial and force device (``sim/sensing/batch.py``), made when the first asks."""

    __slots__ = ('suite', 'values', 'stamp')

    def __init__(self, suite: SensorSuite):
        self.suite, self.values, self.stamp = suite, None, None

    def fill(self, msg: wire.PackedMessage, sampler: DeviceSampler) -> bool:
        """Write a plain device's stamp and values into its message (the slot
        ``reading``); False for a device that is not plain (its sampler reads it)."""
        batch = self.suite.batch
        span = batch.span(sampler)
        if span is None:
            return False
        if self.values is None:
            sim = self.suite.sim
            self.values = batch.read(sim.data)
            self.stamp = wire.stamp_parts(sim.time)
        msg.set_stamp(*self.stamp)
        msg.set('reading', self.values[span])
        return True


class ImuPublisher(DevicePublisher):
    """sensor_msgs/Imu on ``<device>``; covariances: the variances of the white noise on the
    diagonal (REP-145: -1 for a quantity not reported), rebuilt when the noise or the rate
    changes. Serialized once, its numbers patched at every reading (see :mod:`.wire`)."""

    def __init__(self, node, sampler: InertialSampler, topic, frame_id):
        super().__init__(node, sampler, topic, frame_id)
        self.pub = self._publisher(Imu, topic)
        self._pack()

    def _pack(self) -> None:
        sampler, frame_id = self.sampler, self.frame_id
        self._version = sampler.noise_version
        kind = sampler.device.kind
        self.reports = {'orientation': kind == DeviceKind.IMU and bool(
                            sampler.device.params.get('orientation')),
                        'angular_velocity': kind != DeviceKind.ACCELEROMETER,
                        'linear_acceleration': kind != DeviceKind.GYRO}

        def build(marks: wire.Marks) -> Imu:
            msg = Imu()
            msg.header.frame_id = frame_id
            wire.mark_stamp(marks, msg.header.stamp)
            for field, reported in self.reports.items():
                setattr(msg, f'{field}_covariance',
                        covariance_of(sampler.variance(field) if reported else None))
            if self.reports['orientation']:
                o = msg.orientation
                o.w, o.x, o.y, o.z = (marks.float64('orientation') for _ in range(4))
            for field in ('angular_velocity', 'linear_acceleration'):
                if self.reports[field]:
                    vector = getattr(msg, field)
                    vector.x, vector.y, vector.z = (marks.float64(field) for _ in range(3))
            return msg
        self.msg = wire.PackedMessage(build)
        # The reported quantities in the order of a batch's values (sim/sensing/batch.py).
        self.msg.join('reading', [field for field, reported in self.reports.items()
                                  if reported])

    def tick(self, instant: _Instant | None = None) -> None:
        if not self._watched(self.pub):
            return
        if self.sampler.noise_version != self._version:
            self._pack()
        if instant is not None and instant.fill(self.msg, self.sampler):
            self.pub.publish(self.msg.payload())
            return
        r = self.sampler.read()
        msg = self.msg
        msg.set_stamp(*wire.stamp_parts(r.time))
        for field in ('orientation', 'angular_velocity', 'linear_acceleration'):
            value = getattr(r, field)
            if value is not None and self.reports[field]:
                msg.set(field, value)
        self.pub.publish(msg.payload())


class WrenchPublisher(DevicePublisher):
    """geometry_msgs/WrenchStamped on ``<device>`` (serialized once, see :mod:`.wire`)."""

    def __init__(self, node, sampler: ForceSampler, topic, frame_id):
        super().__init__(node, sampler, topic, frame_id)
        self.pub = self._publisher(WrenchStamped, topic)

        def build(marks: wire.Marks) -> WrenchStamped:
            msg = WrenchStamped()
            msg.header.frame_id = frame_id
            wire.mark_stamp(marks, msg.header.stamp)
            for field in ('force', 'torque'):
                vector = getattr(msg.wrench, field)
                vector.x, vector.y, vector.z = (marks.float64(field) for _ in range(3))
            return msg
        self.msg = wire.PackedMessage(build)
        self.msg.join('reading', ('force', 'torque'))

    def tick(self, instant: _Instant | None = None) -> None:
        if not self._watched(self.pub):
            return
        if instant is not None and instant.fill(self.msg, self.sampler):
            self.pub.publish(self.msg.payload())
            return
        r = self.sampler.read()
        msg = self.msg
        msg.set_stamp(*wire.stamp_parts(r.time))
        msg.set('force', r.force)
        msg.set('torque', r.torque)
        self.pub.publish(msg.payload())
