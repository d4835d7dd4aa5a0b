"""The mobile base cmd_vel drives, on small models built in code (fast): which joints are
found, their gains, limits and separation, what is refused, the scaling at the limits, and
the base state odom is read from."""

from __future__ import annotations

import dataclasses
import math

import mujoco
import numpy as np
import pytest

from body_bridge.model import (Box, Cylinder, Inertial, Joint, JointType, Limits, Link, Mimic,
                               Model, Pose, Shape, Sphere)
from body_bridge.sim.mechanics.drive import Drive, DriveError, base_state, find_drive
from body_bridge.sim.names import Mode
from body_bridge.sim.simulation import Simulation


#: A cylinder lies along z of its frame: this turns it to roll about y.
ACROSS = Pose.from_axis_angle((1, 0, 0), math.pi / 2)


def _link(name, pos=(0, 0, 0), shape=None, mass=1.0):
    inertia = np.eye(3) * 0.01 * mass
    placed = Shape(shape, ACROSS) if isinstance(shape, Cylinder) else Shape(shape)
    return Link(name, Pose(pos), Inertial(mass, inertia=inertia),
                collisions=(placed,) if shape is not None else ())


def _wheel(name, y, x=0.0, z=0.1, axis=(0, 1, 0), shape=Cylinder(0.1, 0.04), parent='base',
           jtype=JointType.CONTINUOUS, limits=Limits(), mimic=None):
    return (_link(name, (x, y, z), shape, 0.5),
            Joint(name, jtype, parent, name, np.array(axis, float), limits, mimic=mimic))


#: The base's collision shape: a caster sphere behind the wheels' axis, touching the ground.
CASTER = Shape(Sphere(0.05), Pose((-0.25, 0.0, -0.05)))


def _model(*parts, root=JointType.FREE, extra=()):
    base = Link('base', Pose((0, 0, 0.1)), Inertial(4.0, inertia=np.eye(3) * 0.04),
                collisions=(CASTER,))
    links = [base] + [p[0] for p in parts] + [e for e in extra if isinstance(e, Link)]
    joints = [p[1] for p in parts] + [e for e in extra if isinstance(e, Joint)]
    return Model(name='cart', links=tuple(links), joints=tuple(joints), root='base',
                 root_joint=root)


def _cart(**wheel):
    return _model(_wheel('wheel_l', 0.2, **wheel), _wheel('wheel_r', -0.2, **wheel))


def test_a_wheel_pair_is_found_with_radius_gains_and_separation():
    drive = find_drive(_cart())
    assert (drive.left, drive.right, drive.kind) == (('wheel_l',), ('wheel_r',), 'wheels')
    assert drive.joints == ['wheel_l', 'wheel_r']
    assert drive.gains == pytest.approx((0.1, 0.1))
    assert drive.separation == pytest.approx(0.4)
    assert drive.limits == (math.inf, math.inf)             # no limit given: none
    with pytest.raises(dataclasses.FrozenInstanceError):     # shared: nobody changes it
        drive.separation = 1.0


def test_the_largest_round_shape_is_the_radius_and_the_axis_sign_is_the_gain_sign():
    bigger = _link('wheel_r', (0, -0.2, 0.1), Sphere(0.15), 0.5)
    flipped = Joint('wheel_r', JointType.REVOLUTE, 'base', 'wheel_r', np.array([0, -1.0, 0]))
    drive = find_drive(_model(_wheel('wheel_l', 0.2), (bigger, flipped)))
    assert drive.gains == pytest.approx((0.1, -0.15))
    speeds, scaled = drive.joint_speeds(0.3, 0.0)
    np.testing.assert_allclose(speeds, [3.0, -2.0])
    assert not scaled


def test_sides_turn_the_base_by_the_separation():
    drive = find_drive(_cart())
    speeds, _ = drive.joint_speeds(0.5, 1.0)                 # v -/+ w B / 2 = 0.5 -/+ 0.2
    np.testing.assert_allclose(speeds, [3.0, 7.0])
    speeds, _ = drive.joint_speeds(0.0, -1.0)
    np.testing.assert_allclose(speeds, [2.0, -2.0])


def test_a_given_separation_and_default_limit_are_used():
    drive = find_drive(_cart(), separation=0.5, default_limit=4.0)
    assert drive.separation == 0.5 and drive.limits == (4.0, 4.0)
    limited = find_drive(_cart(limits=Limits(velocity=2.0)), default_limit=4.0)
    assert limited.limits == (2.0, 2.0)                       # the model's own limit first
    slow = find_drive(_cart(limits=Limits(velocity=0.5)))
    assert slow.limits == (0.5, 0.5)
    assert find_drive(_cart(), default_limit=0.25).limits == (0.25, 0.25)
    assert find_drive(_cart(), default_limit=-1.0).limits == (math.inf, math.inf)  # none


