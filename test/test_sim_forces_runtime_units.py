"""The runtime forces of springs and bushings (forces_runtime.py), checked as generalised
forces against the element's law and its coordinates differentiated numerically.

A free base (MuJoCo's body 1) carries an arm on a hinge; both move (the base turns and
translates, the hinge turns) when one ``before_step`` computes the element's wrenches. The
element's coordinate c(q) (a length, an angle, a bushing's displacement) is computed here from
the bodies' poses; J = dc/dq by central differences, its rate J qdot, and the generalised force
the element must give is J^T f(c, J qdot). The wrenches ``before_step`` writes are mapped to
generalised forces by MuJoCo (``mj_applyFT``) and compared.
"""

import math

import mujoco
import numpy as np
import pytest

from body_bridge.model import (Bushing, Function, Inertial, Joint, Link, Load, Model, Motor,
                               Pose, Spring)
from body_bridge.sim.names import Mode
from body_bridge.sim.simulation import SimOptions, Simulation


def _rotation(rng) -> np.ndarray:
    q = rng.normal(size=4)
    return Pose.from_quat(q).rot


def _rot_z(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


ARM = Pose((0.2, 0.1, 1.0), _rotation(np.random.default_rng(4)))  # the arm at the reference
AXIS = ARM.rot[:, 2]  # the hinge's axis (the arm's z) in the world at the reference


def _model(**elements) -> Model:
    links = (Link('base', Pose((0, 0, 1.0)),
                  Inertial(2.0, (0.05, 0, 0), np.diag([0.02, 0.03, 0.04]))),
             Link('arm', ARM, Inertial(1.0, (0.1, 0.02, 0), np.diag([0.01, 0.012, 0.014]))))
    joints = (Joint('h', 'continuous', 'base', 'arm', (0, 0, 1)),)
    return Model('pair', links, joints, 'base', root_joint='free', gravity=(0.0, 0.0, 0.0),
                 ground_plane=False, passive_joints=('h',), **elements)


def _curve(stiffness: float) -> np.ndarray:
    """A spring curve that is ``stiffness`` times the deformation over +-20."""
    return np.array([[-20.0, -20.0 * stiffness], [20.0, 20.0 * stiffness]])


def _moving(model: Model):
    sim = Simulation(model, SimOptions())
    m, d = sim.mj, sim.data
    rng = np.random.default_rng(9)
    d.qpos[:3] = (0.1, -0.2, 1.1)
    d.qpos[3:7] = rng.normal(size=4)
    d.qpos[3:7] /= np.linalg.norm(d.qpos[3:7])
    d.qpos[m.joint('h').qposadr[0]] = 0.35
    d.qvel[:] = rng.normal(size=m.nv)
    d.xfrc_applied[:] = 0.0
    mujoco.mj_forward(m, d)
    return sim


def _generalised(sim) -> np.ndarray:
    """The generalised force of the wrenches ``before_step`` applies."""
    m, d = sim.mj, sim.data
    sim.forces.before_step(sim)
    out = np.zeros(m.nv)
    for body in range(1, m.nbody):
        force, torque = d.xfrc_applied[body, :3].copy(), d.xfrc_applied[body, 3:].copy()
        mujoco.mj_applyFT(m, d, force, torque, d.xipos[body].copy(), body, out)
    return out


def _jacobian(sim, coordinates, h: float = 1e-6):
    """c(q), dc/dv (central differences along each velocity direction) at the current state."""
    m, d = sim.mj, sim.data
    scratch = mujoco.MjData(m)

    def at(dv):
        scratch.qpos[:] = d.qpos
        mujoco.mj_integratePos(m, scratch.qpos, dv, 1.0)
        mujoco.mj_kinematics(m, scratch)
        return np.atleast_1d(coordinates(m, scratch))

    c0 = at(np.zeros(m.nv))
    jac = np.zeros((c0.size, m.nv))
    for i in range(m.nv):
        step = np.zeros(m.nv)
        step[i] = h
        jac[:, i] = (at(step) - at(-step)) / (2 * h)
    return c0, jac


def _pose_of(m, data, link: str, pose: Pose) -> tuple[np.ndarray, np.ndarray]:
    body = m.body(link).id
    rot = data.xmat[body].reshape(3, 3)
    return data.xpos[body] + rot @ pose.pos, rot @ pose.rot


def _rotation_vector(rot: np.ndarray) -> np.ndarray:
    angle = math.acos(max(-1.0, min(1.0, (np.trace(rot) - 1) / 2)))
    skew = np.array([rot[2, 1] - rot[1, 2], rot[0, 2] - rot[2, 0], rot[1, 0] - rot[0, 1]])
    return skew / 2 if angle < 1e-12 else skew * angle / (2 * math.sin(angle))


def _check(sim, coordinates, law):
    c, jac = _jacobian(sim, coordinates)
    rate = jac @ sim.data.qvel
    expected = jac.T @ law(c, rate)
    np.testing.assert_allclose(_generalised(sim), expected, rtol=1e-6, atol=1e-8)
    return c, rate


def test_a_translational_spring_pushes_along_its_line_by_its_law():
    """F = preload - k (L - rest) - c dL/dt pushes the points apart: Q = F dL/dq."""
    p1, p2 = Pose((0.3, -0.1, 0.05)), Pose((0.25, 0.2, -0.1))
    spring = Spring('tsda', 'translational', 'base', 'arm', p1, p2, rest=0.2, preload=3.0,
                    spring_curve=_curve(40.0), damping=1.5)
    sim = _moving(_model(springs=(spring,)))

    def length(m, data):
        return np.linalg.norm(_pose_of(m, data, 'base', p1)[0] - _pose_of(m, data, 'arm', p2)[0])
    c, rate = _check(sim, length, lambda c, v: 3.0 - 40.0 * (c - 0.2) - 1.5 * v)
    assert abs(rate[0]) > 0.1  # the damping takes part


def test_a_rotational_spring_turns_the_arm_about_its_axis_by_its_law():
    """T = preload - k (angle - rest) - c d(angle)/dt on link2 about link1's z, -T on link1."""
    frame1 = Pose((0.1, 0.0, 0.0), ARM.rot @ _rot_z(0.4))  # z along the hinge, turned
    frame2 = Pose((0.0, 0.05, 0.0), ARM.rot.T @ frame1.rot)  # coinciding at the reference
    spring = Spring('rsda', 'rotational', 'base', 'arm', frame1, frame2, rest=0.1,
                    preload=0.5, spring_curve=_curve(7.0), damping=0.2)
    sim = _moving(_model(springs=(spring,)))

    def angle(m, data):
        rot1, rot2 = _pose_of(m, data, 'base', frame1)[1], _pose_of(m, data, 'arm', frame2)[1]
        rel = rot1.T @ rot2
        return math.atan2(rel[1, 0], rel[0, 0])
    c, _ = _check(sim, angle, lambda c, v: 0.5 - 7.0 * (c - 0.1) - 0.2 * v)
    assert c[0] == pytest.approx(0.35, abs=1e-12)  # the hinge's angle


def test_a_joint_spring_acts_on_its_joint_by_its_law():
    spring = Spring('js', 'joint', joint='h', rest=-0.2, preload=0.2, spring_curve=_curve(5.0),
                    damping=0.1)
    sim = _moving(_model(springs=(spring,)))
    c, _ = _check(sim, _hinge_angle, lambda c, v: 0.2 - 5.0 * (c + 0.2) - 0.1 * v)
    assert c[0] == pytest.approx(0.35, abs=1e-12)


def _hinge_angle(m, data) -> float:
    """The hinge angle from the bodies' frames: the arm about the base's copy of the axis."""
    base, arm = (data.xmat[m.body(n).id].reshape(3, 3) for n in ('base', 'arm'))
    rel = ARM.rot.T @ base.T @ arm  # the reference's relative rotation taken out
    return math.atan2(rel[1, 0], rel[0, 0])


def test_a_bushing_pulls_its_frames_together_by_stiffness_and_damping():
    """link2 gets -K d - D v at its point (pose1's axes), link1 the opposite, where d is the
    translation of pose2 from pose1 and the rotation vector between their frames."""
    frame1 = Pose((0.15, 0.05, 0.02), _rotation(np.random.default_rng(6)))
    frame2 = Pose(ARM.inverse().apply(frame1.pos + (0, 0, 1.0)), ARM.rot.T @ frame1.rot)
    stiffness = np.array([300.0, 200.0, 100.0, 20.0, 30.0, 40.0])
    damping = np.array([3.0, 2.0, 1.0, 0.2, 0.3, 0.4])
    bushing = Bushing('bush', 'base', 'arm', frame1, frame2, stiffness, damping)
    sim = _moving(_model(bushings=(bushing,)))

    def displacement(m, data):
        o1, rot1 = _pose_of(m, data, 'base', frame1)
        o2, rot2 = _pose_of(m, data, 'arm', frame2)
        return np.concatenate([rot1.T @ (o2 - o1), _rotation_vector(rot1.T @ rot2)])
    c, _ = _check(sim, displacement, lambda c, v: -stiffness * c - damping * v)
    assert np.linalg.norm(c[:3]) > 0.01 and np.linalg.norm(c[3:]) == pytest.approx(0.35)


def test_a_command_before_any_reset_releases_the_motor_of_its_joint():
    """A model whose every joint is driven (no passive joints): a command for the motor's joint
    hands it to the servo at once."""
    motor = Motor('m', 'rotation', 'position', Function('constant', (0.3,)), joint='h')
    model = Model('pair', _model().links, _model().joints, 'base', motors=(motor,),
                  gravity=(0.0, 0.0, 0.0), ground_plane=False)
    sim = Simulation(model, SimOptions())
    assert sim.forces.engaged('m')
    sim.command(Mode.POSITION, ['h'], [-0.2])
    sim.step_period()
    assert not sim.forces.engaged('m')


def test_a_reset_forgets_the_turns_a_rotational_spring_made():
    """The angle of a spring is followed through whole turns; after a reset it starts again
    from the reference: the torque is the law's at the hinge's initial angle 0."""
    frame1 = Pose((0.1, 0.0, 0.0), ARM.rot)
    frame2 = Pose((0.0, 0.0, 0.0), np.eye(3))
    spring = Spring('rsda', 'rotational', 'base', 'arm', frame1, frame2, rest=0.1,
                    preload=0.5, spring_curve=_curve(0.3), damping=0.0)
    sim = _moving(_model(springs=(spring,)))
    qadr = sim.mj.joint('h').qposadr[0]
    sim.data.qvel[:] = 0.0
    for angle in np.arange(0.0, 7.5, 0.5):  # more than a whole turn
        sim.data.qpos[qadr] = angle
        mujoco.mj_forward(sim.mj, sim.data)
        torque = _generalised(sim)[sim.mj.joint('h').dofadr[0]]
    assert torque == pytest.approx(0.5 - 0.3 * (7.0 - 0.1))  # 7 rad, not 7 - 2 pi
    sim.reset()
    assert sim.data.qpos[qadr] == 0.0
    assert _generalised(sim)[sim.mj.joint('h').dofadr[0]] == pytest.approx(0.5 + 0.3 * 0.1)


def test_a_reset_sets_controller_inputs_back_to_zero():
    """A FORCE controller motor and a load controller: after a reset, with no new input,
    nothing pushes (the docstring: controller inputs go back to zero)."""
    motor = Motor('push', 'rotation', 'force', Function('controller'), joint='h')
    load = Load('thrust', 'force', 'base', controller=True)
    sim = Simulation(_model(motors=(motor,), loads=(load,)), SimOptions())
    sim.forces.set_motor_input('push', 2.0)
    sim.forces.set_load_input('thrust', [0.0, 3.0, 0.0])
    sim.data.xfrc_applied[:] = 0.0
    before = _generalised(sim)
    assert before[sim.mj.joint('h').dofadr[0]] == pytest.approx(2.0)
    assert before[1] == pytest.approx(3.0)  # the base's y
    sim.reset()
    sim.data.xfrc_applied[:] = 0.0
    np.testing.assert_array_equal(_generalised(sim), np.zeros(sim.mj.nv))
