"""One run of a sweep (sweep/run.py) and the pool of runs (sweep/pool.py), fast: the ROS side of
a run (``run_world``) replaced by a world stepped here, the runs by children that write their
results at once."""

from __future__ import annotations

import io
import json
import os
import signal
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from body_bridge.sim.building.options import SimOptions
from body_bridge.sim.simulation import simulate_together
from body_bridge.sweep import pool
from body_bridge.sweep.run import RESULT, VALUES, isolate, run_one
from body_bridge.sweep.spec import read_sweep
from body_bridge.sweep.targets import Plan

REPO = Path(__file__).resolve().parents[1]
CRATE = REPO / 'examples' / 'scenario' / 'crate.body'


def plan_of(tmp_path, extra: str = '', runs: int = 2) -> Plan:
    from body_bridge.formats import load_model
    from body_bridge.model import Pose
    from body_bridge.paths import resolve_model
    from body_bridge.sim.building.worldfile import WorldFile, WorldModel
    text = (f'models: [arm=sample_arm]\nduration: 0.2\nruns: {runs}\nseed: 5\n'
            'real_time_factor: 3\n'
            'vary:\n  crate.x: [0.4, 0.6]\n  arm.noise_seed: [11, 12]\n  crate.friction: [0.3]\n'
            'checks:\n  calm: {no_divergence: true}\n'
            '  low: {inside: crate, box: [[-1, -1, 0], [1, 1, 0.2]]}\n'
            '  untouched: {contact: [arm/hand, crate], expect: false}\n' + extra)
    path = tmp_path / 'r.sweep.yaml'
    path.write_text(text)
    world = WorldFile('r', str(path), models=(
        WorldModel('arm', resolve_model('sample_arm')),
        WorldModel('crate', str(CRATE), Pose.from_rpy([0, 0, 0], pos=[0.5, 0.3, 0.05]))))
    models = {'arm': load_model(resolve_model('sample_arm')), 'crate': load_model(str(CRATE))}
    return Plan(read_sweep(str(path)), world, models, {'/arm/joint_states'})


class Node:
    """What the watch reads of a bridge node: its namespace, its simulation, the graph."""

    graph: list = []

    def __init__(self, name, sim):
        self.name, self.sim = name, sim

    def get_namespace(self):
        return f'/{self.name}'

    def get_name(self):
        return 'body_bridge'

    def get_node_names_and_namespaces(self):
        return [('body_bridge', '/arm'), ('body_bridge', '/crate'), *Node.graph]


class Runner:
    def __init__(self, nodes, world):
        self.nodes, self.world = nodes, world


@pytest.fixture
def fake_world(monkeypatch):
    """run_world replaced: the world built and stepped here; what it was given, kept."""
    pytest.importorskip('rclpy', reason='the run module imports the ROS side of a run')
    from body_bridge.ros.process import scenario
    given = {}

    def run_world(world, output, duration, *, watch, **kwargs):
        given.update(kwargs, world=world, output=output, duration=duration)
        entries = [(given_model(world, m.name), SimOptions(initial_pose=m.pose))
                   for m in world.models]
        sims = simulate_together(entries, ['', 'crate/'])
        runner = Runner([Node(m.name, s) for m, s in zip(world.models, sims)], sims[0].world)
        given['runner'] = runner
        watch.start(runner)
        for _ in range(int(round(duration / sims[0].period))):
            runner.world.step_period()
            watch.period(runner)
        os.makedirs(output)
        return {'wall': 0.1, 'cpu': 0.1, 'messages': 7, 'bytes': 70, 'dropped': 0}

    models = {}

    def given_model(world, name):
        from body_bridge.formats import load_model
        path = next(m.path for m in world.models if m.name == name)
        return models.setdefault(path, load_model(path))

    monkeypatch.setattr(scenario, 'run_world', run_world)
    Node.graph = []
    return given