def test_speeds_beyond_the_limits_are_scaled_down_together_exactly_to_the_limit():
    drive = Drive(('l',), ('r',), (0.1, 0.1), (2.0, 4.0), 0.4, 'wheels')
    speeds, scaled = drive.joint_speeds(0.3, 0.0)            # 3 rad/s on both: l is 1.5x over
    assert scaled
    np.testing.assert_allclose(speeds, [2.0, 2.0])
    speeds, scaled = drive.joint_speeds(0.2, 0.0)            # exactly at l's limit: as asked
    assert not scaled
    np.testing.assert_allclose(speeds, [2.0, 2.0])
    speeds, scaled = drive.joint_speeds(0.0, 4.0)            # -/+ 0.8 m/s: -8 and 8 rad/s
    assert scaled
    np.testing.assert_allclose(speeds, [-2.0, 2.0])          # l binds (8/2 > 8/4)
    speeds, scaled = drive.joint_speeds(-0.1, 0.0)
    np.testing.assert_allclose(speeds, [-1.0, -1.0])
    assert not scaled
    free = Drive(('l', 'l2'), ('r',), (1.0, 1.0, 1.0), (math.inf,) * 3, 1.0, 'tracks')
    speeds, scaled = free.joint_speeds(100.0, 0.0)
    np.testing.assert_allclose(speeds, [100.0] * 3)
    assert not scaled
    empty = Drive((), (), (), (), 1.0, 'tracks')
    assert len(empty.joint_speeds(1.0, 1.0)[0]) == 0


def test_tracks_are_found_by_side_and_measured_between_the_main_ones():
    def track(name, y, parent='base', x=0.0):
        return (_link(name, (x, y, 0), Box((0.4, 0.05, 0.1)), 0.5),
                Joint(name, JointType.TRACK, parent, name, np.array([0, 1.0, 0]),
                      Limits(velocity=1.5)))
    flipper_l = _link('flip_l', (0.3, 0.2, 0), Box((0.1, 0.05, 0.1)), 0.2)
    flip_joint = Joint('flip_l', JointType.REVOLUTE, 'base', 'flip_l', np.array([0, 1.0, 0]),
                       Limits(-1.0, 1.0))
    model = _model(track('track_l', 0.15), track('track_r', -0.15),
                   track('sub_l', 0.3, parent='flip_l', x=0.1), track('sub_r', -0.25),
                   track('middle', 0.0), extra=(flipper_l, flip_joint))
    drive = find_drive(model)
    assert drive.kind == 'tracks'
    assert set(drive.left) == {'track_l', 'sub_l'} and set(drive.right) == {'track_r', 'sub_r'}
    assert drive.gains == pytest.approx((1.0,) * 4)           # a track's speed is its surface's
    assert drive.limits == (1.5,) * 4
    # track_l, track_r and sub_r hang from the base; sub_l (on the flipper) is not measured
    assert drive.separation == pytest.approx(0.15 - (-0.15 - 0.25) / 2)


def test_named_sides_measure_all_their_joints_when_none_hangs_from_the_base():
    link_l = _link('hub_l', (0, 0.2, 0), Box((0.05, 0.05, 0.05)), 0.2)
    hub = Joint('hub_l', JointType.FIXED, 'base', 'hub_l')
    w_l = _wheel('wheel_l', 0.3, parent='hub_l')
    link_r = _link('hub_r', (0, -0.2, 0), Box((0.05, 0.05, 0.05)), 0.2)
    hub_r = Joint('hub_r', JointType.FIXED, 'base', 'hub_r')
    w_r = _wheel('wheel_r', -0.3, parent='hub_r')
    model = _model(w_l, w_r, extra=(link_l, hub, link_r, hub_r))
    drive = find_drive(model, ['wheel_l'], ['wheel_r'])
    assert drive.separation == pytest.approx(0.6)


