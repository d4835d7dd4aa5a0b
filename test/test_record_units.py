"""``record`` in one process: its argument checks, the bag it writes, the commands it hands
the simulation and its pacing (``test/test_record_e2e.py`` runs the command itself)."""

from __future__ import annotations

import re
import types

import pytest

pytestmark = pytest.mark.ros
pytest.importorskip('rosbags', reason='rosbags (tools/requirements.txt) is missing')

from bag_reading import read_bag  # noqa: E402

from body_bridge.ros.process import record as record_mod  # noqa: E402
from body_bridge.ros.control.command_file import Commands, Twist  # noqa: E402


@pytest.fixture(autouse=True)
def own_default_context(monkeypatch):
    """``record`` initialises and shuts down rclpy's default context, as the command it is;
    where the session's ``ros`` fixture already holds that context, each test here gets a
    default context of its own, and the session's is given back afterwards."""
    from rclpy import utilities
    monkeypatch.setattr(utilities, 'g_default_context', None)  # a new one, made on demand
    yield
    context = utilities.g_default_context
    if context is not None and context.ok():
        context.try_shutdown()


def test_the_size_of_a_bag_is_that_of_its_files(tmp_path):
    (tmp_path / 'a').write_bytes(b'x' * 10)
    (tmp_path / 'b').write_bytes(b'y' * 32)
    assert record_mod.bag_size(str(tmp_path)) == 42


@pytest.mark.parametrize('kwargs, message', [
    ({'duration': 0.0}, '--duration must be a positive number of seconds, not 0.0'),
    ({'duration': -1.0}, '--duration must be a positive number of seconds, not -1.0'),
    ({'duration': float('inf')}, '--duration must be a positive number of seconds, not inf'),
    ({'duration': float('nan')}, '--duration must be a positive number of seconds, not nan'),
    ({'real_time_factor': -0.5}, '--real-time-factor must be 0 or positive, not -0.5'),
])
def test_bad_arguments_are_one_line_and_no_bag(tmp_path, capsys, kwargs, message):
    assert record_mod.record(['sample_arm'], str(tmp_path / 'bag'), **kwargs) == 2
    assert capsys.readouterr().err == message + '\n'
    assert not (tmp_path / 'bag').exists()


def test_a_bad_commands_file_or_model_is_one_line(tmp_path, capsys):
    (tmp_path / 'c.csv').write_text('time,a\n1,x\n')
    assert record_mod.record(['sample_arm'], str(tmp_path / 'bag'), duration=0.05,
                             commands_file=str(tmp_path / 'c.csv')) == 2
    err = capsys.readouterr().err
    assert err.strip().endswith('c.csv: line 2: a value is not a number')
    assert not (tmp_path / 'bag').exists()
    (tmp_path / 'u.csv').write_text('time,no_such_joint\n0.5,1.0\n')
    assert record_mod.record(['sample_arm'], str(tmp_path / 'bag2'), duration=0.05,
                             commands_file=str(tmp_path / 'u.csv')) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(f'{tmp_path / "u.csv"}: ') and 'no_such_joint' in err[-1]
    assert record_mod.record([str(tmp_path / 'none.body')], str(tmp_path / 'bag3'),
                             duration=0.05) == 2
    assert 'none.body' in capsys.readouterr().err.strip().splitlines()[-1]
    assert not (tmp_path / 'bag3').exists()
    (tmp_path / 'old').mkdir()
    assert record_mod.record(['sample_arm'], str(tmp_path / 'old'), duration=0.05) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == \
        f'{tmp_path / "old"}: already exists (a bag goes into a new directory)'


