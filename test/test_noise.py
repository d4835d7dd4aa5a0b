"""Sensor noise (``sim/sensing/noise.py`` through the samplers): 10,000 readings at rest have the
configured mean and deviation within their 99 % confidence bounds for every device kind; a
bias random walk and a noise density have the Allan deviations of the model; a seed repeats
a run bit for bit whatever readings were taken in between, another seed does not."""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest
from test_optical_units import _range
from test_samplers_oracle import _sim, _values

from body_bridge.device_overlay import DeviceSettings
from body_bridge.model import Device, DeviceKind
from body_bridge.sim.sensing.noise import DistanceNoise, NoiseStreams, VectorNoise
from body_bridge.sim.sensing.samplers import ForceSampler, InertialSampler

Z99 = 2.5758  # two-sided 99 % quantile of the normal distribution
N = 10_000
IMU = Device('imu', DeviceKind.IMU, 'arm')
FT = Device('ft', DeviceKind.FORCE, 'arm')
ACC, GYRO = np.array([0.3, -0.2, 9.81]), np.array([0.05, -0.1, 0.2])


def assert_mean_and_std(samples: np.ndarray, mean, std) -> None:
    """Per column: the sample mean and deviation within the 99 % bounds of the model (each
    figure by itself: with any seed about one in a hundred falls outside by chance, so the
    tests use fixed seeds)."""
    n = len(samples)
    mean, std = np.broadcast_to(mean, samples.shape[1:]), np.broadcast_to(std, samples.shape[1:])
    got_mean, got_std = samples.mean(axis=0), samples.std(axis=0, ddof=1)
    assert np.all(np.abs(got_mean - mean) <= Z99 * std / math.sqrt(n) + 1e-12), (got_mean, mean)
    # s / sigma is about normal with deviation 1 / sqrt(2 (n - 1)) for large n
    assert np.all(np.abs(got_std / std - 1.0) <= Z99 / math.sqrt(2 * (n - 1))), (got_std, std)


def inertial(noise: dict, seed=7, rate=200.0) -> InertialSampler:
    sim = _sim(IMU)
    s = InertialSampler(sim, IMU, DeviceSettings(rate=rate, noise=noise), seed, 1000.0)
    _values(sim, 'imu', 'accelerometer', ACC)
    _values(sim, 'imu', 'gyro', GYRO)
    return s


def readings(s, n=N, every=1):
    """Readings of a sampler at its schedule (n samples, each ``every``-th read)."""
    acc, gyro, t = [], [], 0.0
    for i in range(n):
        while not s.due(t):
            t += s.period / 4
        if i % every == 0:
            r = s.read()
            acc.append(r.linear_acceleration)
            gyro.append(r.angular_velocity)
    return np.array(acc), np.array(gyro)


def test_imu_white_noise_density_and_constant_bias_at_rest():
    density = np.array([2e-3, 4e-3, 8e-3])  # [m/s^2/sqrt(Hz)]
    bias = np.array([0.1, -0.2, 0.05])
    s = inertial({'linear_acceleration_noise_density': tuple(density),
                  'linear_acceleration_bias': tuple(bias), 'angular_velocity': 0.01,
                  'angular_velocity_bias': -0.003})
    acc, gyro = readings(s)
    dt = 1 / 200.0
    assert_mean_and_std(acc, ACC + bias, density / math.sqrt(dt))
    assert_mean_and_std(gyro, GYRO - 0.003, 0.01)
    # the covariance states the white noise of one reading
    np.testing.assert_allclose(s.variance('linear_acceleration'), density ** 2 / dt)
    np.testing.assert_allclose(s.variance('angular_velocity'), 1e-4)
    s.set_rate(800.0)  # a density reads larger at a higher rate
    np.testing.assert_allclose(s.variance('linear_acceleration'), density ** 2 * 800.0)
    assert inertial({}).variance('orientation').tolist() == [0.0, 0.0, 0.0]


