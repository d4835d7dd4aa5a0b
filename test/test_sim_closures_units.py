"""Loop closures in MuJoCo, checked against the table of closures.py's docstring, against
geometry computed here and against the loop's inertia worked out by hand.

Each closure type is built between two links whose frames are turned at random; the chain's
joints, their axes and anchors in the world and the point the equality ties are compared with
the closure frame computed here (no simulation: one forward pass at the reference pose).
"""

import math

import mujoco
import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.model import Inertial, Joint, Link, LoopClosure, Model, Pose
from body_bridge.sim.building.build import BuildOptions, build_spec
from body_bridge.sim.mechanics.closures import (add_closure, closure_gaps, driven_joint,
                                                pose_for_frame, weigh_closure_drives)

from linkages import four_bar_parts

LENGTH = 0.35  # [m] the rod of the types that have one
X, Y, Z = 0, 1, 2  # columns of the closure frame
# The docstring's table: type -> (chain joints (kind, frame axis, anchor along x [in LENGTH]),
# tie, tie point along x [in LENGTH]).
TABLE = {
    'weld': ((), 'weld', 0),
    'ball': ((), 'connect', 0),
    'hinge': ((('hinge', Z, 0),), 'weld', 0),
    'slider': ((('slide', Z, 0),), 'weld', 0),
    'piston': ((('slide', Z, 0), ('hinge', Z, 0)), 'weld', 0),
    'universal': ((('hinge', X, 0), ('hinge', Y, 0)), 'weld', 0),
    'point_line': ((('slide', Z, 0),), 'connect', 0),
    'point_plane': ((('slide', X, 0), ('slide', Y, 0)), 'connect', 0),
    'distance': ((('ball', None, 0),), 'connect', 1),
    'revolute_spherical': ((('hinge', Z, 0),), 'connect', 1),
    'revolute_translational': ((('hinge', Z, 0), ('slide', Y, 1)), 'weld', 1),
}
MJ_JOINT = {'hinge': mujoco.mjtJoint.mjJNT_HINGE, 'slide': mujoco.mjtJoint.mjJNT_SLIDE,
            'ball': mujoco.mjtJoint.mjJNT_BALL}
MJ_EQ = {'weld': mujoco.mjtEq.mjEQ_WELD, 'connect': mujoco.mjtEq.mjEQ_CONNECT}


def _rotation(rng) -> np.ndarray:
    q = rng.normal(size=4)
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _pair(closure_of) -> tuple[mujoco.MjModel, mujoco.MjData]:
    """A base (the root) and an arm on a hinge; ``closure_of(arm_pose)`` closes between them."""
    arm = Pose((0.4, -0.2, 0.7), _rotation(np.random.default_rng(11)))
    links = (Link('base'), Link('arm', arm, Inertial(1.0, (0, 0, 0), np.eye(3) * 0.01)))
    joints = (Joint('j', 'revolute', 'base', 'arm', (0, 0, 1)),)
    model = Model('pair', links, joints, 'base', closures=(closure_of(arm),),
                  ground_plane=False)
    mj = build_spec(model, BuildOptions(ground_plane=False)).compile()
    data = mujoco.MjData(mj)
    mujoco.mj_forward(mj, data)
    return mj, data


def _world_point(mj, data, body: int, local) -> np.ndarray:
    return data.xpos[body] + data.xmat[body].reshape(3, 3) @ np.asarray(local)


