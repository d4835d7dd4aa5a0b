"""Tracks on models of our own (no corpus needed): test/data/choreonoid/tracked.body, and a
conveyor written here."""

import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.model import Box, Inertial, JointType, Link, Model, Pose, Shape
from body_bridge.sim.names import CommandRejected, Mode
from body_bridge.sim.building.options import SimOptions
from body_bridge.sim.simulation import Simulation, simulate_together
from body_bridge.urdf import to_urdf

from conftest import REPO
from track_driving import drive, settled

TRACKED = REPO / 'test' / 'data' / 'choreonoid' / 'tracked.body'
#: tracked.body: tracks 0.25 m left and right of the chassis, touching the ground at their
#: ends 0.2 m ahead and behind (0.4 m boxes, rollers of radius 0.05 m at the ends).
HALF_SEPARATION, HALF_LENGTH = 0.25, 0.2
CONVEYOR = """format: ChoreonoidBody
format_version: 2.0
name: belt
links:
  - { name: BASE, joint_type: fixed, translation: [ 0, 0, 0.1 ], mass: 20,
      inertia: [ 1, 0, 0, 1, 0, 1 ],
      elements: [ { type: Shape, geometry: { type: Box, size: [ 3, 1, 0.2 ] } } ] }
  - { name: BELT, parent: BASE, joint_type: pseudo_continuous_track, joint_axis: -Y,
      translation: [ 0, 0, 0.15 ], mass: 5, inertia: [ 1, 0, 0, 1, 0, 1 ],
      elements: [ { type: Shape, geometry: { type: Box, size: [ 2.5, 0.8, 0.1 ] } } ] }
"""


@pytest.fixture(scope='module')
def tracked():
    return load_model(TRACKED)


def test_a_track_is_fixed_in_the_urdf_static_in_tf_and_a_joint_in_the_state(tracked, tmp_path):
    assert tracked.joint('TRACK_L').type == JointType.TRACK
    assert '<joint name="TRACK_L" type="fixed">' in to_urdf(tracked, tmp_path)
    sim = Simulation(tracked)
    assert {'TRACK_L', 'TRACK_R'} <= set(sim.actuated)
    assert ('CHASSIS', 'TRACK_L') not in sim.moving_frames


def test_both_tracks_forward_drive_it_straight_at_their_speed(tracked):
    sim = settled(tracked)
    start = sim.body_pose('CHASSIS')[0]
    path, yaws = drive(sim, ['TRACK_L', 'TRACK_R'], [0.4, 0.4], 2.0)
    assert path[-1][0] - start[0] == pytest.approx(0.8, rel=0.05)
    assert abs(path[-1][1] - start[1]) < 0.02 and abs(yaws[-1] - yaws[0]) < 0.01
    speed = dict(zip(sim.joint_names, sim.joint_velocities()))
    travel = dict(zip(sim.joint_names, sim.joint_positions()))
    assert speed['TRACK_L'] == pytest.approx(0.4, abs=1e-3)
    assert travel['TRACK_L'] == pytest.approx(0.8, rel=0.01)


