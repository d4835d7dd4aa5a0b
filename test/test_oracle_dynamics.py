"""The URDF's dynamics against an independent rigid-body library (Pinocchio).

For every real model of the shared set and every sample model, Pinocchio reads the URDF the
bridge writes and computes, at seeded random configurations, the total mass, the centre of
mass, the joint-space mass matrix (CRBA) and the gravity torques; they must equal what the
integrator computes from the model (MuJoCo's ``mj_fullM``, ``subtree_com`` and
``qfrc_bias`` at zero velocity) to rounding. Where the two cannot agree the cause is named:

* rotor inertia (``armature``) is the integrator's alone: it is taken off MuJoCo's diagonal;
* the integrator changes some links on purpose (``MIN_MASS``, ``MIN_INERTIA``, inertias that
  break the triangle inequality balanced): each changed link must be one of these, the
  model's expected causes are listed below (``CHANGES``), and Pinocchio gets the changed
  link through the same URDF writer;
* ball joints become URDF ``floating`` joints (6 freedoms, 3 in the integrator), and free
  joints inside the tree are free bodies of the world in the integrator: the parts beyond
  them are compared apart, each as a floating model of its own;
* loop closures, springs, motors and loads act through constraints and forces, not through
  the mass matrix or gravity: they are left out of both sides.
"""

from __future__ import annotations

import dataclasses
import math

import mujoco
import numpy as np
import pytest

from body_bridge.model import Inertial, JointType, Model
from body_bridge.sim.building.build import MIN_INERTIA, MIN_MASS, BuildOptions, build_spec
from body_bridge.urdf import to_urdf

from model_checks import random_positions
from model_files import MODEL_FILES, loaded, name_of

pin = pytest.importorskip('pinocchio', reason='Pinocchio (PyPI pin) has no wheel for this '
                          'Python or numpy; tools/setup.sh installs it where it has')


BOUND_MASS = 'mass below MIN_MASS raised to it'
BOUND_INERTIA = 'principal moment below MIN_INERTIA raised to it'
BALANCED = 'inertia breaking the triangle inequality balanced'

