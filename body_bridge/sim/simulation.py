"""A model running in the integrator: commands in, state out. Testable without ROS.

One *control period* applies the pending commands, then steps the physics
``period / timestep`` times. Every 1-DOF joint that no other joint drives has a servo
(:mod:`body_bridge.sim.control.servo`) whose mode is switched at run time:

* position: ``tau = kp (q* - q) + kv (dq* - dq)``, the setpoint q* moving towards the target
  at no more than the joint's velocity limit (``dq*``, the velocity fed forward, is that of a
  trajectory being followed, else 0);
* velocity: ``tau = kv (dq* - dq)``;
* effort: ``tau = u``.

Gains come from the inertia ``I`` each joint drives in the current configuration (updated
whenever the joints have moved ``RETUNE_DISTANCE`` since the last update; mimicking joints
and a floating base count: see :func:`~body_bridge.sim.control.servo.tuning_inertia`) and a servo
bandwidth: ``kp = I w^2``, ``kv = 2 zeta I w``, or from per-joint overrides. For fixed-base
models the joints in position or velocity mode also get the gravity and Coriolis torques fed
forward, as a real servo's integrator would supply them, so a held position does not sag.

Limits always hold: position targets are clipped to the joint's range, velocity targets and the
setpoint's rate to its velocity limit, efforts to its effort limit (the servo's force range).
A servo never drives its joint faster than the velocity limit (checked at every physics step
while a joint moves near it). In effort mode, as ros2_control's joint limiter does, an effort
that pushes a joint further beyond its velocity limit or its range is withheld.

A *kinematic* model has no dynamics: its joints move exactly as commanded (position and
velocity commands, trajectories) under their velocity limits, and its root stays where it was
placed; other models still collide with it.

Several models share one physics world through :class:`~body_bridge.sim.building.world.World`; one
Simulation per model (see :func:`simulate_together`).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Sequence

import mujoco
import numpy as np

from ..model import JointType, Model
from .building.binding import Binding
from .control.commanding import Commanding
from .mechanics.forces_runtime import install_forces
from .names import EFFORT, POSITION, VELOCITY, CommandRejected, Mode
from .building.options import SimOptions
from .control.watchdog import RECENT_COMMANDS
from .control.trajectory import TrajectoryRun
from .building.world import World, is_world_rooted

__all__ = ['Mode', 'SimOptions', 'Simulation', 'CommandRejected', 'simulate_together']



def simulate_together(entries: Sequence[tuple[Model, SimOptions]],
                      prefixes: Sequence[str] | None = None) -> list[Simulation]:
    """Several models in one physics world; one Simulation per model, in order.

    World-wide settings (time step, control period, ground plane) come from the first
    model's options. ``prefixes`` name each model's MuJoCo elements (the first is '').
    """
    world = World(entries, prefixes)
    return [Simulation(model, options, world=world) for model, options in entries]


class Simulation(Binding, Commanding):
    """A model running in MuJoCo, alone or sharing a :class:`World` with others.

    Thread safety: ``command`` and ``follow`` may be called from any thread;
    everything else from the thread that steps.
    """

    def __init__(self, model: Model, options: SimOptions = SimOptions(),
                 world: World | None = None):
        self.model = model
        self.options = options
        self.world = world if world is not None else World([(model, options)])
        self.index = self.world.bind(self)
        #: Prefix of this model's MuJoCo names ('' for the first model of a world).
        self.prefix = self.world.prefixes[self.index]
        self.spec, self.mj, self.data = self.world.spec, self.world.mj, self.world.data
        self.substeps, self.period = self.world.substeps, self.world.period
        self.kinematic = bool(options.kinematic)
        self._world_rooted = is_world_rooted(model)
        #: Called before every physics step (forces that change within a control period:
        #: springs, motors, loads). Empty by default, so the physics steps in one call.
        self.step_hooks: list = []
        #: Warnings raised while running (limits at work); the owner reads and clears them.
        self.notes: list[str] = []
        self.recent_commands: deque = deque(maxlen=RECENT_COMMANDS)
        self._index_joints()
        # Springs, motors and loads of the model (sim/mechanics/forces.py): called after every
        # reset, and with (mode, names) of every accepted command (a command releases a motor).
        self.reset_hooks: list = []
        self.command_hooks: list = []
        #: Called after the world was compiled anew and this model found again in it (a
        #: model joined or left the world: ``rebind``); the device samplers register here.
        self.rebind_hooks: list = []
        self._own_hooks: tuple = ()
        self._install_mimic()
        self._index_frames()
        self._lock = threading.Lock()
        self._pending: list[tuple] = []
        self._gravcomp = not self.kinematic and (
            options.gravity_compensation == 'on' or
            (options.gravity_compensation == 'auto' and model.root_joint == JointType.FIXED))
        self._place_initial()
        mujoco.mj_forward(self.mj, self.data)
        self._tune_servos()
        self._mode = np.full(len(self.actuated), -1)
        self._rate = np.zeros(len(self.actuated))
        self.forces = None if self.kinematic else install_forces(self)
        self._install_tracks()
        self.reset_state()
        mujoco.mj_forward(self.mj, self.data)

    # --- state of the servos ------------------------------------------------------------

    @property
    def steps_individually(self) -> bool:
        """Whether this model needs code before every physics step this period (hooks, the
        kinematic mode, a servo near its velocity limit)."""
        return bool(self.step_hooks) or self.kinematic or len(self._guarded) > 0

    def reset_state(self) -> None:
        """Initial positions, zero velocities, every joint holding its initial position."""
        self._place_initial()
        self._tuned_q = None  # retuned at the next period
        n = len(self.actuated)
        self.data.qvel[self._da] = 0.0
        self._mode = np.full(n, -1)
        self._target = self.data.qpos[self._qa].copy()
        self._rate = np.zeros(n)
        self._runs: list[tuple[TrajectoryRun, int] | None] = [None] * n
        self._held = self.data.qpos[self._held_q].copy()
        self._kq0 = self._kq1 = self._target.copy()
        self._guarded = np.zeros(0, dtype=int)
        with self._lock:
            self._pending.clear()
        self._set_modes(Mode.POSITION, np.arange(n))
        self._force_limits(np.arange(n), self._effort)
        self.data.ctrl[self._act] = 0.0
        self.mj.actuator_biasprm[self._act, 0] = 0.0
        # The hooks read the placed state's kinematics (initial velocities are set through
        # Jacobians and the mass matrix), which mj_resetData zeroed in World.reset.
        mujoco.mj_forward(self.mj, self.data)
        for hook in self.reset_hooks:
            hook(self)

    def _set_modes(self, mode: Mode, rows: np.ndarray) -> None:
        rows = np.asarray([row for row in rows if self._mode[row] != mode], dtype=int)
        if not len(rows):
            return
        self._mode[rows] = mode
        self._write_gains(rows)
        self.mj.actuator_biasprm[self._act[rows], 0] = 0.0
        q = self.data.qpos[self._qa[rows]]
        self.data.act[self._actadr[rows]] = q if mode == Mode.POSITION else 0.0
        self._rate[rows] = 0.0

    def modes(self) -> dict[str, Mode]:
        """The command mode of every commanded joint."""
        return {n: Mode(int(m)) for n, m in zip(self.actuated, self._mode)}

    # --- the control period (stepping thread) -------------------------------------------

    def _setpoints(self) -> np.ndarray:
        q = self.data.qpos[self._qa]
        if self.kinematic:
            return q.copy()
        act = self.data.act[self._actadr]
        if self._modes_now().all_position:
            return act
        return np.where(self._mode == POSITION, act, q)

    def _modes_now(self) -> _Modes:
        """The masks of the current command modes (made again only when a mode changed:
        ``_mode`` is compared by its bytes, so any change to it, wherever made, is seen)."""
        key = self._mode.tobytes()
        if self._masks is None or self._masks.key != key:
            self._masks = _Modes(key, self._mode)
        return self._masks

    def _apply_pending(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, []
        for kind, what, rows, extra in pending:
            if kind == 'limit':
                self._force_limits(rows, extra)
                continue
            if kind == 'set':
                self._set_modes(what, rows)
                self._target[rows] = extra
                for row in rows:
                    self._runs[row] = None
                continue
            start = self.time if extra is None else extra
            position = self._setpoints()[rows]
            velocity = self._rate[rows] if start <= self.time else np.zeros(len(rows))
            self._set_modes(Mode.POSITION, rows)
            if not len(what.times):
                self._target[rows] = position
                for row in rows:
                    self._runs[row] = None
                continue
            run = TrajectoryRun(what, start, position, velocity)
            for col, row in enumerate(rows):
                self._runs[row] = (run, col)

    def _desired_positions(self, t: float) -> tuple[np.ndarray, np.ndarray | None]:
        """Position targets at time ``t`` [s] (trajectories sampled); which follow one (None:
        none does)."""
        if not any(self._runs):
            return np.minimum(np.maximum(self._target, self._lower), self._upper), None
        desired = self._target.copy()
        following = np.zeros(len(desired), dtype=bool)
        samples = {}
        for row, entry in enumerate(self._runs):
            if entry is None:
                continue
            run, col = entry
            if id(run) not in samples:
                samples[id(run)] = run.sample(t)[0]
            desired[row] = samples[id(run)][col]
            following[row] = True
            if run.finished(t):
                self._target[row] = desired[row]
                self._runs[row] = None
        return np.minimum(np.maximum(desired, self._lower), self._upper), following

    def begin_period(self) -> None:
        """Apply the pending commands and set the servos for the coming period.

        Runs every period: written with plain numpy operations on the servos' arrays (no
        np.clip, whose Python wrapper costs more than the work on a few dozen joints), the
        masks of the command modes kept from one period to the next (``_modes_now``), and
        the masked selections skipped when every joint is in one mode (the same numbers).
        """
        if self._pending:  # read without the lock: a command that comes now waits a period
            self._apply_pending()
        if not self.kinematic:
            self._update_servos()
        period = self.period
        desired, following = self._desired_positions(self.time + period)
        data = self.data
        q = data.qpos[self._qa]
        modes = self._modes_now()
        position = modes.position
        start = self._setpoints()
        step = np.minimum(np.maximum(desired - start, self._vstep_low), self._vstep)
        rate = step / period if modes.all_position else np.where(position, step / period, 0.0)
        if self.kinematic:
            self._kinematic_period(q, rate)
            return
        self._rate = rate
        data.ctrl[self._act] = rate
        act = data.act
        velocity = modes.velocity
        speed = np.abs(rate)
        if modes.any_velocity:
            v = np.minimum(np.maximum(self._target, -self._vlim), self._vlim)
            v[((q >= self._upper) & (v > 0)) | ((q <= self._lower) & (v < 0))] = 0.0
            act[self._actadr[velocity]] = v[velocity]
            speed = np.where(velocity, np.abs(v), speed)
        effort = modes.effort
        if modes.any_effort:
            act[self._actadr[effort]] = self._limit_efforts(q)[effort]
        bias = np.zeros(len(rate)) if following is None else \
            np.where(following & position, self.kv * rate, 0.0)
        if self._gravcomp:
            bias += np.where(effort, 0.0, self._gravity) if modes.any_effort else self._gravity
        self.mj.actuator_biasprm[self._act, 0] = bias
        # Servos that may reach their velocity limit this period: guarded at every step.
        fast = np.maximum(np.abs(data.qvel[self._da]), speed)
        beyond = fast > self._guard_speed
        self._guarded = np.flatnonzero(~effort & beyond if modes.any_effort else beyond)

    def _limit_efforts(self, q: np.ndarray) -> np.ndarray:
        """Effort targets, withheld where they push beyond a velocity limit or the range."""
        u = np.clip(self._target, -self._effort, self._effort)
        dq = self.data.qvel[self._da]
        beyond = (((dq > self._vlim) | (q >= self._upper)) & (u > 0)) | \
                 (((dq < -self._vlim) | (q <= self._lower)) & (u < 0))
        for row in np.flatnonzero(beyond & (self._mode == EFFORT)):
            self.notes.append(f'{self.actuated[row]}: effort withheld: the joint is at its '
                              'velocity limit or the end of its range')
        return np.where(beyond, 0.0, u)

    def _kinematic_period(self, q: np.ndarray, rate: np.ndarray) -> None:
        velocity = self._mode == VELOCITY
        v = np.clip(self._target, -self._vlim, self._vlim)
        rate = np.where(velocity, v, rate)
        self._kq0 = q.copy()
        self._kq1 = np.clip(q + rate * self.period, np.minimum(q, self._lower),
                            np.maximum(q, self._upper))
        self._rate = (self._kq1 - self._kq0) / self.period

    def before_step(self, k: int) -> None:
        """Called before physics step ``k`` of the period when ``steps_individually``."""
        if self.kinematic:
            self._pose_kinematic(self._kq0 + (self._kq1 - self._kq0) * (k / self.substeps))
        elif len(self._guarded):
            self._hold_velocity_limits()
        for hook in self.step_hooks:
            hook(self)

    def end_period(self) -> None:
        """Called after the period's physics steps."""
        if self.kinematic:
            self._pose_kinematic(self._kq1)
        elif len(self._guarded):
            self._hold_velocity_limits()

    def _hold_velocity_limits(self) -> None:
        """A servo never drives its joint faster than the limit (as a drive's velocity limiter
        does at its own, much higher rate): the excess is taken off at each physics step."""
        rows = self._guarded
        dofs = self._da[rows]
        self.data.qvel[dofs] = np.clip(self.data.qvel[dofs], -self._vlim[rows], self._vlim[rows])

    def _pose_kinematic(self, q: np.ndarray) -> None:
        d = self.data
        d.qpos[self._qa] = q
        d.qvel[self._da] = self._rate
        self._follow_formulas(velocities=True)
        d.qpos[self._held_q] = self._held
        d.qvel[self._passive] = 0.0

    def step_period(self) -> None:
        """One control period of the whole world this model is in."""
        self.world.step_period()

    def reset(self) -> None:
        """The whole world back to its initial state; commands cleared."""
        self.world.reset()

    # --- state ----------------------------------------------------------------------------

    @property
    def time(self) -> float:
        return float(self.data.time)

    def joint_positions(self) -> np.ndarray:
        return self.data.qpos[self._qadr].copy()

    def joint_velocities(self) -> np.ndarray:
        return self.data.qvel[self._dadr].copy()

    def joint_efforts(self) -> np.ndarray:
        d = self.data
        return d.qfrc_actuator[self._dadr] + d.qfrc_applied[self._dadr]

    def setpoints(self) -> dict[str, float]:
        """The position setpoint of every joint in position mode [rad or m]."""
        act = self.data.act[self._actadr]
        return {n: float(act[i]) for i, n in enumerate(self.actuated)
                if self._mode[i] == Mode.POSITION}

    def moving_transforms(self) -> tuple[np.ndarray, np.ndarray]:
        """Child frame in parent frame for each of ``moving_frames``: (k, 3) pos, (k, 4) wxyz."""
        d = self.data
        parent, child = self._parents, self._children
        xpos = d.xpos
        pos = np.einsum('kji,kj->ki', d.xmat[parent].reshape(-1, 3, 3), xpos[child] - xpos[parent])
        xquat = d.xquat
        return pos, _relative_quats(xquat[parent], xquat[child])

    def body_pose(self, link: str) -> tuple[np.ndarray, np.ndarray]:
        """World pose of a link: position, quaternion (w, x, y, z)."""
        b = self.body_id(link)
        return self.data.xpos[b].copy(), self.data.xquat[b].copy()

    def warnings(self) -> dict[str, int]:
        """MuJoCo's warning counters that are not zero, by name."""
        return self.world.warnings()


