"""A whole model's state as the simulator API sees it (sim/building/entities.py), against analytic
cases: a falling box, a teleported box, a moved fixed arm, bounds of a turned box."""

import math

import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.model import Pose
from body_bridge.sim.building.entities import (StateRefused, entity_bounds, entity_state,
                                      set_entity_state)
from body_bridge.sim.simulation import Simulation, SimOptions

from conftest import REPO, SAMPLE_ARM

BOX = REPO / 'test' / 'data' / 'choreonoid' / 'box.body'  # 0.2 x 0.4 x 0.2 m, free


def box_at(pose: Pose) -> Simulation:
    return Simulation(load_model(BOX), SimOptions(initial_pose=pose))


def test_a_falling_box_reports_pose_velocity_and_gravity():
    box = box_at(Pose((0.3, -0.2, 2.0)))
    s = entity_state(box)
    assert s.pos == pytest.approx([0.3, -0.2, 2.0])
    assert s.quat == pytest.approx([1, 0, 0, 0])
    box.step_period()
    s = entity_state(box)
    t = box.time
    assert s.linear == pytest.approx([0, 0, -9.81 * t], abs=1e-3)
    assert s.pos[2] == pytest.approx(2.0 - 0.5 * 9.81 * t * t, abs=1e-3)
    assert s.linear_acc == pytest.approx([0, 0, -9.81], abs=1e-6)
    assert s.angular == pytest.approx([0, 0, 0]) and s.angular_acc == pytest.approx([0, 0, 0])


def test_a_box_at_rest_on_the_floor_reads_no_acceleration():
    # Its proper acceleration is g upwards (what an accelerometer reads); the coordinate
    # acceleration the state gives is zero, and so is the velocity.
    box = box_at(Pose((0.0, 0.0, 0.1)))
    for _ in range(100):
        box.step_period()
    s = entity_state(box)
    assert s.pos[2] == pytest.approx(0.1, abs=2e-3)
    assert s.linear == pytest.approx([0, 0, 0], abs=1e-3)
    assert s.linear_acc == pytest.approx([0, 0, 0], abs=0.05)
    assert s.angular_acc == pytest.approx([0, 0, 0], abs=0.05)


def test_a_teleported_box_is_there_with_the_velocity_given_in_world_axes():
    box = box_at(Pose((0.0, 0.0, 1.0)))
    turned = Pose.from_axis_angle((0, 0, 1), math.pi / 2, pos=(1.0, 2.0, 3.0))
    set_entity_state(box, turned, linear=(0.5, 0.0, 0.0), angular=(0.0, 0.0, 2.0))
    s = entity_state(box)
    assert s.pos == pytest.approx([1.0, 2.0, 3.0])
    assert s.quat == pytest.approx(turned.quat())
    assert s.linear == pytest.approx([0.5, 0.0, 0.0])
    assert s.angular == pytest.approx([0.0, 0.0, 2.0])
    # An angular velocity about world x on a box turned about z: the body's -y... in world x.
    set_entity_state(box, None, angular=(1.5, 0.0, 0.0))
    s = entity_state(box)
    assert s.pos == pytest.approx([1.0, 2.0, 3.0]) and s.angular == pytest.approx([1.5, 0, 0])
    assert s.linear == pytest.approx([0.5, 0.0, 0.0])  # not given: unchanged
    # The motion goes on from there.
    box.step_period()
    assert entity_state(box).pos[0] == pytest.approx(1.0 + 0.5 * box.period, abs=1e-6)


def test_a_fixed_arm_is_moved_where_it_stands_and_cannot_be_given_a_velocity():
    arm = Simulation(load_model(SAMPLE_ARM))
    root = arm.model.root
    before = arm.body_pose(root)[0].copy()
    with pytest.raises(StateRefused, match='fixed in the world: it cannot be given a velocity'):
        set_entity_state(arm, None, linear=(1.0, 0, 0))
    set_entity_state(arm, None, linear=(0.0, 0, 0))  # zero: nothing to refuse
    assert arm.body_pose(root)[0] == pytest.approx(before)
    target = Pose.from_axis_angle((0, 0, 1), 0.5, pos=(0.4, -0.1, 0.0))
    set_entity_state(arm, target)
    pos, quat = arm.body_pose(root)
    assert pos == pytest.approx([0.4, -0.1, 0.0]) and quat == pytest.approx(target.quat())
    # Where the world would put it again when it is rebuilt.
    placed = arm.world.entries[0][1].initial_pose @ arm.model.link(root).pose
    assert placed.pos == pytest.approx([0.4, -0.1, 0.0])
    assert placed.quat() == pytest.approx(target.quat())
    for _ in range(20):
        arm.step_period()
    assert arm.body_pose(root)[0] == pytest.approx([0.4, -0.1, 0.0])


def test_bounds_in_the_root_frame_and_in_the_world():
    box = box_at(Pose.from_axis_angle((0, 0, 1), math.pi / 2, pos=(1.0, 0.0, 0.5)))
    lower, upper = entity_bounds(box)
    assert lower == pytest.approx([-0.1, -0.2, -0.1], abs=1e-9)
    assert upper == pytest.approx([0.1, 0.2, 0.1], abs=1e-9)
    lower, upper = entity_bounds(box, local=False)  # turned: x and y swap
    assert lower == pytest.approx([0.8, -0.1, 0.4], abs=1e-9)
    assert upper == pytest.approx([1.2, 0.1, 0.6], abs=1e-9)


def test_bounds_of_the_arm_leave_out_the_ground_plane():
    arm = Simulation(load_model(SAMPLE_ARM))
    lower, upper = entity_bounds(arm)
    assert np.all(np.isfinite(lower)) and np.all(upper - lower < 3.0)
    assert np.all(upper > lower)


def test_bounds_of_a_model_without_geometry_are_its_root_point(tmp_path):
    text = BOX.read_text(encoding='utf-8')
    path = tmp_path / 'point.body'
    path.write_text(text[:text.index('    elements:')], encoding='utf-8')
    point = Simulation(load_model(path), SimOptions(initial_pose=Pose((1.0, 2.0, 3.0))))
    lower, upper = entity_bounds(point)
    assert lower.tolist() == [0.0, 0.0, 0.0] and upper.tolist() == [0.0, 0.0, 0.0]
    lower, upper = entity_bounds(point, local=False)
    assert lower.tolist() == pytest.approx([1.0, 2.0, 3.0]) and upper.tolist() == lower.tolist()
    upper[0] = 9.0  # two arrays, not one
    assert lower[0] == pytest.approx(1.0)


def test_a_model_whose_root_is_the_world_cannot_be_moved(tmp_path):
    """A URDF whose root link is 'world' is bolted to MuJoCo's world body: no state can be
    set for it, in one line naming the model."""
    from body_bridge.formats import load_model
    from body_bridge.model import Pose
    from body_bridge.sim.simulation import Simulation
    path = tmp_path / 'bolted.urdf'
    path.write_text(
        '<?xml version="1.0"?><robot name="bolted"><link name="world"/><link name="base">'
        '<inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" '
        'izz="0.01"/></inertial><collision><geometry><box size="0.1 0.1 0.1"/></geometry>'
        '</collision></link><joint name="bolt" type="fixed"><parent link="world"/>'
        '<child link="base"/></joint></robot>')
    sim = Simulation(load_model(path))
    with pytest.raises(StateRefused, match='^bolted: its root link is the world itself; it '
                                           'cannot be moved$'):
        set_entity_state(sim, Pose((1.0, 0.0, 0.0)))