def test_a_recording_holds_every_period_and_says_what_it_wrote(tmp_path, capsys, monkeypatch):
    import time

    from body_bridge.ros.process import transport
    (tmp_path / 'm.csv').write_text('time,shoulder_yaw\n0.05,0.3\n')
    profiles, destroyed, made = [], [], record_mod._nodes
    monkeypatch.setattr(transport, 'use_bundled_fastdds_profile',
                        lambda: profiles.append('called'))

    def nodes(*args):
        out = made(*args)
        for node in out:
            real = node.destroy_node
            node.destroy_node = lambda real=real: (destroyed.append('node'), real())
        return out
    monkeypatch.setattr(record_mod, '_nodes', nodes)
    import rclpy
    shutdown = rclpy.shutdown
    monkeypatch.setattr(rclpy, 'shutdown', lambda *a, **k: (destroyed.append('rclpy'),
                                                            shutdown(*a, **k)))
    wall, cpu = time.monotonic(), time.process_time()
    status = record_mod.record(['sample_arm'], str(tmp_path / 'bag'), duration=0.08,
                               topics=['/joint_states', 'clock'],
                               commands_file=str(tmp_path / 'm.csv'))
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    # its node destroyed while rclpy's context is valid, then rclpy shut down
    assert status == 0 and profiles == ['called'] and destroyed == ['node', 'rclpy']
    line = capsys.readouterr().out.strip()
    size = record_mod.bag_size(str(tmp_path / 'bag'))
    found = re.fullmatch(rf'{tmp_path / "bag"}: 2 topics, 18 messages, 0\.08 s simulated in '
                         r'([\d.]+) s \(CPU ([\d.]+) s\), ([\d.]+) MB', line)
    assert found, line
    assert float(found.group(3)) == round(size / 1e6, 1)
    # the run's own times: within those of the whole call
    assert float(found.group(1)) <= wall + 0.05 and float(found.group(2)) <= cpu + 0.05
    topics = read_bag(tmp_path / 'bag')
    stamps = [t for t, _ in topics['/joint_states'][1]]
    assert stamps == [i * 10_000_000 for i in range(9)]  # the start, then 8 periods
    assert [t for t, _ in topics['/clock'][1]] == stamps
    names = list(topics['/joint_states'][1][0][1].name)
    moved = [m.position[names.index('shoulder_yaw')] for _, m in topics['/joint_states'][1]]
    assert moved[0] == pytest.approx(0.0, abs=1e-6)
    assert moved[-1] > 0.05  # on its way to 0.3 at 0.05 s (linear from 0)


@pytest.fixture
def arms():
    """Makes the sample arm's node (a node is run once: its runner declares its parameters)."""
    import rclpy
    rclpy.init()
    made = []

    def make():
        made.append(record_mod._nodes(['sample_arm'], [], 0.0))
        return made[-1]
    yield make
    for nodes in made:
        for node in nodes:
            node.destroy_node()
    rclpy.shutdown()


class Log:
    def __init__(self):
        self.warnings = []

    def warning(self, text):
        self.warnings.append(text)


def test_one_model_is_one_node_and_commands_are_followed_with_warnings(arms):
    from body_bridge.sim.control.trajectory import JointTrajectory
    arm = arms()
    assert len(arm) == 1 and arm[0].get_parameter('model').value == 'sample_arm'
    assert arm[0].get_parameter('real_time_factor').value == 0.0
    log = Log()
    arm[0].get_logger = lambda: log
    trajectory = JointTrajectory.from_points(['shoulder_yaw'], [0.02], [[99.0]])
    commands = Commands(trajectory, (Twist(0.0, 0.5, 0.0),))
    record_mod._run(arm, commands, 0.03, 0.0)
    assert log.warnings[0] == ('the commands have a cmd_vel profile but the model has no '
                               'mobile base: it is ignored')
    assert log.warnings[1].startswith('trajectory: shoulder_yaw: trajectory point beyond '
                                      'its range')
    assert log.warnings[2].startswith('trajectory: shoulder_yaw: trajectory faster than its '
                                      'velocity limit')
    assert len(log.warnings) == 3
    assert arm[0].sim.time == pytest.approx(0.03)
    arm = arms()
    arm[0].get_logger = lambda: log
    log.warnings.clear()
    record_mod._run(arm, Commands(), 0.02, 0.0)  # nothing to follow: no warning
    assert log.warnings == [] and arm[0].sim.time == pytest.approx(0.02)


