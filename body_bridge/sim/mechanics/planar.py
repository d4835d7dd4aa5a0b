"""A kinematic planar drive for a base whose wheels the model does not have (``root: planar``).

As Gazebo's planar-move plug-in does, the base is moved in the ground plane by velocity: the
twist commanded in the root link's frame (``vx``, ``vy`` [m/s], ``wz`` [rad/s]) is turned
into the world frame at the root link's heading and imposed on the free root joint before
every physics step; the base keeps the attitude it started with (roll and pitch).
Its height is left to the physics: the base stands on the ground on its own collision shapes
(or falls to it), and whatever it carries moves with it. The other joints are simulated as
usual.
"""

from __future__ import annotations

import threading

import numpy as np

__all__ = ['PlanarMove', 'TRACKING']

#: Time constant [s] over which the base returns to the pose the twist has taken it to.
TRACKING = 0.05


class PlanarMove:
    """Installed on a Simulation with a free root: ``command`` from any thread."""

    def __init__(self, sim):
        joint = sim.mj.joint(sim.mj_name(f'{sim.model.root}_free'))
        self._q = int(joint.qposadr[0])
        self._d = int(joint.dofadr[0])
        self._body = sim.body_id(sim.model.root)
        self._dt = float(sim.mj.opt.timestep)
        self._lock = threading.Lock()
        self._twist = np.zeros(3)
        self._ref: np.ndarray | None = None  # where the base should be: x, y [m], yaw [rad]
        self._up = np.array([0.0, 0.0, 1.0])  # the world's z axis in the base's frame then
        sim.step_hooks.append(self)
        sim.reset_hooks.append(self.stop)

    def command(self, vx: float, vy: float, wz: float) -> None:
        """The base's velocity in its own frame: forward, left [m/s], yaw rate [rad/s]."""
        twist = np.array([vx, vy, wz], dtype=float)
        if not np.all(np.isfinite(twist)):
            raise ValueError('a velocity is NaN or infinite')
        with self._lock:
            self._twist = twist

    def stop(self, sim=None) -> None:
        """Stand still where the base is (also at a reset)."""
        self.command(0.0, 0.0, 0.0)
        self._ref = None

    @property
    def twist(self) -> np.ndarray:
        with self._lock:
            return self._twist.copy()

    def __call__(self, sim) -> None:
        """Before a physics step: impose the twist (a step hook). Contacts push the base a
        little within each step; a reference pose integrated from the twist takes that back
        over ``TRACKING`` seconds, so the base goes where the twist says."""
        vx, vy, wz = self.twist
        rot = sim.data.xmat[self._body].reshape(3, 3)
        yaw = float(np.arctan2(rot[1, 0], rot[0, 0]))
        pos = sim.data.qpos[self._q:self._q + 2]
        up = rot[2, :].copy()  # the world's z axis in the root link's frame
        if self._ref is None:
            self._ref = np.array([pos[0], pos[1], yaw])
            self._up = up
        ref = self._ref
        c, s = np.cos(ref[2]), np.sin(ref[2])
        world = np.array([c * vx - s * vy, s * vx + c * vy, wz])
        error = ref - np.array([pos[0], pos[1], yaw])
        error[2] = (error[2] + np.pi) % (2 * np.pi) - np.pi
        imposed = world + error / TRACKING
        self._ref = ref + world * self._dt
        qvel = sim.data.qvel
        d = self._d
        qvel[d:d + 2] = imposed[:2]
        # Angular velocity of a free joint is in the body frame: the yaw rate about the world's
        # z axis there, and the tilt the contacts gave taken back to the starting attitude.
        qvel[d + 3:d + 6] = imposed[2] * up + np.cross(self._up, up) / TRACKING
