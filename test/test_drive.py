"""The mobile base cmd_vel drives: found in the model, its kinematics and limits."""

import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.sim.mechanics.drive import DriveError, find_drive
from body_bridge.sim.names import Mode
from body_bridge.sim.simulation import Simulation

from conftest import shared_model

MODELS = 'choreonoid/share/model/'


@pytest.mark.corpus
def test_the_tank_has_left_and_right_tracks_044_m_apart():
    drive = find_drive(load_model(shared_model(MODELS + 'Tank/Tank.body')))
    assert drive.kind == 'tracks'
    assert drive.left == ('TRACK_L',) and drive.right == ('TRACK_R',)
    assert drive.separation == pytest.approx(0.44)
    speeds, scaled = drive.joint_speeds(0.5, 0.5)
    np.testing.assert_allclose(speeds, [0.5 - 0.11, 0.5 + 0.11])
    assert not scaled


@pytest.mark.corpus
def test_aizu_spider_drives_its_flipper_tracks_with_its_main_tracks():
    drive = find_drive(load_model(shared_model(MODELS + 'AizuSpider/AizuSpiderNS.body')))
    assert set(drive.left) == {'L_TRACK', 'FL_SUB_TRACK', 'BL_SUB_TRACK'}
    assert set(drive.right) == {'R_TRACK', 'FR_SUB_TRACK', 'BR_SUB_TRACK'}
    assert drive.separation == pytest.approx(0.292)  # main tracks at y = +-0.146


CART = """format: ChoreonoidBody
format_version: 2.0
angle_unit: degree
name: cart
root_link: base
links:
  - name: base
    joint_type: free
    translation: [ 0, 0, 0.1 ]
    mass: 4.0
    inertia: [ 0.05, 0, 0, 0.05, 0, 0.05 ]
    elements:
      - type: Transform
        translation: [ -0.25, 0, -0.05 ]
        elements: [ { type: Shape, geometry: { type: Sphere, radius: 0.05 } } ]
  - &wheel
    name: wheel_l
    parent: base
    translation: [ 0, 0.2, 0 ]
    joint_type: revolute
    joint_axis: Y
    mass: 0.5
    inertia: [ 0.002, 0, 0, 0.0025, 0, 0.002 ]
    elements: [ { type: Shape, geometry: { type: Cylinder, radius: 0.1, height: 0.04 } } ]
  - { <<: *wheel, name: wheel_r, translation: [ 0, -0.2, 0 ] }
"""


def test_two_wheels_on_one_axis_drive_at_speed_over_radius(tmp_path):
    path = tmp_path / 'cart.body'
    path.write_text(CART)
    model = load_model(path)
    drive = find_drive(model)
    assert drive.kind == 'wheels' and drive.left == ('wheel_l',)
    assert drive.separation == pytest.approx(0.4)
    np.testing.assert_allclose(drive.gains, [0.1, 0.1])
    speeds, _ = drive.joint_speeds(0.3, 0.0)
    np.testing.assert_allclose(speeds, [3.0, 3.0])
    sim = Simulation(model)
    for _ in range(30):
        sim.step_period()
    start = sim.body_pose('base')[0]
    sim.command(Mode.VELOCITY, drive.joints, speeds)
    for _ in range(200):
        sim.step_period()
    assert sim.body_pose('base')[0][0] - start[0] == pytest.approx(0.6, rel=0.05)


@pytest.mark.corpus
def test_speeds_beyond_the_limits_are_scaled_keeping_the_curvature():
    model = load_model(shared_model(MODELS + 'Tank/Tank.body'))
    drive = find_drive(model, default_limit=1.0)
    speeds, scaled = drive.joint_speeds(2.0, 2.0)
    assert scaled and max(abs(speeds)) == pytest.approx(1.0)
    assert speeds[0] / speeds[1] == pytest.approx((2.0 - 0.44) / (2.0 + 0.44))


@pytest.mark.corpus
def test_models_without_a_base_or_with_wrong_joints_are_refused():
    with pytest.raises(DriveError, match='fixed to the world'):
        find_drive(load_model(shared_model(MODELS + 'misc/conveyor.body')))
    tank = load_model(shared_model(MODELS + 'Tank/Tank.body'))
    with pytest.raises(DriveError, match="'TURRET_Y': its axis is not across the base"):
        find_drive(tank, ['TURRET_Y'], ['TRACK_R'])
    with pytest.raises(DriveError, match="'nope' is not a joint of Tank"):
        find_drive(tank, ['nope'], ['TRACK_R'])
    with pytest.raises(DriveError, match='not left of the right'):
        find_drive(tank, ['TRACK_R'], ['TRACK_L'])


@pytest.mark.corpus
def test_belts_of_track_devices_are_found_where_their_shapes_are():
    """A belt made for an AGX or PhysX track device lies around its wheels: AgxTank's at
    y = +-0.213 m (its TRACK_L link, which holds the device, is at 0.16 m); AizuSpiderNA's
    main belts are links of their own at the chassis' frame, found by their shapes beside
    the flipper belts."""
    agx = find_drive(load_model(shared_model(MODELS + 'Tank/AgxTank.body')))
    assert (agx.left, agx.right) == (('TRACK_L',), ('TRACK_R',))
    assert agx.separation == pytest.approx(0.426, abs=1e-3)
    spider = find_drive(load_model(shared_model(MODELS + 'AizuSpider/AizuSpiderNA.body')))
    assert set(spider.left) == {'L_TRACK_AGX', 'FL_SUB_TRACK_AGX', 'BL_SUB_TRACK_AGX'}
    assert set(spider.right) == {'R_TRACK_AGX', 'FR_SUB_TRACK_AGX', 'BR_SUB_TRACK_AGX'}
    assert spider.separation == pytest.approx(0.283, abs=1e-3)  # the main belts
