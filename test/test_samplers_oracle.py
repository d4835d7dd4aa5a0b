"""Device samplers (``sim/sensing/samplers.py``) unit by unit: the schedule to the tolerance, rates and
switches, saturation per axis, the sign of force readings, the orientation noise against a
quaternion product computed here, and poses."""

from __future__ import annotations

import math
import zlib
from types import SimpleNamespace

import mujoco
import numpy as np
import pytest

from body_bridge.device_overlay import DeviceSettings
from body_bridge.model import Device, DeviceKind, Inertial, Joint, JointType, Link, Model, Pose
from body_bridge.sim.building.build import BuildOptions, build_spec
from body_bridge.sim.sensing.samplers import (SITE_PREFIX, DeviceSampler,
                                      ForceSampler, InertialSampler, _perturb_quaternion)

TURN = Pose((0.1, 0.2, 0.3), [[0, -1, 0], [1, 0, 0], [0, 0, 1]])


def _sim(*devices: Device):
    links = (Link('base'), Link('arm', Pose((0, 0, 1)), Inertial(1.0, inertia=np.eye(3))))
    joints = (Joint('j', JointType.REVOLUTE, 'base', 'arm', (0, 1, 0)),)
    model = Model('m', links, joints, 'base', devices=devices)
    mj = build_spec(model, BuildOptions(ground_plane=False)).compile()
    data = mujoco.MjData(mj)
    mujoco.mj_forward(mj, data)
    return SimpleNamespace(mj=mj, data=data, time=0.0, model=model)


def _values(sim, name: str, quantity: str, values) -> None:
    sensor = sim.mj.sensor(f'{SITE_PREFIX}{name}:{quantity}')
    adr = int(sensor.adr[0])
    sim.data.sensordata[adr:adr + len(values)] = values


IMU = Device('imu', DeviceKind.IMU, 'arm', TURN,
             {'orientation': True, 'max_acceleration': [5.0, 0.0, -1.0],
              'max_angular_velocity': [1.0, 2.0, 3.0], 'on': False})


def test_the_schedule_keeps_its_period_within_the_tolerance():
    sim = _sim(IMU)
    s = DeviceSampler(sim, IMU, DeviceSettings(rate=10.0, on=True), 1, 1000.0)
    assert (s.rate, s.period, s.enabled) == (10.0, 0.1, True)
    assert s.due(0.0) and not s.due(0.0)
    assert not s.due(0.1 - 1.5e-7)
    assert s.due(0.1 - 1e-7)  # early by the tolerance, 1e-7 s, and no more: due
    assert not s.due(0.15)
    assert s.due(0.2) and not s.due(0.25)
    assert s.due(5.0)  # far behind (a pause): restarts from now
    assert not s.due(5.05) and s.due(5.1)
    s.set_rate(20.0)  # the next reading comes a new period after the last one
    assert (s.rate, s.period) == (20.0, 0.05)
    assert not s.due(5.14) and s.due(5.15)
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match='rate must be positive and finite'):
            s.set_rate(bad)
    s.restart()
    assert s.due(0.0)


def test_a_reading_one_period_late_is_not_followed_by_another_at_once():
    s = DeviceSampler(_sim(IMU), IMU, DeviceSettings(rate=10.0, on=True), 1, 1000.0)
    assert s.due(0.0) and s.due(0.1)
    assert s.due(0.3)  # the reading at 0.2 was missed: one now, the next a period later
    assert not s.due(0.3) and not s.due(0.35) and s.due(0.4)
    # a period late but for the tolerance: the same (the schedule restarts from now)
    s = DeviceSampler(_sim(IMU), IMU, DeviceSettings(rate=10.0, on=True), 1, 1000.0)
    assert s.due(0.0) and s.due(0.1)
    late = 0.1 + 0.1 + 0.1 - 1e-7  # the reading at 0.2 missed; 0.3 due a tolerance early
    assert late + 1e-7 == 0.1 + 0.1 + 0.1
    assert s.due(late) and not s.due(0.1 + 0.1 + 0.1)


