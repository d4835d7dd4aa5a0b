"""``sim/sensing/noise.py`` against oracles: each draw from the generator the module documents, each
formula of the noise models written out (``test/test_noise.py`` checks the statistics
through the samplers)."""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest

from body_bridge.sim.sensing.noise import (BLOCK, ROW, STRIDE, VECTOR_SLOTS, DistanceNoise,
                                   NoiseStreams, VectorNoise)

KEY = [11, zlib.crc32(b'imu')]


def test_the_constants_the_documentation_names():
    assert ROW == 9 and BLOCK == 1024 and STRIDE % 2 == 1 and STRIDE < 1 << 128
    assert VECTOR_SLOTS == ('linear_acceleration', 'angular_velocity', 'force', 'torque')


def test_the_white_stream_is_positioned_at_the_sample():
    streams = NoiseStreams(11, 'imu')
    fresh = np.random.Generator(np.random.PCG64(KEY))
    assert streams.at(0).random() == fresh.random()  # sample 0: the start
    oracle = np.random.PCG64(KEY)
    oracle.advance(5 * STRIDE % (1 << 128))
    expected = np.random.Generator(oracle).random(4)
    assert streams.at(5).random(2).tolist() == expected[:2].tolist()
    assert streams.at(5).random(2).tolist() == expected[2:].tolist()  # continues at 5
    assert streams.at(0).random() == np.random.Generator(np.random.PCG64(KEY)).random()
    big = np.random.PCG64(KEY)
    big.advance(3 * (10 ** 40) * STRIDE % (1 << 128))
    assert streams.at(3 * 10 ** 40).random() == np.random.Generator(big).random()
    other = NoiseStreams(11, 'gyro')
    assert other.at(5).random() != np.random.Generator(oracle).random()


def test_a_vector_sensor_reads_its_row_of_its_block():
    streams = NoiseStreams(11, 'imu')
    block0 = np.random.default_rng(KEY + [3, 0]).standard_normal((BLOCK, ROW))
    block1 = np.random.default_rng(KEY + [3, 1]).standard_normal((BLOCK, ROW))
    assert streams.normals(5).tolist() == block0[5].tolist()
    assert streams.normals(BLOCK + 6).tolist() == block1[6].tolist()
    assert streams.normals(BLOCK - 1).tolist() == block0[BLOCK - 1].tolist()
    assert streams.normals(BLOCK).tolist() == block1[0].tolist()
    assert streams.normals(0).shape == (ROW,)


def test_the_turn_on_draws_are_per_run_and_per_quantity():
    streams = NoiseStreams(11, 'imu')
    expected = np.random.default_rng(KEY + [2]).standard_normal((4, 3))
    assert streams.turn_on.tolist() == expected.tolist()


