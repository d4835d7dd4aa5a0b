"""GripperCommand goals judged in process (body_bridge.sim.control.grip) on a gripper of our own with
slow fingers (0.02 m/s), one closing in the negative direction, the other in the positive:
a goal the fingers reach is reached, a slow finger on its way is never stalled, fingers on a
block stall at their effort cap, and a position beyond the range is never "reached"."""

from __future__ import annotations

import math

import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.sim.control import grip
from body_bridge.sim.building.build import BuildOptions
from body_bridge.sim.control.grip import GripGoal
from body_bridge.sim.names import Mode
from body_bridge.sim.simulation import SimOptions, Simulation, simulate_together

from conftest import REPO

DATA = REPO / 'test' / 'data' / 'openrave'
FINGERS = ['JL', 'JR']
DIRECTIONS = [-1.0, 1.0]
SPEED = 0.02  # the fingers' velocity limit [m/s]


def _options():
    return SimOptions(build=BuildOptions(ground_plane=False))


def _gripper(block: bool = False) -> Simulation:
    hand = load_model(DATA / 'slowgripper.robot.xml')
    if not block:
        return Simulation(hand, _options())
    post = load_model(DATA / 'block.kinbody.xml')
    return simulate_together([(hand, _options()), (post, _options())], ['', 'block/'])[0]


def _run(sim, position, max_effort=0.0, seconds=8.0):
    """Command the fingers as the gripper server does; step until the goal ends."""
    goal = GripGoal(sim, FINGERS, DIRECTIONS, position, max_effort)
    sim.limit_efforts(FINGERS, [max_effort] * 2)
    sim.command(Mode.POSITION, FINGERS, np.array(DIRECTIONS) * position)
    idx = [sim.joint_names.index(j) for j in FINGERS]
    for _ in range(round(seconds / sim.period)):
        sim.step_period()
        outcome = goal.judge(sim.joint_positions()[idx], sim.joint_efforts()[idx],
                             [sim.setpoints()[j] for j in FINGERS])
        if outcome:
            return outcome, sim.time, np.array(DIRECTIONS) * sim.joint_positions()[idx], goal
    return '', sim.time, np.array(DIRECTIONS) * sim.joint_positions()[idx], goal


def test_the_window_scales_with_the_slowest_finger():
    sim = _gripper()
    goal = GripGoal(sim, FINGERS, DIRECTIONS, 0.03, 0.0)
    assert goal.window == pytest.approx(grip.STALL_DISTANCE / (grip.STALL_SPEED_SHARE * SPEED))
    assert goal.window == pytest.approx(1.0)
    assert goal.cap.tolist() == [20.0, 20.0]
    assert GripGoal(sim, FINGERS, DIRECTIONS, 0.03, 5.0).cap.tolist() == [5.0, 5.0]
    assert GripGoal(sim, FINGERS, DIRECTIONS, 0.03, 50.0).cap.tolist() == [20.0, 20.0]
    assert GripGoal(sim, FINGERS, DIRECTIONS, 0.03, 0.5).cap.tolist() == [0.5, 0.5]
    # Fingers without a velocity limit: the shortest window.
    fast = _FakeSim(speed=math.inf)
    assert GripGoal(fast, ['a'], [1.0], 0.0, 0.0).window == grip.STALL_TIME


def test_slow_fingers_of_both_directions_reach_their_goal():
    sim = _gripper()
    outcome, t, closing, _ = _run(sim, 0.04)
    assert outcome == 'reached'
    assert closing == pytest.approx([0.04, 0.04], abs=grip.GOAL_TOLERANCE)
    assert t > 0.03 / SPEED  # they moved at their speed limit all along, never "stalled"
    outcome, t, closing, _ = _run(sim, 0.0)  # and open again
    assert outcome == 'reached'


def test_fingers_on_a_block_stall_at_their_effort_cap():
    sim = _gripper(block=True)
    outcome, t, closing, goal = _run(sim, 0.05, max_effort=5.0)
    assert outcome == 'stalled'
    # The block is 40 mm wide between fingers 120 mm apart and 10 mm thick: they stop 35 mm
    # closed, pressing on it within their 5 N cap, once their setpoints have arrived (2.5 s).
    assert closing == pytest.approx([0.035, 0.035], abs=2e-3)
    idx = [sim.joint_names.index(j) for j in FINGERS]
    assert 0.5 < np.abs(sim.joint_efforts()[idx]).min() <= 5.0 * 1.001
    assert 0.05 / SPEED + goal.window - 0.05 < t < 0.05 / SPEED + goal.window + 0.1


def test_a_position_beyond_the_range_is_never_reached():
    sim = _gripper()
    outcome, t, closing, goal = _run(sim, 0.08)
    assert goal.clipped.tolist() == [True, True]
    assert goal.target.tolist() == pytest.approx([0.05, 0.05])
    assert outcome == 'stalled'  # at the end of the range, not 'reached'
    assert closing == pytest.approx([0.05, 0.05], abs=2e-3)
    # A position just inside the tolerance of the range's end is reached.
    outcome, _, _, goal = _run(sim, 0.055)
    assert goal.clipped.tolist() == [False, False] and outcome == 'reached'


class _FakeSim:
    """What GripGoal reads of a Simulation, for judging hand-made positions and efforts."""

    period = 0.01

    def __init__(self, speed=0.1, effort=10.0, lower=0.0, upper=0.1):
        self.speed, self.effort, self.lower, self.upper = speed, effort, lower, upper

    def joint_range(self, joints):
        return np.full(len(joints), self.lower), np.full(len(joints), self.upper)

    def joint_limits(self, joints):
        return np.full(len(joints), self.speed), np.full(len(joints), self.effort)


