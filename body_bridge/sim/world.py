"""One MuJoCo world holding one or several models: a robot, the floor it stands on, objects.

The first model's MuJoCo names are its own link and joint names; every further model is
attached under a name prefix (``<prefix>``, for example ``box/``) so that two copies of one
robot can share a world. Each model has its own collision bit: models touch each other and
the ground plane (in its mode 'auto' only the bodies that can fall touch it: see
:class:`~body_bridge.sim.build.BuildOptions`); links of one model touch each other only with
``self_collision``.

The world steps all models together, one control period at a time; each model's
:class:`~body_bridge.sim.simulation.Simulation` applies its commands at the start of every
period.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

import mujoco

from ..errors import ModelError, ParameterError
from ..model import JointType, Model, Pose
from .build import build_spec
from .contacts import add_material_pairs
from .names import WORLD
from .options import SimOptions
from .servo import add_servos
from .tracks import has_tracks, rebuild_constraints
from .watchdog import Divergence, Watchdog, describe_commands

__all__ = ['World', 'MAX_MODELS']

class Member(Protocol):
    """What the world needs of each model's Simulation (``sim/simulation.py``)."""

    model: Model
    notes: list[str]
    steps_individually: bool

    def begin_period(self) -> None: ...
    def before_step(self, k: int) -> None: ...
    def end_period(self) -> None: ...
    def reset_state(self) -> None: ...


#: Models that can share a world (one collision bit each; bit 30 is the ground plane's).
MAX_MODELS = 30


def is_world_rooted(model: Model) -> bool:
    """Whether the model's root link is MuJoCo's world body itself (see build.py)."""
    return (model.root == WORLD and model.root_joint == JointType.FIXED and
            model.link(model.root).pose.is_identity())


def _check_placement(model: Model, options) -> None:
    if is_world_rooted(model) and not options.initial_pose.is_identity():
        raise ParameterError('initial_pose', f'the root link of {model.name} is the world '
                             'itself: the model cannot be moved')


def _place(target, pose: Pose) -> None:
    target.pos = [float(x) for x in pose.pos]
    target.quat = [float(x) for x in pose.quat()]