def test_the_random_walk_sums_its_steps_whatever_the_samples_read():
    step = np.array([0.1, 0.2, 0.3])
    draws = np.random.default_rng(KEY + [1, 2]).standard_normal((70_010, 3))
    path = np.cumsum(step * draws, axis=0)
    streams = NoiseStreams(11, 'imu')
    assert streams.walk('force', 0, step).tolist() == [0.0, 0.0, 0.0]
    for index in (1, 2, 3, 10, 11, 70_005, 70_010):
        np.testing.assert_allclose(streams.walk('force', index, step), path[index - 1],
                                   rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(streams.walk('force', 70_010, step), path[-1], rtol=1e-9)
    torque = np.random.default_rng(KEY + [1, 3]).standard_normal((1, 3))
    np.testing.assert_allclose(NoiseStreams(11, 'imu').walk('torque', 1, step),
                               step * torque[0], rtol=1e-12)


def test_vector_settings_are_per_axis_with_flags_of_what_is_on():
    noise = VectorNoise('angular_velocity', {'angular_velocity': 0.5,
                                             'angular_velocity_bias': (1.0, 2.0, 3.0),
                                             'force': 9.0})
    assert noise.sigma.tolist() == [0.5] * 3 and noise.bias.tolist() == [1.0, 2.0, 3.0]
    assert noise.density.tolist() == [0.0] * 3 and noise.walk.tolist() == [0.0] * 3
    assert (noise.white, noise.offset, noise.active) == (True, True, True)
    density = VectorNoise('force', {'force_noise_density': 0.2})
    assert (density.white, density.offset, density.active) == (True, False, True)
    turn_on = VectorNoise('force', {'force_turn_on_bias': [0.0, 0.1, 0.0]})
    assert (turn_on.white, turn_on.offset, turn_on.active) == (False, True, True)
    walk = VectorNoise('torque', {'torque_random_walk': 0.3})
    assert (walk.white, walk.offset, walk.active) == (False, False, True)
    off = VectorNoise('torque', {'force': 1.0})
    assert (off.white, off.offset, off.active) == (False, False, False)
    noise.sigma[0] = 7.0  # its own arrays
    assert VectorNoise('angular_velocity', {'angular_velocity': 0.5}).sigma[0] == 0.5


def test_white_noise_deviation_adds_the_density_over_the_interval():
    noise = VectorNoise('force', {'force': (0.3, 0.0, 0.1), 'force_noise_density': (0.4, 0.2, 0)})
    np.testing.assert_allclose(noise.white_sigma(0.01), [math.sqrt(0.09 + 0.16 / 0.01),
                                                        math.sqrt(0.04 / 0.01), 0.1])


def test_a_reading_gets_white_noise_biases_and_walk():
    settings = {'linear_acceleration': (0.1, 0.2, 0.3),
                'linear_acceleration_noise_density': 0.05,
                'linear_acceleration_bias': (0.01, -0.02, 0.03),
                'linear_acceleration_turn_on_bias': (0.5, 0.6, 0.7),
                'linear_acceleration_random_walk': (0.002, 0.004, 0.006)}
    noise = VectorNoise('linear_acceleration', settings)
    streams, oracle = NoiseStreams(4, 'acc'), NoiseStreams(4, 'acc')
    value, normals = np.array([1.0, 2.0, 9.81]), np.array([0.5, -1.0, 2.0])
    dt = 0.01
    white = np.sqrt(np.array([0.1, 0.2, 0.3]) ** 2 + 0.05 ** 2 / dt)
    expected = (value + white * normals + np.array([0.01, -0.02, 0.03])
                + np.array([0.5, 0.6, 0.7]) * oracle.turn_on[0]
                + oracle.walk('linear_acceleration', 1, np.array([0.002, 0.004, 0.006])
                              * math.sqrt(dt)))
    np.testing.assert_allclose(noise.apply(value, normals, streams, 1, dt), expected,
                               rtol=1e-12)
    dt2 = 0.02  # another interval: the deviation of the white noise follows it
    only_white = VectorNoise('linear_acceleration', {'linear_acceleration_noise_density': 0.05})
    np.testing.assert_allclose(only_white.apply(value, normals, streams, 2, dt),
                               value + 0.05 / math.sqrt(dt) * normals, rtol=1e-12)
    np.testing.assert_allclose(only_white.apply(value, normals, streams, 3, dt2),
                               value + 0.05 / math.sqrt(dt2) * normals, rtol=1e-12)
    gyro = VectorNoise('angular_velocity', {'angular_velocity_turn_on_bias': 1.0})
    np.testing.assert_allclose(gyro.apply(np.zeros(3), normals, streams, 1, dt),
                               streams.turn_on[1], rtol=1e-12)
    off = VectorNoise('angular_velocity', {})
    assert off.apply(value, normals, streams, 1, dt).tolist() == value.tolist()


def test_distance_settings_by_prefix():
    scan = DistanceNoise.of({'distance': 0.01, 'distance_per_meter': 0.002, 'resolution': 0.05,
                             'dropout': 0.1}, 'distance')
    assert (scan.sigma, scan.per_meter, scan.resolution, scan.dropout) == (0.01, 0.002, 0.05, 0.1)
    depth = DistanceNoise.of({'depth': 0.02, 'depth_per_meter': 0.003, 'depth_resolution': 0.001,
                              'depth_dropout': 0.2, 'resolution': 9.0}, 'depth')
    assert (depth.sigma, depth.per_meter, depth.resolution, depth.dropout) == \
        (0.02, 0.003, 0.001, 0.2)
    assert depth.active and not DistanceNoise.of({}, 'depth').active
    for one in ({'sigma': 1.0}, {'per_meter': 1.0}, {'resolution': 1.0}, {'dropout': 0.5}):
        assert DistanceNoise(**one).active, one


def test_distances_get_noise_growing_with_distance_and_rounding():
    d = np.array([1.0, 2.0, np.inf, 4.0])
    noise = DistanceNoise(sigma=0.01, per_meter=0.02)
    got = noise.deviate(d, np.random.default_rng(3))
    normal = np.random.default_rng(3).normal(0.0, 1.0, 4)
    scale = 0.01 + 0.02 * np.array([1.0, 2.0, 0.0, 4.0])
    np.testing.assert_allclose(got[[0, 1, 3]], (d + normal * scale)[[0, 1, 3]], rtol=1e-12)
    assert got[2] == np.inf
    sigma_only = DistanceNoise(sigma=0.05).deviate(d, np.random.default_rng(4))
    np.testing.assert_allclose(sigma_only[[0, 1, 3]],
                               (d + np.random.default_rng(4).normal(0.0, 0.05, 4))[[0, 1, 3]],
                               rtol=1e-12)
    rounded = DistanceNoise(resolution=0.25).deviate(np.array([1.1, 1.2, -0.4]),
                                                     np.random.default_rng(0))
    assert rounded.tolist() == [1.0, 1.25, -0.5]
    assert DistanceNoise().deviate(d, np.random.default_rng(0)) is d


def test_depth_images_get_their_noise_in_float32():
    depth = np.array([[1.0, 2.0], [np.nan, -3.0]], dtype=np.float32)
    noise = DistanceNoise(sigma=0.01, per_meter=0.02)
    got = noise.deviate(depth, np.random.default_rng(5))
    assert got.dtype == np.float32
    normal = np.random.default_rng(5).standard_normal((2, 2), dtype=np.float32)
    scale = np.float32(0.01) + np.float32(0.02) * np.array([[1.0, 2.0], [0.0, 3.0]],
                                                           dtype=np.float32)
    np.testing.assert_allclose(got, depth + scale * normal, rtol=1e-6)
    assert np.isnan(got[1, 0])
    flat = DistanceNoise(sigma=0.03).deviate(depth, np.random.default_rng(6))
    expected = depth + np.float32(0.03) * np.random.default_rng(6).standard_normal(
        (2, 2), dtype=np.float32)
    np.testing.assert_allclose(flat, expected, rtol=1e-6)
    assert flat.dtype == np.float32


def test_dropouts_read_infinite_with_their_probability():
    d = np.linspace(1.0, 2.0, 10_000)
    noise = DistanceNoise(dropout=0.3)
    got = noise.drop(d, np.random.default_rng(8))
    chance = np.random.default_rng(8).random(d.shape, dtype=np.float32)
    assert np.array_equal(np.isinf(got), chance < 0.3)
    assert np.array_equal(got[~np.isinf(got)], d[chance >= 0.3])
    assert 0.28 < np.isinf(got).mean() < 0.32
    assert DistanceNoise().drop(d, np.random.default_rng(8)) is d
