"""Sweeps end to end: ``python -m body_bridge sweep`` on the sample arm pushing a crate put in
and out of its reach (examples/sweep/), its table, bags, determinism, interruptions, the Dask
cluster and the user's nodes alongside."""

from __future__ import annotations

import csv
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.ros

pytest.importorskip('rosbags', reason='rosbags (tools/requirements.txt) is missing')

from bag_reading import read_bag  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / 'examples' / 'sweep'
SWEEP = EXAMPLE / 'crate_push.sweep.yaml'
REACH = 0.7  # [m]: the arm's sweep pushes what stands nearer its base than this


def sweep(*args, timeout=600, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, '-m', 'body_bridge', 'sweep', *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, cwd=REPO, **kwargs)


def table(out: Path) -> list[dict]:
    with open(out / 'results.csv', newline='') as f:
        return list(csv.DictReader(f))


def joint_state_bytes(bag: Path) -> list[bytes]:
    from mcap.reader import make_reader
    with open(next(bag.glob('*.mcap')), 'rb') as f:
        return [message.data for _, channel, message in make_reader(f).iter_messages()
                if channel.topic == '/arm/joint_states']


def variant(tmp_path: Path, name: str, **changes) -> Path:
    """A copy of the example sweep beside its files, with top-level keys replaced."""
    import yaml
    data = yaml.safe_load(SWEEP.read_text())
    data.update(changes)
    path = EXAMPLE / f'.test_{name}_{os.getpid()}.sweep.yaml'
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.fixture(scope='module')
def crate_sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp('sweep') / 'push'
    done = sweep(SWEEP, '-o', out, '--jobs', '2')
    return out, done


def test_the_verdicts_match_where_the_crate_was_put(crate_sweep):
    out, done = crate_sweep
    rows = table(out)
    assert len(rows) == 8 and [int(r['index']) for r in rows] == list(range(8))
    for row in rows:
        near = float(row['crate.x']) < REACH
        assert row['status'] == 'done'
        assert row['pushed'] == ('pass' if near else 'fail'), row
        assert (float(row['pushed.distance']) > 0.05) == near
        assert row['touched'] == ('pass' if near else 'fail')
        assert math.isnan(float(row['touched.first'] or 'nan')) != near
        # every run: the crate stays on the floor, the elbow in its range, nothing diverges
        assert row['still_on_floor'] == row['elbow_in_range'] == row['stable'] == 'pass'
        assert float(row['still_on_floor.z']) == pytest.approx(0.05, abs=0.005)
        assert float(row['imu_rate.rate']) == pytest.approx(100.0, abs=0.5)
        assert float(row['sim_time']) == pytest.approx(4.0)
        assert row['passed'] == str(near)
    # exit status 1: some runs failed a check; the summary counts them
    assert done.returncode == 1, done.stderr
    assert '4 of 8 runs passed (4 failed a check)' in done.stdout
    assert (out / 'results.png').stat().st_size > 10_000


def test_every_run_has_its_values_beside_a_bag_that_opens(crate_sweep):
    import yaml
    out, _ = crate_sweep
    for row in table(out):
        folder = out / 'runs' / f'{int(row["index"]):05d}'
        values = yaml.safe_load((folder / 'values.yaml').read_text())
        assert values['index'] == int(row['index']) and values['seed'] == 7
        assert values['values']['crate.y'] == pytest.approx(float(row['crate.y']), abs=0)
        assert row['bag'] == f'runs/{folder.name}/bag'
        topics = read_bag(out / row['bag'])
        assert set(topics) == {'/arm/joint_states', '/tf', '/tf_static',
                               '/arm/robot_description', '/crate/robot_description',
                               '/arm/base_imu'}
        assert 400 <= len(topics['/arm/joint_states'][1]) <= 402  # 4 s at 100 Hz
        assert int(row['bag_bytes']) == sum(p.stat().st_size for p in (out / row['bag']).iterdir())


def test_the_same_index_gives_the_same_values_verdicts_and_joint_states(crate_sweep, tmp_path):
    out, _ = crate_sweep
    again = variant(tmp_path, 'again', runs=3)
    try:
        done = sweep(again, '-o', tmp_path / 'again', '--jobs', '1')
    finally:
        again.unlink()
    first, second = table(out)[:3], table(tmp_path / 'again')
    for a, b in zip(first, second):
        for key in a:
            if key not in ('wall_time', 'bag_bytes'):
                assert a[key] == b[key], key
        assert joint_state_bytes(out / a['bag']) == joint_state_bytes(tmp_path / 'again' / b['bag'])
    assert done.returncode == 1


def test_the_parquet_table_holds_the_same_rows(crate_sweep):
    pq = pytest.importorskip('pyarrow.parquet', reason='pyarrow is not installed')
    out, _ = crate_sweep
    rows = pq.read_table(out / 'results.parquet').to_pylist()
    assert [r['index'] for r in rows] == list(range(8))
    assert [r['pushed'] for r in rows] == [r['pushed'] for r in table(out)]


