"""Trajectory interpolation as joint_trajectory_controller does it (no ROS, no physics)."""

import numpy as np
import pytest

from body_bridge.sim.control.trajectory import JointTrajectory, TrajectoryError, TrajectoryRun


def finite_difference(run, t, h=1e-6):
    return (run.sample(t + h)[0] - run.sample(t - h)[0]) / (2 * h)


def test_positions_only_is_piecewise_linear_from_the_start_state():
    traj = JointTrajectory.from_points(['a', 'b'], [1.0, 3.0], [[1.0, -1.0], [2.0, 3.0]])
    run = TrajectoryRun(traj, start=10.0, position=[0.0, 0.0], velocity=[0.0, 0.0])
    for t, expected in [(10.0, [0, 0]), (10.5, [0.5, -0.5]), (11.0, [1, -1]), (12.0, [1.5, 1]),
                        (13.0, [2, 3]), (20.0, [2, 3])]:
        np.testing.assert_allclose(run.sample(t)[0], expected, atol=1e-12)
    np.testing.assert_allclose(run.sample(12.0)[1], [0.5, 2.0])
    np.testing.assert_allclose(run.sample(25.0)[1], [0.0, 0.0])  # holds the last point
    np.testing.assert_allclose(run.sample(5.0)[0], [0.0, 0.0])  # holds until its start
    assert not run.finished(12.9) and run.finished(13.0)


def test_cubic_meets_every_waypoint_position_and_velocity():
    traj = JointTrajectory.from_points(['a'], [0.5, 1.0, 2.0], [[0.3], [0.8], [-0.2]],
                                       velocities=[[1.0], [0.5], [0.0]])
    run = TrajectoryRun(traj, start=0.0, position=[0.1], velocity=[-0.4])
    np.testing.assert_allclose(run.sample(0.0), ([0.1], [-0.4]), atol=1e-12)
    for t, p, v in zip(traj.times, traj.positions, traj.velocities):
        got_p, got_v = run.sample(float(t))
        np.testing.assert_allclose(got_p, p, atol=1e-12)
        np.testing.assert_allclose(got_v, v, atol=1e-9)
        # velocity is the derivative of position on both sides of each waypoint
        if t < traj.duration:
            np.testing.assert_allclose(finite_difference(run, float(t)), v, atol=1e-5)
    np.testing.assert_allclose(finite_difference(run, 0.7), run.sample(0.7)[1], atol=1e-6)


def test_quintic_meets_accelerations():
    traj = JointTrajectory.from_points(['a'], [1.0, 2.0], [[1.0], [0.0]],
                                       velocities=[[0.5], [0.0]], accelerations=[[2.0], [-1.0]])
    run = TrajectoryRun(traj, start=0.0, position=[0.0], velocity=[0.0])
    h = 1e-6
    for t, a in [(1.0, 2.0), (2.0 - h, -1.0)]:
        acc = (run.sample(t + h)[1] - run.sample(t - h)[1]) / (2 * h)
        np.testing.assert_allclose(acc, [a], atol=1e-3)
    np.testing.assert_allclose(run.sample(1.0)[0], [1.0], atol=1e-12)
    np.testing.assert_allclose(run.sample(1.0)[1], [0.5], atol=1e-12)
    np.testing.assert_allclose(finite_difference(run, 1.5), run.sample(1.5)[1], atol=1e-6)