def _check_chain(mj, data, kind: str, frame: Pose) -> None:
    joints, tie, tie_at = TABLE[kind]
    rot, origin = frame.rot, frame.pos
    names = [mj.body(i).name for i in range(mj.nbody)]
    assert [n for n in names if n.startswith('c:')] == [f'c:virtual{i}'
                                                         for i in range(len(joints))]
    for index, (jkind, column, along) in enumerate(joints):
        joint = mj.joint(f'c:{jkind}{index}')
        assert mj.jnt_type[joint.id] == MJ_JOINT[jkind]
        assert mj.body_mass[joint.bodyid[0]] == pytest.approx(1e-4)
        np.testing.assert_allclose(data.xanchor[joint.id], origin + along * LENGTH * rot[:, 0],
                                   atol=1e-12)
        if column is not None:
            np.testing.assert_allclose(data.xaxis[joint.id], rot[:, column], atol=1e-12)
    eq = mj.eq('c').id
    assert mj.eq_type[eq] == MJ_EQ[tie]
    assert mj.eq_obj2id[eq] == mj.body('arm').id
    body1 = mj.body(f'c:virtual{len(joints) - 1}' if joints else 'base').id
    assert mj.eq_obj1id[eq] == body1
    point = origin + tie_at * LENGTH * rot[:, 0]
    if tie == 'connect':  # the anchor is given on body1
        np.testing.assert_allclose(_world_point(mj, data, body1, mj.eq_data[eq][:3]), point,
                                   atol=1e-12)
    else:  # a weld's anchor is given on body2
        np.testing.assert_allclose(
            _world_point(mj, data, mj.body('arm').id, mj.eq_data[eq][:3]), point, atol=1e-12)
    assert closure_gaps(mj, data) == {'c': pytest.approx(0.0, abs=1e-12)}


@pytest.mark.parametrize('kind', sorted(TABLE))
def test_each_type_builds_the_chain_of_the_table_in_the_closure_frame(kind):
    rng = np.random.default_rng(5)
    frame = Pose(rng.normal(size=3), _rotation(rng))
    at_l = TABLE[kind][2] * LENGTH
    # pose_for_frame puts the closure frame exactly at ``frame`` (axis +z, of any length).
    mj, data = _pair(lambda arm: LoopClosure(
        'c', kind, 'base', 'arm', pose_for_frame(frame),
        arm.inverse() @ frame @ Pose((at_l, 0.0, 0.0)), axis=(0.0, 0.0, 2.5), length=LENGTH))
    _check_chain(mj, data, kind, frame)


@pytest.mark.parametrize('kind', ['hinge', 'slider', 'piston', 'point_line'])
@pytest.mark.parametrize('axis', [(0.3, -1.2, 0.8), (3.0, 0.5, 0.0), (-2.0, 0.0, 0.1)])
def test_a_bare_axis_of_any_length_is_the_freedom_s_axis(kind, axis):
    """Types whose freedoms are along or about z: pose1 and an axis (not a unit vector, near
    x too) give them, whatever x and y the frame gets."""
    pose1 = Pose((0.1, 0.2, -0.3), _rotation(np.random.default_rng(2)))
    mj, data = _pair(lambda arm: LoopClosure('c', kind, 'base', 'arm', pose1,
                                             arm.inverse() @ pose1, axis=axis))
    z = pose1.rot @ np.asarray(axis) / np.linalg.norm(axis)
    for index, (jkind, column, _) in enumerate(TABLE[kind][0]):
        joint = mj.joint(f'c:{jkind}{index}').id
        np.testing.assert_allclose(data.xaxis[joint], z, atol=1e-12)
        np.testing.assert_allclose(data.xanchor[joint], pose1.pos, atol=1e-12)
    assert closure_gaps(mj, data) == {'c': pytest.approx(0.0, abs=1e-12)}


def test_a_ball_closure_ties_its_frames_whatever_length_it_is_given():
    """Only the last three types use the length: a ball's point stays at its frames."""
    frame = Pose((0.2, 0.1, 0.5), _rotation(np.random.default_rng(7)))
    mj, data = _pair(lambda arm: LoopClosure('c', 'ball', 'base', 'arm', pose_for_frame(frame),
                                             arm.inverse() @ frame, length=0.8))
    eq = mj.eq('c').id
    np.testing.assert_allclose(_world_point(mj, data, mj.body('base').id, mj.eq_data[eq][:3]),
                               frame.pos, atol=1e-12)


def test_the_length_argument_overrides_the_closure_s_length():
    frame = Pose((0.2, 0.1, 0.5), _rotation(np.random.default_rng(8)))
    arm = Pose((0.4, -0.2, 0.7))
    links = (Link('base'), Link('arm', arm, Inertial(1.0, (0, 0, 0), np.eye(3) * 0.01)))
    model = Model('pair', links, (Joint('j', 'revolute', 'base', 'arm', (0, 0, 1)),), 'base',
                  ground_plane=False)
    spec = build_spec(model, BuildOptions(ground_plane=False))
    add_closure(spec, LoopClosure('c', 'distance', 'base', 'arm', pose_for_frame(frame),
                                  arm.inverse() @ frame @ Pose((0.6, 0, 0)), length=0.0),
                length=0.6)
    mj = spec.compile()
    data = mujoco.MjData(mj)
    mujoco.mj_forward(mj, data)
    eq = mj.eq('c').id
    np.testing.assert_allclose(
        _world_point(mj, data, mj.body('c:virtual0').id, mj.eq_data[eq][:3]),
        frame.pos + 0.6 * frame.rot[:, 0], atol=1e-12)