def test_a_run_writes_its_values_then_its_verdicts(tmp_path, fake_world):
    plan = plan_of(tmp_path)
    folder = tmp_path / 'runs' / '00001'
    result = run_one(plan, 1, str(folder))
    values = yaml.safe_load((folder / VALUES).read_text())
    assert values == {'sweep': 'r', 'index': 1, 'seed': 5,
                      'values': {'crate.x': 0.6, 'arm.noise_seed': 12, 'crate.friction': 0.3}}
    written = json.loads((folder / RESULT).read_text())
    assert written == {**result, 'checks': written['checks']}
    assert written['status'] == 'done' and written['passed'] is True and written['error'] == ''
    assert written['checks']['calm'] == {'passed': True, 'resets': 0.0}
    assert written['checks']['low']['passed'] and \
        written['checks']['low']['x'] == pytest.approx(0.6, abs=1e-3)
    assert written['messages'] == 7 and written['sim_time'] == pytest.approx(0.2)
    assert written['wall_total'] > 0 and written['wall'] == 0.1
    assert '"first": null' in (folder / RESULT).read_text()  # never touched: JSON's null
    assert written['checks']['untouched'] == {'passed': True, 'first': None}
    # what the ROS side was given: the crate moved, the arm's parameters, the pace
    crate = fake_world['world'].models[1]
    assert np.allclose(crate.pose.pos, [0.6, 0.3, 0.05])
    assert fake_world['parameters'] == {'arm': {'noise_seed': 12}}
    assert fake_world['real_time_factor'] == 3.0 and fake_world['duration'] == 0.2
    assert fake_world['output'] == str(folder / 'bag')
    assert fake_world['topics'] == () and fake_world['commands_file'] is None


def test_a_varied_friction_reaches_the_entitys_collision_surfaces_only(tmp_path, fake_world):
    run_one(plan_of(tmp_path), 0, str(tmp_path / 'run'))
    world = fake_world['runner'].world
    mj = world.mj
    crate = fake_world['runner'].nodes[1].sim
    body = crate.body_id('crate')
    geoms = [g for g in range(mj.ngeom) if mj.geom_bodyid[g] == body and mj.geom_contype[g]]
    others = [g for g in range(mj.ngeom) if mj.geom_bodyid[g] != body and mj.geom_contype[g]]
    assert geoms and all(mj.geom_friction[g, 0] == 0.3 for g in geoms)
    assert others and all(mj.geom_friction[g, 0] != 0.3 for g in others)


def test_a_run_that_cannot_start_is_failed_with_its_reason(tmp_path, monkeypatch):
    pytest.importorskip('rclpy', reason='the run module imports the ROS side of a run')
    from body_bridge.ros.process import scenario

    def refused(*args, **kwargs):
        raise scenario.RunFailed('parameter noise_seed: not a number')
    monkeypatch.setattr(scenario, 'run_world', refused)
    result = run_one(plan_of(tmp_path), 0, str(tmp_path / 'run'))
    assert result['status'] == 'failed' and result['passed'] is False
    assert result['error'] == 'parameter noise_seed: not a number'
    assert json.loads((tmp_path / 'run' / RESULT).read_text())['status'] == 'failed'


def test_nodes_alongside_start_in_the_runs_folder_and_are_stopped(tmp_path, fake_world):
    script = tmp_path / 'node.py'
    script.write_text('import os, signal, sys, time\n'
                      'signal.signal(signal.SIGINT, lambda *a: sys.exit(0))\n'
                      "open(os.path.join(os.environ['BODY_BRIDGE_RUN_DIR'], 'pid'), 'w')"
                      '.write(str(os.getpid()))\n'
                      "open(os.path.join(os.environ['BODY_BRIDGE_RUN_DIR'], 'started'), 'w')"
                      ".write(os.environ['BODY_BRIDGE_RUN_INDEX'] + ' ' + ' '.join(sys.argv[1:]))\n"
                      'time.sleep(60)\n')
    Node.graph = [('listener', '/')]
    plan = plan_of(tmp_path, f'nodes: {sys.executable} {script}\n')
    result = run_one(plan, 1, str(tmp_path / 'run'))
    assert (tmp_path / 'run' / 'started').read_text() == '1 --ros-args -p use_sim_time:=true'
    assert result['checks']['nodes'] == {'passed': True} and result['passed']
    assert (tmp_path / 'run' / 'nodes.log').exists()
    with pytest.raises(ProcessLookupError):  # stopped, and waited for, at the run's end
        os.kill(int((tmp_path / 'run' / 'pid').read_text()), 0)


