"""The inertial and force devices read together (``sim/sensing/batch.py``) and written into
their messages (``ros/devices/sensors.py``): the values known numbers in MuJoCo's sensor data
give after the signs and saturation, which devices are read together, and the messages."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from test_samplers_oracle import IMU, _sim, _values

from body_bridge.device_overlay import DeviceSettings
from body_bridge.model import Device, DeviceKind
from body_bridge.sim.sensing.batch import SensorBatch, plain
from body_bridge.sim.sensing.samplers import ForceSampler, InertialSampler

FT = Device('ft', DeviceKind.FORCE, 'arm', params={'max_force': [10.0, 10.0, 0.0],
                                                   'max_torque': [1.0, -1.0, 2.0]})
ACC = Device('acc', DeviceKind.ACCELEROMETER, 'arm', params={'max_acceleration': 4.0})
GYRO = Device('gyro', DeviceKind.GYRO, 'arm')


def _suite(*devices, noise=None):
    """A simulation with known sensor data, and the samplers of its devices."""
    sim = _sim(*devices)
    samplers = {}
    for d in devices:
        kind = ForceSampler if d.kind == DeviceKind.FORCE else InertialSampler
        settings = DeviceSettings(noise=(noise or {}).get(d.name, {}))
        samplers[d.name] = kind(sim, d, settings, 1, 100.0)
    _values(sim, 'imu', 'accelerometer', [7.0, -9.0, 0.5])
    _values(sim, 'imu', 'gyro', [-1.5, 1.5, -1.5])
    _values(sim, 'imu', 'framequat', [0.5, 0.5, -0.5, 0.5])
    if 'ft' in samplers:
        _values(sim, 'ft', 'force', [3.0, -20.0, 50.0])
        _values(sim, 'ft', 'torque', [0.0, 4.0, -1.0])
    if 'acc' in samplers:
        _values(sim, 'acc', 'accelerometer', [-6.0, 3.0, math.nan])
    if 'gyro' in samplers:
        _values(sim, 'gyro', 'gyro', [-0.0, 100.0, -2.0])
    return sim, samplers


def test_every_plain_device_is_read_with_its_signs_and_saturation():
    sim, samplers = _suite(IMU, FT, ACC, GYRO)
    batch = SensorBatch(samplers)
    assert batch.spans == {}  # laid out when first asked
    spans = {name: batch.span(s) for name, s in samplers.items()}
    assert batch.spans == spans
    values = batch.read(sim.data)
    # IMU: orientation, then the gyro (max [1, 2, 3]), then the accelerometer
    # (max [5, 0, -1]: 0 and below are no limit)
    assert values[spans['imu']].tolist() == [0.5, 0.5, -0.5, 0.5, -1.0, 1.5, -1.5,
                                              5.0, -9.0, 0.5]
    # What the link exerts: MuJoCo's force turned around, then saturated (max_force z: none)
    force = values[spans['ft']]
    assert force.tolist() == [-3.0, 10.0, -50.0, 0.0, -4.0, 1.0]  # max_torque y -1: none
    assert not np.signbit(force[3])  # 0 - 0.0, not -0.0
    acc = values[spans['acc']]  # one limit for every axis; NaN passes as NaN
    assert acc[:2].tolist() == [-4.0, 3.0] and math.isnan(acc[2]) and len(acc) == 3
    gyro = values[spans['gyro']]  # no limits: MuJoCo's numbers, a negative zero kept
    assert gyro.tolist() == [0.0, 100.0, -2.0] and np.signbit(gyro[0])
    # The same numbers as each sampler's own reading, to the bit
    for name, s in samplers.items():
        r = s.read()
        own = [r.force, r.torque] if name == 'ft' else \
            [x for x in (r.orientation, r.angular_velocity, r.linear_acceleration)
             if x is not None]
        np.testing.assert_array_equal(np.concatenate(own), values[spans[name]])
        assert np.array_equal(np.signbit(np.concatenate(own)), np.signbit(values[spans[name]]))


def test_a_noisy_device_is_read_by_its_sampler_until_its_noise_is_off():
    sim, samplers = _suite(IMU, FT, noise={'imu': {'angular_velocity': 0.1}})
    batch = SensorBatch(samplers)
    assert batch.span(samplers['imu']) is None and not plain(samplers['imu'])
    assert batch.span(samplers['ft']) == slice(0, 6)
    samplers['imu'].set_noise('angular_velocity', 0.0)
    assert batch.span(samplers['imu']) == slice(0, 10)
    assert batch.span(samplers['ft']) == slice(10, 16)
    samplers['ft'].set_noise('torque', 0.5)
    assert batch.span(samplers['ft']) is None
    assert batch.read(sim.data).tolist() == [0.5, 0.5, -0.5, 0.5, -1.0, 1.5, -1.5,
                                             5.0, -9.0, 0.5]


def test_an_accelerometer_welded_to_the_world_is_left_to_its_sampler():
    resting = Device('rest', DeviceKind.ACCELEROMETER, 'base')
    sim, samplers = _suite(IMU, resting)
    batch = SensorBatch(samplers)
    assert batch.span(samplers['rest']) is None
    assert samplers['rest'].read().linear_acceleration.tolist() == pytest.approx([0, 0, 9.81])
    camera_like = SimpleNamespace(name='cam')  # not an inertial or force device
    assert plain(camera_like) is False and batch.span(camera_like) is None


@pytest.mark.ros
def test_the_messages_of_devices_read_together(ros):
    from geometry_msgs.msg import WrenchStamped
    from rclpy.serialization import deserialize_message
    from sensor_msgs.msg import Imu

    from body_bridge.ros.devices.sensors import ImuPublisher, WrenchPublisher, _Instant
    sim, samplers = _suite(IMU, FT, GYRO)
    sim.time = 12.25
    node = ros.create_node('sensor_batch_messages')
    try:
        imu = ImuPublisher(node, samplers['imu'], 'imu', 'imu_frame')
        ft = WrenchPublisher(node, samplers['ft'], 'ft', 'ft_frame')
        gyro = ImuPublisher(node, samplers['gyro'], 'gyro', 'gyro_frame')
        instant = _Instant(SimpleNamespace(sim=sim, batch=SensorBatch(samplers)))
        assert instant.fill(imu.msg, samplers['imu']) and instant.fill(ft.msg, samplers['ft'])
        assert instant.fill(gyro.msg, samplers['gyro'])
        got = deserialize_message(imu.msg.payload(), Imu)
        assert (got.header.stamp.sec, got.header.stamp.nanosec) == (12, 250_000_000)
        o = got.orientation
        assert [o.w, o.x, o.y, o.z] == [0.5, 0.5, -0.5, 0.5]
        w, a = got.angular_velocity, got.linear_acceleration
        assert [w.x, w.y, w.z] == [-1.0, 1.5, -1.5] and [a.x, a.y, a.z] == [5.0, -9.0, 0.5]
        wrench = deserialize_message(ft.msg.payload(), WrenchStamped)
        f, t = wrench.wrench.force, wrench.wrench.torque
        assert [f.x, f.y, f.z, t.x, t.y, t.z] == [-3.0, 10.0, -50.0, 0.0, -4.0, 1.0]
        assert wrench.header.frame_id == 'ft_frame' and wrench.header.stamp.sec == 12
        g = deserialize_message(gyro.msg.payload(), Imu)
        assert [g.angular_velocity.x, g.angular_velocity.y, g.angular_velocity.z] == \
            [0.0, 100.0, -2.0]
        assert g.linear_acceleration_covariance[0] == -1.0  # not reported (REP-145)
        assert g.orientation_covariance[0] == -1.0
        # A noisy device is not written by the batch: its sampler reads it.
        samplers['imu'].set_noise('angular_velocity', 0.1)
        assert not _Instant(SimpleNamespace(sim=sim, batch=SensorBatch(samplers))).fill(
            imu.msg, samplers['imu'])
    finally:
        node.destroy_node()


@pytest.mark.ros
def test_a_device_is_read_and_published_only_when_someone_listens(ros):
    import time

    from geometry_msgs.msg import WrenchStamped
    from sensor_msgs.msg import Imu

    from body_bridge.ros.devices.packed import DevicePublisher
    from body_bridge.ros.devices.sensors import ImuPublisher, WrenchPublisher, _Instant
    from body_bridge.ros.stream import qos
    with pytest.raises(NotImplementedError):  # each kind of device has its own
        DevicePublisher.tick(None)
    sim, samplers = _suite(IMU, FT, GYRO)
    sim.time = 3.5
    node = ros.create_node('sensor_batch_ticks')
    listener = ros.create_node('sensor_batch_listener')
    try:
        outs = {'imu': ImuPublisher(node, samplers['imu'], 'imu', 'imu_frame'),
                'ft': WrenchPublisher(node, samplers['ft'], 'ft', 'ft_frame'),
                'gyro': ImuPublisher(node, samplers['gyro'], 'gyro', 'gyro_frame')}
        reads = []
        for s in samplers.values():  # count the samplers' own reads
            s.read = (lambda read: lambda: reads.append(1) or read())(s.read)
        batch = SensorBatch(samplers)
        instant = _Instant(SimpleNamespace(sim=sim, batch=batch))
        for out in outs.values():
            out.tick(instant)
        assert instant.values is None and not reads  # nobody listens: nothing is read
        got = {name: [] for name in outs}
        for name, kind in (('imu', Imu), ('ft', WrenchStamped), ('gyro', Imu)):
            listener.create_subscription(kind, name, got[name].append, qos.SENSOR)
        deadline = time.monotonic() + 10.0
        while not all(o.pub.get_subscription_count() for o in outs.values()):
            assert time.monotonic() < deadline, 'the listener was not matched'
            time.sleep(0.05)
        samplers['gyro'].set_noise('angular_velocity', 0.5)  # read by its sampler, noisy
        instant = _Instant(SimpleNamespace(sim=sim, batch=batch))
        for out in outs.values():
            out.tick(instant)
        sim.time = 4.25
        _values(sim, 'ft', 'force', [1.0, 2.0, -30.0])
        _values(sim, 'ft', 'torque', [0.5, -0.25, 0.0])
        outs['imu'].tick()  # without the instant: the samplers read them
        outs['ft'].tick()
        assert len(reads) == 3  # the noisy gyro, then the IMU and the force sensor
        while not (len(got['imu']) == 2 and len(got['ft']) == 2 and got['gyro']):
            assert time.monotonic() < deadline + 10.0, got
            ros.spin_once(listener, timeout_sec=0.05)
        # from the batch, then from the sampler: the same messages, at their instants
        for imu, stamp in zip(got['imu'], ((3, 500_000_000), (4, 250_000_000))):
            assert imu.header.frame_id == 'imu_frame'
            assert (imu.header.stamp.sec, imu.header.stamp.nanosec) == stamp
            o, w, a = imu.orientation, imu.angular_velocity, imu.linear_acceleration
            assert [o.w, o.x, o.y, o.z, w.x, w.y, w.z, a.x, a.y, a.z] == \
                [0.5, 0.5, -0.5, 0.5, -1.0, 1.5, -1.5, 5.0, -9.0, 0.5]
        for wrench, stamp, values in zip(got['ft'], ((3, 500_000_000), (4, 250_000_000)), (
                [-3.0, 10.0, -50.0, 0.0, -4.0, 1.0], [-1.0, -2.0, 30.0, -0.5, 0.25, 0.0])):
            f, t = wrench.wrench.force, wrench.wrench.torque
            assert [f.x, f.y, f.z, t.x, t.y, t.z] == values
            assert wrench.header.frame_id == 'ft_frame'
            assert (wrench.header.stamp.sec, wrench.header.stamp.nanosec) == stamp
        gyro = got['gyro'][0]
        # its covariance made again for the noise (0.5 rad/s: variance 0.25), its reading
        # the noisy one (MuJoCo's [-0, 100, -2] and three normals of deviation 0.5)
        assert list(gyro.angular_velocity_covariance)[::4] == [0.25, 0.25, 0.25]
        w = gyro.angular_velocity
        assert [w.x, w.y, w.z] != [0.0, 100.0, -2.0]
        assert np.allclose([w.x, w.y, w.z], [0.0, 100.0, -2.0], atol=5 * 0.5)
        assert gyro.linear_acceleration_covariance[0] == -1.0
    finally:
        node.destroy_node()
        listener.destroy_node()
