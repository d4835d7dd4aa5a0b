"""The running integrator: commands in, state out. Testable without ROS.

One *control period* applies the pending commands, then steps the physics
``period / timestep`` times. Every 1-DOF joint that no other joint drives has a servo (a MuJoCo
general actuator) whose mode is switched at run time:

* position: ``tau = kp (q* - q) - kv dq``   * velocity: ``tau = kv (dq* - dq)``   * effort: ``tau = u``

Gains come from each joint's effective inertia ``I`` at the initial configuration and a servo
bandwidth: ``kp = I w^2``, ``kv = 2 zeta I w``. For fixed-base models the joints in position or
velocity mode also get the gravity and Coriolis torques fed forward, as a real servo's
integrator would supply them, so a held position does not sag.
"""

from __future__ import annotations

import enum
import math
import threading
from dataclasses import dataclass, field

import mujoco
import numpy as np

from ..model import JointType, Model
from .build import ACTUATOR_PREFIX, BuildOptions, build_spec
from .mimic import MimicHook

__all__ = ['Mode', 'SimOptions', 'Simulation', 'CommandRejected']


class Mode(enum.IntEnum):
    POSITION = 0
    VELOCITY = 1
    EFFORT = 2


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
    """

    build: BuildOptions = BuildOptions()
    control_period: float = 0.01
    servo_frequency: float = 8.0
    servo_damping: float = 1.0
    gravity_compensation: str = 'auto'
    initial_positions: dict = field(default_factory=dict)


class Simulation:
    """A model running in MuJoCo.

    Thread safety: ``command`` may be called from any thread; everything else from the
    thread that steps.
    """

    def __init__(self, model: Model, options: SimOptions = SimOptions()):
        self.model = model
        self.options = options
        self.spec = build_spec(model, options.build)
        self._add_servos()
        self.mj = self.spec.compile()
        self.data = mujoco.MjData(self.mj)
        dt = self.mj.opt.timestep
        self.substeps = max(1, int(round(options.control_period / dt)))
        self.period = self.substeps * dt

        self.joint_names = [j.name for j in model.movable_joints]
        self._index = {name: i for i, name in enumerate(self.joint_names)}
        self._qadr = np.array([self.mj.joint(n).qposadr[0] for n in self.joint_names], dtype=int)
        self._dadr = np.array([self.mj.joint(n).dofadr[0] for n in self.joint_names], dtype=int)
        self.actuated = [n for n in self.joint_names if model.joint(n).mimic is None]
        self._act = np.array([self.mj.actuator(ACTUATOR_PREFIX + n).id for n in self.actuated],
                             dtype=int)
        self._act_joint = np.array([self._index[n] for n in self.actuated], dtype=int)
        self._act_dof = self._dadr[self._act_joint]
        lims = [model.joint(n).limits for n in self.actuated]
        self._lower = np.array([-math.inf if lim.lower is None else lim.lower for lim in lims])
        self._upper = np.array([math.inf if lim.upper is None else lim.upper for lim in lims])
        self._effort = np.array([math.inf if lim.effort is None else lim.effort for lim in lims])

        # Moving frames: (parent body, child body) for every joint that moves, and the root.
        pairs, names = [], []
        if model.root_joint == JointType.FREE:
            pairs.append((0, self.mj.body(model.root).id))
            names.append((None, model.root))
        for joint in model.ordered_joints():
            if joint.type != JointType.FIXED:
                pairs.append((self.mj.body(joint.parent).id, self.mj.body(joint.child).id))
                names.append((joint.parent, joint.child))
        self.moving_frames: list[tuple[str | None, str]] = names
        self._pairs = np.array(pairs, dtype=int).reshape(-1, 2)

        self._lock = threading.Lock()
        self._pending: list[tuple[Mode, np.ndarray, np.ndarray]] = []
        #: Called before every physics step (forces that change within a control period:
        #: springs, motors, loads). Empty by default, so the physics steps in one call.
        self.step_hooks: list = []
        mimic = MimicHook(model, self.mj)  # formulas MuJoCo cannot hold as they are
        if mimic:
            self.step_hooks.append(mimic)
        self._gravcomp = (options.gravity_compensation == 'on' or
                          (options.gravity_compensation == 'auto' and
                           model.root_joint == JointType.FIXED))
        self.reset()
        self._tune_servos()

    # --- set-up -------------------------------------------------------------------------

    def _add_servos(self) -> None:
        for joint in self.model.movable_joints:
            if joint.mimic is not None:
                continue
            act = self.spec.add_actuator()
            act.name = ACTUATOR_PREFIX + joint.name
            act.target = joint.name
            act.trntype = mujoco.mjtTrn.mjTRN_JOINT
            act.gaintype = mujoco.mjtGain.mjGAIN_FIXED
            act.biastype = mujoco.mjtBias.mjBIAS_AFFINE
            act.ctrllimited = mujoco.mjtLimited.mjLIMITED_FALSE
            act.info = joint.source or ''
            if joint.limits.effort is not None and joint.limits.effort > 0:
                act.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE
                act.forcerange = [-joint.limits.effort, joint.limits.effort]

    def _tune_servos(self) -> None:
        """Gains from the effective inertia of each joint at the initial configuration."""
        mujoco.mj_forward(self.mj, self.data)
        full = np.zeros((self.mj.nv, self.mj.nv))
        mujoco.mj_fullM(self.mj, self.data, full)
        inertia = np.maximum(full[self._act_dof, self._act_dof], 1e-6)
        w = 2.0 * math.pi * self.options.servo_frequency
        self.kp = inertia * w * w
        self.kv = 2.0 * self.options.servo_damping * inertia * w
        self._modes = np.full(len(self.actuated), -1)
        self._set_modes(np.full(len(self.actuated), Mode.POSITION), np.arange(len(self.actuated)))

    def _set_modes(self, modes: np.ndarray, rows: np.ndarray) -> None:
        gain = self.mj.actuator_gainprm
        bias = self.mj.actuator_biasprm
        for row, mode in zip(rows, modes):
            if self._modes[row] == mode:
                continue
            a = self._act[row]
            gain[a, :] = 0.0
            bias[a, :] = 0.0
            if mode == Mode.POSITION:
                gain[a, 0] = self.kp[row]
                bias[a, 1] = -self.kp[row]
                bias[a, 2] = -self.kv[row]
            elif mode == Mode.VELOCITY:
                gain[a, 0] = self.kv[row]
                bias[a, 2] = -self.kv[row]
            else:
                gain[a, 0] = 1.0
            self._modes[row] = mode

    # --- control --------------------------------------------------------------------------

    def reset(self) -> None:
        """Back to the initial state; commands cleared (joints hold their initial positions)."""
        mujoco.mj_resetData(self.mj, self.data)
        for i, name in enumerate(self.joint_names):
            q = self.options.initial_positions.get(name, self.model.joint(name).initial)
            self.data.qpos[self._qadr[i]] = q
        mujoco.mj_forward(self.mj, self.data)
        with self._lock:
            self._pending.clear()
        if hasattr(self, '_modes'):
            self._set_modes(np.full(len(self.actuated), Mode.POSITION), np.arange(len(self.actuated)))
        self.data.ctrl[self._act] = self.data.qpos[self._qadr[self._act_joint]]

    def command(self, mode: Mode, names: list[str], values) -> None:
        """Queue targets for named joints; applied at the next control period.

        Raises:
            CommandRejected: an unknown or driven joint, a length mismatch, a value not finite.
        """
        values = np.asarray(values, dtype=float).reshape(-1)
        if len(names) != len(values):
            raise CommandRejected(f'{len(names)} joint names but {len(values)} values')
        rows = []
        act_row = {n: i for i, n in enumerate(self.actuated)}
        for name in names:
            if name not in act_row:
                if name in self._index:
                    raise CommandRejected(f'joint {name!r} follows another joint and takes no command')
                raise CommandRejected(f'unknown joint {name!r}')
            rows.append(act_row[name])
        if not np.all(np.isfinite(values)):
            raise CommandRejected('a value is NaN or infinite')
        with self._lock:
            self._pending.append((Mode(mode), np.array(rows, dtype=int), values))

    def _apply_pending(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, []
        for mode, rows, values in pending:
            self._set_modes(np.full(len(rows), mode), rows)
            if mode == Mode.POSITION:
                values = np.clip(values, self._lower[rows], self._upper[rows])
            elif mode == Mode.EFFORT:
                values = np.clip(values, -self._effort[rows], self._effort[rows])
            self.data.ctrl[self._act[rows]] = values

    def step_period(self) -> None:
        """One control period: apply commands, then step the physics."""
        self._apply_pending()
        if self._gravcomp and len(self._act):
            held = self._modes != Mode.EFFORT
            applied = self.data.qfrc_applied
            applied[self._act_dof] = np.where(held, self.data.qfrc_bias[self._act_dof], 0.0)
        if self.step_hooks:
            for _ in range(self.substeps):
                for hook in self.step_hooks:
                    hook(self)
                mujoco.mj_step(self.mj, self.data)
        else:
            mujoco.mj_step(self.mj, self.data, nstep=self.substeps)

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

    def moving_transforms(self) -> tuple[np.ndarray, np.ndarray]:
        """Child frame in parent frame for each of ``moving_frames``: (k, 3) pos, (k, 4) wxyz."""
        d = self.data
        parent, child = self._pairs[:, 0], self._pairs[:, 1]
        rp = d.xmat[parent].reshape(-1, 3, 3)
        pos = np.einsum('kji,kj->ki', rp, d.xpos[child] - d.xpos[parent])
        quat = _quat_mul(_quat_conj(d.xquat[parent]), d.xquat[child])
        return pos, quat

    def body_pose(self, link: str) -> tuple[np.ndarray, np.ndarray]:
        """World pose of a link: position, quaternion (w, x, y, z)."""
        b = self.mj.body(link).id
        return self.data.xpos[b].copy(), self.data.xquat[b].copy()

    def warnings(self) -> dict[str, int]:
        """MuJoCo's warning counters that are not zero, by name."""
        out = {}
        for i, w in enumerate(self.data.warning):
            if w.number:
                out[mujoco.mjtWarning(i).name] = int(w.number)
        return out


def _quat_conj(q: np.ndarray) -> np.ndarray:
    return q * np.array([1.0, -1.0, -1.0, -1.0])


def _quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    aw, ax, ay, az = a[:, 0], a[:, 1], a[:, 2], a[:, 3]
    bw, bx, by, bz = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    return np.stack([
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    ], axis=1)
