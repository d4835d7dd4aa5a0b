"""A sweep on a Dask cluster without one (sweep/cluster.py, sweep/remote.py, the ``--cluster``
side of sweep/command.py), fast: the scheduler replaced by a client that runs each task at once,
the run's process by one that writes its files at once. test_sweep.py runs a real scheduler."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys

import pytest

from body_bridge.sweep import cluster, pool, remote, run, targets
from body_bridge.sweep.pool import Progress, run_folder
from body_bridge.sweep.run import RESULT, VALUES
from body_bridge.sweep.spec import read_sweep
from body_bridge.sweep.targets import Plan

TEXT = ('models: [sample_arm]\nduration: {duration}\nruns: 4\nseed: 3\n'
        'vary:\n  sample_arm.noise_seed: [5, 6]\n'
        'checks:\n  calm: {{no_divergence: true}}\n')


def plan_of(tmp_path, duration=1, extra=''):
    path = tmp_path / 'a.sweep.yaml'
    path.write_text(TEXT.format(duration=duration) + extra)
    return Plan(read_sweep(str(path)), None, {}, set())


def files_of(index, passed=True):
    return {VALUES: f'index: {index}\n'.encode(), 'bag/bag_0.mcap': b'\x89MCAP0\r\n' * index,
            RESULT: json.dumps({'index': index, 'passed': passed}).encode()}


# --- on the worker: one run in a process of its own -------------------------------------------


@pytest.fixture
def child(monkeypatch):
    """subprocess.run replaced by a run's process: it writes what ``behave`` says into its run
    folder and its log; returns (behave, what it was given)."""
    given = {}
    behave = {'status': 0, 'result': True, 'log': 'ran\n'}

    def fake(args, stdout, stderr, stdin, timeout):
        text_file, _, _, folder = args[3:]
        given.update(args=args, stderr=stderr, stdin=stdin, timeout=timeout,
                     text=open(text_file, encoding='utf-8').read(), folder=folder)
        stdout.write(behave['log'].encode())
        if behave['result']:
            os.makedirs(os.path.join(folder, 'bag'))
            with open(os.path.join(folder, 'bag', 'bag_0.mcap'), 'wb') as f:
                f.write(b'\x89MCAP0\r\n')
            with open(os.path.join(folder, RESULT), 'w') as f:
                f.write('{"passed": true}')
        return subprocess.CompletedProcess(args, behave['status'])
    monkeypatch.setattr(cluster.subprocess, 'run', fake)
    return behave, given


def test_a_remote_run_starts_its_process_and_returns_the_run_folders_files(child):
    _, given = child
    files = cluster.remote_run('/shared/a.sweep.yaml', 'runs: 4\n', 3, 600.0)
    assert given['args'][:3] == [sys.executable, '-m', 'body_bridge.sweep.remote']
    assert given['args'][4:6] == ['/shared/a.sweep.yaml', '3']
    assert given['text'] == 'runs: 4\n' and given['timeout'] == 600.0
    assert given['stderr'] == subprocess.STDOUT and given['stdin'] == subprocess.DEVNULL
    assert files == {RESULT: b'{"passed": true}', 'bag/bag_0.mcap': b'\x89MCAP0\r\n',
                     'run.log': b'ran\n'}
    assert not os.path.exists(given['folder'])  # the temporary folder is gone


@pytest.mark.parametrize('status, result', [(1, False), (0, False), (1, True)])
def test_a_remote_run_without_its_result_raises_with_its_logs_end(child, status, result):
    behave, given = child
    behave.update(status=status, result=result,
                  log=' '.join(f'w{i}' for i in range(50)) + '\n  Traceback\n')
    with pytest.raises(RuntimeError) as err:
        cluster.remote_run('a.sweep.yaml', 'runs: 4\n', 2, 60.0)
    tail = ' '.join([f'w{i}' for i in range(11, 50)] + ['Traceback'])
    assert str(err.value) == (f'run 2: its process ended with status {status} and no result: '
                              f'{tail}')
    assert not os.path.exists(given['folder'])


# --- on the machine that runs the sweep: the tasks ----------------------------------------------


class Future:
    def __init__(self, fn, args):
        self.fn, self.args = fn, args

    def result(self):
        return self.fn(*self.args)


@pytest.fixture
def dask(monkeypatch):
    """distributed's Client and as_completed replaced: tasks run when their result is asked
    for, in the order submitted; returns what the client was given."""
    distributed = pytest.importorskip('distributed', reason='Dask is not installed')
    seen = {'submitted': [], 'cancelled': None, 'interrupt_after': None}

    class Client:
        def __init__(self, address, timeout):
            seen.update(address=address, timeout=timeout, open=True)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            seen['open'] = False

        def submit(self, fn, *args, **kwargs):
            seen['submitted'].append((args, kwargs))
            return Future(fn, args)

        def cancel(self, futures):
            seen['cancelled'] = futures

    def as_completed(futures):
        for number, future in enumerate(futures):
            if number == seen['interrupt_after']:
                raise KeyboardInterrupt
            yield future
    monkeypatch.setattr(distributed, 'Client', Client)
    monkeypatch.setattr(distributed, 'as_completed', as_completed)
    return seen


def tasks(monkeypatch, outcomes):
    """remote_run replaced: index -> files, or an exception when every retry failed."""
    def remote_run(path, text, index, timeout):
        if outcomes[index] is None:
            raise RuntimeError('lost')
        return files_of(index, outcomes[index])
    monkeypatch.setattr(cluster, 'remote_run', remote_run)


def test_the_runs_go_to_the_scheduler_and_come_back_as_local_runs(tmp_path, dask, monkeypatch):
    plan = plan_of(tmp_path)
    tasks(monkeypatch, {0: True, 1: False, 2: None, 3: True})
    order = []
    written = run.write_whole
    monkeypatch.setattr(cluster, 'write_whole',
                        lambda path, data: (order.append(os.path.basename(path)),
                                            written(path, data)))
    stream = io.StringIO()
    progress = Progress(4, 0, stream)
    out = str(tmp_path / 'out')
    lost, interrupted = cluster.run_cluster(plan, out, [0, 1, 2, 3], 'tcp://10.0.0.1:8786',
                                            progress, retries=3)
    assert (lost, interrupted) == ([2], False)
    assert dask['address'] == 'tcp://10.0.0.1:8786' and dask['timeout'] == 10
    assert dask['open'] is False  # the client is closed
    sweep = plan.sweep
    keys = set()
    for index, (args, kwargs) in enumerate(dask['submitted']):
        assert args == (sweep.path, sweep.text, index, 600.0)  # at least ten minutes a run
        assert kwargs['pure'] is False and kwargs['retries'] == 3
        assert kwargs['key'] == f'body_bridge-a-{index}-{os.getpid()}'
        keys.add(kwargs['key'])
    assert len(keys) == 4
    for index in (0, 1, 3):
        folder = run_folder(out, index)
        for rel, data in files_of(index, index != 1).items():
            with open(os.path.join(folder, rel), 'rb') as f:
                assert f.read() == data
    assert not os.path.exists(run_folder(out, 2))
    # each run's result written after its other files
    assert order == [VALUES, 'bag_0.mcap', RESULT] * 3
    lines = stream.getvalue().splitlines()
    assert len(lines) == 5  # the start, then one per run
    assert lines[0].startswith('[........................] 0/4 runs, 0 failed')
    assert lines[-1].startswith('[########################] 4/4 runs, 2 failed')


def test_a_long_run_gets_fifty_times_its_duration(tmp_path, dask, monkeypatch):
    tasks(monkeypatch, {0: True, 1: True})
    progress = Progress(4, 2, io.StringIO())
    cluster.run_cluster(plan_of(tmp_path, duration=20), str(tmp_path / 'out'), [0, 1], 'x',
                        progress)
    assert [args[3] for args, _ in dask['submitted']] == [1000.0, 1000.0]
    assert [kwargs['retries'] for _, kwargs in dask['submitted']] == [2, 2]
    cluster.run_cluster(plan_of(tmp_path, duration=20), str(tmp_path / 'out2'), [1], 'x',
                        progress, timeout=30.0)
    assert dask['submitted'][-1][0][3] == 30.0


def test_nothing_to_do_submits_nothing_and_says_nothing(tmp_path, dask):
    stream = io.StringIO()
    assert cluster.run_cluster(plan_of(tmp_path), str(tmp_path / 'out'), [], 'x',
                               Progress(4, 4, stream)) == ([], False)
    assert dask['submitted'] == [] and stream.getvalue() == ''


def test_an_interrupted_cluster_sweep_cancels_its_tasks(tmp_path, dask, monkeypatch):
    tasks(monkeypatch, {0: True, 1: True, 2: True})
    dask['interrupt_after'] = 1
    lost, interrupted = cluster.run_cluster(plan_of(tmp_path), str(tmp_path / 'out'),
                                            [0, 1, 2], 'x', Progress(3, 0, io.StringIO()))
    assert (lost, interrupted) == ([], True)
    assert len(dask['cancelled']) == 3
    assert os.path.exists(os.path.join(run_folder(str(tmp_path / 'out'), 0), RESULT))
    assert not os.path.exists(run_folder(str(tmp_path / 'out'), 1))


# --- the worker's process: python -m body_bridge.sweep.remote ----------------------------------


@pytest.fixture
def one_run(monkeypatch):
    """The world's lookup, the domain's lock and the run replaced; what they were given."""
    given = {}
    monkeypatch.setattr(targets, 'resolve', lambda sweep: Plan(sweep, None, {}, set()))
    monkeypatch.setattr(pool, 'domain_lock', lambda: (17, 'held'))
    monkeypatch.setattr(run, 'isolate', lambda domain, alongside: given.update(
        domain=domain, alongside=alongside))
    monkeypatch.setattr(run, 'run_one', lambda plan, index, folder: given.update(
        plan=plan, index=index, folder=folder))
    return given


@pytest.mark.parametrize('nodes', [False, True])
def test_the_worker_runs_its_index_in_a_domain_of_its_own(tmp_path, one_run, nodes):
    text = TEXT.format(duration=1) + ('nodes: sleep 1\n' if nodes else '')
    text_file = tmp_path / 'sweep.yaml'
    text_file.write_text(text)
    where = str(tmp_path / 'elsewhere' / 'a.sweep.yaml')  # read as if it were there
    assert remote.main([str(text_file), where, '3', str(tmp_path / 'run')]) == 0
    assert one_run['index'] == 3 and one_run['folder'] == str(tmp_path / 'run')
    assert one_run['plan'].sweep.path == where and one_run['plan'].sweep.text == text
    assert (one_run['domain'], one_run['alongside']) == (17, nodes)


def test_a_sweep_that_does_not_resolve_on_the_worker_exits_2(tmp_path, one_run, capsys):
    text_file = tmp_path / 'sweep.yaml'
    text_file.write_text(TEXT.format(duration=1).replace('runs: 4', 'runs: 0'))
    assert remote.main([str(text_file), '/far/a.sweep.yaml', '0', str(tmp_path / 'run')]) == 2
    assert capsys.readouterr().err == \
        '/far/a.sweep.yaml:3: runs: 0 is not a whole number of runs, 1 to 100000\n'
    assert one_run == {}


def test_the_workers_process_exits_2_on_a_sweep_it_cannot_resolve(tmp_path):
    text_file = tmp_path / 'sweep.yaml'
    text_file.write_text(TEXT.format(duration=1).replace('runs: 4', 'runs: 0'))
    done = subprocess.run([sys.executable, '-m', 'body_bridge.sweep.remote', str(text_file),
                           '/far/a.sweep.yaml', '0', str(tmp_path / 'run')],
                          capture_output=True, text=True, timeout=120,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert done.returncode == 2
    assert done.stderr == \
        '/far/a.sweep.yaml:3: runs: 0 is not a whole number of runs, 1 to 100000\n'


# --- sweep --cluster ------------------------------------------------------------------------


@pytest.fixture
def command(tmp_path, monkeypatch):
    """sweep_command with --cluster, run_cluster replaced: it raises ``raises`` or writes
    every run (passed) and tells the progress line of each."""
    from body_bridge.sweep import command as module
    from test_sweep_table_units import finish
    calls = {}
    monkeypatch.setattr(targets, 'resolve', lambda sweep: Plan(sweep, None, {}, set()))

    def run_cluster(plan, out_dir, todo, address, progress, retries):
        calls.update(todo=list(todo), address=address, retries=retries)
        if 'raises' in calls:
            raise calls['raises']
        for index in todo:
            finish(out_dir, index, passed=True)
            progress.update(passed=True)
        return [], False
    monkeypatch.setattr(cluster, 'run_cluster', run_cluster)
    path = tmp_path / 'a.sweep.yaml'
    path.write_text(TEXT.format(duration=1))

    def call(**kwargs):
        calls.update(kwargs)
        stream = io.StringIO()
        status = module.sweep_command(str(path), str(tmp_path / 'out'), None,
                                      'tcp://10.0.0.1:8786', 5, stream)
        return status, stream.getvalue()
    return call, calls


def test_sweep_cluster_runs_every_run_there_and_writes_the_table(command, capsys):
    call, calls = command
    status, progress = call()
    assert status == 0
    assert calls == {'todo': [0, 1, 2, 3], 'address': 'tcp://10.0.0.1:8786', 'retries': 5}
    lines = progress.splitlines()  # one line per run: the cluster side tells the start
    assert len(lines) == 4 and lines[0].startswith('[######..................] 1/4 runs')
    assert capsys.readouterr().out.startswith('4 of 4 runs passed; table: ')


def test_unless_told_a_run_is_retried_twice_and_the_progress_goes_to_stderr(command, tmp_path,
                                                                            capsys):
    from body_bridge.sweep.command import sweep_command
    _, calls = command
    sweep_command(str(tmp_path / 'a.sweep.yaml'), str(tmp_path / 'out'), None, 'x')
    assert calls['retries'] == 2  # as docs/sweeps.md says
    assert '[########################] 4/4 runs, 0 failed' in capsys.readouterr().err


def test_on_a_terminal_the_progress_line_is_ended_before_the_summary(command, tmp_path):
    from body_bridge.sweep.command import sweep_command

    class Terminal(io.StringIO):
        def isatty(self):
            return True
    stream = Terminal()
    assert sweep_command(str(tmp_path / 'a.sweep.yaml'), str(tmp_path / 'out'), None, 'x',
                         stream=stream) == 0
    text = stream.getvalue()
    assert text.startswith('\r[######')
    assert text.endswith('4/4 runs, 0 failed, about 0 s left   \n')
    assert text.count('\n') == 1


@pytest.mark.parametrize('error, line', [
    (ConnectionRefusedError('refused'),
     '--cluster tcp://10.0.0.1:8786: no Dask scheduler answers (refused)\n'),
    (ValueError('not a scheduler address'),
     '--cluster tcp://10.0.0.1:8786: not a scheduler address\n')])
def test_a_cluster_that_does_not_answer_exits_2_with_one_line(command, capsys, error, line):
    call, _ = command
    assert call(raises=error)[0] == 2
    assert capsys.readouterr().err == line


def test_sweep_leaves_ctrl_c_to_interrupt_its_runs(command):
    from body_bridge.ros.process import stopping
    call, _ = command
    before = {s: signal.getsignal(s) for s in stopping.SIGNALS}
    try:
        stopping.install()  # as a bridge run in this process left it
        call()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert signal.getsignal(signal.SIGTERM) is before[signal.SIGTERM]
        assert not stopping._previous
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


def test_the_jobs_default_to_the_cpus_count_where_affinity_is_not_known(monkeypatch):
    from body_bridge.sweep.command import default_jobs
    # the cores of this process (pid 0), not another's
    monkeypatch.setattr(os, 'sched_getaffinity', lambda pid: {0, 1, 2} if pid == 0 else {0})
    assert default_jobs() == 3
    monkeypatch.delattr(os, 'sched_getaffinity', raising=False)
    monkeypatch.setattr(os, 'cpu_count', lambda: 6)
    assert default_jobs() == 6
    monkeypatch.setattr(os, 'cpu_count', lambda: None)
    assert default_jobs() == 1