@pytest.mark.parametrize('lateral', [1.0, 0.25])
def test_opposite_speeds_turn_it_in_place_as_coulomb_friction_allows(tracked, lateral):
    """Contact at the track ends, half a length a ahead and behind, b to the side, friction
    r times lower across the track than along it: sliding sideways there, the yaw rate is
    v b / (b^2 + r^2 a^2), below the v / b of tracks that would not slip (isotropic friction,
    r = 1: v b / (a^2 + b^2)). The default r = 0.25 comes within 15 % of v / b."""
    sim = settled(tracked, track_lateral_friction=lateral)
    start = sim.body_pose('CHASSIS')[0]
    v = 0.4
    path, yaws = drive(sim, ['TRACK_L', 'TRACK_R'], [-v, v], 3.0)
    rate = (yaws[-1] - yaws[len(yaws) // 3]) / 2.0
    a, b = HALF_LENGTH, HALF_SEPARATION
    assert rate == pytest.approx(v * b / (b * b + lateral ** 2 * a * a), rel=0.15)
    if lateral == SimOptions().track_lateral_friction:
        assert rate == pytest.approx(v / b, rel=0.15)
    assert np.linalg.norm(path[-1][:2] - start[:2]) < 0.1


@pytest.mark.parametrize('lateral', [0.0, -0.25, 1.5])
def test_a_lateral_friction_out_of_range_is_refused(tracked, lateral):
    with pytest.raises(ValueError, match=r'track_lateral_friction must be in \(0, 1\], not '
                       + str(lateral)):
        Simulation(tracked, SimOptions(track_lateral_friction=lateral))


def test_a_travel_target_moves_the_belt_that_far_at_the_speed_limit(tracked):
    sim = settled(tracked, default_velocity_limit=0.4)
    start = sim.body_pose('CHASSIS')[0]
    sim.command(Mode.POSITION, ['TRACK_L', 'TRACK_R'], [0.3, 0.3])
    for _ in range(150):
        sim.step_period()
    assert dict(zip(sim.joint_names, sim.joint_positions()))['TRACK_L'] == \
        pytest.approx(0.3, abs=1e-3)
    assert sim.body_pose('CHASSIS')[0][0] - start[0] == pytest.approx(0.3, rel=0.05)


def test_an_effort_on_a_track_is_refused_with_one_line(tracked):
    with pytest.raises(CommandRejected, match="'TRACK_L' is a track: it takes a surface speed"):
        Simulation(tracked).command(Mode.EFFORT, ['TRACK_L'], [3.0])


def test_a_conveyor_carries_a_box_at_belt_speed(tmp_path):
    path = tmp_path / 'belt.body'
    path.write_text(CONVEYOR)
    belt_model = load_model(path)
    link = Link('box', inertial=Inertial(1.0, inertia=np.eye(3) * 0.2 * 0.2 / 6),
                collisions=(Shape(Box((0.2, 0.2, 0.2))),))
    box_model = Model(name='box', links=(link,), joints=(), root='box',
                      root_joint=JointType.FREE)
    # The belt's top is at 0.1 + 0.15 + 0.05 = 0.3 m.
    belt, box = simulate_together([(belt_model, SimOptions()),
                                   (box_model, SimOptions(initial_pose=Pose((0.5, 0, 0.4))))])
    for _ in range(50):
        belt.step_period()
    belt.command(Mode.VELOCITY, ['BELT'], [0.3])
    for _ in range(50):
        belt.step_period()
    x0 = box.body_pose('box')[0]
    for _ in range(200):
        belt.step_period()
    velocity = (box.body_pose('box')[0] - x0) / 2.0
    # Axis -y, the normal up: the top moves along -y x z = -x.
    assert velocity[0] == pytest.approx(-0.3, rel=0.05)
    assert abs(velocity[1]) < 0.01


@pytest.mark.parametrize('mass, inertia', [(5.0, 5.0), (0.5, 0.5), (0.0, 1.0), (None, 1.0)])
def test_a_belts_inertia_is_its_links_mass_or_one_without_it(tmp_path, mass, inertia):
    """The belt's hinge (1 rad is 1 m of belt) has the track link's mass as its inertia, and
    BELT_INERTIA (1 kg) where the link has no mass; its body and hinge name the track
    joint's line."""
    import dataclasses
    from body_bridge.sim.building.build import build_spec
    from body_bridge.sim.names import BELT_SUFFIX
    path = tmp_path / 'belt.body'
    path.write_text(CONVEYOR)
    model = load_model(path)
    inertial = None if mass is None else Inertial(mass, inertia=np.eye(3))
    model = dataclasses.replace(model, links=tuple(
        dataclasses.replace(x, inertial=inertial) if x.name == 'BELT' else x
        for x in model.links))
    spec = build_spec(model)
    mj = spec.compile()
    assert mj.dof_armature[mj.joint('BELT').dofadr[0]] == pytest.approx(inertia)
    line = model.joint('BELT').source
    assert line.startswith(f'{path}:')
    assert spec.body('BELT' + BELT_SUFFIX).info == line
    assert spec.joint('BELT').info == line


def test_only_a_world_with_tracks_gets_a_round_friction_cone(tracked):
    """Tracks skid when they turn: their world's friction cone is elliptic; a world without
    tracks keeps MuJoCo's default pyramid."""
    import mujoco
    from body_bridge.sim.mechanics.tracks import has_tracks
    from conftest import SAMPLE_ARM
    arm = load_model(SAMPLE_ARM)
    assert (has_tracks(tracked), has_tracks(arm)) == (True, False)
    assert Simulation(tracked, SimOptions()).mj.opt.cone == mujoco.mjtCone.mjCONE_ELLIPTIC
    assert Simulation(arm, SimOptions()).mj.opt.cone == mujoco.mjtCone.mjCONE_PYRAMIDAL