@pytest.mark.parametrize('kwargs, message', [
    (dict(names=['a'], times=[1.0, 1.0], positions=[[0.0], [1.0]]), 'not strictly increasing'),
    (dict(names=['a'], times=[2.0, 1.0], positions=[[0.0], [1.0]]), 'not strictly increasing'),
    (dict(names=['a'], times=[-1.0], positions=[[0.0]]), 'negative'),
    (dict(names=['a', 'b'], times=[1.0], positions=[[0.0]]), 'point 0 has 1 positions for 2'),
    (dict(names=['a'], times=[1.0], positions=[[float('nan')]]), 'NaN or infinite'),
    (dict(names=['a'], times=[float('inf')], positions=[[0.0]]), 'NaN or infinite'),
    (dict(names=['a', 'a'], times=[1.0], positions=[[0.0, 0.0]]), "'a' is named twice"),
    (dict(names=['a'], times=[1.0], positions=[[0.0]], velocities=[[0.0, 1.0]]),
     'point 0 has 2 velocities for 1'),
    (dict(names=['a'], times=[1.0], positions=[[0.0]], accelerations=[[0.0]]),
     'accelerations but no velocities'),
    (dict(names=['a'], times=[1.0, 2.0], positions=[[0.0]]), '2 times but 1 points'),
])
def test_bad_trajectories_are_refused(kwargs, message):
    with pytest.raises(TrajectoryError, match=message):
        JointTrajectory.from_points(**kwargs)


def polynomial_through(h, ends):
    """Coefficients (lowest first) of the polynomial on [0, h] meeting ``ends``: per end
    (at 0, at h) the position, velocity and acceleration asked for (None: not asked)."""
    rows, rhs = [], []
    degree = sum(v is not None for end in ends for v in end) - 1
    for t, end in zip((0.0, h), ends):
        for order, value in enumerate(end):
            if value is None:
                continue
            rows.append([np.prod(range(k - order + 1, k + 1)) * t ** (k - order) if k >= order
                         else 0.0 for k in range(degree + 1)])
            rhs.append(value)
    return np.linalg.solve(np.array(rows), np.array(rhs))


@pytest.mark.parametrize('h', [0.5, 2.0])
def test_cubic_and_quintic_segments_are_the_unique_polynomials_between_their_ends(h):
    """Inside a segment (not only at its ends): the Hermite cubic through both ends'
    positions and velocities, the quintic through their accelerations as well."""
    cubic = JointTrajectory.from_points(['a'], [h], [[0.0]], velocities=[[0.0]])
    quintic = JointTrajectory.from_points(['a'], [h], [[0.3]], velocities=[[-0.2]],
                                          accelerations=[[1.5]])
    for traj, ends in [(cubic, [(0.2, 1.0, None), (0.0, 0.0, None)]),
                       (quintic, [(0.2, 1.0, 0.0), (0.3, -0.2, 1.5)])]:
        run = TrajectoryRun(traj, start=0.0, position=[0.2], velocity=[1.0])
        c = polynomial_through(h, ends)
        for t in (0.2 * h, 0.5 * h, 0.9 * h):
            p, v = run.sample(t)
            assert p[0] == pytest.approx(np.polyval(c[::-1], t), abs=1e-12)
            assert v[0] == pytest.approx(np.polyval(np.polyder(c[::-1]), t), abs=1e-12)


def test_a_joint_named_twice_is_named():
    with pytest.raises(TrajectoryError, match="joint 'a' is named twice"):
        JointTrajectory.from_points(['b', 'a', 'a'], [1.0], [[0.0, 0.0, 0.0]])


def test_segment_speeds_from_the_current_position():
    from body_bridge.sim.control.trajectory import segment_speeds
    # a first waypoint at time 0: no speed where it is the current position, infinite elsewhere
    traj = JointTrajectory.from_points(['a', 'b'], [0.0, 0.5], [[1.0, 2.0], [2.0, 1.0]])
    speeds = segment_speeds(traj, [1.0, 0.0])
    np.testing.assert_array_equal(speeds, [[0.0, np.inf], [2.0, 2.0]])


def test_points_without_positions_are_refused_and_no_points_last_no_time():
    from body_bridge.sim.control.trajectory import JointTrajectory, TrajectoryError
    with pytest.raises(TrajectoryError, match='^point 0 has 0 positions for 1 joints$'):
        JointTrajectory.from_points(['elbow_pitch'], [1.0], [[]])
    assert JointTrajectory.from_points(['elbow_pitch'], [], []).duration == 0.0
