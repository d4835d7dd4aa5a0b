"""Tracks and conveyor belts (Choreonoid pseudo_continuous_track) move what they touch."""

import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.model import Box, Inertial, JointType, Link, Model, Pose, Shape
from body_bridge.sim.mechanics.drive import find_drive
from body_bridge.sim.names import CommandRejected, Mode
from body_bridge.sim.building.options import SimOptions
from body_bridge.sim.simulation import Simulation, simulate_together
from body_bridge.urdf import to_urdf

from conftest import shared_model
from track_driving import drive, settled

TANK = 'choreonoid/share/model/Tank/Tank.body'
CONVEYOR = 'choreonoid/share/model/misc/conveyor.body'
SPIDER = 'choreonoid/share/model/AizuSpider/AizuSpiderNS.body'
#: Tank.body: the tracks' centres are 0.22 m left and right of the chassis; each touches the
#: ground at its two ends, 0.26 m ahead and behind (the collision box is 0.52 m long and the
#: end cylinders of radius 0.08 are centred there, level with its underside).
HALF_SEPARATION, HALF_LENGTH = 0.22, 0.26

pytestmark = pytest.mark.corpus  # the Tank, the conveyor, AizuSpider and the others


@pytest.fixture(scope='module')
def tank():
    return load_model(shared_model(TANK))


def test_a_track_is_a_fixed_link_in_the_urdf_and_a_joint_in_the_state(tank, tmp_path):
    joint = tank.joint('TRACK_L')
    assert joint.type == JointType.TRACK
    np.testing.assert_allclose(joint.axis, (0, 1, 0))
    assert '<joint name="TRACK_L" type="fixed">' in to_urdf(tank, tmp_path)
    sim = Simulation(tank)
    assert {'TRACK_L', 'TRACK_R'} <= set(sim.actuated)
    assert ('CHASSIS', 'TRACK_L') not in sim.moving_frames


def test_the_tank_drives_straight_at_its_track_speed(tank):
    sim = settled(tank)
    start = sim.body_pose('CHASSIS')[0]
    path, yaws = drive(sim, ['TRACK_L', 'TRACK_R'], [0.5, 0.5], 4.0, 'CHASSIS')
    moved = path[-1] - start
    assert moved[0] == pytest.approx(2.0, rel=0.05)
    assert abs(moved[1]) < 0.05 and abs(yaws[-1] - yaws[0]) < 0.01
    state = dict(zip(sim.joint_names, sim.joint_velocities()))
    travel = dict(zip(sim.joint_names, sim.joint_positions()))
    assert state['TRACK_L'] == pytest.approx(0.5, abs=1e-3)
    assert travel['TRACK_R'] == pytest.approx(2.0, rel=0.01)  # the distance the belt ran


def test_backwards_is_backwards(tank):
    sim = settled(tank)
    start = sim.body_pose('CHASSIS')[0]
    path, _ = drive(sim, ['TRACK_L', 'TRACK_R'], [-0.3, -0.3], 2.0, 'CHASSIS')
    assert path[-1][0] - start[0] == pytest.approx(-0.6, rel=0.05)


