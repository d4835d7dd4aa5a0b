"""Changes of a running world go through the stepping thread (SimulationRunner.call): between
two control periods, playing or paused, their result or exception handed back."""

import threading
import time

import pytest

from body_bridge.formats import load_model
from body_bridge.ros.runner import SimulationRunner
from body_bridge.sim.options import SimOptions

from conftest import SAMPLE_ARM


class Node:
    """What the runner needs of a bridge node (ros/node.py), without ROS: it counts periods."""

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