@pytest.mark.parametrize('command, message', [
    (f'{sys.executable} -c "import sys; sys.exit(3)"', 'the nodes alongside ended with status 3'),
    ('/nonexistent/controller', 'the nodes alongside did not start'),
])
def test_nodes_that_crash_or_never_start_fail_the_run(tmp_path, fake_world, command, message):
    plan = plan_of(tmp_path, f"nodes: '{command}'\n")
    result = run_one(plan, 0, str(tmp_path / 'run'))
    assert result['checks']['nodes'] == {'passed': False} and not result['passed']
    assert result['error'].startswith(message)


def test_a_runs_process_keeps_its_ros_traffic_to_itself(monkeypatch):
    # what isolate() sets is put back after the test (later tests' bridges run in this
    # process's domain)
    monkeypatch.setenv('ROS_DOMAIN_ID', os.environ.get('ROS_DOMAIN_ID', '0'))
    monkeypatch.delenv('ROS_AUTOMATIC_DISCOVERY_RANGE', raising=False)
    monkeypatch.setenv('ROS_LOCALHOST_ONLY', '1')
    monkeypatch.setenv('ROS_STATIC_PEERS', '10.0.0.1')
    isolate(123, alongside=False)
    assert os.environ['ROS_DOMAIN_ID'] == '123'
    assert os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] == 'OFF'
    assert 'ROS_LOCALHOST_ONLY' not in os.environ and 'ROS_STATIC_PEERS' not in os.environ
    isolate(124, alongside=True)
    assert os.environ['ROS_DOMAIN_ID'] == '124'
    assert os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] == 'LOCALHOST'


# --- the pool: children that write their result at once, or die --------------------------------


