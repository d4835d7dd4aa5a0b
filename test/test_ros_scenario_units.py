"""One run of a scenario (ros/process/scenario.py, what ``sweep`` runs in each child), fast: a
crate or two stepped in this process for a tenth of a second, the bag read back with rosbags
(a reader of its own), and what a run leaves behind (rclpy, the outlets, the encoders' mode).

The sweep's end-to-end tests (test_sweep.py) run the same function in children of a pool."""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

import numpy as np
import pytest

from body_bridge.model import Pose
from body_bridge.sim.building.worldfile import WorldFile, WorldModel

from conftest import ROS_MISSING  # noqa: E402

pytestmark = pytest.mark.ros  # a run makes bridge nodes
pytest.importorskip('rclpy', reason=ROS_MISSING)
pytest.importorskip('rosbags', reason='the bag is read back with rosbags')


REPO = Path(__file__).resolve().parents[1]
CRATE = str(REPO / 'examples' / 'scenario' / 'crate.body')


def crates(**settings) -> WorldFile:
    """Two crates, ``a`` turned by 0.5 rad about z, ``b`` beside it."""
    return WorldFile('two', 'two.world.yaml', settings=settings, models=(
        WorldModel('a', CRATE, Pose.from_rpy([0, 0, 0.5], pos=[0.5, 0.3, 0.05])),
        WorldModel('b', CRATE, Pose.from_rpy([0, 0, 0], pos=[-0.5, 0.0, 0.05]))))


def read_bag(path: Path) -> dict:
    """topic -> [message] as rosbags reads the bag (only /tf decoded: rosbags refuses the
    JointState of a model without joints, an empty message)."""
    from rosbags.highlevel import AnyReader
    out = {}
    with AnyReader([path]) as reader:
        for conn, _, raw in reader.messages():
            out.setdefault(conn.topic, []).append(
                reader.deserialize(raw, conn.msgtype) if conn.topic == '/tf' else raw)
    return out


class Watch:
    """What a sweep's watch sees: the runner at the start, each period's simulated time."""

    def __init__(self):
        self.runner, self.times, self.start_state = None, [], {}

    def start(self, runner):
        from body_bridge.ros.stream import encoder
        self.runner = runner
        self.start_state = {'lossless': encoder._MODE['lossless'], 'nodes': [
            (n.get_namespace(), n.get_parameter('model').value,
             n.get_parameter('noise_seed').get_parameter_value(),
             n.get_parameter('control_rate').value) for n in runner.nodes]}
        self.poses = []
        for node in runner.nodes:
            sim = node.sim
            body = sim.body_id('crate')
            self.poses.append((sim.data.xpos[body].copy(), sim.data.xquat[body].copy()))

    def period(self, runner):
        self.times.append(runner.nodes[0].sim.time)


class Sink:
    """An outlet that counts the messages of every topic it is given."""

    def __init__(self):
        self.counts = {}

    def wants(self, channel):
        return True

    def subscribers(self, channel):
        return 1

    def add_channel(self, channel):
        self.counts.setdefault(channel.topic, 0)

    def write(self, channel, data, time_ns):
        self.counts[channel.topic] = self.counts.get(channel.topic, 0) + 1


@pytest.fixture
def clean():
    """What must hold after every run: rclpy down, the encoders live again, no sink or
    channel of the run left in the process's outlets."""
    import rclpy

    from body_bridge.ros.stream import encoder
    from body_bridge.ros.stream.outlets import OUTLETS
    sinks, channels = list(OUTLETS.sinks), list(OUTLETS.channels)
    # A run starts rclpy itself, as in a sweep's child process; where the suite's session
    # fixture started it in this process, it is shut down for the run and started again after.
    was_up = rclpy.ok()
    if was_up:
        rclpy.shutdown()
    try:
        yield
        assert not rclpy.ok()
        assert encoder._MODE['lossless'] is False
        assert OUTLETS.sinks == sinks and OUTLETS.channels == channels
    finally:
        if was_up and not rclpy.ok():
            rclpy.init()