#: What the integrator changes on purpose, per model: cause -> number of links (a model not
#: listed: nothing). Massless links (Chrono's ground, environments' floors, the links of
#: joints URDF lacks, the belt links an AGX track device becomes) get MIN_MASS; inertias beyond
#: the triangle inequality (A + B < C) are balanced, those at it (flat plates such as the
#: quadcopter's propellers) kept.
CHANGES = {
    'choreonoid/sample/WRS2018/model/TerrainA.body': {BOUND_MASS: 3},
    'choreonoid/sample/WRS2018/model/Victim.body': {BALANCED: 2},
    'choreonoid/sample/WRS2018/model/VictimQRC.body': {BALANCED: 2, BOUND_MASS: 1},
    'choreonoid/share/model/AizuSpider/AizuSpiderDA.body': {BALANCED: 4, BOUND_MASS: 6},
    'choreonoid/share/model/AizuSpider/AizuSpiderNA.body': {BALANCED: 4, BOUND_MASS: 6},
    'choreonoid/share/model/AizuSpider/AizuSpiderSA.body': {BALANCED: 4, BOUND_MASS: 6},
    'choreonoid/share/model/SR1/SR1-floor-box.body': {BOUND_MASS: 1},
    'choreonoid/share/model/Tank/AgxTank.body': {BALANCED: 1},
    'choreonoid/share/model/Tank/PxTank.body': {BALANCED: 1},
    'choreonoid/share/model/Tank/Tank.body': {BALANCED: 1},
    'choreonoid/share/model/Tank/TankBody.body': {BALANCED: 1},
    'choreonoid/share/model/UniversalRobots/UR5.body': {BOUND_MASS: 1},
    'choreonoid/share/model/misc/BoxesOnFloor.body': {BOUND_MASS: 1},
    'choreonoid/share/model/misc/fire.body': {BOUND_MASS: 1},
    'choreonoid/share/model/misc/floor.body': {BOUND_MASS: 1},
    'choreonoid/share/model/misc/floor2.body': {BOUND_MASS: 1},
    'choreonoid/share/model/misc/fountain.body': {BOUND_MASS: 1},
    'choreonoid/share/model/misc/grayfloor.body': {BOUND_MASS: 1},
    'choreonoid/share/model/misc/longtable.body': {BOUND_MASS: 1},
    'choreonoid/share/model/misc/mid360.body': {BOUND_MASS: 1},
    'choreonoid/share/model/misc/minitable.body': {BOUND_MASS: 1},
    'choreonoid/share/model/misc/pyramid.body': {BOUND_MASS: 3},
    'choreonoid/share/model/misc/rain.body': {BOUND_MASS: 1},
    'choreonoid/share/model/misc/snow.body': {BOUND_MASS: 1},
    'choreonoid/share/model/misc/stand.body': {BOUND_MASS: 1},
    'chrono/data/yaml/mbs/model_bushing.yaml': {BOUND_MASS: 6},
    'chrono/data/yaml/mbs/model_inverted_pendulum_motor.yaml': {BOUND_MASS: 1},
    'chrono/data/yaml/mbs/model_motors.yaml': {BOUND_MASS: 1},
    'chrono/data/yaml/mbs/model_slider_crank_reduced.yaml': {BOUND_MASS: 1},
    'chrono/data/yaml/fsi/baffle_flow/model_mbs.yaml': {BOUND_MASS: 4},
    'chrono/data/yaml/fsi/baffle_flow/mbs.yaml': {BOUND_MASS: 4},
    'chrono/data/yaml/fsi/dam_break/model_mbs.yaml': {BOUND_MASS: 1},
    'chrono/data/yaml/fsi/dam_break/mbs.yaml': {BOUND_MASS: 1},
    'chrono/data/precice/flap_openfoam/solid_chrono/mbs_model.yaml': {BALANCED: 1, BOUND_MASS: 1},
    'chrono/data/precice/flap_openfoam/solid_chrono/mbs_participant.yaml':
        {BALANCED: 1, BOUND_MASS: 1},
    'chrono/historical/58ece18a/data/yaml/models/motors.yaml': {BOUND_MASS: 1},
    'chrono/historical/58ece18a/data/yaml/models/slider_crank.yaml': {BOUND_MASS: 1},
    'test/data/chrono/bushing.yaml': {BOUND_MASS: 11},
    'test/data/chrono/constraints.yaml': {BOUND_MASS: 1},
    'test/data/chrono/controllers.yaml': {BALANCED: 2, BOUND_MASS: 1},
    'test/data/chrono/double_pendulum.yaml': {BOUND_MASS: 1},
    'test/data/chrono/four_bar.yaml': {BOUND_MASS: 1},
    'test/data/chrono/meshes.yaml': {BOUND_MASS: 1},
    'test/data/chrono/motors.yaml': {BOUND_MASS: 11},
    'test/data/chrono/pendulum.yaml': {BOUND_MASS: 1},
    'test/data/chrono/point_line.yaml': {BOUND_MASS: 2},
    'test/data/chrono/point_plane.yaml': {BOUND_MASS: 3},
    'test/data/chrono/springs.yaml': {BOUND_MASS: 1},
    'test/data/chrono/universal_shaft.yaml': {BOUND_MASS: 2},
}


# --- the part of a model the mass matrix sees ------------------------------------------------


def _beyond(model: Model, joint_names) -> set[str]:
    """Links at or beyond the children of these joints."""
    children: dict[str, list[str]] = {}
    for j in model.joints:
        children.setdefault(j.parent, []).append(j.child)
    out, todo = set(), [model.joint(n).child for n in joint_names]
    while todo:
        link = todo.pop()
        out.add(link)
        todo.extend(children.get(link, ()))
    return out


def tree_part(model: Model) -> tuple[Model, list[Model]]:
    """The model without what ball and inner free joints carry (those parts returned apart,
    each a floating model of its own), and without closures, forces and devices."""
    cut = [j for j in model.joints if j.type in (JointType.BALL, JointType.FREE)]
    beyond = _beyond(model, [j.name for j in cut])
    apart = []
    for j in cut:
        if j.parent in beyond:
            continue  # inside another part: it goes with it
        links = _beyond(model, [j.name])
        apart.append(_keep(model, links, root=j.child, root_joint=JointType.FREE))
    keep = {link.name for link in model.links} - beyond
    return _keep(model, keep, model.root, model.root_joint), apart


