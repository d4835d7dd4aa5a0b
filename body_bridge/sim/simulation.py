"""A model running in the integrator: commands in, state out. Testable without ROS.

One *control period* applies the pending commands, then steps the physics
``period / timestep`` times. Every 1-DOF joint that no other joint drives has a servo
(:mod:`body_bridge.sim.servo`) whose mode is switched at run time:

* position: ``tau = kp (q* - q) + kv (dq* - dq)``, the setpoint q* moving towards the target
  at no more than the joint's velocity limit (``dq*``, the velocity fed forward, is that of a
  trajectory being followed, else 0);
* velocity: ``tau = kv (dq* - dq)``;
* effort: ``tau = u``.

Gains come from the inertia ``I`` each joint drives in the current configuration (updated
whenever the joints have moved ``RETUNE_DISTANCE`` since the last update; mimicking joints
and a floating base count: see :func:`~body_bridge.sim.servo.tuning_inertia`) and a servo
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

Several models share one physics world through :class:`~body_bridge.sim.world.World`; one
Simulation per model (see :func:`simulate_together`).
"""

from __future__ import annotations

import enum
import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import mujoco
import numpy as np

from ..model import JointType, Model, Pose
from ..formula import FormulaError
from .build import ACTUATOR_PREFIX, BuildOptions
from .forces import install_forces
from .mimic import MimicHook, formula_of
from .servo import (coupling_map, grounded_inertia, model_dofs, passive_dofs, servo_gains,
                    servo_terms, tuning_inertia)
from .trajectory import JointTrajectory, TrajectoryRun, segment_speeds
from .world import World, is_world_rooted

__all__ = ['Mode', 'SimOptions', 'Simulation', 'CommandRejected', 'simulate_together']

#: A servo moving faster than this fraction of its velocity limit is guarded at every step.
_GUARD = 0.5
#: The servos are retuned at the start of a period once some joint of the model has moved
#: this far [rad or m] since they were last tuned: over 0.02 rad the inertia a joint drives
#: changes by a few percent at most (its bandwidth by half that), and a robot holding still
#: costs no retuning. 0 retunes every period.
RETUNE_DISTANCE = 0.02


class Mode(enum.IntEnum):
    POSITION = 0
    VELOCITY = 1
    EFFORT = 2


#: The modes as plain integers, for the arrays compared every period.
_POSITION, _VELOCITY, _EFFORT = int(Mode.POSITION), int(Mode.VELOCITY), int(Mode.EFFORT)