@pytest.fixture
def spies(monkeypatch):
    """The recorders a run makes and what it hands record's stepping loop, kept."""
    from body_bridge.ros.process import scenario
    from body_bridge.ros.stream import recorder
    made, given = [], {}

    class Recorder(recorder.Recorder):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    real_run = scenario._run

    def run(nodes, commands, duration, rtf, watch=None):
        given.update(commands=commands, duration=duration, rtf=rtf)
        return real_run(nodes, commands, duration, rtf, watch)

    monkeypatch.setattr(recorder, 'Recorder', Recorder)
    monkeypatch.setattr(scenario, '_run', run)
    return made, given


def test_a_run_places_each_model_steps_the_duration_and_records_the_bag(tmp_path, clean, spies):
    from body_bridge.ros.process.scenario import run_world
    from body_bridge.ros.stream.outlets import OUTLETS
    made, given = spies
    watch, sink, lines = Watch(), Sink(), []
    output = str(tmp_path / 'bag')
    wall, cpu = time.monotonic(), time.process_time()
    result = run_world(crates(control_rate=50), output, 0.1, watch=watch, sinks=[sink],
                       parameters={'a': {'noise_seed': 3.0}}, warn=lines.append)
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    # five periods of 1/50 s, each told to the watch, the world stepped by the run alone
    assert watch.times == pytest.approx([0.02, 0.04, 0.06, 0.08, 0.10], abs=1e-9)
    assert given == {'commands': None, 'duration': 0.1, 'rtf': 0.0}  # not paced by default
    # one node per model in its namespace, with its file, the world's settings and its own
    # parameters in the types the bridge declares (3.0 for an integer parameter is 3)
    from rcl_interfaces.msg import ParameterType
    nodes = watch.start_state['nodes']
    assert [(ns, path, rate) for ns, path, _, rate in nodes] == [('/a', CRATE, 50.0),
                                                                 ('/b', CRATE, 50.0)]
    assert nodes[0][2].type == ParameterType.PARAMETER_INTEGER
    assert nodes[0][2].integer_value == 3 and nodes[1][2].integer_value == -1
    # both in one world, each at its pose (yaw 0.5 about z: the quaternion of half the angle)
    first, second = (n.sim for n in watch.runner.nodes)
    assert first.world is second.world
    (pa, qa), (pb, qb) = watch.poses
    assert np.allclose(pa, [0.5, 0.3, 0.05], atol=1e-6)
    assert np.allclose(qa, [math.cos(0.25), 0, 0, math.sin(0.25)], atol=1e-6)
    assert np.allclose(pb, [-0.5, 0.0, 0.05], atol=1e-6) and np.allclose(qb, [1, 0, 0, 0])
    # the encoders lossless while the run lasts, the recorder too
    assert watch.start_state['lossless'] is True
    assert len(made) == 1 and made[0].lossless is True
    # the bag: closed, what rosbags reads in it counted, its size the files' on disk
    bag = read_bag(Path(output))
    assert result['messages'] == sum(len(messages) for messages in bag.values()) > 0
    size = sum(f.stat().st_size for f in Path(output).rglob('*') if f.is_file())
    assert result['bytes'] == size and result['dropped'] == 0
    assert 0 < result['wall'] <= wall and 0 < result['cpu'] <= cpu
    # each model's frames under its prefix
    children = {t.child_frame_id for msg in bag['/tf'] for t in msg.transforms}
    assert children == {'a/crate', 'b/crate'}
    # the sink was given the run's messages, then detached (the fixture checks the detach)
    assert sink.counts['/tf'] == len(bag['/tf'])
    assert sink not in OUTLETS.sinks
    assert lines == []  # nothing to warn about