@pytest.mark.parametrize('model, left, right, match', [
    (_cart(), ['wheel_l'], None, 'name both the left and the right joints'),
    (_cart(), None, ['wheel_r'], 'name both the left and the right joints'),
    (_cart(), ['wheel_r'], ['wheel_l'], r'not left of the right ones \(separation -0.4 m\)'),
    (_cart(), ['wheel_l'], ['nope'], "drive joint 'nope' is not a joint of cart"),
    (_cart(shape=Box((0.2, 0.04, 0.2))), None, None,
     "wheel 'wheel_l' has no cylinder or sphere collision shape"),
    (_cart(shape=None), None, None, "wheel 'wheel_l' has no cylinder or sphere"),
    (_cart(axis=(0, 0.8, 0.6)), ['wheel_l'], ['wheel_r'],
     "'wheel_l': its axis is not across the base"),
    (_model(_wheel('wheel_l', 0.2), _wheel('wheel_r', -0.2, jtype=JointType.PRISMATIC)),
     ['wheel_l'], ['wheel_r'], "'wheel_r' is a prismatic joint, not a track or a wheel"),
    (_model(_wheel('wheel_l', 0.2), _wheel('wheel_l2', 0.2, x=0.1)), ['wheel_l'], ['wheel_l2'],
     r'not left of the right ones \(separation 0 m\)'),
    (_cart(), None, None, None),
])
def test_wrong_drives_are_refused_with_one_line(model, left, right, match):
    if match is None:
        assert find_drive(model, left, right).kind == 'wheels'
        return
    with pytest.raises(DriveError, match=match) as err:
        find_drive(model, left, right)
    assert '\n' not in str(err.value)


@pytest.mark.parametrize('x, z', [(0.0009, 0.1), (0.0, 0.1009), (-0.0009, 0.0991)])
def test_wheels_within_a_millimetre_of_one_axis_are_a_pair(x, z):
    drive = find_drive(_model(_wheel('wheel_l', 0.2), _wheel('wheel_r', -0.2, x=x, z=z)))
    assert (drive.left, drive.right) == (('wheel_l',), ('wheel_r',))


def test_a_wheel_in_the_middle_is_passed_over_for_the_right_one():
    drive = find_drive(_model(_wheel('wheel_l', 0.2), _wheel('wheel_c', 0.0),
                              _wheel('wheel_r', -0.2)))
    assert (drive.left, drive.right, drive.separation) == (('wheel_l',), ('wheel_r',),
                                                           pytest.approx(0.4))


def test_a_slightly_tilted_axis_still_drives():
    drive = find_drive(_cart(axis=(0, 0.95, math.sqrt(1 - 0.95 ** 2))), ['wheel_l'],
                       ['wheel_r'])
    assert drive.gains == pytest.approx((0.095, 0.095))


def _track(name, y):
    return (_link(name, (0, y, 0.1), Box((0.4, 0.05, 0.1)), 0.5),
            Joint(name, JointType.TRACK, 'base', name, np.array([0, 1.0, 0])))


@pytest.mark.parametrize('model', [
    _model(root=JointType.FIXED),
    _model(_track('track_l', 0.2), _track('track_l2', 0.1)),    # tracks on one side only
    _model(_track('track_r', -0.2)),
    _model(*(_wheel(n, y, parent='hub') for n, y in (('wheel_l', 0.2), ('wheel_r', -0.2))),
           extra=(_link('hub', (0, 0, 0.1)), Joint('hub', JointType.FIXED, 'base', 'hub'))),
    _cart(limits=Limits(-1.0, 1.0)),                            # limited: a leg, not a wheel
    _cart(axis=(1, 0, 0)),                                      # turning across: not a wheel
    _model(_wheel('wheel_l', 0.2), _wheel('wheel_r', -0.2, x=0.01)),   # not on one axis
    _model(_wheel('wheel_l', 0.2), _wheel('wheel_r', -0.2, z=0.11)),
    _model(_wheel('wheel_l', 0.2), _wheel('wheel_r', 0.3)),     # both on the left
    _model(_wheel('wheel_c', 0.0), _wheel('wheel_r', -0.2)),    # one in the middle
    _model(_wheel('wheel_l', 0.2), _wheel('wheel_c', 0.0)),     # the other in the middle
    _model(_wheel('wheel_l', 0.2), _wheel('wheel_r', -0.2, x=0.0015)),  # 1.5 mm off the axis
    _model(_wheel('wheel_l', 0.2), _wheel('wheel_r', -0.2, z=0.0985)),
    _model(_wheel('wheel_l', 0.2),
           _wheel('wheel_r', -0.2, mimic=Mimic('wheel_l'))),    # one follows the other
    _model(_wheel('wheel_l', 0.2), _wheel('wheel_r', -0.2, jtype=JointType.PRISMATIC)),
    _model(),                                                   # a free body, nothing else
])
def test_models_without_a_drive_are_refused(model):
    with pytest.raises(DriveError) as err:
        find_drive(model)
    text = str(err.value)
    assert ('fixed to the world' in text) == (model.root_joint == JointType.FIXED)
    assert 'fixed to the world' in text or 'has no left and right tracks, nor two wheels' in text


