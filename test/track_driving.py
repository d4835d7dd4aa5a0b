"""Driving a simulated vehicle in tests: settle it, command surface speeds, record its path."""

import math

import numpy as np

from body_bridge.sim.names import Mode
from body_bridge.sim.building.options import SimOptions
from body_bridge.sim.simulation import Simulation


def yaw(quat) -> float:
    """Yaw [rad] of a (w, x, y, z) quaternion."""
    w, x, y, z = quat
    return math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))


def settled(model, **options) -> Simulation:
    """A Simulation of the model with these SimOptions, after 0.5 s at rest."""
    sim = Simulation(model, SimOptions(**options))
    for _ in range(int(round(0.5 / sim.period))):
        sim.step_period()
    return sim


def drive(sim: Simulation, names, speeds, seconds: float, link: str = 'CHASSIS'):
    """Command velocities (a track's: its surface speed [m/s]); the link's positions and
    unwrapped yaws each period."""
    sim.command(Mode.VELOCITY, names, speeds)
    positions, yaws = [], []
    for _ in range(int(round(seconds / sim.period))):
        sim.step_period()
        pos, quat = sim.body_pose(link)
        positions.append(pos)
        yaws.append(yaw(quat))
    return np.array(positions), np.unwrap(yaws)