def test_rates_and_switches_come_from_settings_then_the_device_then_the_default():
    sim = _sim(IMU)
    assert DeviceSampler(sim, IMU, DeviceSettings(), 1, 250.0).rate == 250.0
    assert DeviceSampler(sim, IMU, DeviceSettings(rate=3.0), 1, 250.0).rate == 3.0
    off = DeviceSampler(sim, IMU, DeviceSettings(), 1, 250.0)
    assert off.enabled is False and not off.due(0.0)  # the device's own on: false
    assert DeviceSampler(sim, IMU, DeviceSettings(on=True), 1, 250.0).enabled is True
    plain = Device('p', DeviceKind.IMU, 'arm')
    assert DeviceSampler(_sim(plain), plain, DeviceSettings(), 1, 9.0).enabled is True
    assert DeviceSampler(sim, IMU, DeviceSettings(on=False), 1, 9.0).mj_name('x') == 'x'


def test_world_pose_composes_the_link_and_the_device():
    sim = _sim(IMU)
    s = DeviceSampler(sim, IMU, DeviceSettings(), 1, 100.0)
    sim.data.qpos[0] = 0.5
    mujoco.mj_forward(sim.mj, sim.data)
    pos, rot = s.world_pose()
    c, si = math.cos(0.5), math.sin(0.5)
    link = np.array([[c, 0, si], [0, 1, 0], [-si, 0, c]])  # about y
    np.testing.assert_allclose(pos, [0, 0, 1] + link @ TURN.pos, atol=1e-12)
    np.testing.assert_allclose(rot, link @ TURN.rot, atol=1e-12)