def test_a_refused_trajectory_fails_the_run_in_one_line_and_leaves_nothing(tmp_path, clean):
    from body_bridge.ros.process.scenario import RunFailed, run_world
    commands = tmp_path / 'push.yaml'
    commands.write_text('trajectory:\n  joints: [lid]\n  points:\n'
                        '    - {time: 0.1, positions: [0.5]}\n')
    sink = Sink()
    with pytest.raises(RunFailed) as err:
        run_world(crates(), str(tmp_path / 'bag'), 0.1, commands_file=str(commands),
                  sinks=[sink])
    text = str(err.value)
    assert text.startswith(f'{commands}: trajectory: ') and 'lid' in text
    assert '\n' not in text


def test_a_model_that_cannot_load_fails_the_run_with_its_error(tmp_path, clean):
    from body_bridge.ros.process.scenario import RunFailed, run_world
    broken = tmp_path / 'broken.body'
    broken.write_text('format: ChoreonoidBody\nlinks: [\n')
    world = WorldFile('w', 'w.world.yaml', models=(WorldModel('x', str(broken)),))
    with pytest.raises(RunFailed) as err:
        run_world(world, str(tmp_path / 'bag'), 0.1)
    assert str(err.value).startswith(str(broken)) and '\n' not in str(err.value)
    assert not os.path.exists(tmp_path / 'bag')


def test_a_compression_left_unfinished_is_warned_about(tmp_path, clean, monkeypatch):
    from body_bridge.ros.process.scenario import run_world
    from body_bridge.ros.stream import encoder
    monkeypatch.setattr(encoder, 'flush_all', lambda: False)
    lines = []
    world = WorldFile('w', 'w.world.yaml', models=(WorldModel('c', CRATE),))
    result = run_world(world, str(tmp_path / 'bag'), 0.02, warn=lines.append)
    assert lines == ['an image compression did not finish; its last frames are missing']
    assert result['messages'] > 0


def test_the_fastdds_profile_is_chosen_before_rclpy_starts(tmp_path, clean, monkeypatch):
    import rclpy

    from body_bridge.ros.process import transport
    from body_bridge.ros.process.scenario import run_world
    called = []
    monkeypatch.setattr(transport, 'use_bundled_fastdds_profile',
                        lambda: called.append(rclpy.ok()))
    world = WorldFile('w', 'w.world.yaml', models=(WorldModel('c', CRATE),))
    run_world(world, str(tmp_path / 'bag'), 0.01)
    assert called == [False]


def test_parameters_take_the_types_the_bridge_declares():
    from rclpy.parameter import Parameter

    from body_bridge.ros.process.scenario import _parameter

    def typed(name, value):
        p = _parameter(name, value)
        return p.name, p.type_, p.value
    assert typed('noise_seed', 7.0) == ('noise_seed', Parameter.Type.INTEGER, 7)
    assert typed('noise_seed', 7) == ('noise_seed', Parameter.Type.INTEGER, 7)
    assert typed('noise_seed', 7.5)[1:] == (Parameter.Type.DOUBLE, 7.5)  # the node refuses it
    assert typed('servo_damping', 1)[1:] == (Parameter.Type.DOUBLE, 1.0)
    assert typed('servo_damping', 2.0)[1:] == (Parameter.Type.DOUBLE, 2.0)
    assert typed('self_collision', 1)[1:] == (Parameter.Type.BOOL, True)
    assert typed('self_collision', 0)[1:] == (Parameter.Type.BOOL, False)
    assert typed('root', 'free')[1:] == (Parameter.Type.STRING, 'free')
    # names the bridge declares per model (joints, devices): whole numbers are doubles there
    assert typed('initial_positions.elbow', 1)[1:] == (Parameter.Type.DOUBLE, 1.0)
    assert typed('devices.imu.rate', 200)[1:] == (Parameter.Type.DOUBLE, 200.0)
    assert typed('devices.imu.on', True)[1:] == (Parameter.Type.BOOL, True)
    assert typed('devices.cam.format', 'png')[1:] == (Parameter.Type.STRING, 'png')
