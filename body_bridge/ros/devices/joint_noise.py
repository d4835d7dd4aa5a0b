"""Gaussian noise on ``joint_states`` (off by default), as joint encoders read.

``joint_states.noise.position`` [rad or m] and ``joint_states.noise.velocity`` [rad/s or m/s]
are the deviations, from the devices file's ``joint_states: {noise: {...}}`` and settable at
run time. The draws are seeded like the devices' (``noise_seed``, else the devices file's
``seed``) and tied to the control period's index, so runs repeat. TF stays exact: the bridge
publishes the simulated poses, a ground truth beside the noisy encoders.
"""

from __future__ import annotations

import numpy as np
from rcl_interfaces.msg import ParameterDescriptor, ParameterType, SetParametersResult

from ...device_overlay import JOINT_NOISE_KEYS, Overlay, noise_value
from ...errors import ModelError
from ...sim.sensing.noise import NoiseStreams

__all__ = ['JointStateNoise', 'PREFIX']

PREFIX = 'joint_states.noise.'


class JointStateNoise:
    """The noise the node adds to the joint positions and velocities it publishes.

    Raises:
        ModelError: a value given at start (``--ros-args -p``) that is not a deviation.
    """

    def __init__(self, node, overlay: Overlay | None = None):
        overlay = overlay or Overlay()
        seed = node.params['noise_seed']
        self._streams = NoiseStreams(overlay.seed if seed < 0 else seed,
                                     'joint_states' + node.get_namespace())
        self._sim = node.sim
        self.sigma = {}
        for key, unit in JOINT_NOISE_KEYS.items():
            parameter = node.declare_parameter(
                PREFIX + key, float(overlay.joint_noise.get(key, 0.0)), ParameterDescriptor(
                    type=ParameterType.PARAMETER_DOUBLE, dynamic_typing=True,
                    description=f'Deviation of the Gaussian noise of joint_states {key} '
                                f'[{unit}] (0: none).'))
            try:
                self.sigma[key] = noise_value(key, parameter.value)
            except ValueError as err:
                raise ModelError(None, None, f'parameter {parameter.name}: {err}') from None
        node.add_on_set_parameters_callback(self._on_set_parameters)

    def _on_set_parameters(self, parameters) -> SetParametersResult:
        changes = {}
        for p in parameters:
            if p.name.startswith(PREFIX) and p.name[len(PREFIX):] in JOINT_NOISE_KEYS:
                try:
                    changes[p.name[len(PREFIX):]] = noise_value(p.name[len(PREFIX):], p.value)
                except ValueError as err:
                    return SetParametersResult(successful=False, reason=f'{p.name}: {err}')
        self.sigma = {**self.sigma, **changes}  # one assignment: the period sees old or new
        return SetParametersResult(successful=True)

    def apply(self, positions: np.ndarray, velocities: np.ndarray):
        """(positions, velocities) with this period's noise (the arrays as they are when the
        noise is off)."""
        sigma = self.sigma
        position, velocity = sigma['position'], sigma['velocity']
        if not (position or velocity):
            return positions, velocities
        rng = self._streams.at(int(round(self._sim.time / self._sim.period)))
        if position:
            positions = positions + rng.normal(0.0, position, len(positions))
        if velocity:
            velocities = velocities + rng.normal(0.0, velocity, len(velocities))
        return positions, velocities

    def fill(self, msg, positions: np.ndarray, velocities: np.ndarray) -> None:
        """Set ``position`` and ``velocity`` of a packed JointState (see ros/stream/wire.py), with
        the noise."""
        positions, velocities = self.apply(positions, velocities)
        msg.set('position', positions)
        msg.set('velocity', velocities)
