"""A differential-drive robot drawn as OpenRAVE files often draw one (test/data/openrave/
diffbot.robot.xml, ours): two wheels whose joint anchors are both at the middle of the axle
(their cylinders 0.26 m to each side, radius 0.1 m) and two ball casters on spherical joints
the file disables, which weld them. The root choice counts the casters and says why; the
drive finds the wheels by their shapes; the casters drag until the ``casters`` parameter lets
them roll, and then the robot drives within 2 % of the commanded speed and turn rate;
``check`` says what it found (sim/building/casters.py, rootchoice.py, sim/mechanics/drive.py).
"""

from __future__ import annotations

import dataclasses
import math

import mujoco
import numpy as np
import pytest

from body_bridge.check import check_model
from body_bridge.formats import load_model
from body_bridge.model import JointType
from body_bridge.sim.building.build import BuildOptions
from body_bridge.sim.building.casters import (ROLLING_PRIORITY, ball_casters, caster_note,
                                              check_caster_names)
from body_bridge.sim.building.rootchoice import choose_root, ground_contacts
from body_bridge.sim.mechanics.drive import DriveError, base_state, find_drive
from body_bridge.sim.simulation import Mode, SimOptions, Simulation

from conftest import REPO

DIFFBOT = REPO / 'test' / 'data' / 'openrave' / 'diffbot.robot.xml'
CASTERS = ('caster_front', 'caster_back')
RADIUS, SEPARATION = 0.1, 0.52  # the wheels' cylinders, and where they are (y = +-0.26 m)


@pytest.fixture(scope='module')
def diffbot():
    return load_model(DIFFBOT)


def test_the_welded_casters_are_found_below_their_spheres(diffbot):
    assert diffbot.welded_balls == CASTERS
    assert diffbot.joint('caster_front').type == JointType.FIXED  # as OpenRAVE holds them
    casters = ball_casters(diffbot)
    assert [(c.link, c.joint, c.welded) for c in casters] == [
        ('caster_front', 'caster_front', True), ('caster_back', 'caster_back', True)]
    assert casters[0].point == pytest.approx([0.25, 0.0, 0.0], abs=1e-9)
    assert casters[1].point == pytest.approx([-0.25, 0.0, 0.0], abs=1e-9)
    wheels, on_ground = ground_contacts(diffbot)
    assert sorted(wheels) == ['wheel_left', 'wheel_right'] and len(on_ground) == 2
    assert wheels['wheel_left'] == pytest.approx([0.0, 0.26, 0.0], abs=1e-9)


def test_an_enabled_ball_joint_is_a_caster_that_rolls(diffbot):
    joints = tuple(dataclasses.replace(j, type=JointType.BALL) if j.name == 'caster_back'
                   else j for j in diffbot.joints)
    model = dataclasses.replace(diffbot, joints=joints, welded_balls=('caster_front',))
    assert [(c.link, c.welded) for c in ball_casters(model)] == [
        ('caster_front', True), ('caster_back', False)]
    # a sphere lifted off the ground (beyond 5 mm) is no contact of the robot
    lifted = dataclasses.replace(diffbot, links=tuple(
        dataclasses.replace(l, pose=dataclasses.replace(l.pose, pos=l.pose.pos + [0, 0, 0.007]))
        if l.name == 'caster_back' else l for l in diffbot.links))
    assert [c.link for c in ground_contacts(lifted)[1]] == ['caster_front']


def test_the_wheels_and_casters_carry_it_so_it_starts_free(diffbot):
    model, taken, why = choose_root(diffbot, 'auto')
    assert taken == 'free' and model.root_joint == JointType.FREE
    assert why == ('its wheels carry it (wheel_left, wheel_right) with ball casters '
                   'caster_front, caster_back')


