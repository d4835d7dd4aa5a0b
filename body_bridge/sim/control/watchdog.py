"""Divergence of the integrator: detected after every control period, never published.

A model that explodes (a stiff spring on a light link, an effort of 1e30 N m from a buggy
controller, a contact the solver cannot hold) drives positions, velocities or accelerations
to infinity or NaN within a few steps. MuJoCo notices (``mjWARN_BADQPOS``, ``BADQVEL``,
``BADQACC``: a value that is not finite or beyond 1e10) and by default silently puts the state
back to the model's reference configuration and the time back to 0, which the bridge would not
know about. The watchdog turns that off and decides itself:

* before a control period it keeps the physics state (``mj_getState``, a few microseconds);
* after it, every position and velocity must be finite and within ``MAX_VALUE`` (a bad
  acceleration makes the velocity bad within the same step; about 8 us per period);
* a divergence is reported with the time and the joint where it shows, and handled by the
  policy: ``reset`` (the world back to its initial state, as ``~/reset``) or ``pause`` (the
  state before the period restored, the simulation paused), so that no NaN reaches a topic.

MuJoCo's own warning messages (printed to standard output and written to ``MUJOCO_LOG.TXT``
in the working directory by default) are caught and kept for the report instead.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass

import mujoco
import numpy as np

__all__ = ['Divergence', 'Watchdog', 'POLICIES', 'MAX_VALUE', 'mujoco_messages',
           'RECENT_COMMANDS', 'describe_commands']

#: What to do when the integrator diverges.
POLICIES = ('reset', 'pause')
#: Largest magnitude of a position, velocity or acceleration (MuJoCo's mjMAXVAL).
MAX_VALUE = 1e10
_MAX_SQUARED = (MAX_VALUE * (1 - 1e-9)) ** 2  # rounding cannot cross the bound

#: How many of the latest commands a divergence report names.
RECENT_COMMANDS = 3
#: How many joints of one command it names (the largest values first).
_JOINTS_NAMED = 3


def describe_commands(recent) -> str:
    """The latest commands, newest first, in one line: where each came from, when, and its
    largest values; for a divergence report.

    Args:
        recent: (time [s], source, what, names, values) of each command, oldest first.
    """
    if not recent:
        return 'no command was received before it'
    parts = []
    for time, source, what, names, values in reversed(recent):
        order = sorted(range(len(names)), key=lambda i: -abs(values[i]))
        shown = ', '.join(f'{names[i]} {values[i]:.6g}' for i in order[:_JOINTS_NAMED])
        more = len(names) - _JOINTS_NAMED
        if more > 0:
            shown += f' (+{more} more)'
        parts.append(f'{source} at t = {time:.6g} s: {what} {shown}')
    return 'the latest commands: ' + '; '.join(parts)


_STATE = mujoco.mjtState.mjSTATE_INTEGRATION

#: The latest warning texts MuJoCo sent (instead of printing them and writing a log file).
_MESSAGES: collections.deque = collections.deque(maxlen=20)


def _keep_message(text: str) -> None:
    _MESSAGES.append(' '.join(str(text).split()))


def mujoco_messages() -> list[str]:
    """MuJoCo's warning texts since the last call (each once), oldest first."""
    out = list(dict.fromkeys(_MESSAGES))
    _MESSAGES.clear()
    return out


def _route_mujoco_warnings() -> None:
    """Send MuJoCo's warnings to the watchdog (process-wide; done when a watchdog is made)."""
    if mujoco.get_mju_user_warning() is not _keep_message:
        mujoco.set_mju_user_warning(_keep_message)


@dataclass(frozen=True)
class Divergence:
    """A control period whose end state is not usable.

    Attributes:
        time: simulated time at the start of the period [s].
        joint: the MuJoCo joint where it shows first (None if no joint carries it).
        what: which quantity, for example ``velocity 3.2e+11`` or ``acceleration nan``.
    """

    time: float
    joint: str | None
    what: str

    def describe(self, prefix: str = '') -> str:
        """When and where, in one line (the joint named without a model's MuJoCo prefix)."""
        joint = self.joint
        if joint and prefix and joint.startswith(prefix):
            joint = joint[len(prefix):]
        where = f'joint {joint!r}' if joint else 'no single joint'
        return f'the integrator diverged at t = {self.time:.6g} s ({where}: {self.what})'


class Watchdog:
    """Keeps the state before each control period and checks the state after it.

    Args:
        mj: the compiled model (its automatic reset on bad values is turned off).
        data: its data.
        policy: 'reset' or 'pause' (see the module docstring).

    Raises:
        ValueError: an unknown policy.
    """

    def __init__(self, mj: mujoco.MjModel, data: mujoco.MjData, policy: str = 'reset'):
        if policy not in POLICIES:
            raise ValueError(f'on_divergence must be one of {", ".join(POLICIES)}, not '
                             f'{policy!r}')
        self.mj, self.data, self.policy = mj, data, policy
        mj.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_AUTORESET
        _route_mujoco_warnings()
        self._saved = np.zeros(mujoco.mj_stateSize(mj, _STATE))
        self.save()
        #: How many divergences were detected.
        self.count = 0

    def save(self) -> None:
        """Keep the current state (call before a control period); MuJoCo's warnings from
        before it (another model's build, say) are no part of this period's report."""
        mujoco.mj_getState(self.mj, self.data, self._saved, _STATE)
        _MESSAGES.clear()

    def restore(self) -> None:
        """Back to the state kept by :meth:`save` (positions, velocities, time, ...)."""
        mujoco.mj_setState(self.mj, self.data, self._saved, _STATE)
        mujoco.mj_forward(self.mj, self.data)

    def check(self) -> Divergence | None:
        """The divergence of the period since :meth:`save`, or None if the state is sound."""
        d = self.data
        for name, values, by_dof in (('position', d.qpos, False), ('velocity', d.qvel, True)):
            # A sum of squares within the bound's square puts every value within the bound
            # (one dot product; NaN makes the comparison false); otherwise one pass to see.
            if values @ values <= _MAX_SQUARED:
                continue
            if len(values) and not np.abs(values).max() <= MAX_VALUE:
                i = int(np.flatnonzero(~(np.abs(values) <= MAX_VALUE))[0])
                said = mujoco_messages()
                what = f'{name} {values[i]:.3g}' + (f'; MuJoCo: {said[-1]}' if said else '')
                return Divergence(float(self._saved[0]), self._joint(i, by_dof), what)
        return None

    def _joint(self, index: int, by_dof: bool) -> str | None:
        mj = self.mj
        if mj.njnt == 0:
            return None
        if by_dof:
            jid = int(mj.dof_jntid[index])
        else:
            jid = int(np.searchsorted(mj.jnt_qposadr, index, side='right') - 1)
        return mj.joint(jid).name or None