def test_turn_on_bias_is_drawn_once_per_run_with_its_deviation():
    first = []
    for seed in range(N // 5):
        s = inertial({'angular_velocity_turn_on_bias': (0.01, 0.02, 0.03)}, seed=seed)
        a, b = s.read().angular_velocity, s.read().angular_velocity
        np.testing.assert_array_equal(a, b)  # constant through a run
        first.append(a)
    assert_mean_and_std(np.array(first), GYRO, [0.01, 0.02, 0.03])


def allan_deviation(x: np.ndarray, m: int) -> np.ndarray:
    """Overlapping Allan deviation of rate samples ``x`` (rows) averaged over ``m`` samples."""
    c = np.vstack([np.zeros((1, x.shape[1])), np.cumsum(x, axis=0)])
    means = (c[m:] - c[:-m]) / m
    d = means[m:] - means[:-m]
    return np.sqrt(0.5 * np.mean(d ** 2, axis=0))


def test_the_bias_random_walk_has_the_allan_deviation_of_its_parameter():
    walk, dt = np.array([2e-4, 1e-3, 5e-3]), 0.01  # [unit/s/sqrt(Hz)], [s]
    streams = NoiseStreams(3, 'gyro')
    x = np.array([streams.walk('angular_velocity', i, walk * math.sqrt(dt))
                  for i in range(100_000)])
    for m in (10, 100):
        tau = m * dt
        np.testing.assert_allclose(allan_deviation(x, m), walk * math.sqrt(tau / 3), rtol=0.10)


def test_the_noise_density_has_the_allan_deviation_of_white_noise():
    density = np.array([1e-3, 2e-3, 3e-3])
    s = inertial({'linear_acceleration_noise_density': tuple(density)}, rate=100.0)
    acc, _ = readings(s)
    for m in (1, 10):
        np.testing.assert_allclose(allan_deviation(acc, m), density / math.sqrt(m * 0.01),
                                   rtol=0.10)


def test_the_random_walk_grows_through_the_sampler_and_restarts_with_it():
    s = inertial({'angular_velocity_random_walk': 0.01}, rate=100.0)
    _, gyro = readings(s, 400)
    drift = gyro[-1] - GYRO
    assert np.all(drift != 0.0) and np.all(np.abs(drift) < Z99 * 5 * 0.01 * math.sqrt(4.0))
    assert np.all(gyro[0] == GYRO)  # sample 0: no step taken yet
    s.restart()
    _, again = readings(s, 400)
    np.testing.assert_array_equal(again, gyro)


def test_a_seed_repeats_the_readings_bit_for_bit_whichever_were_read():
    noise = {'linear_acceleration_noise_density': 2e-3, 'linear_acceleration_random_walk': 3e-3,
             'angular_velocity': 0.01, 'angular_velocity_turn_on_bias': 0.002,
             'angular_velocity_random_walk': 1e-4}
    acc, gyro = readings(inertial(noise), 300)
    # Another run reads only every third sample (a listener that misses readings, another
    # real-time factor): the readings it takes are the same, bit for bit.
    acc3, gyro3 = readings(inertial(noise), 300, every=3)
    np.testing.assert_array_equal(acc3, acc[::3])
    np.testing.assert_array_equal(gyro3, gyro[::3])
    other, _ = readings(inertial(noise, seed=8), 300)
    assert not np.any(other == acc)


def test_streams_draw_by_sample_index_whatever_came_before():
    a, b = NoiseStreams(5, 'laser'), NoiseStreams(5, 'laser')
    first = a.at(7).standard_normal(4)
    b.at(2).standard_normal(100)  # another history
    np.testing.assert_array_equal(b.at(7).standard_normal(4), first)
    again = a.at(7).standard_normal(4)  # a second draw at the same sample continues
    assert not np.any(again == first)
    np.testing.assert_array_equal(a.at(0).standard_normal(2),
                                  np.random.default_rng([5, zlib.crc32(b'laser')])
                                  .standard_normal(2))
    assert not np.any(a.at(8).standard_normal(4) == first)
    np.testing.assert_array_equal(a.normals(1500), b.normals(1500))  # second block
    assert not np.array_equal(a.normals(1500), a.normals(476))  # 1500 - 1024: another block


def test_a_scan_repeats_bit_for_bit_whichever_readings_were_taken():
    noise = DeviceSettings(rate=10.0, noise={'distance': 0.01, 'dropout': 0.3})

    def scans(every):
        s = _range({'max_distance': 5.0, 'yaw_range': 0.4, 'yaw_step': 0.1}, noise)
        out, t = [], 0.0
        for i in range(30):
            while not s.due(t):
                t += 0.025
            if i % every == 0:
                out.append(s.read().ranges.copy())
        return np.array(out)
    every, third = scans(1), scans(3)
    np.testing.assert_array_equal(third, every[::3])
    assert np.isinf(every).any() and np.isfinite(every).any()
    assert len({r.tobytes() for r in every}) == len(every)  # each sample its own draws


def test_force_torque_noise_and_bias_per_axis():
    sim = _sim(FT)
    s = ForceSampler(sim, FT, DeviceSettings(noise={
        'force': (0.1, 0.2, 0.3), 'force_bias': (1.0, 0.0, -1.0), 'torque': 0.05,
        'torque_bias': 0.01}), 4, 100.0)
    _values(sim, 'ft', 'force', [3.0, -20.0, 50.0])
    _values(sim, 'ft', 'torque', [0.0, 4.0, -1.0])
    rows = [s.read() for _ in range(N)]
    assert_mean_and_std(np.array([r.force for r in rows]), [-2.0, 20.0, -51.0], [0.1, 0.2, 0.3])
    assert_mean_and_std(np.array([r.torque for r in rows]), [0.01, -3.99, 1.01], 0.05)


def test_range_noise_grows_with_distance_and_drops_out():
    # the wall is 2 m ahead: deviation 0.01 + 0.005 * 2 m
    s = _range({'max_distance': 5.0}, DeviceSettings(noise={
        'distance': 0.01, 'distance_per_meter': 0.005, 'dropout': 0.1}))
    r = np.array([s.read().ranges[0, 0] for _ in range(N)], dtype=float)
    lost = np.isinf(r)
    assert np.all(r[lost] > 0)  # +inf: no return (REP-117)
    p = 0.1
    assert abs(lost.mean() - p) <= Z99 * math.sqrt(p * (1 - p) / N)
    assert_mean_and_std(r[~lost][:, None], 2.0, 0.02)
    coarse = _range({'max_distance': 5.0}, DeviceSettings(noise={'resolution': 0.03}))
    assert coarse.read().ranges[0, 0] == np.float32(67 * 0.03)  # 2.0 m to the nearest 3 cm


def test_distance_noise_leaves_infinite_distances_alone():
    noise = DistanceNoise(0.1, 0.05, 0.01, 0.0)
    d = np.array([np.inf, -np.inf, 1.0])
    out = noise.deviate(d, np.random.default_rng(1))
    assert out[0] == np.inf and out[1] == -np.inf and math.isfinite(out[2])
    assert not DistanceNoise().active and DistanceNoise(dropout=0.5).active


def test_noise_off_costs_no_draw_and_changes_nothing():
    s = inertial({})
    state = s.rng.bit_generator.state
    r = s.read()
    assert r.linear_acceleration.tolist() == ACC.tolist()
    assert s.rng.bit_generator.state == state
    assert not VectorNoise('force', {}).active
    s.set_noise('angular_velocity', 0.5)  # switched on at run time
    assert s.noise_version == 1 and not np.array_equal(s.read().angular_velocity, GYRO)
    s.set_noise('angular_velocity', 0.0)
    assert s.read().angular_velocity.tolist() == GYRO.tolist()


@pytest.mark.parametrize('key, value, message', [
    ('force', (1.0, 2.0), 'noise force must be a number or a list of 3 numbers'),
    ('distance', (1.0, 1.0, 1.0), 'noise distance must be a finite number, not'),
    ('dropout', 2.0, 'noise dropout is a probability (0..1), not 2.0'),
    ('force_turn_on_bias', -1.0, 'noise force_turn_on_bias is negative'),
    ('angular_velocity', math.nan, 'noise angular_velocity must be a finite number or a list'),
])
def test_bad_noise_values_are_refused_with_their_reason(key, value, message):
    from body_bridge.device_overlay import noise_value
    with pytest.raises(ValueError) as err:
        noise_value(key, value)
    assert str(err.value).startswith(message)
    assert noise_value('force_bias', [-1, 0, 2]) == (-1.0, 0.0, 2.0)  # a bias may be negative
    assert noise_value('distance', 3) == 3.0


def test_camera_pixel_and_depth_noise(tmp_path):
    from test_sensors_sim import camera_scene

    from body_bridge.formats import load_model
    from body_bridge.sim.sensing.sensors import SensorSuite
    from body_bridge.sim.simulation import Simulation
    sim = Simulation(load_model(camera_scene(tmp_path)))
    suite = SensorSuite(sim)
    try:
        cam = suite.samplers['cam']
        r = cam.read()
        rgb, depth = r.rgb.astype(float), r.depth.astype(float)
        for key, value in (('color', 5.0), ('depth', 0.01), ('depth_per_meter', 0.002),
                           ('depth_dropout', 0.05)):
            cam.set_noise(key, value)
        noisy = cam.read()
        inside = (rgb > 30) & (rgb < 225)  # no clipping at 0 or 255
        assert inside.sum() > N
        # rounded to whole levels: the deviation of the levels is sqrt(5^2 + 1/12)
        assert_mean_and_std((noisy.rgb[inside] - rgb[inside])[:, None], 0.0,
                            math.sqrt(25.0 + 1.0 / 12.0))
        seen = np.isfinite(depth)
        lost = seen & np.isinf(noisy.depth)
        assert abs(lost.sum() / seen.sum() - 0.05) <= Z99 * math.sqrt(0.05 * 0.95 / seen.sum())
        kept = seen & ~lost
        deviation = 0.01 + 0.002 * depth[kept]
        assert_mean_and_std(((noisy.depth[kept] - depth[kept]) / deviation)[:, None], 0.0, 1.0)
        assert noisy.depth.dtype == np.float32
    finally:
        suite.close()