def test_two_wheels_alone_do_not_carry_it_and_the_root_line_says_so(diffbot):
    alone = dataclasses.replace(diffbot, welded_balls=())
    model, taken, why = choose_root(alone, 'auto')
    assert taken == 'fixed' and model.root_joint == JointType.FIXED
    assert why == ('as the model file says; its wheels wheel_left, wheel_right touch the '
                   'ground at 2 points, which do not carry it (three or more, not in one '
                   'line); root:=free frees it')
    on_axle = dataclasses.replace(diffbot, links=tuple(  # the casters under the axle
        dataclasses.replace(l, pose=dataclasses.replace(l.pose, pos=l.pose.pos * [0, 1, 1]))
        if l.name.startswith('caster') else l for l in diffbot.links))
    assert choose_root(on_axle, 'auto')[1:] == ('fixed', (
        'as the model file says; its wheels wheel_left, wheel_right and ball casters '
        'caster_front, caster_back touch the ground at 4 points, which do not carry it (three '
        'or more, not in one line); root:=free frees it'))
    rover = load_model(REPO / 'test' / 'data' / 'openrave' / 'rover.robot.xml')
    assert choose_root(rover, 'auto')[2] == 'its wheels carry it (left_wheel, right_wheel, caster)'


def test_wheels_whose_anchors_coincide_are_placed_by_their_shapes(diffbot):
    assert diffbot.link('wheel_left').pose.pos == pytest.approx([0, 0, 0.1])  # on the axle
    assert diffbot.link('wheel_right').pose.pos == pytest.approx([0, 0, 0.1])
    for choice in ('auto', 'free'):
        drive = find_drive(choose_root(diffbot, choice)[0])
        assert (drive.left, drive.right, drive.kind) == (('wheel_left',), ('wheel_right',),
                                                         'wheels')
        assert drive.separation == pytest.approx(SEPARATION, abs=1e-12)
        assert drive.gains == pytest.approx((RADIUS, RADIUS))
    # named by hand, the separation is measured as well (it was 0 m)
    named = find_drive(choose_root(diffbot, 'free')[0], ['wheel_left'], ['wheel_right'])
    assert named.separation == pytest.approx(SEPARATION, abs=1e-12)


def test_no_pair_of_wheels_is_explained(diffbot):
    free = choose_root(diffbot, 'free')[0]
    same_side = dataclasses.replace(free, links=tuple(
        dataclasses.replace(l, collisions=tuple(dataclasses.replace(
            s, pose=dataclasses.replace(s.pose, pos=np.abs(s.pose.pos))) for s in l.collisions))
        if l.name == 'wheel_right' else l for l in free.links))
    with pytest.raises(DriveError) as err:
        find_drive(same_side)
    assert str(err.value) == (
        'diffbot has no left and right tracks, nor two wheels on one axis (wheel_left at '
        '(0, 0.26, 0) m, wheel_right at (0, 0.26, 0) m make no pair side by side on one '
        'axis); name them with drive_left_joints and drive_right_joints')


def _mean_twist(sim, seconds=2.0, settle=1.0) -> tuple[float, float]:
    """Mean forward speed [m/s] along the path and yaw rate [rad/s] after ``settle`` s."""
    for _ in range(round(settle / sim.period)):
        sim.step_period()
    path, yaws, last = 0.0, [], base_state(sim)[0].copy()
    for _ in range(round(seconds / sim.period)):
        sim.step_period()
        pos, quat = base_state(sim)[:2]
        path += float(np.linalg.norm(pos[:2] - last[:2]))
        last = pos.copy()
        w, x, y, z = quat
        yaws.append(math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))
    return path / seconds, float(np.unwrap(yaws)[-1] - yaws[0]) / (seconds - sim.period)


@pytest.mark.parametrize('linear, angular', [(0.3, 0.0), (0.0, 1.0), (0.2, 0.5)])
def test_rolling_casters_let_it_drive_within_2_percent(diffbot, linear, angular):
    model = choose_root(diffbot, 'auto')[0]
    drive = find_drive(model)
    speeds, _ = drive.joint_speeds(linear, angular)
    assert speeds == pytest.approx([(linear - angular * SEPARATION / 2) / RADIUS,
                                    (linear + angular * SEPARATION / 2) / RADIUS])
    sim = Simulation(model, SimOptions(build=BuildOptions(casters=CASTERS)))
    sim.command(Mode.VELOCITY, drive.joints, speeds)
    speed, turn = _mean_twist(sim)
    assert speed == pytest.approx(linear, abs=0.02 * max(linear, 0.1))
    assert turn == pytest.approx(angular, abs=0.02 * max(angular, 0.1))
    assert not sim.warnings()


