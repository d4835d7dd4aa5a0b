"""Sensor noise models and their seeded generators (pure numpy: no mujoco, no rclpy).

* Vectors (accelerometer, gyro, force, torque), per axis: white Gaussian noise given as a
  deviation per reading and/or as a noise density, a constant bias, a bias drawn once per run
  (turn-on bias) and a bias random walk. The density and the random walk follow the
  continuous-time IMU noise model of Kalibr's "IMU Noise Model" page: white noise of density
  ``sigma_w`` [unit/sqrt(Hz)] reads, per sample of interval ``dt``, as Gaussian of deviation
  ``sigma_w / sqrt(dt)``; the bias walks by Gaussian steps of deviation ``sigma_b * sqrt(dt)``
  per sample (``sigma_b`` [unit/s/sqrt(Hz)]), so its Allan deviation is
  ``sigma_b * sqrt(tau / 3)``.
* Distances (range sensors, depth images): Gaussian noise of deviation
  ``sigma + per_meter * distance``, quantisation to a resolution, dropouts that read +inf (no
  return, REP-117) with a probability.

Runs repeat: every draw comes from generators seeded by the noise seed and the device name
and tied to the sample index (the count of scheduled readings since the start), so a reading
depends on the seed and simulated time, not on wall-clock pacing nor on which readings were
taken before. The few numbers a vector sensor needs per sample come from blocks drawn ahead
(:meth:`NoiseStreams.normals`, a row per sample); images and scans draw from a stream
positioned at the sample (:meth:`NoiseStreams.at`).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Mapping

import numpy as np

__all__ = ['NoiseStreams', 'VectorNoise', 'DistanceNoise', 'STRIDE', 'VECTOR_SLOTS', 'ROW',
           'BLOCK']

#: Sample ``k`` draws from the white-noise stream advanced by ``k * STRIDE`` (mod 2**128): an
#: odd 128-bit constant (the golden ratio), so the starts spread over PCG64's period and share
#: no power-of-two offset (streams 2**64 apart are measurably correlated).
STRIDE = 0x9E3779B97F4A7C15F39CC0605CEDC835
#: Vector quantities, each with its own random-walk stream and turn-on draw.
VECTOR_SLOTS = ('linear_acceleration', 'angular_velocity', 'force', 'torque')
_CHUNK = 1 << 16  # random-walk steps drawn at once when catching up
#: Standard normals per sample of a vector sensor (3 per quantity, and 3 for orientation).
ROW = 9
#: Samples per block of :meth:`NoiseStreams.normals`.
BLOCK = 1024


def _axes(value) -> np.ndarray:
    return np.broadcast_to(np.asarray(value, dtype=float), (3,)).copy()


class NoiseStreams:
    """The generators of one device.

    Attributes:
        rng: white noise, dropouts, pixel noise: positioned at a sample index by :meth:`at`;
            several draws at one index continue the stream.
    """

    def __init__(self, seed: int, name: str):
        self._key = [int(seed), zlib.crc32(name.encode())]
        self.rng = np.random.Generator(np.random.PCG64(self._key))
        self._start = self.rng.bit_generator.state
        self._at = 0
        # Standard normals of the per-run biases, one row per vector quantity.
        self.turn_on = np.random.default_rng(self._key + [2]).standard_normal(
            (len(VECTOR_SLOTS), 3))
        self._walks = {}
        self._block, self._rows = -1, None

    def at(self, index: int) -> np.random.Generator:
        """The white-noise generator at the start of sample ``index`` (unless already there)."""
        if index != self._at:
            bits = self.rng.bit_generator
            bits.state = self._start
            bits.advance(index * STRIDE % (1 << 128))
            self._at = index
        return self.rng

    def normals(self, index: int) -> np.ndarray:
        """The ``ROW`` standard normals of sample ``index`` (the same for the same index)."""
        block = index // BLOCK
        if block != self._block:
            self._rows = np.random.default_rng(self._key + [3, block]).standard_normal(
                (BLOCK, ROW))
            self._block = block
        return self._rows[index % BLOCK]

    def walk(self, slot: str, index: int, step: np.ndarray) -> np.ndarray:
        """The random-walk bias of ``slot`` at sample ``index`` (steps of deviation ``step``
        per axis, added one sample at a time whatever the samples read in between)."""
        rng, state, done = self._walks.get(slot) or (
            np.random.default_rng(self._key + [1, VECTOR_SLOTS.index(slot)]), np.zeros(3), 0)
        if done + 1 == index:  # the usual case: one step (the same sum as below)
            state = state + step * rng.standard_normal(3)
            done = index
        while done < index:
            n = min(index - done, _CHUNK)
            steps = step * rng.standard_normal((n, 3))
            state = np.cumsum(np.vstack([state, steps]), axis=0)[-1]
            done += n
        self._walks[slot] = (rng, state, done)
        return state


class VectorNoise:
    """The noise of one vector quantity (``VECTOR_SLOTS``) from its settings: ``<q>`` white
    deviation per reading, ``<q>_noise_density``, ``<q>_bias``, ``<q>_turn_on_bias``
    (deviation of the per-run bias), ``<q>_random_walk``; each one number or three."""

    def __init__(self, quantity: str, settings: Mapping):
        self.quantity = quantity
        self._slot = VECTOR_SLOTS.index(quantity)

        def get(suffix):
            return _axes(settings.get(quantity + suffix, 0.0))
        self.sigma, self.density = get(''), get('_noise_density')
        self.bias, self.turn_on, self.walk = get('_bias'), get('_turn_on_bias'), get(
            '_random_walk')
        self.white = bool(self.sigma.any() or self.density.any())
        self.offset = bool(self.bias.any() or self.turn_on.any())
        self.active = self.white or self.offset or bool(self.walk.any())
        self._dt = self._scale = None

    def white_sigma(self, dt: float) -> np.ndarray:
        """Deviation of the white noise of one reading per axis at sample interval ``dt``."""
        return np.sqrt(self.sigma ** 2 + self.density ** 2 / dt)

    def apply(self, value: np.ndarray, normals: np.ndarray, streams: NoiseStreams,
              index: int, dt: float) -> np.ndarray:
        """``value`` with the noise of sample ``index``: white noise scaled from the three
        standard ``normals``, the biases, and the random walk of ``streams``."""
        if self.white:
            if dt != self._dt:
                self._dt, self._scale = dt, self.white_sigma(dt)
            value = value + self._scale * normals
        if self.offset:
            value = value + (self.bias + self.turn_on * streams.turn_on[self._slot])
        if self.walk.any():
            value = value + streams.walk(self.quantity, index, self.walk * math.sqrt(dt))
        return value


class DistanceNoise:
    """Noise of distances [m]: Gaussian of deviation ``sigma + per_meter * d``, rounding to
    ``resolution``, and +inf with probability ``dropout``."""

    def __init__(self, sigma: float = 0.0, per_meter: float = 0.0, resolution: float = 0.0,
                 dropout: float = 0.0):
        self.sigma, self.per_meter = float(sigma), float(per_meter)
        self.resolution, self.dropout = float(resolution), float(dropout)
        self.active = bool(self.sigma or self.per_meter or self.resolution or self.dropout)

    @classmethod
    def of(cls, settings: Mapping, prefix: str) -> DistanceNoise:
        """From the settings ``<prefix>``, ``<prefix>_per_meter``, ``<prefix>_resolution``,
        ``<prefix>_dropout`` (a range sensor's prefix ``distance`` names its last two
        ``resolution`` and ``dropout``)."""
        extra = '' if prefix == 'distance' else prefix + '_'
        return cls(settings.get(prefix, 0.0), settings.get(prefix + '_per_meter', 0.0),
                   settings.get(extra + 'resolution', 0.0), settings.get(extra + 'dropout', 0.0))

    def deviate(self, d: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Gaussian noise and quantisation (infinite distances stay as they are)."""
        if d.dtype == np.float32 and (self.sigma or self.per_meter):  # images: in float32
            scale = np.float32(self.sigma)
            if self.per_meter:
                scale = scale + np.float32(self.per_meter) * np.where(
                    np.isfinite(d), np.abs(d), np.float32(0.0))
            d = d + scale * rng.standard_normal(d.shape, dtype=np.float32)
        elif self.per_meter:
            scale = self.sigma + self.per_meter * np.where(np.isfinite(d), np.abs(d), 0.0)
            d = d + rng.normal(0.0, 1.0, d.shape) * scale
        elif self.sigma:
            d = d + rng.normal(0.0, self.sigma, d.shape)
        if self.resolution:
            d = np.round(d / self.resolution) * self.resolution
        return d

    def drop(self, d: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Each distance +inf (no return) with probability ``dropout``."""
        if self.dropout:
            d = np.where(rng.random(d.shape, dtype=np.float32) < self.dropout, np.inf, d)
        return d