def fake_run(deaths: dict):
    """A run that writes its result at once, or dies without one ``deaths[index]`` times."""
    def run_one(plan, index, folder):
        marks = Path(folder).parent.parent / f'died_{index}'
        died = int(marks.read_text()) if marks.exists() else 0
        if died < deaths.get(index, 0):
            marks.write_text(str(died + 1))
            os.kill(os.getpid(), signal.SIGKILL)
        with open(os.path.join(folder, RESULT), 'w') as f:
            json.dump({'passed': index % 2 == 0, 'domain': os.environ['ROS_DOMAIN_ID'],
                       'range': os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE']}, f)
    return run_one


def test_the_pool_runs_every_index_once_over_its_jobs(tmp_path, monkeypatch):
    monkeypatch.setattr(pool, 'run_one', fake_run({}))
    plan = plan_of(tmp_path, runs=5)
    out = str(tmp_path / 'out')
    todo = pool.prepare(plan, out)
    progress = pool.Progress(5, 0, open(os.devnull, 'w'))
    lost, interrupted = pool.run_local(plan, out, todo, 2, progress)
    assert (lost, interrupted) == ([], False)
    results = [json.loads(Path(pool.run_folder(out, i), RESULT).read_text()) for i in range(5)]
    assert [r['passed'] for r in results] == [True, False, True, False, True]
    assert all(100 <= int(r['domain']) < 200 and r['range'] == 'OFF' for r in results)
    assert progress.done == 5 and progress.failed == 2 and progress.again == 0
    assert all(Path(pool.run_folder(out, i), 'run.log').exists() for i in range(5))
    assert pool.prepare(plan, out) == []  # nothing left to do


def test_a_run_that_dies_is_run_again_then_counted_lost(tmp_path, monkeypatch):
    monkeypatch.setattr(pool, 'run_one', fake_run({1: 1, 2: 5}))
    plan = plan_of(tmp_path, runs=3)
    out = str(tmp_path / 'out')
    progress = pool.Progress(3, 0, open(os.devnull, 'w'))
    lost, interrupted = pool.run_local(plan, out, pool.prepare(plan, out), 1, progress)
    assert lost == [2] and not interrupted  # two retries by default
    assert Path(pool.run_folder(out, 1), RESULT).exists()      # died once, then ran
    assert not Path(pool.run_folder(out, 2)).exists()          # died three times: lost
    assert (tmp_path / 'out' / 'died_2').read_text() == '3'     # the first run and 2 retries
    assert progress.again == 3 and progress.done == 3
    assert progress.failed == 2  # index 1 failed its checks, index 2 was lost


# --- the ROS side's own pieces -------------------------------------------------------------------


def test_a_bags_chunks_are_in_its_file_before_it_is_closed(tmp_path):
    pytest.importorskip('rclpy', reason='the bag writer takes QoS profiles from rclpy')
    from mcap.records import Message
    from mcap.stream_reader import StreamReader
    from rclpy.qos import QoSProfile

    from body_bridge.ros.stream.bag import BagWriter
    bag = BagWriter(str(tmp_path / 'bag'), compress=False)
    key = bag.add_topic('/x', 'std_msgs/msg/String', QoSProfile(depth=1))
    payload = bytes(range(256)) * 40  # 10 kB a message: a 1 MB chunk every 100 or so
    for i in range(250):
        bag.write(key, payload, i)
    path = next((tmp_path / 'bag').glob('*.mcap'))
    on_disk = []
    with open(path, 'rb') as f:  # as a process killed now would leave it
        try:
            for record in StreamReader(f, emit_chunks=False).records:
                if isinstance(record, Message):
                    on_disk.append(record.log_time)
        except Exception:  # noqa: BLE001 - the file ends inside what is not flushed yet
            pass
    assert len(on_disk) >= 200 and on_disk == list(range(len(on_disk)))
    bag.close()


def test_a_runs_parameters_take_the_types_the_bridge_declares():
    pytest.importorskip('rclpy', reason='parameters are rclpy Parameters')
    from rclpy.parameter import Parameter

    from body_bridge.ros.process.scenario import _parameter
    assert _parameter('noise_seed', 7.0).type_ == Parameter.Type.INTEGER
    assert _parameter('noise_seed', 7).value == 7
    assert _parameter('servo_damping', 1).type_ == Parameter.Type.DOUBLE
    assert _parameter('servo_damping', 1).value == 1.0
    assert _parameter('self_collision', 1).value is True
    assert _parameter('root', 'free').value == 'free'
    assert _parameter('initial_positions.elbow_pitch', 1).type_ == Parameter.Type.DOUBLE
    assert _parameter('devices.base_imu.on', False).value is False
    assert _parameter('noise_seed', 7.5).type_ == Parameter.Type.DOUBLE  # refused by the node


def test_progress_on_a_terminal_is_one_line_rewritten(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True
    clock = iter([100.0, 110.0, 130.0])
    monkeypatch.setattr(pool.time, 'monotonic', lambda: next(clock))
    stream = Terminal()
    progress = pool.Progress(4, 2, stream)  # two runs done before: 2 left
    progress.update(passed=True)            # one run in 10 s: 1 left, about 10 s
    progress.update(passed=False)           # two in 30 s: none left
    progress.close()
    text = stream.getvalue()
    assert text == ('\r[##################......] 3/4 runs, 0 failed, about 10 s left   '
                    '\r[########################] 4/4 runs, 1 failed, about 0 s left   \n')


def test_a_runs_output_goes_to_its_log_and_the_pool_gives_sigterm_back(tmp_path, monkeypatch):
    def run_one(plan, index, folder):
        os.write(1, f'stdout of run {index}\n'.encode())  # as the bridge's logs and MuJoCo
        os.write(2, f'stderr of run {index}\n'.encode())  # write them: to the descriptors
        with open(os.path.join(folder, RESULT), 'w') as f:
            json.dump({'passed': True}, f)
    monkeypatch.setattr(pool, 'run_one', run_one)
    before = signal.getsignal(signal.SIGTERM)
    plan = plan_of(tmp_path, runs=2)
    out = str(tmp_path / 'out')
    pool.run_local(plan, out, pool.prepare(plan, out), 2, pool.Progress(2, 0, io.StringIO()))
    assert signal.getsignal(signal.SIGTERM) is before
    log = Path(pool.run_folder(out, 1), 'run.log').read_text()
    assert 'stdout of run 1' in log and 'stderr of run 1' in log


def test_what_a_run_prints_and_the_traceback_it_dies_with_are_in_its_log(tmp_path,
                                                                        monkeypatch):
    def run_one(plan, index, folder):
        print(f'printed by run {index}')  # Python's buffers, left to the pool to flush
        print(f'warned by run {index}', file=sys.stderr)
        if index == 1:
            raise RuntimeError('the world would not load')
        with open(os.path.join(folder, RESULT), 'w') as f:
            json.dump({'passed': True}, f)
    monkeypatch.setattr(pool, 'run_one', run_one)
    for name, fd in (('stdout', 1), ('stderr', 2)):  # writers on the descriptors themselves
        monkeypatch.setattr(sys, name, io.TextIOWrapper(io.BufferedWriter(
            io.FileIO(fd, 'w', closefd=False), 1 << 16)))
    plan = plan_of(tmp_path, runs=2)
    out = str(tmp_path / 'out')
    lost, _ = pool.run_local(plan, out, pool.prepare(plan, out), 1,
                             pool.Progress(2, 0, io.StringIO()), retries=0)
    assert lost == [1]
    log = Path(pool.run_folder(out, 0), 'run.log').read_text()
    assert 'printed by run 0' in log and 'warned by run 0' in log


def test_a_run_that_raises_leaves_its_traceback_in_its_log(tmp_path, monkeypatch):
    def run_one(plan, index, folder):
        raise RuntimeError('the world would not load')
    monkeypatch.setattr(pool, 'run_one', run_one)
    monkeypatch.setattr(sys, 'stderr', io.TextIOWrapper(io.BufferedWriter(
        io.FileIO(2, 'w', closefd=False), 1 << 16)))
    plan = plan_of(tmp_path, runs=1)
    out = str(tmp_path / 'out')
    calls = []  # the log, read before the dead run's folder is removed
    real = pool._stop_nodes_of
    monkeypatch.setattr(pool, '_stop_nodes_of', lambda folder: (
        calls.append(Path(folder, 'run.log').read_text()), real(folder)))
    lost, _ = pool.run_local(plan, out, pool.prepare(plan, out), 1,
                             pool.Progress(1, 0, io.StringIO()), retries=0)
    assert lost == [0] and len(calls) == 1
    assert 'RuntimeError: the world would not load' in calls[0]


def test_a_run_ignores_ctrl_c_and_leaves_the_stopping_to_the_pool(tmp_path, monkeypatch):
    def run_one(plan, index, folder):
        os.kill(os.getpid(), signal.SIGINT)  # a terminal's Ctrl-C reaches every process
        sum(range(1000))
        with open(os.path.join(folder, RESULT), 'w') as f:
            json.dump({'passed': True}, f)
    monkeypatch.setattr(pool, 'run_one', run_one)
    plan = plan_of(tmp_path, runs=1)
    out = str(tmp_path / 'out')
    lost, interrupted = pool.run_local(plan, out, pool.prepare(plan, out), 1,
                                       pool.Progress(1, 0, io.StringIO()), retries=0)
    assert (lost, interrupted) == ([], False)
    assert Path(pool.run_folder(out, 0), RESULT).exists()


def test_the_pool_sleeps_between_its_looks_at_the_runs(tmp_path, monkeypatch):
    import resource
    import time

    def run_one(plan, index, folder):
        time.sleep(1.0)
        with open(os.path.join(folder, RESULT), 'w') as f:
            json.dump({'passed': True}, f)
    monkeypatch.setattr(pool, 'run_one', run_one)
    plan = plan_of(tmp_path, runs=1)
    out = str(tmp_path / 'out')

    def cpu():
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime
    before = cpu()
    pool.run_local(plan, out, pool.prepare(plan, out), 1, pool.Progress(1, 0, io.StringIO()))
    assert cpu() - before < 0.4  # not a core spent waiting for a run of a second


def test_an_interrupted_pool_stops_its_runs_and_keeps_what_finished(tmp_path, monkeypatch):
    def run_one(plan, index, folder):
        if index == 0:
            with open(os.path.join(folder, RESULT), 'w') as f:
                json.dump({'passed': True}, f)
            return
        with open(os.path.join(folder, 'pid'), 'w') as f:
            f.write(str(os.getpid()))
        import time
        try:
            time.sleep(60)
        finally:  # a run stops its nodes on its way out
            Path(folder, 'stopped').write_text('')
    monkeypatch.setattr(pool, 'run_one', run_one)
    plan = plan_of(tmp_path, runs=3)
    out = str(tmp_path / 'out')
    previous = signal.signal(signal.SIGALRM, lambda *_: os.kill(os.getpid(), signal.SIGTERM))
    signal.setitimer(signal.ITIMER_REAL, 1.5)  # a SIGTERM to the sweep in the middle
    try:
        lost, interrupted = pool.run_local(plan, out, pool.prepare(plan, out), 3,
                                           pool.Progress(3, 0, io.StringIO()))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert interrupted and lost == []
    assert Path(pool.run_folder(out, 0), RESULT).exists()
    for index in (1, 2):  # stopped, and waited for: gone
        pid = int(Path(pool.run_folder(out, index), 'pid').read_text())
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
        assert not Path(pool.run_folder(out, index), RESULT).exists()
        assert Path(pool.run_folder(out, index), 'stopped').exists()
    assert pool.prepare(plan, out) == [1, 2]


#: Signals the at-fork hooks below send, once each, while a test arms them.
_FORK_SIGNALS = {'parent': None, 'child': None}


def _signal_after_fork(side):
    sig = _FORK_SIGNALS[side]
    if sig is not None:
        if side == 'parent':
            _FORK_SIGNALS[side] = None
        os.kill(os.getpid(), sig)
        sum(range(100))  # the handler runs here, inside the at-fork hook


os.register_at_fork(after_in_parent=lambda: _signal_after_fork('parent'),
                    after_in_child=lambda: _signal_after_fork('child'))


@pytest.fixture
def fork_signals():
    yield _FORK_SIGNALS
    _FORK_SIGNALS.update(parent=None, child=None)


def test_a_ctrl_c_that_lands_while_a_run_is_forked_stops_the_sweep(tmp_path, monkeypatch,
                                                                     fork_signals, capfd):
    monkeypatch.setattr(pool, 'run_one', fake_run({}))
    plan = plan_of(tmp_path, runs=4)
    out = str(tmp_path / 'out')
    before = signal.getsignal(signal.SIGINT)
    fork_signals['parent'] = signal.SIGINT  # inside the hooks run around the first fork
    lost, interrupted = pool.run_local(plan, out, pool.prepare(plan, out), 1,
                                       pool.Progress(4, 0, io.StringIO()))
    assert interrupted and lost == []
    assert signal.getsignal(signal.SIGINT) is before
    assert pool.prepare(plan, out)[-3:] == [1, 2, 3]  # nothing after the interrupted fork
    assert 'Exception ignored' not in capfd.readouterr().err


def test_no_run_is_forked_once_the_sweep_is_interrupted(tmp_path, monkeypatch, fork_signals):
    monkeypatch.setattr(pool, 'run_one', fake_run({}))
    forks, real = [], os.fork
    monkeypatch.setattr(os, 'fork', lambda: (forks.append(1), real())[1])
    plan = plan_of(tmp_path, runs=4)
    out = str(tmp_path / 'out')
    fork_signals['parent'] = signal.SIGINT  # with room for four runs at once
    _, interrupted = pool.run_local(plan, out, pool.prepare(plan, out), 4,
                                    pool.Progress(4, 0, io.StringIO()))
    assert interrupted and len(forks) == 1


def test_a_run_signalled_before_its_own_handlers_stops_at_once(tmp_path, monkeypatch,
                                                               fork_signals):
    monkeypatch.setattr(pool, 'run_one', fake_run({}))
    plan = plan_of(tmp_path, runs=1)
    out = str(tmp_path / 'out')
    fork_signals['child'] = signal.SIGTERM  # the pool stopping a run it has just forked
    progress = pool.Progress(1, 0, io.StringIO())
    lost, interrupted = pool.run_local(plan, out, pool.prepare(plan, out), 1, progress,
                                       retries=1)
    assert lost == [0] and not interrupted and progress.again == 1
    assert not Path(pool.run_folder(out, 0)).exists()  # it never ran


def test_a_hung_run_is_killed_at_its_limit_and_its_nodes_with_it(tmp_path, monkeypatch):
    import subprocess
    import time

    from body_bridge.sweep.run import NODES_PID

    def run_one(plan, index, folder):
        nodes = subprocess.Popen(['sleep', '60'], start_new_session=True)
        with open(os.path.join(folder, NODES_PID), 'w') as f:
            f.write(str(nodes.pid))
        with open(tmp_path / f'nodes_{index}_{os.getpid()}', 'w') as f:
            f.write(str(nodes.pid))
        time.sleep(60)  # hangs
    monkeypatch.setattr(pool, 'run_one', run_one)
    plan = plan_of(tmp_path, runs=1)
    out = str(tmp_path / 'out')
    progress = pool.Progress(1, 0, io.StringIO())
    began = time.monotonic()
    lost, interrupted = pool.run_local(plan, out, pool.prepare(plan, out), 1, progress,
                                       retries=1, limit=0.8)
    assert lost == [0] and not interrupted and progress.again == 1
    assert 1.6 <= time.monotonic() - began < 20  # two tries of 0.8 s
    sleepers = [int(p.read_text()) for p in tmp_path.glob('nodes_0_*')]
    assert len(sleepers) == 2
    for pid in sleepers:
        for _ in range(100):  # killed; reaped by init
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            raise AssertionError(f'the nodes {pid} of a killed run still run')


def test_a_runs_time_limit_grows_with_its_simulated_time_and_pace(tmp_path):
    plan = plan_of(tmp_path)  # 0.2 s at a real-time factor of 3
    assert pool.time_limit(plan) == pytest.approx(60 + 10 * 0.2 / 3)
    text = (tmp_path / 'r.sweep.yaml').read_text().replace('real_time_factor: 3',
                                                           'real_time_factor: 0')
    (tmp_path / 'r.sweep.yaml').write_text(text)
    fast = Plan(read_sweep(str(tmp_path / 'r.sweep.yaml')), None, {}, set())
    assert pool.time_limit(fast) == pytest.approx(60 + 10 * 0.2)  # as fast as it can: as at 1


def test_the_checks_are_told_of_every_period(tmp_path, fake_world):
    """A crate dropped from 0.3 m: at 0.1 s it is still above 0.2 m, at the end below."""
    plan = plan_of(tmp_path, '  falling: {inside: crate, box: [[-1, -1, 0.2], [1, 1, 1]], '
                             'at: 0.1}\n')
    plan.world = __import__('body_bridge.sweep.targets', fromlist=['x']).apply_poses(
        plan.world, {'crate.z': 0.3})
    result = run_one(plan, 0, str(tmp_path / 'run'))
    assert result['checks']['falling']['passed']
    assert result['checks']['falling']['z'] == pytest.approx(0.3 - 9.80665 * 0.1 ** 2 / 2,
                                                             abs=3e-3)
    assert not result['checks']['low']['passed'] or result['checks']['low']['z'] < 0.2


def test_a_run_back_from_the_cluster_is_written_whole_its_verdict_last(tmp_path, monkeypatch):
    from body_bridge.sweep import cluster, run
    order = []
    written = run.write_whole
    monkeypatch.setattr(cluster, 'write_whole',
                        lambda path, data: (order.append(os.path.basename(path)),
                                            written(path, data)))
    files = {RESULT: b'{"passed": true}', 'bag/bag_0.mcap': b'\x89MCAP0\r\n',
             VALUES: b'crate.x: 0.4\n'}
    cluster._write(str(tmp_path / 'run_0003'), files)
    assert order[-1] == RESULT and sorted(order) == sorted(os.path.basename(f) for f in files)
    for rel, data in files.items():
        assert (tmp_path / 'run_0003' / rel).read_bytes() == data
    assert not list(tmp_path.rglob('*.part'))
    run.write_whole(str(tmp_path / 'text.yaml'), 'x: é\n')  # text is written as UTF-8
    assert (tmp_path / 'text.yaml').read_bytes() == 'x: é\n'.encode()
