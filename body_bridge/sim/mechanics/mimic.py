"""Mimic joints in MuJoCo: each follows its formula as a constraint the solver enforces.

* Linear (``q = m * q_lead + c``) and polynomial formulas of one joint up to the fourth degree
  are MuJoCo joint equalities (``polycoef``), held as any constraint.
* Any other formula ``q = f(q_1, ..., q_n)`` is linearised at the current state before every
  step: a fixed tendon ``q - sum g_i q_i`` with ``g_i = df/dq_i`` and a tendon equality holding
  it at ``f(q*) - sum g_i q_i*``. The step hook (:class:`MimicHook`, in
  ``Simulation.step_hooks``) rewrites the tendon's coefficients and the equality's constant, so
  the joint tracks ``f`` to first order within each step, with the reaction forces on the
  driving joints that a real coupling has.

Reference positions: hinge and slide joints are built with ``ref = 0``, so MuJoCo's ``qpos0``
is zero and the equalities' offsets are the formulas' own.
"""

from __future__ import annotations

import mujoco

from ...fparser import mimic_formula
from ...formula import Formula
from ...model import Joint, Model
from ..names import TENDON_PREFIX

__all__ = ['add_mimic_constraints', 'MimicHook', 'formula_of', 'TENDON_PREFIX']

#: Tendons and equalities of nonlinear mimic joints are named TENDON_PREFIX + joint name.
_MAX_POLY = 4


def formula_of(joint: Joint) -> Formula:
    """The joint's relation as a formula (linear ones too); of several values (OpenRAVE's
    ``polyroots``), it takes the one within the joint's limits."""
    return mimic_formula(joint.mimic).with_limits(joint.limits.lower, joint.limits.upper)


def _polynomial(joint: Joint) -> tuple[str, list[float]] | None:
    mimic = joint.mimic
    if mimic.expression is None:
        return mimic.joint, [mimic.offset, mimic.multiplier]
    poly = formula_of(joint).polynomial()
    if poly is None or len(poly[1]) > _MAX_POLY + 1:
        return None
    return poly


def _stiff(eq, timestep: float) -> None:
    # As loop closures: a time constant of two steps, critically damped, impedance near 1.
    eq.solref = [2.0 * timestep, 1.0]
    eq.solimp = [0.99, 0.999, 0.001, 0.5, 2.0]


def add_mimic_constraints(spec: mujoco.MjSpec, model: Model, timestep: float) -> None:
    """Add one constraint per mimic joint to a spec whose joints are named as the model's."""
    for joint in model.joints:
        if joint.mimic is None:
            continue
        poly = _polynomial(joint)
        if poly is not None:
            lead, coeffs = poly
            eq = spec.add_equality()
            eq.type = mujoco.mjtEq.mjEQ_JOINT
            eq.name1 = joint.name
            eq.name2 = lead
            eq.data[:5] = list(coeffs) + [0.0] * (5 - len(coeffs))
            eq.info = joint.source or ''
            _stiff(eq, timestep)
            continue
        formula = formula_of(joint)
        values = {v: model.joint(v).initial for v in formula.variables}
        gradient = formula.gradient(values)
        tendon = spec.add_tendon()
        tendon.name = TENDON_PREFIX + joint.name
        tendon.info = joint.source or ''
        tendon.wrap_joint(joint.name, 1.0)
        for lead in formula.variables:  # linearised at the initial positions; MimicHook updates
            tendon.wrap_joint(lead, -gradient[lead])
        eq = spec.add_equality()
        eq.name = TENDON_PREFIX + joint.name
        eq.type = mujoco.mjtEq.mjEQ_TENDON
        eq.name1 = tendon.name
        eq.info = joint.source or ''
        eq.data[0] = formula.evaluate(values) - sum(gradient[v] * values[v] for v in values)
        _stiff(eq, timestep)


class MimicHook:
    """Relinearises the nonlinear mimic constraints at the current state (a step hook)."""

    def __init__(self, model: Model, mj: mujoco.MjModel, prefix: str = ''):
        # prefix: of the model's MuJoCo names when it shares a world with others
        self.items = []
        for joint in model.joints:
            if joint.mimic is None or _polynomial(joint) is not None:
                continue
            formula = formula_of(joint)
            tendon = mj.tendon(prefix + TENDON_PREFIX + joint.name).id
            adr = int(mj.tendon_adr[tendon])
            leads = []
            for k, name in enumerate(formula.variables):
                wrap = adr + 1 + k
                leads.append((name, int(mj.jnt_qposadr[mj.joint(prefix + name).id]), wrap))
            eq = mj.equality(prefix + TENDON_PREFIX + joint.name).id
            self.items.append((formula, leads, eq))

    def __bool__(self) -> bool:
        return bool(self.items)

    def update(self, mj: mujoco.MjModel, data: mujoco.MjData) -> None:
        """Set every tendon's coefficients and equality constant from ``data.qpos``."""
        for formula, leads, eq in self.items:
            values = {name: float(data.qpos[adr]) for name, adr, _ in leads}
            gradient = formula.gradient(values)
            constant = formula.evaluate(values)
            for name, _, wrap in leads:
                mj.wrap_prm[wrap] = -gradient[name]
                constant -= gradient[name] * values[name]
            mj.eq_data[eq, 0] = constant

    def __call__(self, sim) -> None:
        self.update(sim.mj, sim.data)
