"""Changes of a running world go through the stepping thread (SimulationRunner.call): between
two control periods, playing or paused, their result or exception handed back."""

import ctypes
import sys
import threading
import time

import pytest

from body_bridge.formats import load_model
from body_bridge.ros.node.runner import SimulationRunner
from body_bridge.sim.building.options import SimOptions

from conftest import SAMPLE_ARM


class Node:
    """What the runner needs of a bridge node (ros/node/node.py), without ROS: it counts periods."""

    def __init__(self):
        self.model = load_model(SAMPLE_ARM)
        self.params = {'real_time_factor': 1.0, 'start_paused': False}
        self.published = 0
        self.sim = None

    def sim_options(self):
        return SimOptions()

    def attach_simulation(self, sim, runner, publishes_clock=True):
        self.sim = sim

    def publish_period(self):
        self.published += 1

    def publish_clock(self):
        pass

    def get_namespace(self):  # named in the start-up check of models inside each other
        return '/'


@pytest.fixture
def runner():
    r = SimulationRunner([Node()])
    r.start()
    yield r
    r.stop()


def test_a_change_runs_on_the_stepping_thread_between_two_periods(runner):
    seen = {}

    def change():
        seen['thread'] = threading.current_thread().name
        seen['locked'] = runner.lock.locked()
        seen['time'] = runner.world.time
        return 42
    assert runner.call(change) == 42
    assert seen['thread'] == 'body_bridge_sim' and seen['locked']
    assert seen['time'] == pytest.approx(round(seen['time'] / runner.period) * runner.period)


def test_a_change_is_taken_while_paused_and_time_stands(runner):
    runner.set_paused(True)
    time.sleep(0.2)
    before = runner.world.time
    assert runner.call(lambda: runner.world.time) == before
    assert runner.world.time == before


def test_its_exception_reaches_the_caller(runner):
    def broken():
        raise ValueError('no such prefix')
    with pytest.raises(ValueError, match='no such prefix'):
        runner.call(broken)
    assert runner.call(lambda: 'still running') == 'still running'


def test_a_change_not_taken_in_time_is_withdrawn(runner):
    ran = []
    with runner.lock:  # the stepping thread cannot take it
        with pytest.raises(TimeoutError, match='within 0.2 s'):
            runner.call(lambda: ran.append(1), timeout=0.2)
    time.sleep(0.3)
    assert ran == []


def test_without_a_stepping_thread_it_runs_at_once():
    r = SimulationRunner([Node()])
    assert r.call(lambda: threading.current_thread() is threading.main_thread())


@pytest.mark.skipif(not sys.platform.startswith('linux'), reason='timer slack is Linux')
def test_the_stepping_thread_wakes_from_its_sleeps_on_time(runner):
    libc = ctypes.CDLL(None)
    get_timer_slack = 30  # prctl(2): PR_GET_TIMERSLACK [ns]
    assert runner.call(lambda: libc.prctl(get_timer_slack, 0, 0, 0, 0)) == 1
    assert libc.prctl(get_timer_slack, 0, 0, 0, 0) > 1  # others keep theirs (50 us)


@pytest.mark.skipif(not sys.platform.startswith('linux'), reason='timer slack is Linux')
def test_precise_wakeups_says_whether_it_set_the_slack():
    from body_bridge.ros.node import runner as runner_module
    got = []
    thread = threading.Thread(target=lambda: got.append(
        (runner_module.precise_wakeups(), ctypes.CDLL(None).prctl(30, 0, 0, 0, 0))))
    thread.start()
    thread.join()
    assert got == [(True, 1)]


@pytest.mark.parametrize('missing', [OSError('no C library'), AttributeError('no prctl')])
def test_precise_wakeups_without_prctl_is_false(monkeypatch, missing):
    from body_bridge.ros.node import runner as runner_module

    def unavailable(name):
        raise missing
    monkeypatch.setattr(runner_module.ctypes, 'CDLL', unavailable)
    assert runner_module.precise_wakeups() is False