@pytest.mark.parametrize('kind, motor, joint, mj_type', [
    ('hinge', 'rotation', 'hinge0', 'hinge'), ('slider', 'linear', 'slide0', 'slide'),
    ('piston', 'rotation', 'hinge1', 'hinge'), ('piston', 'linear', 'slide0', 'slide')])
def test_a_motor_drives_the_chain_joint_of_its_kind(kind, motor, joint, mj_type):
    closure = LoopClosure('c', kind, 'base', 'arm', Pose(), Pose())
    assert driven_joint(closure, motor) == f'c:{joint}'
    mj, _ = _pair(lambda arm: LoopClosure('c', kind, 'base', 'arm', Pose(), arm.inverse()))
    assert mj.jnt_type[mj.joint(f'c:{joint}').id] == MJ_JOINT[mj_type]


@pytest.mark.parametrize('kind, motor', [('ball', 'rotation'), ('hinge', 'linear'),
                                         ('slider', 'rotation'), ('universal', 'rotation')])
def test_a_closure_without_the_motor_s_freedom_is_refused(kind, motor):
    closure = LoopClosure('c', kind, 'base', 'arm', Pose(), Pose())
    with pytest.raises(ValueError, match=f"closure 'c' \\({kind}\\) has no {motor} freedom"):
        driven_joint(closure, motor)


def _four_bar(*closures) -> Model:
    """A parallelogram in the x-z plane: crank at the origin, rocker at x = 0.5 (both 0.3 m,
    1 kg at 0.15 m, 0.01 kg m^2 about the centre), a 0.5 m coupler (1 kg) on top; hinges
    about y."""
    links, joints = four_bar_parts()
    return Model('four_bar', links, joints, 'ground', closures=closures, ground_plane=False)