def test_several_models_are_one_world_of_namespaced_nodes():
    import rclpy
    rclpy.init()
    nodes = []
    try:
        nodes = record_mod._nodes(['a=sample_arm', 'b=sample_arm'], [], 2.0)
        assert [n.get_namespace() for n in nodes] == ['/a', '/b']
        assert [n.get_parameter('real_time_factor').value for n in nodes] == [2.0, 2.0]
    finally:
        for node in nodes:
            node.destroy_node()
        rclpy.shutdown()


def test_a_world_file_is_its_models_at_their_poses_paced_by_the_command(tmp_path, capfd):
    import rclpy
    world = tmp_path / 'two.world.yaml'
    world.write_text('world: two\nsettings: {real_time_factor: 2.0, control_rate: 50.0}\n'
                     'models:\n  - {name: a, file: sample_arm, pose: [1.0, 0.0, 0.0]}\n'
                     '  - {name: b, file: sample_arm, pose: [0.0, 2.0, 0.0, 0.0, 0.0, 0.5],'
                     ' colour: red}\n  - {name: c, file: sample_arm, pose: [3.0, 0.0, 0.0]}\n')
    # the process's own arguments do not reach a world's nodes: those given to them do
    rclpy.init(args=['record', '--ros-args', '-p', 'control_rate:=25.0'])
    nodes = []
    try:
        nodes = record_mod._nodes([str(world)], ['--ros-args', '-p', 'noise_seed:=3'], 0.0)
        assert [n.get_namespace() for n in nodes] == ['/a', '/b', '/c']
        # the command's pace wins over the world's setting; its other settings hold
        assert [n.get_parameter('real_time_factor').value for n in nodes] == [0.0] * 3
        assert [n.get_parameter('control_rate').value for n in nodes] == [50.0] * 3
        assert [n.get_parameter('noise_seed').value for n in nodes] == [3] * 3
        assert [list(n.get_parameter('initial_pose').value) for n in nodes] == [
            [1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0, 0.0, 0.5],
            [3.0, 0.0, 0.0, 0.0, 0.0, 0.0]]
        assert [n.world_file for n in nodes] == [str(world)] * 3
    finally:
        for node in nodes:
            node.destroy_node()
        rclpy.shutdown()
    # a key the world file does not know: said once, by the first model's node
    ignored = [line for line in capfd.readouterr().err.splitlines() if 'unknown key' in line]
    assert len(ignored) == 1 and '[a.body_bridge]: ' in ignored[0], ignored
    assert ignored[0].endswith(f"{world}:5: models[1]: unknown key 'colour' (known: name, "
                               'file, pose, description, tags): ignored')


def test_a_recording_is_lossless_and_waits_for_the_compression(tmp_path, monkeypatch, capsys):
    """record makes its recorder and the encoders lossless, waits for the encoders before
    the bag is closed (saying so when they do not finish), and leaves the process's encoders
    live again."""
    from body_bridge.ros.stream import encoder
    from body_bridge.ros.stream.recorder import Recorder
    seen, order = {}, []

    class Watched(Recorder):
        def __init__(self, *args, **kwargs):
            seen['lossless'] = kwargs.get('lossless')
            seen['encoders'] = encoder._MODE['lossless']
            super().__init__(*args, **kwargs)

        def close(self, *args, **kwargs):
            order.append('bag closed')
            super().close(*args, **kwargs)
    monkeypatch.setattr(record_mod, 'Recorder', Watched)
    monkeypatch.setattr(record_mod, 'flush_all', lambda: order.append('flushed') or False)
    status = record_mod.record(['sample_arm'], str(tmp_path / 'bag'), duration=0.02,
                               topics=['/clock'])
    assert status == 0 and seen == {'lossless': True, 'encoders': True}
    assert order == ['flushed', 'bag closed'] and encoder._MODE['lossless'] is False
    assert capsys.readouterr().err.splitlines()[-1] == (
        'record: an image compression did not finish; its last frames are missing')


