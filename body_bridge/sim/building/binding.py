"""How a Simulation finds its joints in MuJoCo and tunes their servos.

:class:`Binding` is the set-up half of :class:`~body_bridge.sim.simulation.Simulation`: it
indexes the model's joints, actuators and frames in the compiled MuJoCo model, places the
initial configuration, and derives servo gains from the inertia each joint drives
(``kp = I w^2``, ``kv = 2 zeta I w``; units N m/rad and N m s/rad, or N/m and N s/m). When a
model joins or leaves the world, ``rebind`` finds every model's elements again in the newly
compiled MuJoCo model and keeps its servos' state.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

from ...fparser import mimic_order
from ...formula import FormulaError
from ...model import JointType
from ..mechanics.forces_runtime import install_forces
from ..mechanics.mimic import MimicHook, formula_of
from ..names import ACTUATOR_PREFIX, POSITION, VELOCITY
from ..control.servo import (coupling_map, grounded_inertia, model_dofs, passive_dofs, servo_gains,
                    servo_terms, tuning_inertia)
from ..mechanics.tracks import TrackDrive

__all__ = ['Binding', 'RETUNE_DISTANCE']

#: The servos are retuned at the start of a period once some joint of the model has moved
#: this far [rad or m] since they were last tuned: over 0.02 rad the inertia a joint drives
#: changes by a few percent at most (its bandwidth by half that), and a robot holding still
#: costs no retuning. 0 retunes every period.
RETUNE_DISTANCE = 0.02
#: A servo moving faster than this fraction of its velocity limit is guarded at every step.
GUARD = 0.5


class Binding:
    """The joints, actuators and frames of one model in the world, and their servo gains."""

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
        self._vstep_low = -self._vstep
        self._masks = None  # the command modes' masks (Simulation._modes_now)
        self._guard_speed = GUARD * self._vlim
        # Mimic joints follow their formula (set directly at the start and in kinematic mode).
        # In dependency order (a mimic of a mimic after its leader), whatever the model's order.
        self._followers = []
        for j in mimic_order(model.movable_joints):
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
        # a floating base (the inertia a joint drives does not change as the robot moves) and
        # the tracks' belts (their travel changes nothing).
        self.tracks_named = {j.name for j in model.joints if j.type == JointType.TRACK}
        belts = {mj.joint(name(n)).id for n in self.tracks_named}
        shape = []
        for joint in sorted({int(j) for j in mj.dof_jntid[self._dofs]} - belts):
            kind, adr = mj.jnt_type[joint], int(mj.jnt_qposadr[joint])
            if kind != mujoco.mjtJoint.mjJNT_FREE:
                shape.extend(range(adr, adr + (4 if kind == mujoco.mjtJoint.mjJNT_BALL else 1)))
        self._shape_q = np.array(shape, dtype=int)
        self._tuned_q: np.ndarray | None = None

    # --- (re)binding to the world's MuJoCo model ------------------------------------------

    def _install_mimic(self) -> None:
        """The hook of the mimic formulas MuJoCo cannot hold as they are
        (sim/mechanics/mimic.py)."""
        mimic = MimicHook(self.model, self.mj, self.prefix)
        self._own_hooks = (mimic,) if mimic else ()
        self.step_hooks[:0] = self._own_hooks

    def _install_tracks(self) -> None:
        #: The surfaces of the model's tracks, moved at each contact (sim/mechanics/tracks.py).
        self.tracks = TrackDrive(self.mj, self.model, self.prefix,
                                 self.options.track_lateral_friction)
        if self.tracks:
            self.world.contact_hooks.append(self.tracks)

    def rebind(self) -> None:
        """Find this model again after its world was compiled anew (a model joined or left:
        :meth:`World.add`, :meth:`World.remove`), which carried the MuJoCo state across.

        Command modes, targets, trajectories being followed and effort limits stay as they
        were; the servos are retuned in the new model. The mimic, track and force hooks are
        made again for the new model; the force system (motors, springs, loads) is found again
        in it and goes on where it was (its functions of the carried time, SPEED motors'
        integrals, released motors, controller inputs).
        """
        old_mj, rows = self.mj, np.arange(len(self.actuated))
        limited = old_mj.actuator_forcelimited[self._act].astype(bool)
        limits = np.where(limited, old_mj.actuator_forcerange[self._act, 1], np.inf)
        mode = self._mode.copy()
        world = self.world
        self.index = world.sims.index(self)
        self.prefix = world.prefixes[self.index]
        self.spec, self.mj, self.data = world.spec, world.mj, world.data
        self._index_joints()
        self._index_frames()
        for hook in self._own_hooks:
            self.step_hooks.remove(hook)
        self._install_mimic()
        if not self.kinematic:  # the same force system, its motors' state kept
            self.forces = install_forces(self, self.forces)
        self._install_tracks()
        self._tune_servos()
        self._mode = mode
        self._write_gains(rows)
        self._force_limits(rows, limits)
        for hook in self.rebind_hooks:
            hook()

    def _index_frames(self) -> None:
        """Moving frames: (parent body, child body) for every joint that moves, and the root."""
        model = self.model
        pairs, names = [], []
        if model.root_joint == JointType.FREE:
            pairs.append((0, self.body_id(model.root)))
            names.append((None, model.root))
        for joint in model.ordered_joints():
            if not joint.type.rigid:
                pairs.append((self.body_id(joint.parent), self.body_id(joint.child)))
                names.append((joint.parent, joint.child))
        self.moving_frames: list[tuple[str | None, str]] = names
        self._pairs = np.array(pairs, dtype=int).reshape(-1, 2)
        # A chain's bodies follow one another: a slice then reads them without a copy.
        self._parents, self._children = (_range_or_index(self._pairs[:, k]) for k in (0, 1))

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
        moved = None if self._tuned_q is None else q - self._tuned_q
        # A sum of squares within the distance's square keeps every joint within it (one dot
        # product; the bound a little inside, so that rounding cannot cross it); otherwise
        # the largest move decides.
        within = RETUNE_DISTANCE * (1 - 1e-9)
        if moved is None or (not moved @ moved <= within * within and len(q) and
                             np.abs(moved).max() > RETUNE_DISTANCE):
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
        position, velocity = modes == POSITION, modes == VELOCITY
        gain[acts, 0] = np.where(position, kp, np.where(velocity, kv, 1.0))
        bias[acts, 1] = np.where(position, -kp, 0.0)
        bias[acts, 2] = np.where(position | velocity, -kv, 0.0)


def _range_or_index(index: np.ndarray):
    """The same rows as a slice where they are consecutive and increasing, else the index."""
    if len(index) and np.array_equal(index, np.arange(index[0], index[0] + len(index))):
        return slice(int(index[0]), int(index[0]) + len(index))
    return index.copy()