def _keep(model: Model, names: set[str], root: str, root_joint: JointType) -> Model:
    joints = []
    for j in model.joints:
        if j.parent in names and j.child in names:
            if j.type in (JointType.BALL, JointType.FREE):
                continue
            if j.mimic is not None and j.mimic.joint not in {k.name for k in model.joints
                                                             if k.child in names}:
                j = dataclasses.replace(j, mimic=None)
            joints.append(j)
    links = tuple(link for link in model.links if link.name in names)
    kept = {j.child for j in joints} | {root}
    links = tuple(link for link in links if link.name in kept)
    joint_names = {j.name for j in joints}
    joints = [j if j.mimic is None or j.mimic.joint in joint_names
              else dataclasses.replace(j, mimic=None) for j in joints]
    return dataclasses.replace(
        model, links=links, joints=tuple(joints), root=root, root_joint=root_joint,
        devices=(), closures=(), frames=(), springs=(), bushings=(), motors=(), loads=(),
        initial_velocities=(), contacts=(), manipulators=(), adjacent=(),
        passive_joints=tuple(n for n in model.passive_joints if n in joint_names))


# --- what the integrator made of each link ---------------------------------------------------


def _mj_inertial(mj, body: int) -> Inertial:
    rot = np.zeros(9)
    mujoco.mju_quat2Mat(rot, mj.body_iquat[body])
    rot = rot.reshape(3, 3)
    tensor = rot @ np.diag(mj.body_inertia[body]) @ rot.T
    return Inertial(float(mj.body_mass[body]), tuple(mj.body_ipos[body]), tensor)


def _cause(model_inertial: Inertial | None, mj_inertial: Inertial) -> str | None:
    """Why the integrator's inertial differs from the model's (None: it does not)."""
    mass = 0.0 if model_inertial is None else model_inertial.mass
    if mass < MIN_MASS:
        return BOUND_MASS if math.isclose(mj_inertial.mass, MIN_MASS) else 'unexplained mass'
    tensor = np.asarray(model_inertial.inertia)
    scale = max(float(np.abs(tensor).max()), 1e-300)
    same_mass = math.isclose(mj_inertial.mass, mass, rel_tol=1e-12)
    same_com = np.allclose(mj_inertial.com, model_inertial.com, rtol=0, atol=1e-12)
    if not (same_mass and same_com):
        return 'unexplained mass or centre of mass'
    if np.allclose(mj_inertial.inertia, tensor, rtol=0, atol=1e-9 * scale):
        return None
    moments = np.linalg.eigvalsh(tensor)
    if moments[0] < MIN_INERTIA:
        return BOUND_INERTIA
    a, b, c = moments
    if a + b <= c * (1 + 1e-9):  # MuJoCo balances equality too (within rounding)
        return BALANCED
    return 'unexplained inertia'


def as_integrated(model: Model, mj) -> tuple[Model, dict[str, str]]:
    """The model with each link's inertial as the integrator has it, and why it changed."""
    causes = {}
    links = []
    for link in model.links:
        body = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, link.name)
        if body <= 0:  # the world body itself
            links.append(link)
            continue
        got = _mj_inertial(mj, body)
        cause = _cause(link.inertial, got)
        if cause is None:
            links.append(link)
        else:
            causes[link.name] = cause
            links.append(dataclasses.replace(link, inertial=got))
    return dataclasses.replace(model, links=tuple(links)), causes


# --- the two computations --------------------------------------------------------------------