def _turn_in_place(sim: Simulation, v: float):
    """Yaw rate [rad/s] over the last 2 of 4 s at track speeds -v, +v; how far it wandered."""
    start = sim.body_pose('CHASSIS')[0]
    path, yaws = drive(sim, ['TRACK_L', 'TRACK_R'], [-v, v], 4.0, 'CHASSIS')
    return (yaws[-1] - yaws[len(yaws) // 2]) / 2.0, np.linalg.norm(path[-1][:2] - start[:2])


def test_opposite_speeds_turn_the_tank_in_place_at_the_rate_of_tracks_that_grip(tank):
    """What the user asks of a tracked base: (v_right - v_left) / separation, within 15 %."""
    v = 0.5
    rate, wander = _turn_in_place(settled(tank), v)
    assert rate == pytest.approx((v - -v) / (2 * HALF_SEPARATION), rel=0.15)
    assert rate < 2 * v / (2 * HALF_SEPARATION)  # the track ends still slide a little
    assert wander < 0.1  # in place


@pytest.mark.parametrize('linear, angular', [(0.5, 0.0), (0.0, 0.5)])
def test_cmd_vel_of_half_a_metre_and_half_a_radian_per_second_gives_them(tank, linear, angular):
    """The track speeds cmd_vel computes (the measured 0.44 m separation) move the Tank at the
    twist asked for, within 15 %."""
    sim = settled(tank)
    base = find_drive(tank)
    speeds, scaled = base.joint_speeds(linear, angular)
    assert not scaled
    start = sim.body_pose('CHASSIS')[0]
    path, yaws = drive(sim, list(base.left + base.right), speeds, 4.0, 'CHASSIS')
    rate = (yaws[-1] - yaws[len(yaws) // 2]) / 2.0
    speed = np.linalg.norm(path[-1][:2] - path[len(path) // 2][:2]) / 2.0
    assert rate == pytest.approx(angular, rel=0.15, abs=0.01)
    if linear:
        assert speed == pytest.approx(linear, rel=0.15)
    else:  # in place: the centre wanders a few centimetres while the ends slide
        assert np.linalg.norm(path[-1][:2] - start[:2]) < 0.1


@pytest.mark.parametrize('lateral', [1.0, 0.5, 0.25])
def test_the_turning_rate_is_what_coulomb_friction_at_the_track_ends_allows(tank, lateral):
    """Contact at the track ends, a ahead and behind and b to the side, friction mu along the
    track and r mu across it: the yaw moment of the ends sliding sideways balances that of
    the belts slipping at the speed difference when w = v b / (b^2 + r^2 a^2). r = 1 is
    isotropic Coulomb friction (as in Choreonoid's AIST simulator), far below v / b."""
    v = 0.5
    rate, wander = _turn_in_place(settled(tank, track_lateral_friction=lateral), v)
    a, b = HALF_LENGTH, HALF_SEPARATION
    assert rate == pytest.approx(v * b / (b * b + lateral ** 2 * a * a), rel=0.15)
    assert wander < 0.1


def test_a_travel_target_moves_the_belt_that_far(tank):
    # The file gives no speed limit: without one the belt would jump there and slip.
    sim = settled(tank, default_velocity_limit=0.5)
    start = sim.body_pose('CHASSIS')[0]
    sim.command(Mode.POSITION, ['TRACK_L', 'TRACK_R'], [0.3, 0.3])
    for _ in range(int(3.0 / sim.period)):
        sim.step_period()
    travel = dict(zip(sim.joint_names, sim.joint_positions()))
    assert travel['TRACK_L'] == pytest.approx(0.3, abs=1e-3)
    assert sim.body_pose('CHASSIS')[0][0] - start[0] == pytest.approx(0.3, rel=0.05)


def test_an_effort_on_a_track_is_rejected_with_one_line(tank):
    sim = Simulation(tank)
    with pytest.raises(CommandRejected, match="'TRACK_L' is a track: it takes a surface speed"):
        sim.command(Mode.EFFORT, ['TRACK_L'], [3.0])


def _box(mass: float = 1.0, size: float = 0.2) -> Model:
    inertia = np.eye(3) * mass * size * size / 6.0
    link = Link('box', inertial=Inertial(mass, inertia=inertia),
                collisions=(Shape(Box((size, size, size))),))
    return Model(name='box', links=(link,), joints=(), root='box', root_joint=JointType.FREE)


def test_the_conveyor_carries_a_box_at_belt_speed():
    conveyor = load_model(shared_model(CONVEYOR))
    # The belt's top is at 0.05 + 0.15 + 0.1 = 0.3 m; the box rests on it.
    sims = simulate_together([(conveyor, SimOptions()),
                              (_box(), SimOptions(initial_pose=Pose((1.0, 0, 0.4))))])
    belt, box = sims
    for _ in range(50):
        belt.step_period()
    belt.command(Mode.VELOCITY, ['TRACK'], [0.5])
    for _ in range(100):
        belt.step_period()
    x0 = box.body_pose('box')[0]
    for _ in range(200):
        belt.step_period()
    x1 = box.body_pose('box')[0]
    # Axis -y, normal up: the top surface moves along -y x z = -x.
    velocity = (x1 - x0) / 2.0
    assert velocity[0] == pytest.approx(-0.5, rel=0.05)
    assert abs(velocity[1]) < 0.01 and x1[2] == pytest.approx(0.4, abs=0.01)


def test_aizu_spider_drives_forward_and_moves_its_flippers():
    spider = load_model(shared_model(SPIDER))
    tracks = [j.name for j in spider.joints if j.type == JointType.TRACK]
    assert sorted(tracks) == ['BL_SUB_TRACK', 'BR_SUB_TRACK', 'FL_SUB_TRACK', 'FR_SUB_TRACK',
                              'L_TRACK', 'R_TRACK']
    sim = settled(spider)
    start = sim.body_pose('CHASSIS')[0]
    sim.command(Mode.POSITION, ['FR_FLIPPER', 'FL_FLIPPER'], [0.5, 0.5])
    path, _ = drive(sim, tracks, [0.3] * len(tracks), 3.0, 'CHASSIS')
    moved = path[-1] - start
    assert moved[0] > 0.5 * 0.3 * 3.0 and abs(moved[1]) < 0.1
    flippers = dict(zip(sim.joint_names, sim.joint_positions()))
    assert flippers['FR_FLIPPER'] == pytest.approx(0.5, abs=0.02)
    assert flippers['FL_FLIPPER'] == pytest.approx(0.5, abs=0.02)


@pytest.mark.parametrize('path', ['choreonoid/share/model/Tank/AgxTank.body',
                                  'choreonoid/share/model/Tank/PxTank.body'])
def test_agx_and_physx_track_devices_drive_as_approximated_belts(path):
    model = load_model(shared_model(path))
    assert model.joint('TRACK_L').type == JointType.TRACK
    assert any("'TRACK_L': the belt is approximated" in w for w in model.warnings)
    assert model.link('WHEEL_L0').collisions == ()  # the belt's shapes are on TRACK_L
    sim = settled(model)
    start = sim.body_pose('CHASSIS')[0]
    path_, yaws = drive(sim, ['TRACK_L', 'TRACK_R'], [0.5, 0.5], 2.0, 'CHASSIS')
    assert path_[-1][0] - start[0] == pytest.approx(1.0, rel=0.05)
    assert abs(path_[-1][1] - start[1]) < 0.02


def test_the_surface_drive_holds_with_a_pyramidal_friction_cone_too(tank):
    """Worlds with tracks get an elliptic cone; the drive also knows MuJoCo's pyramid rows."""
    import mujoco
    sim = Simulation(tank)
    sim.mj.opt.cone = mujoco.mjtCone.mjCONE_PYRAMIDAL
    sim.tracks._pyramidal = True
    for _ in range(50):
        sim.step_period()
    start = sim.body_pose('CHASSIS')[0]
    path, _ = drive(sim, ['TRACK_L', 'TRACK_R'], [0.5, 0.5], 2.0, 'CHASSIS')
    assert path[-1][0] - start[0] == pytest.approx(1.0, rel=0.05)


def test_a_continuous_track_vehicle_drives_on_its_approximated_chains():
    model = load_model(shared_model('choreonoid/share/model/misc/ContinuousTrackVehicle.body'))
    # The file places the shoes below the ground: start it 0.6 m up.
    sim = settled(model, initial_pose=Pose((0, 0, 0.6)))
    start = sim.body_pose('BASE')[0]
    path, _ = drive(sim, ['FOOT_L', 'FOOT_R'], [0.5, 0.5], 2.0, 'BASE')
    assert path[-1][0] - start[0] == pytest.approx(1.0, rel=0.05)
    assert abs(path[-1][1] - start[1]) < 0.02


def test_aizu_spider_na_gets_a_belt_per_agx_track_device():
    """Its devices are on the chassis and the flippers: each gets a belt link of its own."""
    model = load_model(shared_model('choreonoid/share/model/AizuSpider/AizuSpiderNA.body'))
    tracks = {j.name: j for j in model.joints if j.type == JointType.TRACK}
    assert sorted(tracks) == ['BL_SUB_TRACK_AGX', 'BR_SUB_TRACK_AGX', 'FL_SUB_TRACK_AGX',
                              'FR_SUB_TRACK_AGX', 'L_TRACK_AGX', 'R_TRACK_AGX']
    assert tracks['R_TRACK_AGX'].parent == 'CHASSIS'
    assert tracks['FR_SUB_TRACK_AGX'].parent == 'FR_FLIPPER'
    assert model.link('R_TRACK_AGX_belt').collisions  # the belt's shapes


@pytest.mark.parametrize('name', ['AizuSpiderNA', 'AizuSpiderSA', 'AizuSpiderDA'])
def test_aizu_spider_on_agx_belts_drives_its_wire_guards_touching_nothing(name):
    """collisionDetection.excludeLinksDynamic: the wire guards touch only AGX's wires; they
    reach below the belts, so were they to touch the ground it would stand on them."""
    model = load_model(shared_model(f'choreonoid/share/model/AizuSpider/{name}.body'))
    assert model.link('WIRE_GUARD_L').collisions == ()
    assert any('WIRE_GUARD_L' in w and 'touch only wires' in w for w in model.warnings)
    tracks = [j.name for j in model.joints if j.type == JointType.TRACK]
    sim = settled(model)
    start = sim.body_pose('CHASSIS')[0]
    path, _ = drive(sim, tracks, [0.3] * len(tracks), 2.0, 'CHASSIS')
    assert path[-1][0] - start[0] == pytest.approx(0.6, rel=0.05)
    assert abs(path[-1][1] - start[1]) < 0.03
