"""Integrator settings of one model (:class:`SimOptions`), filled by the node from its
parameters."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ...model import Pose
from .build import BuildOptions

__all__ = ['SimOptions']


@dataclass(frozen=True)
class SimOptions:
    """Integrator settings; the node fills them from its parameters.

    Attributes:
        build: how the MuJoCo model is built.
        control_period: period of command application and state output [s].
        servo_frequency: bandwidth of the joint servos [Hz].
        servo_damping: damping ratio of the joint servos.
        gravity_compensation: 'auto' (fixed-base models only), 'on' or 'off'.
        initial_positions: joint name -> initial position [rad or m], over the file's.
        initial_pose: where the model frame is in the world (the root link's pose from the
            file is composed onto it).
        gains: joint name -> (kp [N m/rad or N/m] or None, kv [N m s/rad or N s/m] or None),
            over the gains derived from the servo bandwidth.
        kinematic: no dynamics: joints follow commands under their velocity limits.
        default_velocity_limit: velocity limit [rad/s or m/s] of joints whose model gives
            none; 0 for none.
        on_divergence: 'reset' or 'pause' when the integrator diverges (sim/control/watchdog.py;
            world-wide: the first model's applies).
        track_lateral_friction: friction across a track over friction along it, in (0, 1]
            (sim/mechanics/tracks.py).
    """

    build: BuildOptions = BuildOptions()
    control_period: float = 0.01
    servo_frequency: float = 8.0
    servo_damping: float = 1.0
    gravity_compensation: str = 'auto'
    initial_positions: Mapping[str, float] = field(default_factory=dict)
    initial_pose: Pose = field(default_factory=Pose)
    gains: Mapping[str, tuple[float | None, float | None]] = field(default_factory=dict)
    kinematic: bool = False
    default_velocity_limit: float = 0.0
    on_divergence: str = 'reset'
    track_lateral_friction: float = 0.25