class CommandRejected(ValueError):
    """A command that names unknown joints or carries values that are not finite."""


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
        on_divergence: 'reset' or 'pause' when the integrator diverges (sim/watchdog.py;
            world-wide: the first model's applies).
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


def simulate_together(entries: Sequence[tuple[Model, SimOptions]],
                      prefixes: Sequence[str] | None = None) -> list[Simulation]:
    """Several models in one physics world; one Simulation per model, in order.

    World-wide settings (time step, control period, ground plane) come from the first
    model's options. ``prefixes`` name each model's MuJoCo elements (the first is '').
    """
    world = World(entries, prefixes)
    return [Simulation(model, options, world=world) for model, options in entries]


class Simulation:
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
        self._index_joints()
        mimic = MimicHook(model, self.mj, self.prefix)  # formulas MuJoCo cannot hold as they are
        if mimic:
            self.step_hooks.append(mimic)
        # Springs, motors and loads of the model (sim/forces.py): called after every reset,
        # and with (mode, names) of every accepted command (a command releases a motor).
        self.reset_hooks: list = []
        self.command_hooks: list = []
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
        self.reset_state()
        mujoco.mj_forward(self.mj, self.data)

    # --- set-up -------------------------------------------------------------------------

    def mj_name(self, name: str) -> str:
        """The MuJoCo name of one of this model's links or joints."""
        return self.prefix + name

    def body_id(self, link: str) -> int:
        """The MuJoCo body id of one of this model's links."""
        if link == self.model.root and self._world_rooted:
            return 0  # the root link named 'world' is MuJoCo's world body
        return self.mj.body(self.mj_name(link)).id

    def _index_joints(self) -> None:
        mj, model, name = self.mj, self.model, self.mj_name
        self.joint_names = [j.name for j in model.movable_joints]
        self._index = {n: i for i, n in enumerate(self.joint_names)}
        self._qadr = np.array([mj.joint(name(n)).qposadr[0] for n in self.joint_names], dtype=int)
        self._dadr = np.array([mj.joint(name(n)).dofadr[0] for n in self.joint_names], dtype=int)
        self.actuated = [n for n in self.joint_names if model.joint(n).mimic is None]
        self._rows = {n: i for i, n in enumerate(self.actuated)}
        self._act = np.array([mj.actuator(name(ACTUATOR_PREFIX + n)).id for n in self.actuated],
                             dtype=int)
        self._actadr = mj.actuator_actadr[self._act].astype(int)
        joint_rows = np.array([self._index[n] for n in self.actuated], dtype=int)
        self._qa, self._da = self._qadr[joint_rows], self._dadr[joint_rows]
        lims = [model.joint(n).limits for n in self.actuated]
        self._lower = np.array([-math.inf if lim.lower is None else lim.lower for lim in lims])
        self._upper = np.array([math.inf if lim.upper is None else lim.upper for lim in lims])
        for row, n in enumerate(self.actuated):
            if model.joint(n).type == JointType.CONTINUOUS:
                self._lower[row], self._upper[row] = -math.inf, math.inf
        default = self.options.default_velocity_limit
        default = default if default and default > 0 else math.inf
        self._vlim = np.array([default if not lim.velocity or lim.velocity <= 0 else lim.velocity
                               for lim in lims])
        self._effort = np.array([math.inf if not lim.effort or lim.effort <= 0 else lim.effort
                                 for lim in lims])
        self._vstep = self._vlim * self.period  # the most a setpoint moves in a period
        self._guard_speed = _GUARD * self._vlim
        # Mimic joints follow their formula (set directly at the start and in kinematic mode).
        self._followers = []
        for j in model.movable_joints:
            if j.mimic is not None:
                formula = formula_of(j)
                leads = {v: (mj.joint(name(v)).qposadr[0], mj.joint(name(v)).dofadr[0])
                         for v in formula.variables}
                self._followers.append((mj.joint(name(j.name)).qposadr[0],
                                        mj.joint(name(j.name)).dofadr[0], formula, leads))
        # Free and ball joints hold still in kinematic mode.
        self._passive = passive_dofs(mj, model, self.prefix)
        # The model's own degrees of freedom (its kinematic trees), and the servos' among them.
        self._dofs = model_dofs(mj, np.concatenate([self._dadr, self._passive]))
        self._gravity = np.zeros(len(self.actuated))
        local = {int(d): k for k, d in enumerate(self._dofs)}
        following = {local[int(dadr)] for _, dadr, _, _ in self._followers}
        column = {k: c for c, k in enumerate(k for k in range(len(self._dofs))
                                             if k not in following)}
        self._act_cols = np.array([column[local[int(d)]] for d in self._da], dtype=int)
        self._passive_cols = np.array([column[local[int(d)]] for d in self._passive], dtype=int)
        self._local = local
        # A floating base: its six columns, and each servo's child body (see grounded_inertia).
        base = []
        if model.root_joint == JointType.FREE:
            adr = int(mj.joint(name(f'{model.root}_free')).dofadr[0])
            base = [column[local[d]] for d in range(adr, adr + 6)]
        self._base_cols = np.array(base, dtype=int)
        self._child_bodies = np.array([mj.jnt_bodyid[mj.joint(name(n)).id] for n in self.actuated],
                                      dtype=int)
        qpos, free = [], []
        for dof in self._passive:
            joint = int(mj.dof_jntid[dof])
            if joint not in free:
                free.append(joint)
                size = 7 if mj.jnt_type[joint] == mujoco.mjtJoint.mjJNT_FREE else 4
                qpos.extend(range(int(mj.jnt_qposadr[joint]), int(mj.jnt_qposadr[joint]) + size))
        self._held_q = np.array(qpos, dtype=int)
        # The coordinates the servos' inertia depends on: every joint of the model's trees but
        # a floating base (the inertia a joint drives does not change as the robot moves).
        shape = []
        for joint in sorted({int(j) for j in mj.dof_jntid[self._dofs]}):
            kind, adr = mj.jnt_type[joint], int(mj.jnt_qposadr[joint])
            if kind != mujoco.mjtJoint.mjJNT_FREE:
                shape.extend(range(adr, adr + (4 if kind == mujoco.mjtJoint.mjJNT_BALL else 1)))
        self._shape_q = np.array(shape, dtype=int)
        self._tuned_q: np.ndarray | None = None

    def _index_frames(self) -> None:
        """Moving frames: (parent body, child body) for every joint that moves, and the root."""
        model = self.model
        pairs, names = [], []
        if model.root_joint == JointType.FREE:
            pairs.append((0, self.body_id(model.root)))
            names.append((None, model.root))
        for joint in model.ordered_joints():
            if joint.type != JointType.FIXED:
                pairs.append((self.body_id(joint.parent), self.body_id(joint.child)))
                names.append((joint.parent, joint.child))
        self.moving_frames: list[tuple[str | None, str]] = names
        self._pairs = np.array(pairs, dtype=int).reshape(-1, 2)

    def _place_initial(self) -> None:
        """Joint positions of the initial state (the root's pose is the model's qpos0)."""
        for i, n in enumerate(self.joint_names):
            q = self.options.initial_positions.get(n, self.model.joint(n).initial)
            self.data.qpos[self._qadr[i]] = q
        self._follow_formulas(velocities=False)

    def _follow_formulas(self, velocities: bool) -> None:
        """Put every mimic joint where its formula says (and its velocity, if asked)."""
        qpos, qvel = self.data.qpos, self.data.qvel
        for qadr, dadr, formula, leads in self._followers:
            values = {v: float(qpos[q]) for v, (q, _) in leads.items()}
            try:
                qpos[qadr] = formula.evaluate(values)
                if velocities:
                    gradient = formula.gradient(values)
                    qvel[dadr] = sum(gradient[v] * qvel[d] for v, (_, d) in leads.items())
            except FormulaError:
                continue  # undefined there: the constraint solver keeps it close

    def _follower_gradients(self) -> list[tuple[int, dict[int, float]]]:
        """For each mimic joint, how fast it moves with each of its leaders (model dofs)."""
        out, qpos, local = [], self.data.qpos, self._local
        for _, dadr, formula, leads in self._followers:
            values = {v: float(qpos[q]) for v, (q, _) in leads.items()}
            try:
                gradient = formula.gradient(values)
            except FormulaError:
                continue
            out.append((local[int(dadr)], {local[int(leads[v][1])]: g
                                           for v, g in gradient.items()}))
        return out

    def _tune_servos(self) -> None:
        """Check the gain overrides; gains for the initial configuration."""
        unknown = set(self.options.gains) - set(self.actuated)
        if unknown:
            raise ValueError(f'gains for joints without a servo: {", ".join(sorted(unknown))}')
        self._overrides = [self.options.gains.get(n, (None, None)) for n in self.actuated]
        self._mode = np.full(len(self.actuated), -1)
        self._retune()

    def _update_servos(self) -> None:
        """Gains retuned if the joints moved ``RETUNE_DISTANCE`` since the last tuning, and
        the gravity feed-forward of the current state."""
        q = self.data.qpos[self._shape_q]
        if self._tuned_q is None or (len(q) and np.max(np.abs(q - self._tuned_q)) >
                                     RETUNE_DISTANCE):
            self._retune()
        elif self._gravcomp and len(self.actuated):
            bias = self.data.qfrc_bias
            self._gravity = bias[self._da] if self._gravity_map is None else \
                bias[self._dofs] @ self._gravity_map

    def _retune(self) -> None:
        """Gains from the effective inertia of each joint in the current configuration.

        The inertia a joint drives changes as the robot moves (a shoulder's, as the elbow
        stretches); gains that follow it keep every servo's bandwidth where it was set.
        """
        self._tuned_q = self.data.qpos[self._shape_q].copy()
        if not len(self.actuated):
            self.inertia = self.kp = self.kv = np.zeros(0)
            return
        full = np.zeros((self.mj.nv, self.mj.nv))
        mujoco.mj_fullM(self.mj, self.data, full)
        dofs = self._dofs
        gradients = self._follower_gradients()
        tmap = coupling_map(len(dofs), gradients) if gradients else None
        self._gravity_map = None if tmap is None else tmap[:, self._act_cols]
        mass = full if len(dofs) == self.mj.nv else full[np.ix_(dofs, dofs)]
        self.least_inertia, self._gravity, reduced = servo_terms(
            mass, self.data.qfrc_bias[dofs], tmap, self._act_cols, self._passive_cols)
        grounded = None
        if len(self._base_cols):
            jac = np.zeros((len(self._child_bodies), 6, self.mj.nv))
            for k, body in enumerate(self._child_bodies):
                mujoco.mj_jacBody(self.mj, self.data, jac[k, :3], jac[k, 3:], int(body))
            jac = jac[:, :, dofs] if tmap is None else jac[:, :, dofs] @ tmap
            grounded = grounded_inertia(reduced, jac, self._base_cols, self._act_cols)
        self.inertia = tuning_inertia(self.least_inertia, np.diag(reduced)[self._act_cols],
                                      grounded)
        self.kp, self.kv = servo_gains(self.inertia, self.options.servo_frequency,
                                       self.options.servo_damping, self._overrides)
        self._write_gains(np.arange(len(self.actuated)))

    def _write_gains(self, rows: np.ndarray) -> None:
        """The servo law of each row's mode (the constant bias term is set per period)."""
        gain, bias = self.mj.actuator_gainprm, self.mj.actuator_biasprm
        acts, modes = self._act[rows], self._mode[rows]
        kp, kv = self.kp[rows], self.kv[rows]
        if self.kinematic:
            gain[acts, 0] = bias[acts, 1] = bias[acts, 2] = 0.0  # moved directly, no forces
            return
        position, velocity = modes == _POSITION, modes == _VELOCITY
        gain[acts, 0] = np.where(position, kp, np.where(velocity, kv, 1.0))
        bias[acts, 1] = np.where(position, -kp, 0.0)
        bias[acts, 2] = np.where(position | velocity, -kv, 0.0)

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
        self.data.ctrl[self._act] = 0.0
        self.mj.actuator_biasprm[self._act, 0] = 0.0
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

    # --- commands (any thread) ----------------------------------------------------------

    def _rows_of(self, names: Sequence[str]) -> np.ndarray:
        rows = []
        for name in names:
            if name not in self._rows:
                if name in self._index:
                    raise CommandRejected(f'joint {name!r} follows another joint and takes '
                                          'no command')
                raise CommandRejected(f'unknown joint {name!r}')
            rows.append(self._rows[name])
        if len(set(rows)) != len(rows):
            dup = next(n for n in names if list(names).count(n) > 1)
            raise CommandRejected(f'joint {dup!r} is named twice')
        return np.array(rows, dtype=int)

    def command(self, mode: Mode, names: Sequence[str], values) -> list[str]:
        """Queue targets for named joints; applied at the next control period.

        Args:
            mode: what the values are: positions [rad or m], velocities [/s] or efforts
                [N m or N].
            names: the joints (any subset of ``actuated``).
            values: one per name.

        Returns:
            One warning per joint whose target was clipped to its limits.

        Raises:
            CommandRejected: an unknown or driven joint, a joint named twice, a length
                mismatch, a value not finite, an effort for a kinematic model.
        """
        values = np.asarray(values, dtype=float).reshape(-1)
        if len(names) != len(values):
            raise CommandRejected(f'{len(names)} joint names but {len(values)} values')
        rows = self._rows_of(names)
        if not np.all(np.isfinite(values)):
            raise CommandRejected('a value is NaN or infinite')
        mode = Mode(mode)
        if self.kinematic and mode == Mode.EFFORT:
            raise CommandRejected('the model is kinematic: it takes position and velocity '
                                  'commands, not efforts')
        values, notes = self._clip(mode, rows, values)
        for hook in self.command_hooks:
            hook(mode, list(names))
        with self._lock:
            self._pending.append(('set', mode, rows, values))
        return notes

    def _clip(self, mode: Mode, rows: np.ndarray, values: np.ndarray):
        if mode == Mode.POSITION:
            lo, hi, what = self._lower[rows], self._upper[rows], 'range'
        elif mode == Mode.VELOCITY:
            lo, hi, what = -self._vlim[rows], self._vlim[rows], 'velocity limit'
        else:
            lo, hi, what = -self._effort[rows], self._effort[rows], 'effort limit'
        clipped = np.clip(values, lo, hi)
        notes = [f'{self.actuated[row]}: {mode.name.lower()} target beyond its {what} '
                 f'[{lo[i]:.6g}, {hi[i]:.6g}]: clipped'
                 for i, row in enumerate(rows) if clipped[i] != values[i]]
        return clipped, notes

    def follow(self, trajectory: JointTrajectory, start: float | None = None) -> list[str]:
        """Queue a trajectory for its joints, replacing what they were doing.

        Args:
            trajectory: the waypoints (an empty one stops the joints where they are).
            start: simulated time its ``time_from_start`` counts from [s]; None: the next
                control period.

        Returns:
            Warnings: waypoints clipped to a joint's range, segments faster than a joint's
            velocity limit (followed at the limit).

        Raises:
            CommandRejected: unknown joints, or a trajectory that ends before now.
        """
        rows = self._rows_of(trajectory.names)
        if start is not None and len(trajectory.times) and \
                start + trajectory.duration < self.time:
            raise CommandRejected(f'the trajectory ends at {start + trajectory.duration:.6g} s, '
                                  f'before the current simulated time {self.time:.6g} s')
        notes = []
        if len(trajectory.times):
            lo, hi = self._lower[rows], self._upper[rows]
            positions = np.clip(trajectory.positions, lo, hi)
            for col in np.flatnonzero(np.any(positions != trajectory.positions, axis=0)):
                notes.append(f'{self.actuated[rows[col]]}: trajectory point beyond its range '
                             f'[{lo[col]:.6g}, {hi[col]:.6g}]: clipped')
            trajectory = JointTrajectory(trajectory.names, trajectory.times, positions,
                                         trajectory.velocities, trajectory.accelerations)
            speeds = segment_speeds(trajectory, self.data.qpos[self._qa[rows]])
            for col in np.flatnonzero(np.any(speeds > self._vlim[rows] * (1 + 1e-9), axis=0)):
                notes.append(f'{self.actuated[rows[col]]}: trajectory faster than its velocity '
                             f'limit {self._vlim[rows[col]]:.6g}: followed at the limit')
        for hook in self.command_hooks:
            hook(Mode.POSITION, list(trajectory.names))
        with self._lock:
            self._pending.append(('follow', trajectory, rows, start))
        return notes

    # --- the control period (stepping thread) -------------------------------------------

    def _setpoints(self) -> np.ndarray:
        q = self.data.qpos[self._qa]
        if self.kinematic:
            return q.copy()
        act = self.data.act[self._actadr]
        return np.where(self._mode == _POSITION, act, q)

    def _apply_pending(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, []
        for kind, what, rows, extra in pending:
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
        np.clip, whose Python wrapper costs more than the work on a few dozen joints).
        """
        self._apply_pending()
        if not self.kinematic:
            self._update_servos()
        period = self.period
        desired, following = self._desired_positions(self.time + period)
        q = self.data.qpos[self._qa]
        mode = self._mode
        position = mode == _POSITION
        start = self._setpoints()
        step = np.minimum(np.maximum(desired - start, -self._vstep), self._vstep)
        rate = np.where(position, step / period, 0.0)
        if self.kinematic:
            self._kinematic_period(q, rate)
            return
        self._rate = rate
        self.data.ctrl[self._act] = rate
        act = self.data.act
        velocity = mode == _VELOCITY
        speed = np.abs(rate)
        if velocity.any():
            v = np.minimum(np.maximum(self._target, -self._vlim), self._vlim)
            v[((q >= self._upper) & (v > 0)) | ((q <= self._lower) & (v < 0))] = 0.0
            act[self._actadr[velocity]] = v[velocity]
            speed = np.where(velocity, np.abs(v), speed)
        effort = mode == _EFFORT
        if effort.any():
            act[self._actadr[effort]] = self._limit_efforts(q)[effort]
        bias = np.zeros(len(rate)) if following is None else \
            np.where(following & position, self.kv * rate, 0.0)
        if self._gravcomp:
            bias += np.where(effort, 0.0, self._gravity)
        self.mj.actuator_biasprm[self._act, 0] = bias
        # Servos that may reach their velocity limit this period: guarded at every step.
        fast = np.maximum(np.abs(self.data.qvel[self._da]), speed)
        self._guarded = np.flatnonzero(~effort & (fast > self._guard_speed))

    def _limit_efforts(self, q: np.ndarray) -> np.ndarray:
        """Effort targets, withheld where they push beyond a velocity limit or the range."""
        u = np.clip(self._target, -self._effort, self._effort)
        dq = self.data.qvel[self._da]
        beyond = (((dq > self._vlim) | (q >= self._upper)) & (u > 0)) | \
                 (((dq < -self._vlim) | (q <= self._lower)) & (u < 0))
        for row in np.flatnonzero(beyond & (self._mode == _EFFORT)):
            self.notes.append(f'{self.actuated[row]}: effort withheld: the joint is at its '
                              'velocity limit or the end of its range')
        return np.where(beyond, 0.0, u)

    def _kinematic_period(self, q: np.ndarray, rate: np.ndarray) -> None:
        velocity = self._mode == _VELOCITY
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
        parent, child = self._pairs[:, 0], self._pairs[:, 1]
        rp = d.xmat[parent].reshape(-1, 3, 3)
        pos = np.einsum('kji,kj->ki', rp, d.xpos[child] - d.xpos[parent])
        quat = _relative_quats(d.xquat[parent], d.xquat[child])
        return pos, quat

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