class Pair:
    """One model in MuJoCo and in Pinocchio (from its URDF), with the map between their
    coordinates."""

    def __init__(self, model: Model):
        self.model = model
        self.mj = build_spec(model, BuildOptions(ground_plane=False)).compile()
        self.data = mujoco.MjData(self.mj)
        integrated, self.causes = as_integrated(model, self.mj)
        text = to_urdf(_without_shapes(integrated))
        self.free = model.root_joint == JointType.FREE
        self.pin = (pin.buildModelFromXML(text, pin.JointModelFreeFlyer()) if self.free
                    else pin.buildModelFromXML(text))
        self.pdata = self.pin.createData()
        root = model.link(model.root).pose
        self.root = root
        gravity = self.mj.opt.gravity.copy()
        self.pin.gravity.linear = gravity if self.free else root.rot.T @ gravity

    def configure(self, rng) -> tuple[np.ndarray, np.ndarray]:
        """A random configuration in both; returns (MuJoCo qpos, Pinocchio q)."""
        mj, model = self.mj, self.model
        q = random_positions(model, rng)
        qpos = mj.qpos0.copy()
        qp = pin.neutral(self.pin)
        if self.free:
            quat = rng.normal(size=4)
            quat /= np.linalg.norm(quat)
            pos = rng.uniform(-1, 1, 3)
            qpos[0:3], qpos[3:7] = pos, quat
            qp[0:3], qp[3:7] = pos, [*quat[1:], quat[0]]
        for name, value in q.items():
            qpos[mj.joint(name).qposadr[0]] = value
            joint = self.pin.joints[self.pin.getJointId(name)]
            if joint.nq == 2:
                qp[joint.idx_q:joint.idx_q + 2] = math.cos(value), math.sin(value)
            else:
                qp[joint.idx_q] = value
        self.data.qpos[:] = qpos
        self.data.qvel[:] = 0.0
        mujoco.mj_forward(mj, self.data)
        return qpos, qp

    def centre_of_mass(self, q, total: float) -> np.ndarray:
        """Pinocchio's centre of mass of every body, those fixed to its world included."""
        pin.forwardKinematics(self.pin, self.pdata, q)
        moment = sum(self.pin.inertias[i].mass * self.pdata.oMi[i].act(self.pin.inertias[i].lever)
                     for i in range(self.pin.njoints))
        return moment / total

    def velocity_map(self) -> np.ndarray:
        """T with v_pinocchio = T v_mujoco (MuJoCo's free-joint linear velocity is in the
        world frame, Pinocchio's in the body frame)."""
        mj = self.mj
        t = np.zeros((self.pin.nv, mj.nv))
        start = 0
        if self.free:
            t[0:3, 0:3] = self.data.xmat[mj.body(self.model.root).id].reshape(3, 3).T
            t[3:6, 3:6] = np.eye(3)
        for j in range(mj.njnt):
            name = mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_JOINT, j)
            if mj.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
                continue
            joint = self.pin.joints[self.pin.getJointId(name)]
            t[joint.idx_v, mj.jnt_dofadr[j]] = 1.0
            start += 1
        assert start + (6 if self.free else 0) == mj.nv == self.pin.nv
        return t


def without_belts(model: Model) -> Model:
    """The model with its tracks as the fixed joints the URDF writes: the integrator gives each
    track a belt body of its own (``sim/mechanics/tracks.py``, MIN_MASS and a hinge) that moves the track's
    surface; the URDF has no such link, so the two are compared without it."""
    if not any(j.type == JointType.TRACK for j in model.joints):
        return model
    return dataclasses.replace(model, joints=tuple(
        dataclasses.replace(j, type=JointType.FIXED) if j.type == JointType.TRACK else j
        for j in model.joints))


def _without_shapes(model: Model) -> Model:
    return dataclasses.replace(model, links=tuple(
        dataclasses.replace(link, visuals=(), collisions=()) for link in model.links))


def _close(a, b, what: str, scale: float) -> None:
    err = float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) if np.size(a) else 0.0
    assert err <= 1e-9 * max(scale, 1.0), f'{what}: Pinocchio and MuJoCo differ by {err:.3g}'


def compare(model: Model, trials: int = 3, seed: int = 0) -> dict[str, str]:
    """Assert the two agree; return the integrator's changes (link -> cause)."""
    pair = Pair(model)
    mj, data = pair.mj, pair.data
    total = float(sum(pair.pin.inertias[i].mass for i in range(pair.pin.njoints)))
    _close(total, mj.body_mass.sum(), 'total mass', total)
    rng = np.random.default_rng(seed)
    for _ in range(trials):
        _, q = pair.configure(rng)
        t = pair.velocity_map()
        mass = np.zeros((mj.nv, mj.nv))
        mujoco.mj_fullM(mj, data, mass)
        mass -= np.diag(mj.dof_armature)
        pmass = pin.crba(pair.pin, pair.pdata, q)
        pmass = np.triu(pmass) + np.triu(pmass, 1).T
        scale = float(np.abs(mass).max()) if mass.size else 1.0
        _close(t.T @ pmass @ t, mass, f'{model.name}: mass matrix', scale)
        gravity = pin.computeGeneralizedGravity(pair.pin, pair.pdata, q)
        _close(t.T @ gravity, data.qfrc_bias, f'{model.name}: gravity torques',
               scale * 10.0)
        if total > 0:
            com = pair.centre_of_mass(q, total)
            if not pair.free:
                com = pair.root.rot @ com + pair.root.pos
            _close(com, data.subtree_com[0], f'{model.name}: centre of mass', 1.0)
    return pair.causes


@pytest.mark.parametrize('path', MODEL_FILES)
def test_urdf_dynamics_equal_the_integrators(path):
    model = without_belts(loaded(path))
    tree, apart = tree_part(model)
    causes = {}
    for part in (tree, *apart):
        causes.update(compare(part))
    counts = {cause: list(causes.values()).count(cause) for cause in set(causes.values())}
    assert counts == CHANGES.get(name_of(path), {}), causes