def test_a_humanoid_floating_freely_has_no_drive():
    hip_l = _wheel('hip_l', 0.1, z=-0.2, limits=Limits(-1.5, 1.5), jtype=JointType.REVOLUTE)
    hip_r = _wheel('hip_r', -0.1, z=-0.2, limits=Limits(-1.5, 1.5), jtype=JointType.REVOLUTE)
    with pytest.raises(DriveError, match='name them with drive_left_joints'):
        find_drive(_model(hip_l, hip_r))


def test_a_wheel_pair_is_found_on_a_yawed_base():
    turn = Pose.from_axis_angle((0, 0, 1), 1.0).rot
    at = np.array([1.0, 2.0, 0.1])
    base = Link('base', Pose(at, turn), Inertial(4.0, inertia=np.eye(3) * 0.04),
                collisions=(CASTER,))
    wheels = []
    for name, y in (('wheel_l', 0.2), ('wheel_r', -0.2)):
        link, joint = _wheel(name, y)
        wheels.append((Link(name, Pose(at + turn @ (0, y, 0), turn), link.inertial,
                            collisions=link.collisions), joint))
    model = Model(name='cart', links=(base, *(w[0] for w in wheels)),
                  joints=tuple(w[1] for w in wheels), root='base', root_joint=JointType.FREE)
    drive = find_drive(model)
    assert drive.left == ('wheel_l',) and drive.separation == pytest.approx(0.4)
    assert drive.gains == pytest.approx((0.1, 0.1))


def test_base_state_is_the_root_pose_and_its_velocities_in_its_own_frame():
    sim = Simulation(_cart())
    d = sim.data
    joint = sim.mj.joint(sim.mj_name('base_free'))
    q, v = int(joint.qposadr[0]), int(joint.dofadr[0])
    yaw = math.pi / 2
    d.qpos[q:q + 3] = (1.0, 2.0, 0.3)
    d.qpos[q + 3:q + 7] = (math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2))
    d.qvel[v:v + 3] = (0.0, 0.5, 0.1)             # world frame: along +y, the base's forward
    d.qvel[v + 3:v + 6] = (0.0, 0.2, 0.3)         # body frame
    mujoco.mj_forward(sim.mj, d)
    pos, quat, linear, angular = base_state(sim)
    np.testing.assert_allclose(pos, [1.0, 2.0, 0.3])
    np.testing.assert_allclose(quat, [math.cos(yaw / 2), 0, 0, math.sin(yaw / 2)])
    np.testing.assert_allclose(linear, [0.5, 0.0, 0.1], atol=1e-12)
    np.testing.assert_allclose(angular, [0.0, 0.2, 0.3])
    d.qpos[q] = 9.0                                # copies, not views of the state
    assert pos[0] == 1.0 and quat[0] == pytest.approx(math.cos(yaw / 2))
    d.qvel[v + 3] = 7.0
    assert angular[0] == 0.0


def test_base_state_follows_the_cart_driven_forward():
    model = _cart()
    drive = find_drive(model)
    sim = Simulation(model)
    for _ in range(30):
        sim.step_period()
    start = base_state(sim)[0]
    speeds, _ = drive.joint_speeds(0.3, 0.0)
    sim.command(Mode.VELOCITY, drive.joints, speeds)
    for _ in range(150):
        sim.step_period()
    pos, quat, linear, angular = base_state(sim)
    assert pos[0] - start[0] == pytest.approx(0.45, rel=0.1)
    assert linear[0] == pytest.approx(0.3, rel=0.05)
    assert abs(angular[2]) < 0.05 and abs(quat[0]) == pytest.approx(1.0, abs=0.01)


def _axle_wheel(name, y, dz=0.0, shapes=None, axis=(0, 1, 0)):
    """A wheel whose link (and joint anchor) is at the middle of the axle, its cylinder ``y``
    to the side (``dz`` off the axis)."""
    cylinder = Shape(Cylinder(0.1, 0.04), Pose((0, y, dz), ACROSS.rot))
    link = Link(name, Pose((0, 0, 0.1)), Inertial(0.5, inertia=np.eye(3) * 0.005),
                collisions=shapes if shapes is not None else (cylinder,))
    return link, Joint(name, JointType.CONTINUOUS, 'base', name, np.array(axis, float))