def test_models_started_inside_each_other_are_told_where_their_pose_is(tmp_path, capfd):
    """A world file's models are told of its ``pose`` key; models of the command line of
    their initial_pose parameters."""
    import rclpy
    world = tmp_path / 'pile.world.yaml'
    world.write_text('world: pile\nmodels:\n  - {name: a, file: sample_arm}\n'
                     '  - {name: b, file: sample_arm}\n')
    for specs in ([str(world)], ['a=sample_arm', 'b=sample_arm']):
        rclpy.init()
        nodes = []
        try:
            nodes = record_mod._nodes(specs, [], 0.0)
            record_mod._run(nodes, None, 0.01, 0.0)
        finally:
            for node in nodes:
                node.destroy_node()
            rclpy.shutdown()
    told = [line for line in capfd.readouterr().err.splitlines() if 'inside each other' in line]
    assert len(told) == 2, told
    assert told[0].endswith(f'place them apart with their pose in {world}')
    assert told[1].endswith('place them apart with their initial_pose parameters')


def test_two_copies_of_one_file_say_its_warnings_once(tmp_path, capfd):
    import rclpy
    model = tmp_path / 'odd.body'
    model.write_text('format: ChoreonoidBody\nname: odd\nlinks:\n  - name: base\n'
                     '    joint_type: fixed\n    bogus_key: 3\n')
    rclpy.init()
    nodes = []
    try:
        nodes = record_mod._nodes([f'a={model}', f'b={model}'], [], 0.0)
        for node in nodes:
            node.destroy_node()  # gone: a later node of the file says them again
        nodes = record_mod._nodes([str(model)], [], 0.0)
    finally:
        for node in nodes:
            node.destroy_node()
        rclpy.shutdown()
    err = capfd.readouterr().err
    said = f"{model}:4: link 'base': key 'bogus_key' is not supported and was ignored"
    assert err.count(said) == 2, err
    assert re.search(r'\[b\.body_bridge\]: 1 warning of its model: the same as '
                     r'/a/body_bridge gave above', err), err


def test_the_twist_in_force_goes_to_the_mobile_base():
    taken = []
    node = types.SimpleNamespace(mobile=types.SimpleNamespace(_on_twist=taken.append))
    commands = Commands(twists=(Twist(0.0, 0.3, 0.0), Twist(1.0, 0.0, -0.5)))
    record_mod._command(node, commands, 0.5)
    record_mod._command(node, commands, 1.0)
    assert [(t.linear.x, t.angular.z) for t in taken] == [(0.3, 0.0), (0.0, -0.5)]
    record_mod._command(node, Commands(twists=(Twist(2.0, 1.0, 1.0),)), 1.0)  # not yet
    record_mod._command(types.SimpleNamespace(), commands, 1.0)  # no base: nothing
    assert len(taken) == 2


def test_pacing_sleeps_to_the_real_time_factor(arms, monkeypatch):
    """With a real-time factor each period ends at its time on the wall clock; the clock here
    is a stand-in that moves only when the loop sleeps (or the test moves it)."""
    now, slept = [100.0], []

    def sleep(delay):
        slept.append(round(delay, 9))
        now[0] += delay
    monkeypatch.setattr(record_mod, 'time', types.SimpleNamespace(
        monotonic=lambda: now[0], sleep=sleep))
    record_mod._run(arms(), None, 0.04, 0.5)
    assert slept == [0.02, 0.02, 0.02, 0.02]  # 10 ms periods at half real time
    slept.clear()
    record_mod._run(arms(), None, 0.03, 2.0)
    assert slept == [0.005, 0.005, 0.005]
    slept.clear()
    record_mod._run(arms(), None, 0.02, 0.0)  # as fast as it can: no sleeping
    assert slept == []

    def late_sleep(delay):  # a loop behind its time does not sleep
        slept.append(delay)
    monkeypatch.setattr(record_mod, 'time', types.SimpleNamespace(
        monotonic=lambda: now.__setitem__(0, now[0] + 1.0) or now[0], sleep=late_sleep))
    record_mod._run(arms(), None, 0.02, 1.0)
    assert slept == []
