"""Servo gains and the inertias they are tuned for (``sim/control/servo.py``) against the closed forms
the module documents, computed here by other means (explicit loops, constrained kinetic
energy), and the actuators ``add_servos`` adds."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from body_bridge.model import Inertial, Joint, JointType, Limits, Link, Mimic, Model
from body_bridge.sim.building.build import ACTUATOR_PREFIX, BuildOptions, build_spec
from body_bridge.sim.control.servo import (add_servos, coupling_map, grounded_inertia,
                                   model_dofs, passive_dofs, servo_gains, servo_terms,
                                   tuning_inertia)


def _spd(n: int, seed: int) -> np.ndarray:
    a = np.random.default_rng(seed).normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


def test_coupling_map_of_chained_mimic_joints():
    # q2 = 0.5 q0; q3 = 3 q2 (a mimic of a mimic): columns are the free q0, q1, q4
    tmap = coupling_map(5, [(2, {0: 0.5}), (3, {2: 3.0})])
    expected = np.array([[1, 0, 0], [0, 1, 0], [0.5, 0, 0], [1.5, 0, 0], [0, 0, 1]])
    np.testing.assert_array_equal(tmap, expected)
    both = coupling_map(3, [(1, {0: 2.0, 2: -1.0})])
    np.testing.assert_array_equal(both, [[1, 0], [2, -1], [0, 1]])
    np.testing.assert_array_equal(coupling_map(2, []), np.eye(2))


def test_least_inertia_is_the_schur_complement_over_the_free_base():
    mass = _spd(5, 1)
    bias = np.arange(5.0) - 2.0
    actuated, passive = np.array([3, 4]), np.array([0, 1, 2])
    inertia, forces, reduced = servo_terms(mass, bias, None, actuated, passive)
    np.testing.assert_array_equal(reduced, mass)
    np.testing.assert_array_equal(forces, bias[actuated])
    for k, i in enumerate(actuated):
        # the kinetic energy of a unit velocity of joint i, the base free to react (its
        # momentum zero), the other servos held: min over base velocities of v^T M v
        rows = [*passive, i]
        m = mass[np.ix_(rows, rows)]
        v_base = np.linalg.solve(m[:3, :3], -m[:3, 3])
        v = np.append(v_base, 1.0)
        assert inertia[k] == pytest.approx(v @ m @ v, rel=1e-12)
        assert inertia[k] < mass[i, i]
    fixed, _, _ = servo_terms(mass, bias, None, actuated, np.array([], dtype=int))
    np.testing.assert_array_equal(fixed, mass[actuated, actuated])


def test_mimic_joints_move_with_their_leaders():
    mass, bias = _spd(3, 2), np.array([1.0, -2.0, 4.0])
    tmap = coupling_map(3, [(2, {0: -0.5})])
    inertia, forces, reduced = servo_terms(mass, bias, tmap, np.array([0, 1]),
                                           np.array([], dtype=int))
    v = np.array([1.0, 0.0, -0.5])  # joint 0 at unit speed drags joint 2 at -0.5
    assert inertia[0] == pytest.approx(v @ mass @ v, rel=1e-12)
    assert inertia[1] == pytest.approx(mass[1, 1], rel=1e-12)
    np.testing.assert_allclose(forces, [1.0 - 0.5 * 4.0, -2.0], rtol=1e-12)
    np.testing.assert_allclose(reduced, tmap.T @ mass @ tmap, rtol=1e-12)


def test_grounded_inertia_holds_the_childs_link_still():
    rng = np.random.default_rng(4)
    r = 9  # a floating base (6) and three servos
    mass = _spd(r, 5)
    base, actuated = np.arange(6), np.array([6, 7, 8])
    jac = rng.normal(size=(3, 6, r))
    jac[1, :, base] = 0.0  # the second servo's child does not depend on the base: no answer
    got = grounded_inertia(mass, jac, base, actuated)
    for k in (0, 2):
        v = np.zeros(r)
        v[actuated[k]] = 1.0
        # the child link's velocity J v is zero: the base moves to cancel the joint's motion
        v[base] = np.linalg.solve(jac[k][:, base], -jac[k][:, actuated[k]])
        np.testing.assert_allclose(jac[k] @ v, 0.0, atol=1e-9)
        assert got[k] == pytest.approx(v @ mass @ v, rel=1e-10)
    assert got[1] == math.inf
    # a base Jacobian whose determinant is below 1e-12 counts as singular
    edge = np.zeros((1, 6, r))
    edge[0, :, base] = np.diag([1e-13, 1, 1, 1, 1, 1])
    edge[0, 0, 6] = 1.0
    assert grounded_inertia(mass, edge, base, np.array([6]))[0] == math.inf
    edge[0, 0, 0] = 1.5e-12
    assert math.isfinite(grounded_inertia(mass, edge, base, np.array([6]))[0])
    assert grounded_inertia(mass, np.zeros((0, 6, r)), base, np.array([], int)).shape == (0,)


def test_tuning_inertia_takes_the_stance_and_caps_it():
    least = np.array([1.0, 1.0, 1.0, 2.0])
    fixed = np.array([3.0, 5.0, 500.0, 2.0])
    grounded = np.array([4.0, 2.0, 1.0, np.inf])
    np.testing.assert_array_equal(tuning_inertia(least, fixed, grounded),
                                  [4.0, 5.0, 100.0, 200.0])  # at most 100 times the least
    assert tuning_inertia(least, fixed, None) is least


def test_gains_are_a_critically_damped_second_order_response():
    inertia = np.array([0.5, 0.0, 2.0, 1.0, 3.0])
    f, zeta = 4.0, 0.7
    w = 2 * math.pi * f
    kp, kv = servo_gains(inertia, f, zeta, [(None, None), (None, None), (80.0, None),
                                            (None, 3.0), (10.0, 0.5)])
    assert kp[0] == pytest.approx(0.5 * w * w) and kv[0] == pytest.approx(2 * zeta * 0.5 * w)
    assert kp[1] == pytest.approx(1e-6 * w * w)  # no inertia: the least one, 1e-6
    assert kp[2] == 80.0 and kv[2] == pytest.approx(2 * zeta * math.sqrt(80.0 * 2.0))
    assert kp[3] == pytest.approx(w * w) and kv[3] == 3.0
    assert (kp[4], kv[4]) == (10.0, 0.5)
    # a negative stiffness override keeps a real damping
    kp, kv = servo_gains(np.array([1.0]), f, zeta, [(-5.0, None)])
    assert (kp[0], kv[0]) == (-5.0, 0.0)
    # the response: a unit mass with these gains is critically damped at w when zeta = 1
    kp, kv = servo_gains(np.array([1.0]), f, 1.0, [(None, None)])
    assert kv[0] ** 2 == pytest.approx(4 * kp[0])


def _chain() -> Model:
    links = tuple(Link(n, inertial=Inertial(1.0, inertia=0.01 * np.eye(3)))
                  for n in ('base', 'a', 'b', 'c', 'd', 'e', 'f'))
    joints = (
        Joint('ja', JointType.REVOLUTE, 'base', 'a', limits=Limits(-1, 1, 2.0, 30.0),
              source='m.body:3'),
        Joint('jb', JointType.PRISMATIC, 'a', 'b', limits=Limits(-1, 1, None, 0.0)),
        Joint('jc', JointType.REVOLUTE, 'b', 'c', limits=Limits(-1, 1, 2.0, 0.0),
              mimic=Mimic('ja', 2.0)),
        Joint('jd', JointType.BALL, 'c', 'd'),
        Joint('je', JointType.REVOLUTE, 'a', 'e', limits=Limits(-1, 1, None, 0.5)),
        Joint('jf', JointType.FREE, 'base', 'f'),  # a body of its own in the integrator
    )
    return Model('chain', links, joints, 'base', root_joint=JointType.FREE)


def test_add_servos_one_integrator_actuator_per_driven_joint():
    model = _chain()
    spec = build_spec(model, BuildOptions(ground_plane=False))
    add_servos(spec, model)
    mj = spec.compile()
    names = [mj.actuator(i).name for i in range(mj.nu)]
    # no mimic, no ball joint
    assert names == [ACTUATOR_PREFIX + 'ja', ACTUATOR_PREFIX + 'jb', ACTUATOR_PREFIX + 'je']
    ja, jb, je = (mj.actuator(n) for n in names)
    assert mj.actuator_trnid[ja.id][0] == mj.joint('ja').id
    assert mj.actuator_dyntype[ja.id] == mujoco.mjtDyn.mjDYN_INTEGRATOR
    assert mj.actuator_gaintype[ja.id] == mujoco.mjtGain.mjGAIN_FIXED
    assert mj.actuator_biastype[ja.id] == mujoco.mjtBias.mjBIAS_AFFINE
    assert not mj.actuator_ctrllimited[ja.id] and not mj.actuator_actlimited[ja.id]
    assert mj.actuator_forcelimited[ja.id] and list(mj.actuator_forcerange[ja.id]) == [-30, 30]
    assert not mj.actuator_forcelimited[jb.id]  # an effort limit of 0: unknown, not limited
    assert mj.actuator_forcelimited[je.id] and list(mj.actuator_forcerange[je.id]) == [-0.5, 0.5]
    assert spec.actuator(names[0]).info == 'm.body:3' and spec.actuator(names[1]).info == ''


def test_passive_and_model_dofs():
    model = _chain()
    mj = build_spec(model, BuildOptions(ground_plane=False)).compile()
    dofs = passive_dofs(mj, model, '')
    ball = int(mj.joint('jd').dofadr[0])
    free = int(mj.joint('base_free').dofadr[0])
    other = int(mj.joint('jf').dofadr[0])
    assert sorted(dofs.tolist()) == sorted([*range(free, free + 6), *range(ball, ball + 3),
                                            *range(other, other + 6)])
    tree = sorted(set(range(mj.nv)) - set(range(other, other + 6)))
    assert model_dofs(mj, [int(mj.joint('ja').dofadr[0])]).tolist() == tree
    assert model_dofs(mj, [other + 2]).tolist() == list(range(other, other + 6))
    fixed = Model('fixed', model.links[:3], model.joints[:2], 'base')
    mj = build_spec(fixed, BuildOptions(ground_plane=False)).compile()
    assert passive_dofs(mj, fixed, '').tolist() == []
