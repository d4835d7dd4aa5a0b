"""The status line's figures over resets, pauses, single steps and a divergence: the real-time
factor is the simulated time stepped per wall-clock second, never negative however the
world's time jumps; and the divergence warning names the command that caused it.

In-process: a bridge node in a world whose stepping thread is not started, stepped by hand,
with the reporter's wall clock set by the test."""

from __future__ import annotations

import re

import pytest

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from sensor_msgs.msg import JointState

LINE = re.compile(r'^sim time (\d+\.\d\d) s, (paused|real-time factor (-?\d+\.\d\d)), commands '
                  r'(\d+\.\d)/s, warnings (\d+)$')


class Clock:
    """Stands in for the ``time`` module of ros/console.py: wall time set by the test."""

    def __init__(self):
        self.now = 100.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def world(ros, tmp_path, monkeypatch):
    from rclpy.parameter import Parameter

    from body_bridge.ros import console
    from body_bridge.ros.node.node import BridgeNode
    from body_bridge.ros.node.runner import SimulationRunner
    clock = Clock()
    monkeypatch.setattr(console, 'time', clock)
    node = BridgeNode(shared=True, parameter_overrides=[
        Parameter('mesh_directory', value=str(tmp_path)),
        Parameter('devices.hand_camera.on', value=False)])
    runner = SimulationRunner([node])  # its thread is not started: the test steps it
    reporter = console.StatusReporter([node], runner)
    seen: list[str] = []
    warn = node.warn_throttled
    node.warn_throttled = lambda text, period=1.0: (seen.append(text), warn(text, period))
    yield node, runner, reporter, clock, seen
    runner.stop()
    node.destroy_node()


def _figures(reporter) -> tuple[float, str]:
    match = LINE.match(reporter.line())
    assert match, reporter.line()
    return float(match.group(1)), match.group(3) or match.group(2)


def _steps(runner, n: int) -> None:
    for _ in range(n):
        runner.advance()


def test_the_real_time_factor_counts_the_time_stepped_over_resets_pauses_and_steps(world):
    node, runner, reporter, clock, _ = world
    period = runner.period
    assert period == pytest.approx(0.01)
    _steps(runner, 50)
    clock.now += 1.0
    assert _figures(reporter) == (0.5, '0.50')
    # A reset in the interval sets the world's time back: the factor still counts what ran.
    _steps(runner, 30)
    runner.reset()
    _steps(runner, 20)
    clock.now += 2.0
    assert _figures(reporter) == (0.2, '0.25')  # 50 periods in 2 s; it was -0.15
    # Paused: said so, whatever the steps.
    runner.set_paused(True)
    for _ in range(10):
        assert runner.step_once()
    clock.now += 1.0
    assert _figures(reporter) == (0.3, 'paused')
    # Running again: the steps taken while paused counted in the interval they were taken.
    runner.set_paused(False)
    _steps(runner, 40)
    clock.now += 0.5
    assert _figures(reporter) == (0.7, '0.80')
    # Nothing stepped: 0.00, not a leftover figure.
    clock.now += 5.0
    assert _figures(reporter) == (0.7, '0.00')
    assert runner.stepped == pytest.approx(150 * period)


def test_a_divergence_resets_the_world_names_the_command_and_the_factor_stays_sound(world):
    node, runner, reporter, clock, seen = world
    _steps(runner, 100)
    # elbow_pitch of the sample arm has no effort limit: 1e30 N m is taken as it is.
    node.commands._on_joint_commands(JointState(name=['wrist_pitch', 'elbow_pitch'],
                                                position=[0.2, 0.1]))
    _steps(runner, 1)
    node.commands._on_joint_commands(JointState(name=['elbow_pitch'], effort=[1e30]))
    _steps(runner, 1)
    assert runner.world.time == 0.0 and runner.world.watchdog.count == 1
    [warning] = [text for text in seen if 'diverged' in text]
    assert warning.startswith('the integrator diverged at t = 1.01 s (joint ')
    assert warning.endswith(
        'the world was reset to its initial state (on_divergence: reset); the latest '
        'commands: /joint_commands at t = 1.01 s: effort elbow_pitch 1e+30; /joint_commands '
        'at t = 1 s: position wrist_pitch 0.2, elbow_pitch 0.1'), warning
    _steps(runner, 20)
    clock.now += 1.0
    # 101 good periods and 20 after the reset; the diverged one is not counted
    assert _figures(reporter) == (0.2, '1.21')


def test_without_a_world_the_status_says_so_and_nothing_steps(world):
    node, runner, reporter, clock, _ = world
    _steps(runner, 3)
    period = runner.period
    published, closed = [], []
    node.publish_period = lambda: published.append(runner.world.time)
    close = node.sensors.suite.close
    node.sensors.suite.close = lambda: (closed.append(True), close())
    runner.reset()
    assert published == [0.0]  # the initial state, at once
    assert runner.replace_world([], []) == [node]
    assert closed == [True]  # the cameras' renderers of the models gone are freed
    assert runner.world is None and runner.nodes == []
    assert reporter.line() == 'no world loaded'
    assert runner.period == period == 0.01
    runner.set_paused(True)
    assert not runner.step_once()
    runner.reset()  # nothing to reset: no error
    assert runner.world is None
