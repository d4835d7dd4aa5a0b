"""One read of MuJoCo's sensor data for every inertial and force device of a model.

Reading each device on its own costs a few numpy calls per quantity (a slice copied, a sign
turned, a saturation), per device, per reading. A :class:`SensorBatch` reads every *plain*
inertial and force device of a :class:`~.sensors.SensorSuite` at once: one gather of
``data.sensordata`` into one array, the force sensors' signs turned and every saturation
applied with one operation each over that array. Each device's values are then a slice of it,
laid out as the device's message wants them:

* inertial: orientation (w, x, y, z, if reported), angular velocity, linear acceleration
  (each if the device reports it);
* force: force, torque.

A device is plain when its reading draws no noise and its accelerometer is MuJoCo's (not the
computed one of a frame welded to the world); the others are read by their sampler's own
``read``. The values are those ``read`` returns, to the bit: the same elementwise operations
on the same numbers (``0.0 - x`` for the signs, minimum and maximum for the saturation,
infinite bounds where a device has none).
"""

from __future__ import annotations

import numpy as np

from .samplers import DeviceSampler, ForceSampler, InertialSampler, changes

__all__ = ['SensorBatch', 'plain']


def plain(sampler: DeviceSampler) -> bool:
    """Whether a device's reading is MuJoCo's sensor data with signs and saturation only."""
    if isinstance(sampler, InertialSampler):
        return not sampler._noise_on and sampler._resting_site is None
    if isinstance(sampler, ForceSampler):
        return not (sampler._force_noise.active or sampler._torque_noise.active)
    return False


class SensorBatch:
    """The plain inertial and force devices of a suite, read together.

    Args:
        samplers: device name -> sampler (a suite's ``samplers``; others are left out).
    """

    def __init__(self, samplers: dict[str, DeviceSampler]):
        self._samplers = samplers
        self._key = None
        self.spans: dict[str, slice] = {}

    def _lay_out(self) -> None:
        index, negate, low, high, spans = [], [], [], [], {}
        for name, s in self._samplers.items():
            if not plain(s):
                continue
            start = len(index)
            if isinstance(s, InertialSampler):
                parts = [(s._quat, None), (s._gyro, s._gyro_limit), (s._acc, s._acc_limit)]
                parts = [(field, limit) for field, limit in parts if field is not None]
                turned = False
            else:
                parts = [(s._force, s._force_limit), (s._torque, s._torque_limit)]
                turned = True
            for field, limit in parts:
                n = field.stop - field.start
                index += range(field.start, field.stop)
                negate += [turned] * n
                high += list(np.full(n, np.inf) if limit is None else
                             np.broadcast_to(limit, (n,)))
            spans[name] = slice(start, len(index))
        self._index = np.asarray(index, dtype=int)
        self._negate = np.asarray(negate, dtype=bool)
        self._any_negate = bool(self._negate.any())
        self._high = np.asarray(high, dtype=float)
        self._low = -self._high
        self._saturates = bool(np.isfinite(self._high).any())
        self.spans = spans

    def span(self, sampler: DeviceSampler) -> slice | None:
        """Where a plain device's values lie in :meth:`read`'s array (None: not plain)."""
        key = (changes(), len(self._samplers))
        if key != self._key:
            self._lay_out()
            self._key = key
        return self.spans.get(sampler.name)

    def read(self, data) -> np.ndarray:
        """Every plain device's values now, from ``data.sensordata`` (call :meth:`span`
        first: it lays the array out)."""
        values = data.sensordata[self._index]
        if self._any_negate:  # 0 - x, not -x: no negative zeros in the messages
            np.subtract(0.0, values, out=values, where=self._negate)
        if self._saturates:
            values = np.minimum(np.maximum(values, self._low), self._high)
        return values