def test_welded_casters_drag(diffbot):
    model = choose_root(diffbot, 'auto')[0]
    drive = find_drive(model)
    sim = Simulation(model)
    sim.command(Mode.VELOCITY, drive.joints, drive.joint_speeds(0.3, 0.0)[0])
    assert _mean_twist(sim)[0] < 0.6 * 0.3


def test_rolling_casters_have_frictionless_contacts(diffbot):
    model = choose_root(diffbot, 'auto')[0]
    sim = Simulation(model, SimOptions(build=BuildOptions(casters=('caster_back', 'nope'))))
    mj = sim.mj
    for link, condim, priority in (('caster_back', 1, ROLLING_PRIORITY),
                                   ('caster_front', 3, 0), ('wheel_left', 3, 0)):
        body = mj.body(sim.mj_name(link)).id
        geoms = [g for g in range(mj.ngeom) if mj.geom_bodyid[g] == body
                 and mj.geom_contype[g]]
        assert geoms and all(mj.geom_condim[g] == condim and mj.geom_priority[g] == priority
                             for g in geoms)
    assert mujoco.mjtGeom(mj.geom_type[geoms[0]]) == mujoco.mjtGeom.mjGEOM_CYLINDER


def test_caster_names_are_checked(diffbot):
    assert check_caster_names(diffbot, ['caster_back', 'caster_front', 'caster_back']) == (
        'caster_back', 'caster_front')
    with pytest.raises(ValueError, match="^'nope' is not a link of diffbot$"):
        check_caster_names(diffbot, ['nope'])
    with pytest.raises(ValueError, match="^link 'chassis' has no sphere collision shape: it "
                                         "is no ball caster$"):
        check_caster_names(diffbot, ['chassis'])


def test_the_caster_note_says_what_to_set(diffbot):
    casters = ball_casters(diffbot)
    assert caster_note(casters, ()) == (
        'ball casters caster_front, caster_back drag: the file welds their ball joints '
        '(disabled), so they slide on the ground and hold the robot back; set '
        'casters:="caster_front caster_back" to let them roll')
    assert caster_note(casters, ('caster_back',)) == (
        'ball casters caster_front drag: the file welds their ball joints (disabled), so they '
        'slide on the ground and hold the robot back; set casters:="caster_back '
        'caster_front" to let them roll')
    assert caster_note(casters, CASTERS) is None
    rolling = [dataclasses.replace(c, welded=False) for c in casters]
    assert caster_note(rolling, ()) is None


def test_check_reports_the_base_and_the_dragging_casters():
    report = check_model(str(DIFFBOT), seconds=0.1)
    assert not report.errors
    assert (f'mobile base: root free (its wheels carry it (wheel_left, wheel_right) with ball '
            f'casters caster_front, caster_back); cmd_vel drives wheels wheel_left (left) and '
            f'wheel_right (right), 0.52 m apart') in report.passed
    mobile = [f.text for f in report.warnings if f.stage == 'mobile']
    assert mobile == [f'{DIFFBOT}: ' + caster_note(ball_casters(load_model(DIFFBOT)), ())]
    arm = check_model('sample_arm', seconds=0.1)
    assert not [p for p in arm.passed if p.startswith('mobile')]
    assert not [f for f in arm.findings if f.stage == 'mobile']