def test_wheels_on_one_anchor_are_where_their_shapes_are_along_the_axis():
    model = _model(_axle_wheel('wheel_l', 0.26, dz=0.03), _axle_wheel('wheel_r', -0.26))
    drive = find_drive(model)
    assert (drive.left, drive.right) == (('wheel_l',), ('wheel_r',))
    assert drive.separation == pytest.approx(0.52, abs=1e-12)   # dz is across the axis
    # the largest round shape places the wheel; a smaller hub elsewhere does not
    hub = Shape(Sphere(0.02), Pose((0, 0.1, 0)))
    big = Shape(Cylinder(0.1, 0.04), Pose((0, 0.3, 0), ACROSS.rot))
    model = _model(_axle_wheel('wheel_l', 0, shapes=(hub, big)), _axle_wheel('wheel_r', -0.26))
    assert find_drive(model).separation == pytest.approx(0.56, abs=1e-12)
    # an axis pointing the other way places the shape on the same side
    model = _model(_axle_wheel('wheel_l', 0.26, axis=(0, -1, 0)), _axle_wheel('wheel_r', -0.26))
    drive = find_drive(model)
    assert drive.separation == pytest.approx(0.52, abs=1e-12)
    assert drive.gains == pytest.approx((-0.1, 0.1))
    # a track is where its shapes are (their centres' mean), else where its link is
    link, joint = _track('track_l', 0.2)
    moved = Link('track_l', link.pose, link.inertial, collisions=(
        Shape(Box((0.4, 0.05, 0.1)), Pose((0, 0.3, 0))),
        Shape(Cylinder(0.05, 0.05), Pose((0.2, 0.2, 0), ACROSS.rot))))
    assert find_drive(_model((moved, joint), _track('track_r', -0.2))).separation == \
        pytest.approx(0.2 + 0.25 + 0.2, abs=1e-12)
    bare = Link('track_l', Pose((0, 0.1, 0.1)), link.inertial)
    assert find_drive(_model((bare, joint), _track('track_r', -0.2))).separation == \
        pytest.approx(0.3, abs=1e-12)
    belt = Link('track_l', Pose((0, 0, 0.1)), link.inertial, collisions=moved.collisions)
    drive = find_drive(_model((belt, joint), _track('track_r', -0.2)))  # found by its shapes
    assert drive.left == ('track_l',) and drive.separation == pytest.approx(0.45, abs=1e-12)


def test_no_drive_says_which_wheels_were_found_and_why_they_make_none():
    follower = _wheel('wheel_m', -0.3, mimic=Mimic('wheel_l'))
    hubbed = _wheel('wheel_h', -0.2, parent='hub')
    across = _wheel('wheel_x', 0.3, axis=(1, 0, 0))
    hub = (_link('hub', (0, 0, 0.1)), Joint('hub', JointType.FIXED, 'base', 'hub'))
    leg = _wheel('knee', -0.1, limits=Limits(-1.0, 1.0), jtype=JointType.REVOLUTE)
    model = _model(_wheel('wheel_l', 0.2), _axle_wheel('wheel_r', -0.2, dz=0.0),
                   follower, hubbed, across, leg, extra=hub)
    with pytest.raises(DriveError) as err:
        find_drive(dataclasses.replace(model, links=tuple(
            dataclasses.replace(l, pose=Pose((0.05, 0, 0.1))) if l.name == 'wheel_r' else l
            for l in model.links)))
    assert str(err.value) == (
        'cart has no left and right tracks, nor two wheels on one axis (wheel_l at (0, 0.2, '
        '0) m, wheel_r at (0.05, -0.2, 0) m make no pair side by side on one axis; wheel_m '
        'follows another joint; wheel_h is not on the root link; wheel_x turns about an axis '
        'not across the base); name them with drive_left_joints and drive_right_joints')
    with pytest.raises(DriveError) as err:
        find_drive(_model(follower))
    assert str(err.value) == ('cart has no left and right tracks, nor two wheels on one axis '
                              '(wheel_m follows another joint); name them with '
                              'drive_left_joints and drive_right_joints')
    with pytest.raises(DriveError) as err:
        find_drive(_model())
    assert str(err.value) == ('cart has no left and right tracks, nor two wheels on one axis; '
                              'name them with drive_left_joints and drive_right_joints')