def _wait_for(predicate, timeout: float, what: str):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f'waited {timeout} s for {what}')


def _results(out: Path) -> list[Path]:
    return sorted((out / 'runs').glob('*/result.json')) if (out / 'runs').exists() else []


def test_an_interrupted_sweep_keeps_what_finished_and_runs_only_the_rest(tmp_path):
    path = variant(tmp_path, 'interrupt', runs=4, real_time_factor=4.0)
    out = tmp_path / 'out'
    try:
        proc = subprocess.Popen([sys.executable, '-m', 'body_bridge', 'sweep', str(path), '-o',
                                 str(out), '--jobs', '1'], cwd=REPO, start_new_session=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _wait_for(lambda: len(_results(out)) >= 1, 120, 'the first run')
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group
        stdout, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 130, stderr
        assert 'the same command again runs the runs that are missing' in stderr
        finished = {p.parent.name: p.stat().st_mtime_ns for p in _results(out)}
        rows = table(out)
        assert 1 <= len(finished) < 4
        assert sum(r['status'] == 'done' for r in rows) == len(finished)
        assert {r['status'] for r in rows} <= {'done', 'missing'}
        done = sweep(path, '-o', out, '--jobs', '2')
    finally:
        path.unlink()
    assert done.returncode == 1, done.stderr
    assert [r['status'] for r in table(out)] == ['done'] * 4
    # what had finished was not run again
    assert {p.parent.name: p.stat().st_mtime_ns for p in _results(out)
            if p.parent.name in finished} == finished
    assert f'{len(finished)}/4 runs' in done.stderr.splitlines()[0]


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f'/proc/{pid}/task').iterdir():
        found += [int(c) for c in (task / 'children').read_text().split()]
    return found