def test_check_says_why_a_wheeled_robot_stays_fixed_and_when_casters_roll(tmp_path):
    text = DIFFBOT.read_text()
    welded = tmp_path / 'welded.robot.xml'  # casters on plain disabled hinges: no balls
    welded.write_text(text.replace('type="spherical" enable="false"', 'type="hinge" '
                                   'enable="false"><axis>0 1 0</axis'))
    report = check_model(str(welded), seconds=0.1)
    assert not [f for f in report.findings if f.stage == 'mobile']
    assert ('mobile base: root fixed (as the model file says; its wheels wheel_left, '
            'wheel_right touch the ground at 2 points, which do not carry it (three or more, '
            'not in one line); root:=free frees it); no cmd_vel') in report.passed
    balls = tmp_path / 'balls.robot.xml'  # enabled spherical joints: casters that roll
    balls.write_text(text.replace(' enable="false"', ''))
    model = load_model(balls)
    assert model.welded_balls == () and model.joint('caster_back').type == JointType.BALL
    report = check_model(str(balls), seconds=0.1)
    assert not [f for f in report.findings if f.stage == 'mobile']
    assert any(p.startswith('mobile base: root free (its wheels carry it (wheel_left, '
                            'wheel_right) with ball casters caster_front, caster_back); '
                            'cmd_vel drives wheels') for p in report.passed)
    sim = Simulation(choose_root(model, 'auto')[0])
    drive = find_drive(sim.model)
    sim.command(Mode.VELOCITY, drive.joints, drive.joint_speeds(0.3, 0.0)[0])
    assert _mean_twist(sim)[0] == pytest.approx(0.3, rel=0.02)  # the balls roll


def test_check_warns_when_a_free_robot_has_no_drive(tmp_path):
    lopsided = tmp_path / 'lopsided.robot.xml'
    lopsided.write_text(DIFFBOT.read_text().replace('0 -0.26 0', '0 0.26 0'))
    report = check_model(str(lopsided), seconds=0.1)
    [finding] = [f for f in report.findings if f.stage == 'mobile' and 'no cmd_vel' in f.text]
    assert finding.level == 'warning'
    assert finding.text.startswith(f'{lopsided}: root free (its wheels carry it (wheel_left, '
                                   'wheel_right) with ball casters caster_front, caster_back); '
                                   'no cmd_vel: diffbot has no left and right tracks')


def test_casters_of_a_robot_in_an_environment_and_of_a_free_body(tmp_path, diffbot):
    """In an environment the robot hangs from the world by a fixed joint: its casters are
    found (named with its prefix); as a KinBody its first link is free, and casters behind
    that free joint do not hold up the environment's root."""
    env = tmp_path / 'yard.env.xml'
    env.write_text(f'<Environment><Robot file="{DIFFBOT}"/></Environment>')
    model = load_model(env)
    assert model.root == 'world'
    assert [(c.link, c.welded) for c in ball_casters(model)] == [
        ('diffbot/caster_front', True), ('diffbot/caster_back', True)]
    kinbody = tmp_path / 'diffbot.kinbody.xml'
    kinbody.write_text(DIFFBOT.read_text().replace('<Robot name="diffbot">', '')
                       .replace('</Robot>', ''))
    env.write_text(f'<Environment><KinBody file="{kinbody}"/></Environment>')
    model = load_model(env)
    assert model.joint('diffbot/world_joint').type == JointType.FREE
    assert ball_casters(model) == []
    # a sphere hanging from a ball joint hangs from a link the root does not hold
    joints = tuple(dataclasses.replace(j, type=JointType.BALL) if j.name == 'caster_back'
                   else j for j in diffbot.joints)
    links = list(diffbot.links) + [dataclasses.replace(diffbot.link('caster_front'),
                                                       name='under')]
    from body_bridge.model import Joint, Model
    under = Joint('under', JointType.FIXED, 'caster_back', 'under')
    model = Model('m', tuple(links), joints + (under,), 'chassis',
                  welded_balls=('caster_front', 'under'))
    assert [c.link for c in ball_casters(model)] == ['caster_front', 'caster_back']
    with pytest.raises(dataclasses.FrozenInstanceError):
        ball_casters(diffbot)[0].welded = False