def _rot_y(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


@pytest.mark.parametrize('kind', ['ball', 'weld', 'hinge'])
def test_closure_gaps_are_the_distance_between_the_tied_points(kind):
    loop = LoopClosure('loop', kind, 'coupler', 'rocker', Pose((0.5, 0, 0)), Pose((0, 0, 0.3)),
                       axis=(0, 1, 0))
    pin = LoopClosure('pin', 'weld', 'crank', 'coupler', Pose((0, 0, 0.3)), Pose())
    mj = build_spec(_four_bar(loop, pin), BuildOptions(ground_plane=False)).compile()
    data = mujoco.MjData(mj)
    for b, d in [(0.0, 0.2), (0.3, -0.1), (-0.25, 0.0)]:
        data.qpos[mj.joint('b').qposadr[0]] = b
        data.qpos[mj.joint('d').qposadr[0]] = d
        mujoco.mj_forward(mj, data)
        # With the crank upright, the coupler turns by b about (0, 0, 0.3), the rocker by d
        # about (0.5, 0, 0).
        coupler_end = np.array([0, 0, 0.3]) + _rot_y(b) @ (0.5, 0, 0)
        rocker_top = np.array([0.5, 0, 0]) + _rot_y(d) @ (0, 0, 0.3)
        gaps = closure_gaps(mj, data)
        assert gaps == {'loop': pytest.approx(np.linalg.norm(coupler_end - rocker_top),
                                              abs=1e-12),
                        'pin': pytest.approx(0.0, abs=1e-12)}
        assert gaps['loop'] > 0.02


@pytest.mark.parametrize('jacobian', ['dense', 'sparse'])
def test_a_closure_drive_gets_the_inverse_inertia_of_the_whole_loop(jacobian):
    """Turning the hinge closure's joint by dq turns crank and rocker (each 0.01 + 1 * 0.15^2
    kg m^2 about its pivot) by dq and moves the level coupler (1 kg) by 0.3 dq; the chain's
    virtual body (1e-4 kg, 1e-8 kg m^2, its joint's armature 1e-6 kg m^2) sits on the coupler's
    end and turns with the rocker. Weighed from a state no forward pass has seen, with the
    constraint Jacobian MuJoCo keeps dense for small models and sparse for large ones."""
    loop = LoopClosure('loop', 'hinge', 'coupler', 'rocker', Pose((0.5, 0, 0)),
                       Pose((0, 0, 0.3)), axis=(0, 1, 0))
    model = _four_bar(loop)
    mj = build_spec(model, BuildOptions(ground_plane=False)).compile()
    mj.opt.jacobian = {'dense': mujoco.mjtJacobian.mjJAC_DENSE,
                       'sparse': mujoco.mjtJacobian.mjJAC_SPARSE}[jacobian]
    data = mujoco.MjData(mj)
    dof = int(mj.joint('loop:hinge0').dofadr[0])
    weigh_closure_drives(mj, data, model, '', [dof])
    inertia = 2 * (0.01 + 0.15 ** 2) + 1.0 * 0.3 ** 2 + 1e-4 * 0.3 ** 2 + 1e-8 + 1e-6
    assert mj.dof_invweight0[dof] == pytest.approx(1 / inertia, rel=1e-9)


def test_a_closure_the_integrator_refuses_is_named_by_its_source_line():
    """A ball closure of a link to itself: the model check refuses it in one line, and where
    one reaches MuJoCo all the same (added to a built spec), the compiler's error names the
    line the closure came from."""
    loop = LoopClosure('loop', 'ball', 'coupler', 'coupler', Pose((0.5, 0, 0)),
                       Pose((0.5, 0, 0)), source='four_bar.body:12')
    with pytest.raises(ModelError, match="four_bar.body:12: loop closure 'loop' joins link "
                                         "'coupler' to itself"):
        _four_bar(loop)
    spec = build_spec(_four_bar(), BuildOptions(ground_plane=False))
    add_closure(spec, loop, timestep=spec.option.timestep)
    with pytest.raises(ValueError, match='four_bar.body:12'):
        spec.compile()


def test_a_weld_closure_holds_a_torque_as_stiffly_as_its_time_constant_allows():
    """A link on a hinge, locked to the ground by a weld closure on the hinge axis, under a
    torque tau. At rest MuJoCo's soft constraint gives f R = -k r (R = (1 - d) / d * A, A the
    link's rotational inverse weight, k = 1 / (d^2 T^2) for critical damping, d = 0.9999, T =
    two time steps, as add_closure asks). A weld's rotational residual is the vector part of
    the relative quaternion, theta / 2, on Jacobian rows half the angular ones, scaled by the
    torquescale (1: rotation held like position): tau = f / 2, so theta = 4 tau R / k."""
    links = (Link('ground'), Link('arm', Pose(), Inertial(2.0, (0.3, 0, 0),
                                                          np.diag([0.01, 0.02, 0.03]))))
    joints = (Joint('h', 'continuous', 'ground', 'arm', (0, 0, 1)),)
    lock = LoopClosure('lock', 'weld', 'ground', 'arm', Pose((0, 0, 0.1)), Pose((0, 0, 0.1)))
    model = Model('lock', links, joints, 'ground', closures=(lock,), ground_plane=False,
                  gravity=(0.0, 0.0, 0.0))
    mj = build_spec(model, BuildOptions(ground_plane=False)).compile()
    data = mujoco.MjData(mj)
    dof, tau = mj.joint('h').dofadr[0], 5.0
    for _ in range(2000):  # 1000 time constants: at rest
        data.qfrc_applied[dof] = tau
        mujoco.mj_step(mj, data)
    assert abs(data.qvel[dof]) < 1e-9
    d, period = 0.9999, 2 * mj.opt.timestep
    inverse_weight = mj.body_invweight0[mj.body('arm').id][1]
    stiffness = 1 / (d ** 2 * period ** 2)
    theta = 4 * tau * (1 - d) / d * inverse_weight / stiffness
    assert data.qpos[mj.joint('h').qposadr[0]] == pytest.approx(theta, rel=1e-3)
