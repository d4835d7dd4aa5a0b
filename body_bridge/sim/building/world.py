"""One MuJoCo world holding one or several models: a robot, the floor it stands on, objects.

The first model's MuJoCo names are its own link and joint names; every further model is
attached under a name prefix (``<prefix>``, for example ``box/``) so that two copies of one
robot can share a world. Each model has its own collision bit: models touch each other and
the ground plane (in its mode 'auto' only the bodies that can fall touch it: see
:class:`~body_bridge.sim.building.build.BuildOptions`); links of one model touch each other
only with ``self_collision``.

The world steps all models together, one control period at a time; each model's
:class:`~body_bridge.sim.simulation.Simulation` applies its commands at the start of every
period.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

import mujoco
import numpy as np

from ...errors import ModelError, ParameterError
from ...model import JointType, Model, Pose
from .build import build_spec
from .carry import carry_state
from ..mechanics.contacts import add_material_pairs
from ..names import WORLD
from .options import SimOptions
from ..control.servo import add_servos
from ..mechanics.tracks import has_tracks, rebuild_constraints
from ..control.watchdog import Divergence, Watchdog, describe_commands

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
    def rebind(self) -> None: ...


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


def _attach(spec, child, model: Model, prefix: str, frame) -> list[str]:
    """Attach a further model's MjSpec; the notes of what the world changes in it.

    The world's options (the first model's: time step, gravity, solver...) are the child's
    before it is attached, so that MuJoCo has no conflict to warn about (MuJoCo 4 prints one
    per option that differs, with its own source path); a gravity that differs from the
    world's by more than 1 % is a note of ours, in one line.
    """
    notes = []
    world_g, own_g = np.asarray(spec.option.gravity), np.asarray(child.option.gravity)
    if np.linalg.norm(own_g - world_g) > 0.01 * np.linalg.norm(world_g):  # (none: any)
        notes.append(f'{model.name}: its gravity ({_vector(own_g)}) m/s^2 is not the '
                     f"world's; the world's ({_vector(world_g)}), the first model's, acts on it")
    for name in dir(spec.option):
        if not name.startswith('_'):
            try:
                setattr(child.option, name, getattr(spec.option, name))
            except (AttributeError, TypeError):  # a read-only or unknown option
                pass
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        spec.attach(child, prefix=prefix, frame=frame)
    for warning in caught:
        text = str(warning.message)
        if text.startswith('Attach conflict'):  # an option this MuJoCo adds: the world's
            details = '; '.join(line.strip() for line in text.splitlines()[1:] if line.strip())
            notes.append(f"{model.name}: MuJoCo keeps the world's settings: {details}")
        else:
            warnings.warn_explicit(warning.message, warning.category, warning.filename,
                                   warning.lineno)
    return notes


def _vector(values) -> str:
    return ', '.join(f'{float(v):g}' for v in values)


def _compose(entries, prefixes) -> tuple[mujoco.MjSpec, list[str]]:
    """The MjSpec of several models, and the world's load-time notes (contact pairs left out).

    Raises:
        ModelError: MuJoCo refuses an element of a model (named after that model's file).
    """
    first_model, first = entries[0]
    model = first_model
    try:
        spec = build_spec(first_model, replace(first.build, contact_bit=0,
                                               kinematic=first.kinematic))
        if not is_world_rooted(first_model):
            root = spec.body(first_model.root)
            _place(root, first.initial_pose @ first_model.link(first_model.root).pose)
        add_servos(spec, first_model)
        timestep = spec.option.timestep
        attached: list[str] = []
        for index, ((model, options), prefix) in enumerate(zip(entries, prefixes)):
            if index == 0:
                continue
            child = build_spec(model, replace(options.build, ground_plane=False,
                                              contact_bit=index, timestep=timestep,
                                              kinematic=options.kinematic))
            add_servos(child, model)
            frame = spec.worldbody.add_frame()
            _place(frame, options.initial_pose)
            attached.extend(_attach(spec, child, model, prefix, frame))
        model = first_model
        spec.option.timestep = timestep
        notes = attached + add_material_pairs(
            spec, [(m, p, o.build.self_collision or bool(m.self_collision))
                   for (m, o), p in zip(entries, prefixes)],
            ground=first.build.ground_plane not in (False, 'off'))
        if any(has_tracks(m) for m, _ in entries):
            # Tracks skid when they turn: the friction cone must be round (a pyramid's
            # edges would make the turning rate depend on the heading).
            spec.option.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    except ValueError as err:  # MuJoCo refuses an element (a name twice, a bad size)
        raise ModelError(model.source, None,
                         f'the integrator cannot build the model: {err}') from err
    return spec, notes


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
        self._compile()
        dt = self.mj.opt.timestep
        first = entries[0][1]
        self.substeps = max(1, int(round(first.control_period / dt)))
        self.period = self.substeps * dt
        #: Set when a divergence paused the world (on_divergence: pause); the runner pauses.
        self.halted = False
        self.sims: list[Member] = []
        #: Called as hook(mj, data) between mj_step1 and mj_step2 of every physics step,
        #: once the contacts are known, each after every hook's align(mj, data) -> bool
        #: (tracks: sim/mechanics/tracks.py). Empty: mj_step as it is.
        self.contact_hooks: list = []

    def _compile(self) -> None:
        """The MjSpec of ``entries`` built and compiled, with fresh data and watchdog."""
        #: notes: load-time notes of the world (contact pairs left out), one line each.
        self.spec, self.notes = _compose(self.entries, self.prefixes)
        first_model, first = self.entries[0]
        try:
            self.mj = self.spec.compile()
        except ValueError as err:
            raise ModelError(first_model.source, None,
                             f'the integrator cannot compile the model: {err}') from err
        self.data = mujoco.MjData(self.mj)
        count = self.watchdog.count if hasattr(self, 'watchdog') else 0
        #: Detects a diverging integrator after every period (sim/control/watchdog.py).
        self.watchdog = Watchdog(self.mj, self.data, first.on_divergence)
        self.watchdog.count = count

    def bind(self, sim: Member) -> int:
        """Register the Simulation of the next model; return its index."""
        index = len(self.sims)
        if index >= len(self.entries) or self.entries[index][0] is not sim.model:
            raise ValueError('Simulations must be bound in the order of the world\'s models')
        self.sims.append(sim)
        return index

    # --- a world that changes while it runs (stepping thread, between periods) ------------

    def add(self, model: Model, options: SimOptions, prefix: str) -> int:
        """One more model in the running world; return its index.

        The world is compiled again; every model already in it keeps its state (time, joint
        positions and velocities, servo activations:
        :func:`~body_bridge.sim.building.carry.carry_state`) and its Simulation is bound to the new MuJoCo model. The caller then creates the new
        model's Simulation (``Simulation(model, options, world=world)``). The new model's
        world-wide options (time step, control period) are those of the world.

        Raises:
            ModelError: too many models, or the model cannot be built (the world is unchanged).
            ValueError: the prefix is empty or taken.
        """
        if not prefix or prefix in self.prefixes:
            raise ValueError(f'the prefix {prefix!r} is empty or taken')
        if len(self.entries) >= MAX_MODELS:
            raise ModelError(model.source, None, f'the world holds {MAX_MODELS} models '
                             'already; no more can share it')
        _check_placement(model, options)
        self._rebuild(self.entries + [(model, options)], self.prefixes + [prefix])
        return len(self.entries) - 1

    def remove(self, prefix: str) -> Member | None:
        """Take the model with this prefix out of the running world; return its Simulation
        (now detached, not to be stepped again). The others keep their state.

        Raises:
            ValueError: no model has this prefix, or it is the first model's (''), which
                holds the world's settings and cannot leave.
        """
        if not prefix or prefix not in self.prefixes:
            raise ValueError(f'no model of the world has the prefix {prefix!r}'
                             if prefix else 'the first model of a world cannot be removed')
        index = self.prefixes.index(prefix)
        gone = self.sims[index] if index < len(self.sims) else None
        self._rebuild([e for i, e in enumerate(self.entries) if i != index],
                      [p for i, p in enumerate(self.prefixes) if i != index], drop=index)
        return gone

    def _rebuild(self, entries, prefixes, drop: int | None = None) -> None:
        """Compile ``entries``, carry the state over, rebind the Simulations that stay."""
        old = (self.entries, self.prefixes, self.spec, self.notes, self.mj, self.data,
               self.watchdog)
        self.entries, self.prefixes = list(entries), list(prefixes)
        try:
            self._compile()
        except ModelError:
            (self.entries, self.prefixes, self.spec, self.notes, self.mj, self.data,
             self.watchdog) = old
            raise
        carry_state(old[4], old[5], self.mj, self.data)
        if drop is not None and drop < len(self.sims):
            del self.sims[drop]
        self.contact_hooks.clear()
        for sim in self.sims:
            sim.rebind()
        mujoco.mj_forward(self.mj, self.data)
        self.watchdog.save()

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
