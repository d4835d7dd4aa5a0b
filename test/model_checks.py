"""Checks every loaded model must pass, whatever its format (used by parametrized tests)."""

from __future__ import annotations

import math

import mujoco
import numpy as np

from body_bridge.fparser import mimic_formula
from body_bridge.model import Model
from body_bridge.sim.building.build import BuildOptions, build_spec
from body_bridge.urdf import to_urdf

from urdf_fk import urdf_forward_kinematics


def random_positions(model: Model, rng: np.random.Generator) -> dict[str, float]:
    """A random position for every 1-DOF joint, inside its limits; mimic joints follow."""
    q = {}
    for joint in model.movable_joints:
        if joint.mimic is not None:
            continue
        lo, hi = joint.limits.lower, joint.limits.upper
        span = math.pi if joint.type.value != 'prismatic' else 0.5
        lo = -span if lo is None else max(lo, -1e3)
        hi = span if hi is None else min(hi, 1e3)
        q[joint.name] = float(rng.uniform(lo, hi))
    for _ in range(len(model.joints)):  # mimic joints follow their formulas (chains settle)
        for joint in model.movable_joints:
            if joint.mimic is not None:
                formula = mimic_formula(joint.mimic)
                q[joint.name] = formula.evaluate({v: q.get(v, 0.0) for v in formula.variables})
    return q


def compare_fk(model: Model, urdf_text: str, trials: int = 5, seed: int = 0,
               tol: float = 1e-6) -> float:
    """Max disagreement [m or rad] between URDF and MuJoCo link poses at random positions."""
    spec = build_spec(model, BuildOptions(ground_plane=False))
    mj = spec.compile()
    data = mujoco.MjData(mj)
    rng = np.random.default_rng(seed)
    root = model.link(model.root).pose.matrix()
    worst = 0.0
    for _ in range(trials):
        q = random_positions(model, rng)
        mujoco.mj_resetData(mj, data)
        for name, value in q.items():
            data.qpos[mj.joint(name).qposadr[0]] = value
        mujoco.mj_kinematics(mj, data)
        world = urdf_forward_kinematics(urdf_text, q, root)
        for link in model.links:
            body = mj.body(link.name)
            t = world[link.name]
            dp = float(np.linalg.norm(t[:3, 3] - data.xpos[body.id]))
            r = t[:3, :3].T @ data.xmat[body.id].reshape(3, 3)
            da = math.acos(max(-1.0, min(1.0, (np.trace(r) - 1) / 2)))
            worst = max(worst, dp, da)
            assert dp <= tol and da <= tol, (
                f'{link.name}: URDF and MuJoCo disagree by {dp:.2e} m, {da:.2e} rad at {q}')
    return worst


def step_without_warnings(model: Model, seconds: float = 1.0) -> mujoco.MjData:
    """Compile and step; assert MuJoCo raised no warning and the state stayed finite."""
    mj = build_spec(model).compile()
    data = mujoco.MjData(mj)
    for i, name in enumerate(j.name for j in model.movable_joints):
        data.qpos[mj.joint(name).qposadr[0]] = model.joint(name).initial
    steps = int(round(seconds / mj.opt.timestep))
    mujoco.mj_step(mj, data, nstep=steps)
    warnings = {mujoco.mjtWarning(i).name: w.number for i, w in enumerate(data.warning) if w.number}
    assert not warnings, f'MuJoCo warnings: {warnings}'
    assert np.all(np.isfinite(data.qpos)), 'the state is not finite'
    return data


def check_masses(model: Model, mj: mujoco.MjModel | None = None) -> None:
    """MuJoCo's body masses are the model's link masses (massless links get a tiny bound)."""
    from body_bridge.sim.building.build import MIN_MASS
    mj = mj or build_spec(model).compile()
    for link in model.links:
        expected = 0.0 if link.inertial is None else link.inertial.mass
        got = mj.body(link.name).mass[0]
        if expected >= MIN_MASS:
            assert got == np.float64(expected) or abs(got - expected) <= 1e-9 * expected, link.name
        else:
            assert got <= MIN_MASS * 1.0001, link.name


def check_all(model: Model, tmp_path, check_urdf) -> str:
    """URDF accepted by check_urdf, URDF/MuJoCo FK agreement, masses, 1 s of stepping."""
    text = to_urdf(model, mesh_dir=tmp_path / 'meshes')
    path = tmp_path / f'{model.name}.urdf'
    path.write_text(text)
    ok, out = check_urdf(path)
    assert ok, out
    compare_fk(model, text)
    check_masses(model)
    step_without_warnings(model)
    return text