def test_inertial_readings_saturate_per_axis_and_carry_their_noise():
    sim = _sim(IMU)
    s = InertialSampler(sim, IMU, DeviceSettings(), 1, 100.0)
    _values(sim, 'imu', 'accelerometer', [7.0, -9.0, 0.5])
    _values(sim, 'imu', 'gyro', [-1.5, 1.5, -1.5])
    _values(sim, 'imu', 'framequat', [0.5, 0.5, 0.5, 0.5])
    sim.time = 2.5
    r = s.read()
    assert r.time == 2.5
    # max_acceleration [5, 0, -1]: 0 and below mean no limit on that axis
    assert r.linear_acceleration.tolist() == [5.0, -9.0, 0.5]
    assert r.angular_velocity.tolist() == [-1.0, 1.5, -1.5]
    assert r.orientation.tolist() == [0.5, 0.5, 0.5, 0.5]
    noisy = InertialSampler(sim, IMU, DeviceSettings(noise={'angular_velocity': 0.1}), 7, 100.0)
    # sample 0: row 0 of the first block of normals; the gyro's noise is its first three
    z = np.random.default_rng([7, zlib.crc32(b'imu'), 3, 0]).standard_normal((1024, 9))[0]
    expected = np.clip(np.array([-1.5, 1.5, -1.5]) + 0.1 * z[0:3], -1 * np.array(
        [1.0, 2.0, 3.0]), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(noisy.read().angular_velocity, expected)


@pytest.mark.parametrize('kind, has', [
    (DeviceKind.ACCELEROMETER, (True, False, False)), (DeviceKind.GYRO, (False, True, False)),
    (DeviceKind.IMU, (True, True, False))])
def test_each_kind_reports_its_own_quantities(kind, has):
    device = Device('d', kind, 'arm')
    sim = _sim(device)
    r = InertialSampler(sim, device, DeviceSettings(), 1, 100.0).read()
    got = (r.linear_acceleration is not None, r.angular_velocity is not None,
           r.orientation is not None)
    assert got == has


def test_force_readings_are_what_the_link_exerts_saturated():
    device = Device('ft', DeviceKind.FORCE, 'arm', params={'max_force': [10.0, 10.0, 0.0],
                                                           'max_torque': [1.0, -1.0, 2.0]})
    sim = _sim(device)
    s = ForceSampler(sim, device, DeviceSettings(), 1, 100.0)
    _values(sim, 'ft', 'force', [3.0, -20.0, 50.0])
    _values(sim, 'ft', 'torque', [0.0, 4.0, -1.0])
    r = s.read()
    assert r.force.tolist() == [-3.0, 10.0, -50.0]
    assert r.torque.tolist() == [0.0, -4.0, 1.0]
    assert not np.signbit(r.torque[0])  # no negative zero in the messages


def _quat_mul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def test_orientation_noise_is_a_rotation_vector_after_the_reading():
    q = np.array([0.5, -0.3, 0.6, 0.2]) / math.sqrt(0.74)  # every component counts
    got = _perturb_quaternion(q.copy(), 0.2, np.random.default_rng(5))
    v = np.random.default_rng(5).normal(0.0, 0.2, 3)
    angle = np.linalg.norm(v)
    turn = np.array([math.cos(angle / 2), *(v / angle * math.sin(angle / 2))])
    np.testing.assert_allclose(got, _quat_mul(q, turn), atol=1e-15)
    # as rotation matrices: R(got) = R(q) R(turn)
    mats = []
    for quat in (got, q, turn):
        m = np.zeros(9)
        mujoco.mju_quat2Mat(m, quat)
        mats.append(m.reshape(3, 3))
    np.testing.assert_allclose(mats[0], mats[1] @ mats[2], atol=1e-12)
    assert _perturb_quaternion(q, 0.0, None) is q

    class Still:
        def normal(self, *_):
            return np.zeros(3)
    assert _perturb_quaternion(q, 0.1, Still()) is q


def test_orientation_noise_alone_turns_the_reading_by_its_own_normals():
    """An IMU with orientation noise only (0.05 rad): sample 0's reading is the true one
    followed by the rotation vector 0.05 times the orientation's three normals of that sample
    (the last three of its row), and its variance is 0.05^2 per axis."""
    sim = _sim(IMU)
    _values(sim, 'imu', 'framequat', [0.5, 0.5, 0.5, 0.5])
    s = InertialSampler(sim, IMU, DeviceSettings(noise={'orientation': 0.05}), 7, 100.0)
    np.testing.assert_allclose(s.variance('orientation'), [0.0025] * 3, rtol=1e-12)
    z = np.random.default_rng([7, zlib.crc32(b'imu'), 3, 0]).standard_normal((1024, 9))[0]
    v = 0.05 * z[6:9]
    angle = np.linalg.norm(v)
    turn = np.array([math.cos(angle / 2), *(v / angle * math.sin(angle / 2))])
    np.testing.assert_allclose(s.read().orientation, _quat_mul([0.5, 0.5, 0.5, 0.5], turn),
                               atol=1e-15)


def test_each_due_reading_draws_its_own_sample_and_a_restart_repeats_them():
    """Readings at successive due times take rows 0, 1, 2 of the normals; after a restart
    (a reset of the simulation) the same readings come again; a rate change is a new noise
    version (a noise density reads differently at another rate)."""
    sim = _sim(IMU)
    _values(sim, 'imu', 'gyro', [0.1, 0.2, 0.3])
    s = InertialSampler(sim, IMU, DeviceSettings(noise={'angular_velocity': 0.1}), 7, 100.0)
    s.enabled = True  # the device is off by default (its 'on': False)
    rows = np.random.default_rng([7, zlib.crc32(b'imu'), 3, 0]).standard_normal((1024, 9))

    def run():
        out = []
        for k in range(3):
            assert s.due(k * s.period)
            out.append(s.read().angular_velocity)
        return out
    first = run()
    for k, reading in enumerate(first):
        np.testing.assert_allclose(reading, np.clip([0.1, 0.2, 0.3] + 0.1 * rows[k, 0:3],
                                                    [-1.0, -2.0, -3.0], [1.0, 2.0, 3.0]))
    s.restart()
    np.testing.assert_array_equal(run(), first)
    version = s.noise_version
    s.set_rate(50.0)
    assert s.noise_version != version