def _feed(goal, positions, efforts, desired):
    return [goal.judge([q], [e], [s]) for q, e, s in zip(positions, efforts, desired)]


def test_judging_by_hand():
    sim = _FakeSim(speed=0.1, effort=10.0)
    goal = GripGoal(sim, ['a'], [1.0], 0.05, 0.0)
    steps = round(goal.window / sim.period) + 1
    assert goal.window == pytest.approx(0.2) and steps == 21
    # Still, short of the target, pushing at 9 N (90 % of the cap) while the setpoint is on
    # its way: stalled after a window.
    outcomes = _feed(goal, [0.02] * steps, [9.0] * steps, [0.03] * steps)
    assert outcomes[:-1] == [''] * (steps - 1) and outcomes[-1] == 'stalled'
    # Still, not pushing, setpoint on its way: the servo has more to do, never stalled.
    goal = GripGoal(sim, ['a'], [1.0], 0.05, 0.0)
    assert 'stalled' not in _feed(goal, [0.02] * 3 * steps, [8.9] * 3 * steps,
                                  [0.03] * 3 * steps)
    # Still, not pushing, setpoint at the target: stalled a window after it arrived.
    goal = GripGoal(sim, ['a'], [1.0], 0.05, 0.0)
    setpoints = [0.03] * 10 + [0.05] * 2 * steps
    outcomes = _feed(goal, [0.02] * len(setpoints), [1.0] * len(setpoints), setpoints)
    assert outcomes.index('stalled') == 10 + steps - 1
    # Moving just over 5 mm per window while pushing: never stalled.
    goal = GripGoal(sim, ['a'], [1.0], 0.05, 0.0)
    moving = [0.0051 * k / (steps - 1) for k in range(2 * steps)]
    assert 'stalled' not in _feed(goal, moving, [10.0] * len(moving), [0.05] * len(moving))
    # Moving back and forth by exactly 5 mm while pushing: progress, never stalled.
    goal = GripGoal(sim, ['a'], [1.0], 0.05, 0.0)
    assert 'stalled' not in _feed(goal, [0.0, 0.005] * steps, [10.0] * 2 * steps,
                                  [0.05] * 2 * steps)
    # Within the tolerance of the position asked for: reached at once.
    goal = GripGoal(sim, ['a'], [1.0], 0.05, 0.0)
    assert goal.judge([0.0399], [0.0], [0.05]) == ''
    assert goal.judge([0.0401], [0.0], [0.05]) == 'reached'
    goal = GripGoal(sim, ['a'], [1.0], 0.0, 0.0)  # exactly the tolerance away: reached
    assert goal.judge([0.01], [0.0], [0.0]) == 'reached'
    # A negative closing direction: positions, setpoints and the range measured in it.
    assert GripGoal(sim, ['a'], [-1.0], 0.05, 0.0).target.tolist() == [0.0]  # range 0..0.1
    sim = _FakeSim(speed=0.1, effort=10.0, lower=-0.1, upper=0.0)
    goal = GripGoal(sim, ['a'], [-1.0], 0.05, 0.0)
    assert goal.target.tolist() == [0.05] and not goal.clipped.any()
    assert goal.judge([-0.05], [0.0], [-0.05]) == 'reached'
    goal = GripGoal(sim, ['a'], [-1.0], 0.05, 0.0)
    outcomes = _feed(goal, [-0.02] * steps, [0.0] * steps, [-0.05] * steps)
    assert outcomes[-1] == 'stalled' and outcomes[-2] == ''


def test_a_long_control_period_still_judges_over_two_periods():
    sim = _FakeSim(speed=math.inf, effort=10.0)
    sim.period = 0.5  # a window of 0.2 s is shorter than a period
    goal = GripGoal(sim, ['a'], [1.0], 0.05, 0.0)
    assert _feed(goal, [0.02] * 2, [10.0] * 2, [0.03] * 2) == ['', 'stalled']


def test_a_finger_at_the_end_of_its_range_stalls_only_when_the_goal_is_beyond():
    sim = _FakeSim(speed=0.1, effort=10.0, lower=0.0, upper=0.1)
    goal = GripGoal(sim, ['a', 'b'], [1.0, 1.0], 0.2, 0.0)
    steps = round(goal.window / sim.period) + 1
    assert goal.clipped.tolist() == [True, True]
    outcomes = [goal.judge([0.1, 0.1], [0.0, 0.0], [0.1, 0.1]) for _ in range(steps)]
    assert outcomes[-1] == 'stalled' and outcomes[-2] == ''
    # One finger at its end, the other still with its setpoint on its way: the goal waits.
    goal = GripGoal(sim, ['a', 'b'], [1.0, 1.0], 0.2, 0.0)
    outcomes = [goal.judge([0.1, 0.05], [0.0, 1.0], [0.1, 0.07]) for _ in range(steps)]
    assert 'stalled' not in outcomes
    # A finger that reached the position does not count: the other one decides.
    goal = GripGoal(sim, ['a', 'b'], [1.0, 1.0], 0.05, 0.0)
    outcomes = [goal.judge([0.05, 0.02], [0.0, 9.5], [0.05, 0.04]) for _ in range(steps)]
    assert outcomes[-1] == 'stalled' and outcomes[-2] == ''


def test_a_goal_the_tolerance_beyond_the_range_is_not_clipped_and_is_reached():
    sim = _FakeSim(speed=0.1, effort=10.0, lower=-0.1, upper=0.0)
    goal = GripGoal(sim, ['a'], [1.0], 0.01, 0.0)  # the tolerance above the upper limit
    assert goal.target.tolist() == [0.0] and not goal.clipped.any()
    assert goal.judge([0.0], [0.0], [0.0]) == 'reached'
    assert GripGoal(sim, ['a'], [1.0], 0.0101, 0.0).clipped.tolist() == [True]