def test_a_killed_run_is_run_again_and_the_others_are_untouched(tmp_path):
    path = variant(tmp_path, 'kill', runs=3, real_time_factor=2.0)
    out = tmp_path / 'out'
    try:
        proc = subprocess.Popen([sys.executable, '-m', 'body_bridge', 'sweep', str(path), '-o',
                                 str(out), '--jobs', '1'], cwd=REPO, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        second = out / 'runs' / '00001'
        _wait_for(lambda: (second / 'bag').exists() and _children(proc.pid), 120,
                  'the second run to start')
        time.sleep(0.5)  # inside its run, its bag half written
        victim, = _children(proc.pid)
        os.kill(victim, signal.SIGKILL)
        stdout, stderr = proc.communicate(timeout=180)
    finally:
        path.unlink()
    assert proc.returncode == 1, stderr
    assert '1 run again' in stderr
    rows = table(out)
    assert [r['status'] for r in rows] == ['done'] * 3
    for row in rows:
        assert read_bag(out / row['bag'])['/arm/joint_states'][1]  # each bag whole
    assert '3 of 3' not in stdout and 'of 3 runs passed' in stdout


def test_a_bag_cut_by_sigkill_keeps_its_written_chunks(tmp_path):
    from mcap.exceptions import McapError
    from mcap.stream_reader import StreamReader
    from mcap.records import Message
    bag = tmp_path / 'cut'
    proc = subprocess.Popen([sys.executable, '-m', 'body_bridge', 'record', 'sample_arm', '-o',
                             str(bag), '--duration', '600', '--topics', '/joint_states', '/tf'],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for(lambda: bag.exists() and any(p.stat().st_size > 2_500_000
                                               for p in bag.glob('*.mcap')), 240,
                  'two chunks of the bag')
    finally:
        proc.kill()
        proc.wait()
    # how docs/sweeps.md says to read it: MCAP's stream reader, up to where the file ends
    count, topics = 0, set()
    with open(next(bag.glob('*.mcap')), 'rb') as f:
        try:
            for record in StreamReader(f, emit_chunks=False).records:
                if isinstance(record, Message):
                    count += 1
        except (McapError, EOFError, ValueError):
            pass  # the record the kill cut short
    assert count > 1000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def test_a_dask_cluster_gives_the_same_table(crate_sweep, tmp_path):
    pytest.importorskip('distributed', reason='distributed (Dask) is not installed')
    dask = shutil.which('dask', path=os.path.dirname(sys.executable))
    assert dask, 'the dask command is missing beside the Python of the tests'
    port = _free_port()
    address = f'tcp://127.0.0.1:{port}'
    procs = [subprocess.Popen([dask, 'scheduler', '--host', '127.0.0.1', '--port', str(port),
                               '--no-dashboard'], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, cwd=tmp_path)]
    try:
        for name in ('w1', 'w2'):
            procs.append(subprocess.Popen(
                [dask, 'worker', address, '--nthreads', '1', '--nworkers', '1', '--name', name,
                 '--no-dashboard', '--local-directory', str(tmp_path / name)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path))
        done = sweep(SWEEP, '-o', tmp_path / 'cluster', '--cluster', address, timeout=600)
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
    assert done.returncode == 1, done.stderr
    local, remote = table(crate_sweep[0]), table(tmp_path / 'cluster')
    for a, b in zip(local, remote, strict=True):
        for key in a:
            if key not in ('wall_time', 'bag_bytes'):
                assert a[key] == b[key], key
        assert joint_state_bytes(crate_sweep[0] / a['bag']) == \
            joint_state_bytes(tmp_path / 'cluster' / b['bag'])


def test_no_scheduler_at_the_address_is_one_line(tmp_path):
    pytest.importorskip('distributed', reason='distributed (Dask) is not installed')
    done = sweep(SWEEP, '-o', tmp_path / 'none', '--cluster', f'tcp://127.0.0.1:{_free_port()}',
                 timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().count('\n') == 0 and 'no Dask scheduler answers' in done.stderr


@pytest.mark.parametrize('check, message', [
    ('pushed: {moved: box, at_least: 0.05}', "'box': the world has no entity 'box'"),
    ('imu: {topic: /arm/imu, min_rate: 10}', 'the world publishes no /arm/imu'),
])
def test_a_check_on_what_the_world_lacks_is_refused_before_any_run(tmp_path, check, message):
    text = SWEEP.read_text().replace('  pushed: {moved: crate, at_least: 0.05}', '  ' + check)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith('  ' + check))
    path = EXAMPLE / f'.test_refused_{os.getpid()}.sweep.yaml'
    path.write_text(text)
    try:
        done = sweep(path, '-o', tmp_path / 'never', timeout=120)
    finally:
        path.unlink()
    assert done.returncode == 2
    assert done.stderr.strip() == done.stderr.strip().splitlines()[0]
    assert done.stderr.startswith(f'{path}:{line}: ') and message in done.stderr
    assert not (tmp_path / 'never').exists()  # nothing started


def test_the_users_nodes_run_beside_each_run_in_its_domain(tmp_path):
    listener = REPO / 'test' / 'sweep_listener.py'
    path = variant(tmp_path, 'nodes', runs=2, duration=3.0, real_time_factor=1.0,
                   nodes=f'{sys.executable} {listener}')
    try:
        done = sweep(path, '-o', tmp_path / 'out', '--jobs', '2', timeout=300)
    finally:
        path.unlink()
    rows = table(tmp_path / 'out')
    assert [r['nodes'] for r in rows] == ['pass', 'pass'], done.stderr
    domains = set()
    for row in rows:
        heard = json.loads((tmp_path / 'out' / 'runs' / f'{int(row["index"]):05d}' /
                            'heard.json').read_text())
        assert heard['use_sim_time'] is True and heard['index'] == row['index']
        assert heard['joint_states'] > 20  # it heard its run's arm (after discovery)
        domains.add(heard['domain'])
    assert len(domains) == 2  # two runs at once, two domains


def test_nodes_that_crash_fail_their_run(tmp_path):
    listener = REPO / 'test' / 'sweep_listener.py'
    path = variant(tmp_path, 'crash', runs=1, duration=1.0, real_time_factor=1.0,
                   nodes=f'{sys.executable} {listener} --fail')
    try:
        done = sweep(path, '-o', tmp_path / 'out', timeout=300)
    finally:
        path.unlink()
    row, = table(tmp_path / 'out')
    assert row['nodes'] == 'fail' and row['passed'] == 'False'
    assert 'the nodes alongside ended with status 3' in row['error']
    assert done.returncode == 1


def test_a_run_is_heard_by_nobody_outside_it_even_in_its_own_domain(tmp_path):
    """A listener started before the run in the domain the run then takes (the first free
    one), with ROS's default discovery, hears none of the run's joint states."""
    from body_bridge.sweep.pool import domain_lock
    domain, held = domain_lock()
    held.close()  # free again: the run takes it
    listener = subprocess.Popen(
        [sys.executable, str(REPO / 'test' / 'sweep_listener.py')],
        env={**os.environ, 'ROS_DOMAIN_ID': str(domain), 'BODY_BRIDGE_RUN_DIR': str(tmp_path),
             'BODY_BRIDGE_RUN_INDEX': '-'}, cwd=REPO)
    try:
        path = variant(tmp_path, 'deaf', runs=1, duration=2.0, real_time_factor=1.0)
        try:
            time.sleep(2.0)  # the listener is up before the run
            done = sweep(path, '-o', tmp_path / 'out', timeout=300)
        finally:
            path.unlink()
    finally:
        listener.send_signal(signal.SIGINT)
        listener.wait(timeout=30)
    assert done.returncode in (0, 1), done.stderr
    result = json.loads((tmp_path / 'out' / 'runs' / '00000' / 'result.json').read_text())
    heard = json.loads((tmp_path / 'heard.json').read_text())
    assert result['domain'] == heard['domain'] == str(domain)
    assert heard['joint_states'] == 0