def _relative_product() -> np.ndarray:
    """T (4, 16) such that conj(a) * b = ((a @ T).reshape(4, 4)) @ b for quaternions
    (w, x, y, z): the Hamilton product as one bilinear form."""
    def product(a, b):
        aw, ax, ay, az = a
        bw, bx, by, bz = b
        return np.array([aw * bw - ax * bx - ay * by - az * bz,
                         aw * bx + ax * bw + ay * bz - az * by,
                         aw * by - ax * bz + ay * bw + az * bx,
                         aw * bz + ax * by - ay * bx + az * bw])
    tensor = np.zeros((4, 4, 4))
    unit = np.eye(4)
    for j in range(4):
        for k in range(4):
            tensor[j, :, k] = product(unit[j] * (1.0, -1.0, -1.0, -1.0), unit[k])
    return tensor.reshape(4, 16)


_RELATIVE = _relative_product()


def _relative_quats(parent: np.ndarray, child: np.ndarray) -> np.ndarray:
    """conj(parent) * child for (k, 4) arrays of quaternions (w, x, y, z)."""
    return np.matmul((parent @ _RELATIVE).reshape(-1, 4, 4), child[:, :, None])[:, :, 0]


class _Modes:
    """Masks of the command modes of a model's servos, made once per change of modes."""

    __slots__ = ('key', 'position', 'velocity', 'effort', 'all_position', 'any_velocity',
                 'any_effort')

    def __init__(self, key: bytes, mode: np.ndarray):
        self.key = key
        self.position = mode == POSITION
        self.velocity = mode == VELOCITY
        self.effort = mode == EFFORT
        self.all_position = bool(self.position.all())
        self.any_velocity = bool(self.velocity.any())
        self.any_effort = bool(self.effort.any())