class World:
    """The physics shared by several models.

    Args:
        entries: (model, options) per model. World-wide settings (time step, control period,
            ground plane) come from the first model's options.
        prefixes: MuJoCo name prefix of each model; the first must be '' (default: '' and
            ``<model name>_<index>/`` for the others).

    Raises:
        ModelError: too many models, or MuJoCo cannot compile the result.
    """

    def __init__(self, entries: Sequence[tuple[Model, SimOptions]],
                 prefixes: Sequence[str] | None = None):
        if not entries:
            raise ValueError('a world needs at least one model')
        if len(entries) > MAX_MODELS:
            raise ModelError(None, None, f'{len(entries)} models in one world; at most '
                             f'{MAX_MODELS} can share one')
        if prefixes is None:
            prefixes = [''] + [f'{m.name}_{i}/' for i, (m, _) in enumerate(entries) if i]
        if len(prefixes) != len(entries) or prefixes[0] != '':
            raise ValueError('one prefix per model, the first one empty')
        self.entries = list(entries)
        self.prefixes = list(prefixes)
        for model, options in entries:
            _check_placement(model, options)
        first_model, first = entries[0]
        try:
            self.spec = build_spec(first_model, replace(first.build, contact_bit=0,
                                                        kinematic=first.kinematic))
            if not is_world_rooted(first_model):
                root = self.spec.body(first_model.root)
                _place(root, first.initial_pose @ first_model.link(first_model.root).pose)
            add_servos(self.spec, first_model)
            timestep = self.spec.option.timestep
            for index, ((model, options), prefix) in enumerate(zip(entries, prefixes)):
                if index == 0:
                    continue
                child = build_spec(model, replace(options.build, ground_plane=False,
                                                  contact_bit=index, timestep=timestep,
                                                  kinematic=options.kinematic))
                add_servos(child, model)
                frame = self.spec.worldbody.add_frame()
                _place(frame, options.initial_pose)
                self.spec.attach(child, prefix=prefix, frame=frame)
            self.spec.option.timestep = timestep
            #: Load-time notes of the world (contact pairs left out), one line each.
            self.notes = add_material_pairs(
                self.spec, [(m, p, o.build.self_collision or bool(m.self_collision))
                            for (m, o), p in zip(entries, prefixes)],
                ground=first.build.ground_plane not in (False, 'off'))
            if any(has_tracks(model) for model, _ in entries):
                # Tracks skid when they turn: the friction cone must be round (a pyramid's
                # edges would make the turning rate depend on the heading).
                self.spec.option.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
        except ValueError as err:  # MuJoCo refuses an element (a name twice, a bad size)
            raise ModelError(first_model.source, None,
                             f'the integrator cannot build the model: {err}') from err
        try:
            self.mj = self.spec.compile()
        except ValueError as err:
            raise ModelError(first_model.source, None,
                             f'the integrator cannot compile the model: {err}') from err
        self.data = mujoco.MjData(self.mj)
        #: Detects a diverging integrator after every period (sim/watchdog.py).
        self.watchdog = Watchdog(self.mj, self.data, first.on_divergence)
        #: Set when a divergence paused the world (on_divergence: pause); the runner pauses.
        self.halted = False
        dt = self.mj.opt.timestep
        self.substeps = max(1, int(round(first.control_period / dt)))
        self.period = self.substeps * dt
        self.sims: list[Member] = []
        #: Called as hook(mj, data) between mj_step1 and mj_step2 of every physics step,
        #: once the contacts are known, each after every hook's align(mj, data) -> bool
        #: (tracks: sim/tracks.py). Empty: mj_step as it is.
        self.contact_hooks: list = []

    def bind(self, sim: Member) -> int:
        """Register the Simulation of the next model; return its index."""
        index = len(self.sims)
        if index >= len(self.entries) or self.entries[index][0] is not sim.model:
            raise ValueError('Simulations must be bound in the order of the world\'s models')
        self.sims.append(sim)
        return index

    @property
    def time(self) -> float:
        """Simulated time [s]."""
        return float(self.data.time)

    def step_period(self) -> Divergence | None:
        """One control period of every model: commands applied, then the physics stepped.

        Returns:
            The divergence of this period, if the integrator diverged (the world is then
            reset, or back at the state before the period and ``halted``; a note says so).
        """
        self.watchdog.save()
        sims = self.sims
        for sim in sims:
            sim.begin_period()
        if self.contact_hooks:
            for k in range(self.substeps):
                for sim in sims:
                    if sim.steps_individually:
                        sim.before_step(k)
                self._split_step()
        elif any(sim.steps_individually for sim in sims):
            for k in range(self.substeps):
                for sim in sims:
                    sim.before_step(k)
                mujoco.mj_step(self.mj, self.data)
        else:
            mujoco.mj_step(self.mj, self.data, nstep=self.substeps)
        for sim in sims:
            sim.end_period()
        # Link poses of the state reached (mj_step leaves those of the state before its
        # last step): TF then agrees with joint_states and with the stamp.
        mujoco.mj_kinematics(self.mj, self.data)
        diverged = self.watchdog.check()
        if diverged is not None:
            self._recover(diverged)
        return diverged

    def _split_step(self) -> None:
        """One physics step in two halves, the contact hooks in between: first every hook's
        ``align`` (which may change contact frames and friction; the constraint rows are then
        built again), then the hooks themselves."""
        mj, data = self.mj, self.data
        mujoco.mj_step1(mj, data)
        if any([hook.align(mj, data) for hook in self.contact_hooks]):
            rebuild_constraints(mj, data)
        for hook in self.contact_hooks:
            hook(mj, data)
        mujoco.mj_step2(mj, data)

    def _recover(self, event: Divergence) -> None:
        """Apply the divergence policy; the model whose joint shows it gets the note."""
        self.watchdog.count += 1
        index = max((i for i, prefix in enumerate(self.prefixes)
                     if event.joint and prefix and event.joint.startswith(prefix)), default=0)
        text = event.describe(self.prefixes[index])
        if self.watchdog.policy == 'reset':
            self.reset()
            text += '; the world was reset to its initial state (on_divergence: reset)'
        else:
            self.watchdog.restore()
            self.halted = True
            text += (f'; paused at t = {self.time:.6g} s, the state before that period '
                     '(on_divergence: pause); ~/reset, or ~/set_paused false to go on')
        if self.sims:
            sim = self.sims[index]
            sim.notes.append(f'{text}; {describe_commands(sim.recent_commands)}')

    def reset(self) -> None:
        """Every model back to its initial state, commands cleared, time back to 0."""
        mujoco.mj_resetData(self.mj, self.data)
        for sim in self.sims:
            sim.reset_state()
        mujoco.mj_forward(self.mj, self.data)

    def warnings(self) -> dict[str, int]:
        """MuJoCo's warning counters that are not zero, by name."""
        return {mujoco.mjtWarning(i).name: int(w.number)
                for i, w in enumerate(self.data.warning) if w.number}
