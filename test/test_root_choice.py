"""Mobile robots the files leave bolted down or braked: the root choice (fixed, free, planar,
auto: free when the wheels carry the robot), free wheels that roll (a Body file's joints
without joint_id, OpenRAVE's passive circular hinges, the passive_joints parameter), and the
kinematic planar drive. Wheeled vehicles driven at w move at w r within 5 % on flat ground:
OpenRAVE's differential-drive sample and Choreonoid's FourWheelCar (corpus), and a rover and
a cart of our own (test/data)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.model import JointType
from body_bridge.sim.mechanics.drive import base_state, find_drive
from body_bridge.sim.mechanics.planar import PlanarMove
from body_bridge.sim.building.rootchoice import choose_root, wheel_contacts, with_passive
from body_bridge.sim.simulation import Mode, SimOptions, Simulation

from conftest import REPO, SAMPLE_ARM, shared_model

DATA = REPO / 'test' / 'data'
ROVER = DATA / 'openrave' / 'rover.robot.xml'
CART = DATA / 'choreonoid' / 'cart.body'
DIFFDRIVE = 'openrave/src/robots/diffdrive_sample.robot.xml'
PR2 = 'openrave/src/robots/pr2-beta-sim.robot.xml'
SEGWAY = 'openrave/src/robots/barrettsegway.robot.xml'
WAM = 'openrave/src/robots/barrettwam.robot.xml'
FOUR_WHEEL_CAR = 'choreonoid/share/model/misc/FourWheelCar.body'


def _path(name):
    return name if not isinstance(name, str) else shared_model(name)


def _yaw(quat) -> float:
    w, x, y, z = quat
    return math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))


def _speed(sim, seconds=2.0, settle=1.0):
    """Mean base velocity in the world [m/s] and yaw rate [rad/s] after ``settle`` s."""
    for _ in range(round(settle / sim.period)):
        sim.step_period()
    p0, q0 = base_state(sim)[:2]
    for _ in range(round(seconds / sim.period)):
        sim.step_period()
    p1, q1 = base_state(sim)[:2]
    turn = (_yaw(q1) - _yaw(q0) + math.pi) % (2 * math.pi) - math.pi
    return (p1 - p0) / seconds, turn / seconds


def test_wheel_contacts_are_below_the_round_shapes():
    points = wheel_contacts(load_model(ROVER))
    assert sorted(points) == ['caster', 'left_wheel', 'right_wheel']
    assert points['left_wheel'] == pytest.approx([0.0, 0.16, 0.0], abs=1e-9)
    assert points['right_wheel'] == pytest.approx([0.0, -0.16, 0.0], abs=1e-9)
    assert points['caster'] == pytest.approx([-0.2, 0.0, 0.0], abs=1e-9)
    assert wheel_contacts(load_model(SAMPLE_ARM)) == {}


@pytest.mark.parametrize('name, taken, wheels', [
    (ROVER, 'free', ['left_wheel', 'right_wheel', 'caster']),
    pytest.param(DIFFDRIVE, 'free', ['wheel_left', 'wheel_right', 'wheel_caster'],
                 marks=pytest.mark.corpus),
    pytest.param(PR2, 'free', [f'{c}_caster_{s}_wheel_joint' for c in ('bl', 'br', 'fl', 'fr')
                               for s in ('l', 'r')], marks=pytest.mark.corpus),
    pytest.param(SEGWAY, 'fixed', [], marks=pytest.mark.corpus),  # its wheels are a mesh
    pytest.param(WAM, 'fixed', [], marks=pytest.mark.corpus),
    (SAMPLE_ARM, 'fixed', []),
])
def test_auto_root_follows_the_wheels(name, taken, wheels):
    model = load_model(_path(name))
    assert model.root_joint == JointType.FIXED  # as the files have it (a Robot is welded)
    chosen, took, why = choose_root(model, 'auto')
    assert took == taken
    assert chosen.root_joint == (JointType.FREE if taken == 'free' else JointType.FIXED)
    if wheels:
        assert why == f'its wheels carry it ({", ".join(sorted(wheels, key=why.find))})'
        assert all(w in why for w in wheels)
    else:
        assert why == 'as the model file says'


def test_explicit_root_choices():
    model = load_model(ROVER)
    assert choose_root(model, 'fixed')[0].root_joint == JointType.FIXED
    assert choose_root(model, 'fixed')[1:] == ('fixed', 'as the root parameter asks')
    for choice in ('free', 'planar'):
        chosen, took, _ = choose_root(model, choice)
        assert chosen.root_joint == JointType.FREE and took == choice
    cart = load_model(CART)  # a free root in its file stays free under auto
    assert choose_root(cart, 'auto')[1:] == ('free', 'as the model file says')
    with pytest.raises(ValueError, match="'floating' is not one of auto, fixed, free, planar"):
        choose_root(model, 'floating')


def test_passive_joints_from_the_files_and_the_parameter():
    assert load_model(ROVER).passive_joints == ('caster',)  # OpenRAVE: passive, circular
    assert load_model(CART).passive_joints == ('FRONT_LEFT', 'FRONT_RIGHT')  # no joint_id
    assert load_model(SAMPLE_ARM).passive_joints == ()  # every joint numbered or none is
    model = with_passive(load_model(CART), ['REAR_LEFT', 'FRONT_LEFT'])
    assert model.passive_joints == ('FRONT_LEFT', 'FRONT_RIGHT', 'REAR_LEFT')
    with pytest.raises(ValueError, match="'nope' is not a joint of cart that takes commands"):
        with_passive(model, ['nope'])


@pytest.mark.corpus
def test_four_wheel_car_front_wheels_and_steering_linkage_are_passive():
    model = load_model(shared_model(FOUR_WHEEL_CAR))
    assert model.passive_joints == ('STEERING', 'FRONTRIGHT_WHEEL', 'STEERING_LEFT',
                                    'FRONTLEFT_WHEEL')


@pytest.mark.parametrize('name, wheels, radius, w', [
    (CART, ['REAR_LEFT', 'REAR_RIGHT'], 0.08, 5.0),
    pytest.param(FOUR_WHEEL_CAR, ['REAR_WHEEL'], 0.1, 5.0, marks=pytest.mark.corpus),
    (ROVER, ['left_wheel', 'right_wheel'], 0.1, 4.0),
    pytest.param(DIFFDRIVE, ['wheel_left', 'wheel_right'], 0.2, 2.0, marks=pytest.mark.corpus),
])
def test_a_vehicle_driven_at_w_moves_at_w_r(name, wheels, radius, w):
    model, took, _ = choose_root(load_model(_path(name)), 'auto')
    assert took == 'free'
    sim = Simulation(model, SimOptions())
    sim.command(Mode.VELOCITY, wheels, [w] * len(wheels))
    velocity, turn = _speed(sim)
    assert velocity[0] == pytest.approx(w * radius, rel=0.05)
    assert abs(velocity[1]) < 0.01 * w * radius and abs(turn) < 0.01
    q = dict(zip(sim.joint_names, sim.joint_velocities()))
    for passive in model.passive_joints:  # the free wheels roll (the linkage does not turn)
        if 'WHEEL' in passive.upper() or passive in ('caster', 'wheel_caster'):
            assert abs(q[passive]) > 0.5 * w * radius / 0.1


def test_a_braked_wheel_holds_the_cart_back():
    """Without the passive front wheels (held at their initial angle by their servos) the
    cart drags them: what the passive joints are for."""
    model = load_model(CART)
    import dataclasses
    held = dataclasses.replace(model, passive_joints=())
    sim = Simulation(held, SimOptions())
    sim.command(Mode.VELOCITY, ['REAR_LEFT', 'REAR_RIGHT'], [5.0, 5.0])
    velocity, _ = _speed(sim)
    assert velocity[0] < 0.9 * 5.0 * 0.08


def test_the_rover_turns_on_its_drive():
    model = choose_root(load_model(ROVER), 'auto')[0]
    drive = find_drive(model)
    assert drive.joints == ['left_wheel', 'right_wheel']
    assert drive.separation == pytest.approx(0.32)
    sim = Simulation(model, SimOptions())
    speeds, _ = drive.joint_speeds(0.0, 1.0)
    sim.command(Mode.VELOCITY, drive.joints, speeds)
    _, turn = _speed(sim, seconds=1.0)
    assert turn == pytest.approx(1.0, rel=0.05)


@pytest.mark.parametrize('name', [ROVER, pytest.param(SEGWAY, marks=pytest.mark.corpus)])
def test_the_planar_drive_moves_the_base_as_commanded(name):
    """root planar: the base goes where the twist says, upright, whatever its wheels (the
    Segway's are part of a mesh) and its contacts with the ground."""
    model = choose_root(load_model(_path(name)), 'planar')[0]
    sim = Simulation(model, SimOptions())
    mover = PlanarMove(sim)
    start = base_state(sim)[0]
    for _ in range(10):  # no twist yet: it stands where it is
        sim.step_period()
    assert base_state(sim)[0][:2] == pytest.approx(start[:2], abs=1e-3)
    z0 = None
    for twist, expect in (((0.3, 0.1, 0.0), (0.3, 0.1, 0.0)), ((0.0, 0.0, 0.5), (0, 0, 0.5))):
        mover.command(*twist)
        velocity, turn = _speed(sim, seconds=1.0, settle=0.2)
        assert velocity[:2] == pytest.approx(expect[:2], abs=0.01)
        assert turn == pytest.approx(expect[2], abs=0.01)
        pos, quat = base_state(sim)[:2]
        z0 = pos[2] if z0 is None else z0
        assert pos[2] == pytest.approx(z0, abs=0.01)
        up = np.array([2 * (quat[1] * quat[3] + quat[0] * quat[2]),
                       2 * (quat[2] * quat[3] - quat[0] * quat[1]),
                       1 - 2 * (quat[1] ** 2 + quat[2] ** 2)])
        assert up[2] > math.cos(math.radians(1))
    with pytest.raises(ValueError, match='NaN'):
        mover.command(float('nan'), 0.0, 0.0)
    sim.reset()
    assert mover.twist.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.corpus
def test_the_pr2_stands_free_on_its_casters():
    # Its wheels are meshes: their lowest vertices touch the ground under each wheel's axle.
    contacts = wheel_contacts(load_model(shared_model(PR2)))
    assert contacts['fl_caster_l_wheel_joint'] == pytest.approx([0.2249, 0.2736, 0.0], abs=1e-3)
    assert contacts['br_caster_r_wheel_joint'] == pytest.approx([-0.2243, -0.2736, 0.0],
                                                                abs=1e-3)
    model = choose_root(load_model(shared_model(PR2)), 'auto')[0]
    sim = Simulation(model, SimOptions())
    for _ in range(100):
        sim.step_period()
    pos, _, linear, _ = base_state(sim)
    assert abs(pos[2]) < 0.005 and np.linalg.norm(linear) < 1e-3
    assert not sim.warnings()


def test_contact_points_carry_only_when_not_in_one_line():
    from body_bridge.sim.building.rootchoice import _carried
    p = [np.array(v, float) for v in ((0, 0.2, 0), (0, -0.2, 0), (-0.3, 0, 0))]
    assert _carried(p) and _carried(p + [np.array([0.3, 0, 0])])
    assert not _carried(p[:2])  # two wheels on one axle (a Segway) do not stand
    assert not _carried([np.array([x, 0.0, 0.0]) for x in (-0.3, 0.0, 0.3)])  # one line
    assert not _carried([np.array([x, 0.2 + x, 0.0]) for x in (-0.3, 0.1, 0.3)])  # one line
    assert not _carried([]) and not _carried(p[:1])


@pytest.mark.parametrize('off, carried', [(0.0018, True), (0.0010, False)])
def test_contact_points_within_a_millimetre_of_one_line_do_not_carry(off, carried):
    """The middle point `off` beside the line of the other two: centred, the points spread
    across the line by sqrt(6) / 3 off (1.47 mm and 0.82 mm); 1 mm is the bound."""
    from body_bridge.sim.building.rootchoice import _carried
    points = [np.array(v, float) for v in ((-0.3, 0.0, 0.0), (0.0, off, 0.0), (0.3, 0.0, 0.0))]
    assert _carried(points) is carried


def test_wheels_behind_a_free_joint_do_not_carry_the_root(tmp_path):
    """An environment: its root is the world and stays fixed. The rover as a Robot hangs from
    it by a fixed joint (its wheels touch the ground), as a KinBody whose first link is dynamic
    by a free one (its wheels belong to that free body, not to the root)."""
    env = tmp_path / 'yard.env.xml'
    env.write_text(f'<Environment><Robot file="{ROVER}"/></Environment>')
    model = load_model(env)
    assert model.root == 'world'
    assert sorted(wheel_contacts(model)) == ['rover/caster', 'rover/left_wheel',
                                             'rover/right_wheel']
    assert choose_root(model, 'auto')[1:] == ('fixed', 'as the model file says')
    with pytest.raises(ValueError, match='is the world itself; it cannot be free'):
        choose_root(model, 'free')
    body = ROVER.read_text().replace('<Robot name="rover">', '').replace('</Robot>', '')
    kinbody = tmp_path / 'rover.kinbody.xml'
    kinbody.write_text(body.replace('<KinBody name="rover">', '<KinBody name="rover">', 1))
    env.write_text(f'<Environment><KinBody file="{kinbody}"/></Environment>')
    model = load_model(env)
    assert model.joint('rover/world_joint').type == JointType.FREE
    assert wheel_contacts(model) == {}


TURNTABLES = """<Robot name="turntables"><KinBody>
  <Body name="base"><Geom type="box"><extents>0.3 0.3 0.02</extents>
    <translation>0 0 0.3</translation></Geom></Body>
  {bodies}
  {joints}
</KinBody></Robot>
"""


def test_round_links_turning_about_a_vertical_axis_are_no_wheels(tmp_path):
    """Three balls at the ground on circular hinges: about z (turntables) they carry nothing;
    the same balls about y are wheels, and the robot starts free."""
    at = ((0.2, 0.2), (0.2, -0.2), (-0.2, 0.0))
    bodies = ''.join(f'<Body name="b{i}"><Translation>{x} {y} 0.05</Translation>'
                     '<Geom type="sphere"><radius>0.05</radius></Geom></Body>'
                     for i, (x, y) in enumerate(at))
    for axis, taken in (('0 0 1', 'fixed'), ('0 1 0', 'free')):
        joints = ''.join(f'<Joint name="j{i}" type="hinge" circular="true"><Body>base</Body>'
                         f'<Body>b{i}</Body><offsetfrom>b{i}</offsetfrom><axis>{axis}</axis>'
                         '</Joint>' for i in range(3))
        path = tmp_path / 'turntables.robot.xml'
        path.write_text(TURNTABLES.format(bodies=bodies, joints=joints))
        model = load_model(path)
        assert choose_root(model, 'auto')[1] == taken
        assert sorted(wheel_contacts(model)) == ([] if taken == 'fixed' else ['j0', 'j1', 'j2'])


def test_the_planar_twist_is_in_the_base_frame_and_turns_through_half_a_turn():
    sim = Simulation(choose_root(load_model(ROVER), 'planar')[0], SimOptions())
    mover = PlanarMove(sim)
    mover.command(0.0, 0.0, math.pi / 2)  # a quarter turn in 1 s
    for _ in range(100):
        sim.step_period()
    mover.command(0.0, 0.2, 0.0)  # to its left, which is now the world's -x
    velocity, turn = _speed(sim, seconds=0.5, settle=0.1)
    assert velocity[:2] == pytest.approx([-0.2, 0.0], abs=0.01) and abs(turn) < 0.01
    mover.command(0.0, 0.0, math.pi / 2)  # on through +-pi: the heading wraps
    yaws = []
    for _ in range(150):
        sim.step_period()
        yaws.append(_yaw(base_state(sim)[1]))
    steps = np.diff(np.unwrap(yaws))
    assert steps == pytest.approx(np.full(len(steps), math.pi / 2 * sim.period), abs=2e-3)


def test_a_planar_base_placed_away_stays_there_and_reset_brings_it_back():
    from body_bridge.model import Pose
    options = SimOptions(initial_pose=Pose(np.array([0.5, -0.3, 0.0])))
    sim = Simulation(choose_root(load_model(ROVER), 'planar')[0], options)
    mover = PlanarMove(sim)
    start = base_state(sim)[0][:2].copy()
    assert start == pytest.approx([0.5, -0.3], abs=1e-6)
    for _ in range(20):  # no twist: it stands where it was placed
        sim.step_period()
    assert base_state(sim)[0][:2] == pytest.approx(start, abs=1e-3)
    mover.command(0.4, 0.0, 0.0)
    for _ in range(50):
        sim.step_period()
    assert base_state(sim)[0][0] == pytest.approx(0.7, abs=0.01)
    sim.reset()  # back at the start, and it stays there (its reference is the new start)
    for _ in range(30):
        sim.step_period()
    assert base_state(sim)[0][:2] == pytest.approx(start, abs=1e-3)


def test_a_planar_base_started_tilted_keeps_its_tilt_while_it_drives_and_turns():
    """The planar drive keeps the attitude the base started with: rolled 0.1 rad (no ground,
    so that nothing but the drive turns it), it turns about the world's vertical at the
    commanded rate and its tilt stays 0.1 rad."""
    from body_bridge.model import Pose
    from body_bridge.sim.building.build import BuildOptions
    options = SimOptions(initial_pose=Pose.from_axis_angle((1, 0, 0), 0.1),
                         build=BuildOptions(ground_plane=False))
    sim = Simulation(choose_root(load_model(ROVER), 'planar')[0], options)
    mover = PlanarMove(sim)
    mover.command(0.3, 0.0, 0.5)
    body = sim.body_id(sim.model.root)
    for _ in range(100):
        sim.step_period()
        up = sim.data.xmat[body].reshape(3, 3)[2, 2]  # the base's z axis, its world z part
        assert up == pytest.approx(math.cos(0.1), abs=1e-4)
    assert _yaw(base_state(sim)[1]) == pytest.approx(0.5 * 100 * sim.period, abs=0.02)


def test_a_wheel_link_carries_on_its_round_shapes_only():
    """A box on a wheel link is no rolling surface: a link with only a box has no contact
    point, and one with a box and a cylinder touches at the cylinder's lowest point."""
    import dataclasses
    from body_bridge.model import Box, Cylinder, Shape
    from test_drive_units import ACROSS, _model, _wheel
    boxed = _model(_wheel('wheel_l', 0.2, shape=Box((0.2, 0.04, 0.2))),
                   _wheel('wheel_r', -0.2, shape=Box((0.2, 0.04, 0.2))))
    assert wheel_contacts(boxed) == {}
    both = boxed.link('wheel_l')
    both = dataclasses.replace(both, collisions=both.collisions + (
        Shape(Cylinder(0.1, 0.04), ACROSS),))
    model = dataclasses.replace(boxed, links=tuple(both if x.name == 'wheel_l' else x
                                                   for x in boxed.links))
    found = wheel_contacts(model)
    assert list(found) == ['wheel_l']
    # the wheel's centre 0.1 m up (the base's frame is the model's origin), radius 0.1 m
    np.testing.assert_allclose(found['wheel_l'], [0.0, 0.2, 0.0], atol=1e-12)
