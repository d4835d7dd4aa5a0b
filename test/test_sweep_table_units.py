"""A sweep's bookkeeping without running anything: the output folder resumed (sweep/pool.py),
the table from the runs' results (sweep/table.py), the progress line, the ROS domains."""

from __future__ import annotations

import csv
import io
import json
import math
import os

import pytest

from body_bridge.errors import ModelError
from body_bridge.sweep.pool import Progress, domain_lock, prepare, run_folder
from body_bridge.sweep.spec import read_sweep
from body_bridge.sweep.table import collect, summary_line, write_table
from body_bridge.sweep.targets import Plan

TEXT = ('models: [sample_arm]\nduration: 1\nruns: 4\nseed: 3\n'
        'vary:\n  sample_arm.x: {uniform: [0, 1]}\n  sample_arm.noise_seed: [5, 6]\n'
        'checks:\n  far: {moved: sample_arm, at_least: 0.5}\n  calm: {no_divergence: true}\n')


def sweep_of(tmp_path, text=TEXT):
    path = tmp_path / 'a.sweep.yaml'
    path.write_text(text)
    return read_sweep(str(path))


def finish(out, index, passed=True, status='done', distance=0.7, first=None):
    folder = run_folder(str(out), index)
    os.makedirs(os.path.join(folder, 'bag'), exist_ok=True)
    with open(os.path.join(folder, 'bag', 'bag_0.mcap'), 'wb') as f:
        f.write(b'x' * 100)
    result = {'index': index, 'status': status, 'passed': passed, 'error': '',
              'checks': {'far': {'passed': passed, 'distance': distance},
                         'calm': {'passed': True, 'resets': 0.0, 'first': first}},
              'sim_time': 1.0, 'wall_total': 0.5, 'bytes': 100}
    if status == 'failed':  # it could not run: no check was evaluated
        result.update(checks={}, error='a refused parameter')
    with open(os.path.join(folder, 'result.json'), 'w') as f:
        json.dump(result, f)


def test_prepare_keeps_finished_runs_and_clears_unfinished_ones(tmp_path):
    sweep = sweep_of(tmp_path)
    plan = Plan(sweep, None, {}, set())
    out = tmp_path / 'out'
    assert prepare(plan, str(out)) == [0, 1, 2, 3]
    finish(out, 1)
    half = run_folder(str(out), 2)
    os.makedirs(os.path.join(half, 'bag'))
    open(os.path.join(half, 'values.yaml'), 'w').close()
    assert prepare(plan, str(out)) == [0, 2, 3]
    assert not os.path.exists(half) and os.path.exists(run_folder(str(out), 1))


def test_a_folder_of_another_sweep_is_refused(tmp_path):
    out = tmp_path / 'out'
    prepare(Plan(sweep_of(tmp_path), None, {}, set()), str(out))
    changed = sweep_of(tmp_path, TEXT.replace('runs: 4', 'runs: 5'))
    with pytest.raises(ModelError, match='holds the runs of .* the sweep file differs'):
        prepare(Plan(changed, None, {}, set()), str(out))


def test_the_table_has_a_row_per_run_with_values_verdicts_and_metrics(tmp_path):
    sweep = sweep_of(tmp_path)
    out = tmp_path / 'out'
    finish(out, 0, passed=True, distance=0.7)
    finish(out, 1, passed=False, distance=0.1, first=0.25)
    finish(out, 3, passed=False, status='failed')
    rows = collect(sweep, str(out), lost=[2])
    assert [r['status'] for r in rows] == ['done', 'done', 'lost', 'failed']
    assert [r['passed'] for r in rows] == [True, False, False, False]
    assert rows[0]['sample_arm.x'] == sweep.values(0)['sample_arm.x']
    assert [r['sample_arm.noise_seed'] for r in rows] == [5, 6, 5, 6]
    assert rows[1]['far'] == 'fail' and rows[1]['far.distance'] == 0.1
    assert math.isnan(rows[0]['calm.first']) and rows[1]['calm.first'] == 0.25
    assert rows[0]['bag'] == os.path.join('runs', '00000', 'bag') and rows[0]['bag_bytes'] == 100
    assert 'far' not in rows[2] and 'far' not in rows[3]  # never ran: no verdict
    assert rows[3]['error'] == 'a refused parameter'
    written = write_table(sweep, str(out), rows)
    with open(out / 'results.csv', newline='') as f:
        table = list(csv.DictReader(f))
    assert written[0] == str(out / 'results.csv')
    assert list(table[0]) == ['index', 'status', 'passed', 'sample_arm.x', 'sample_arm.noise_seed',
                              'far', 'far.distance', 'calm', 'calm.first', 'calm.resets',
                              'sim_time', 'wall_time', 'bag', 'bag_bytes', 'error']
    assert [t['far'] for t in table] == ['pass', 'fail', '', '']
    assert table[0]['calm.first'] == '' and table[1]['calm.first'] == '0.25'
    assert float(table[0]['sample_arm.x']) == rows[0]['sample_arm.x']  # every digit kept
    assert summary_line(rows) == '1 of 4 runs passed (1 failed a check, 1 lost, 1 failed)'


def test_the_summary_of_a_sweep_that_passed_says_so():
    rows = [{'passed': True, 'status': 'done'}] * 3
    assert summary_line(rows) == '3 of 3 runs passed'
    assert summary_line([{'passed': False, 'status': 'missing'}]) == \
        '0 of 1 runs passed (1 missing)'


def test_the_picture_is_drawn_where_matplotlib_is(tmp_path):
    pytest.importorskip('matplotlib', reason='matplotlib is not installed')
    sweep = sweep_of(tmp_path)
    out = tmp_path / 'out'
    for index in range(4):
        finish(out, index, passed=index % 2 == 0, distance=0.2 * index)
    written = write_table(sweep, str(out), collect(sweep, str(out)))
    picture = out / 'results.png'
    assert str(picture) in written
    assert picture.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n' and picture.stat().st_size > 5000


def test_progress_counts_runs_and_says_the_time_left():
    stream = io.StringIO()
    progress = Progress(4, 1, stream)
    progress.update()
    progress.update(passed=True)
    progress.update(again=True)
    progress.update(passed=False)
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith('[######..................] 1/4 runs, 0 failed')
    assert lines[1].startswith('[############............] 2/4 runs, 0 failed, about ')
    assert lines[2].startswith('[############............] 2/4 runs, 0 failed, 1 run again')
    assert lines[3].startswith('[##################......] 3/4 runs, 1 failed, 1 run again')
    assert lines[3].endswith(' s left')


def test_two_runs_on_one_machine_never_share_a_domain():
    first, held = domain_lock(range(230, 233))
    try:
        second, other = domain_lock(range(230, 233))
        assert first != second and {first, second} <= {230, 231, 232}
        other.close()  # a run that ended gives its domain back
        third, again = domain_lock(range(230, 233))
        assert third == second
        again.close()
    finally:
        held.close()
    with pytest.raises(RuntimeError, match='every ROS domain 230..230 is held'):
        lock = domain_lock(range(230, 231))
        try:
            domain_lock(range(230, 231))
        finally:
            lock[1].close()


def test_the_domains_lock_folder_is_made_where_none_is(tmp_path, monkeypatch):
    import tempfile
    monkeypatch.setattr(tempfile, 'gettempdir', lambda: str(tmp_path / 'fresh'))
    (tmp_path / 'fresh').mkdir()
    domain, held = domain_lock(range(230, 232))
    held.close()
    assert domain == 230 and (tmp_path / 'fresh' / 'body_bridge_domains' / '230.lock').exists()


# --- the command: what it prints and its exit status --------------------------------------------


@pytest.fixture
def command(tmp_path, monkeypatch):
    """sweep_command with the world's lookup and the runs replaced: each run passes or not as
    ``outcome`` says; returns (call, calls)."""
    from body_bridge.sweep import command as module
    from body_bridge.sweep import pool, targets
    calls = {}

    def resolve(sweep):
        return Plan(sweep, None, {}, set())

    def run_local(plan, out_dir, todo, jobs, progress, retries):
        calls.update(todo=list(todo), jobs=jobs, retries=retries)
        for index in todo:
            finish(out_dir, index, passed=calls['outcome'](index))
            progress.update(passed=calls['outcome'](index))
        return calls.get('lost', []), calls.get('interrupted', False)
    monkeypatch.setattr(targets, 'resolve', resolve)
    monkeypatch.setattr(pool, 'run_local', run_local)
    path = tmp_path / 'a.sweep.yaml'
    path.write_text(TEXT)

    def call(out='out', jobs=None, outcome=lambda i: True, **kwargs):
        calls.clear()
        calls.update(outcome=outcome, **kwargs)
        stream = io.StringIO()
        status = module.sweep_command(str(path), str(tmp_path / out), jobs, None, 2, stream)
        return status, stream.getvalue()
    return call, calls


def test_a_sweep_whose_runs_all_pass_exits_0(command, capsys):
    call, calls = command
    status, progress = call(jobs=3)
    assert status == 0 and calls['todo'] == [0, 1, 2, 3] and calls['jobs'] == 3
    out = capsys.readouterr().out
    assert out.startswith('4 of 4 runs passed; table: ') and 'results.csv' in out
    assert progress.splitlines()[0].startswith('[........................] 0/4 runs')
    assert progress.splitlines()[-1].startswith('[########################] 4/4 runs, 0 failed')


def test_a_failed_run_exits_1_and_the_same_command_runs_nothing_again(command, capsys):
    call, calls = command
    assert call(outcome=lambda i: i != 2)[0] == 1
    assert '3 of 4 runs passed (1 failed a check)' in capsys.readouterr().out
    status, progress = call()
    assert status == 1 and calls['todo'] == [] and progress == ''


def test_an_interrupted_sweep_exits_130_and_says_how_to_go_on(command, capsys):
    call, _ = command
    assert call(interrupted=True, outcome=lambda i: True)[0] == 130
    assert 'the same command again runs the runs that are missing' in capsys.readouterr().err


def test_the_jobs_default_to_the_cores_this_process_may_use(command):
    from body_bridge.sweep.command import default_jobs
    call, calls = command
    call()
    assert calls['jobs'] == default_jobs() == len(os.sched_getaffinity(0))


def test_a_bad_sweep_file_exits_2_with_one_line_and_makes_nothing(tmp_path, capsys):
    from body_bridge.sweep.command import sweep_command
    path = tmp_path / 'bad.sweep.yaml'
    path.write_text(TEXT.replace('runs: 4', 'runs: 0'))
    assert sweep_command(str(path), str(tmp_path / 'out')) == 2
    err = capsys.readouterr().err
    assert err == f'{path}:3: runs: 0 is not a whole number of runs, 1 to 100000\n'
    assert not (tmp_path / 'out').exists()


# --- the picture ---------------------------------------------------------------------------------


def rows_of(sweep, verdicts, distances):
    from body_bridge.sweep.table import _row  # noqa: F401 - the rows as collect makes them
    rows = []
    for i, (ok, d) in enumerate(zip(verdicts, distances)):
        rows.append({'index': i, 'status': 'done', 'passed': ok, **sweep.values(i),
                     'far': 'pass' if ok else 'fail', 'far.distance': d,
                     'calm': 'pass', 'calm.resets': 0.0})
    return rows


def test_the_picture_shows_the_checks_that_differ_against_the_numeric_values(tmp_path):
    from body_bridge.sweep.picture import layout
    text = TEXT.replace('vary:\n', 'vary:\n  sample_arm.y: {uniform: [0, 1]}\n'
                                   '  sample_arm.root: [free, fixed]\n')
    sweep = sweep_of(tmp_path, text)
    rows = rows_of(sweep, [True, False, True, True], [0.6, 0.1, 0.7, 0.8])
    shown = layout(sweep, rows)
    assert shown.checks == ('far',) and shown.metrics == {'far': 'far.distance'}
    assert shown.values == ('sample_arm.y', 'sample_arm.x', 'sample_arm.noise_seed')
    assert shown.entities == ('sample_arm',)
    # the same verdicts, different metrics: still telling; nothing differs: every check
    rows = rows_of(sweep, [True] * 4, [0.6, 0.6, 0.6, 0.6 + 1e-6])
    assert layout(sweep, rows).checks == ('far',)
    rows = rows_of(sweep, [True] * 4, [0.6] * 4)
    assert layout(sweep, rows).checks == ('far', 'calm')
    rows = rows_of(sweep, [True, False, True, True], [0.6] * 4)  # verdicts differ alone
    assert layout(sweep, rows).checks == ('far',)
    assert layout(sweep, [dict(r, status='lost') for r in rows]) is None
    no_checks = sweep_of(tmp_path, TEXT[:TEXT.index('checks:')])
    assert no_checks.checks == () and layout(no_checks, rows) is None
    no_numbers = sweep_of(tmp_path, TEXT.replace('  sample_arm.x: {uniform: [0, 1]}\n', '')
                          .replace('[5, 6]', '[a, b]'))
    assert layout(no_numbers, rows_of(no_numbers, [True] * 4, [0.6] * 4)) is None


def test_the_picture_has_a_plot_per_check_and_value(tmp_path):
    pytest.importorskip('matplotlib', reason='matplotlib is not installed')
    from PIL import Image

    from body_bridge.sweep.picture import CELL, DPI, draw
    sweep = sweep_of(tmp_path)
    rows = rows_of(sweep, [True, False, True, False], [0.6, 0.1, 0.7, 0.2])
    path = draw(sweep, rows, str(tmp_path / 'p.png'))
    with Image.open(path) as image:
        pixels = image.convert('RGB')
        assert image.size == (round(2 * CELL[0] * DPI), round((CELL[1] + 0.6) * DPI))
        colours = {pixels.getpixel((x, y)) for x in range(0, image.size[0], 2)
                   for y in range(0, image.size[1], 2)}
    assert (44, 160, 44) in colours and (214, 39, 40) in colours  # green and red dots
    rows = rows_of(sweep, [True] * 4, [0.6, 0.1, 0.7, 0.2])
    path = draw(sweep, rows, str(tmp_path / 'q.png'))
    with Image.open(path) as image:
        rgb = image.convert('RGB')
        assert (214, 39, 40) not in {rgb.getpixel((x, y)) for x in range(0, image.size[0], 2)
                                     for y in range(0, image.size[1], 2)}  # every run passed
    assert draw(sweep, [dict(r, status='lost') for r in rows], str(tmp_path / 'r.png')) is None
    assert not (tmp_path / 'r.png').exists()


def test_cells_of_lists_are_json_and_a_run_without_a_bag_weighs_nothing(tmp_path):
    from body_bridge.sweep.table import _cell
    assert _cell([1, 2]) == '[1, 2]' and _cell({'a': 1}) == '{"a": 1}'
    assert _cell(float('nan')) == '' and _cell(0.5) == 0.5 and _cell('x') == 'x'
    sweep = sweep_of(tmp_path)
    out = tmp_path / 'out'
    finish(out, 0, status='failed')
    os.remove(os.path.join(run_folder(str(out), 0), 'bag', 'bag_0.mcap'))
    result = json.loads(open(os.path.join(run_folder(str(out), 0), 'result.json')).read())
    del result['bytes']
    with open(os.path.join(run_folder(str(out), 0), 'result.json'), 'w') as f:
        json.dump(result, f)
    assert collect(sweep, str(out))[0]['bag_bytes'] == 0


def test_each_plot_draws_a_value_against_a_metric_coloured_by_verdict(tmp_path):
    pytest.importorskip('matplotlib', reason='matplotlib is not installed')
    from matplotlib.colors import to_rgba

    from body_bridge.sweep.picture import CELL, DPI, figure
    text = TEXT.replace('vary:\n', 'vary:\n  sample_arm.y: {uniform: [-1, 0]}\n')
    sweep = sweep_of(tmp_path, text)
    rows = rows_of(sweep, [True, False, True, False], [0.6, 0.1, 0.7, 0.2])
    fig = figure(sweep, rows)
    axes = fig.get_axes()
    # one row (far: calm never differs), a column per value and one of x-y start positions
    assert len(axes) == 4
    assert tuple(fig.get_size_inches()) == pytest.approx((4 * 3.2, 2.4 + 0.6))  # 3.2 x 2.4 a plot
    assert CELL == (3.2, 2.4)
    assert fig.dpi == DPI
    assert [a.get_xlabel() for a in axes] == ['sample_arm.y', 'sample_arm.x',
                                              'sample_arm.noise_seed', 'sample_arm.x [m]']
    assert [a.get_ylabel() for a in axes] == ['far.distance'] * 3 + ['sample_arm.y [m]']
    green, red = to_rgba('tab:green'), to_rgba('tab:red')
    for ax, name in zip(axes, ['sample_arm.y', 'sample_arm.x', 'sample_arm.noise_seed']):
        dots = ax.collections[0]
        assert dots.get_offsets().tolist() == [[r[name], r['far.distance']] for r in rows]
        assert [tuple(c) for c in dots.get_facecolors()] == [green, red, green, red]
    start = axes[3]
    assert start.collections[0].get_offsets().tolist() == \
        [[r['sample_arm.x'], r['sample_arm.y']] for r in rows]
    assert start.get_title() == 'far: green pass, red fail' and start.get_aspect() == 1.0
    assert fig._suptitle.get_text() == 'a: 2 of 4 runs passed'
    p = fig.subplotpars
    assert (p.left, p.bottom, p.top) == pytest.approx((0.8 / (4 * CELL[0]), 0.5 / 3.0,
                                                      1 - 0.55 / 3.0))


def test_a_verdict_without_a_metric_is_drawn_as_1_or_0_and_rows_are_capped(tmp_path):
    pytest.importorskip('matplotlib', reason='matplotlib is not installed')
    from body_bridge.sweep.picture import MAX_ROWS, figure, layout
    checks = ''.join(f'  c{i}: {{no_divergence: true}}\n' for i in range(MAX_ROWS + 2))
    sweep = sweep_of(tmp_path, TEXT[:TEXT.index('checks:')] + 'checks:\n' + checks)
    rows = [{'index': i, 'status': 'done', 'passed': i == 0, **sweep.values(i),
             **{f'c{k}': 'pass' if (i + k) % 2 else 'fail' for k in range(MAX_ROWS + 2)}}
            for i in range(4)]
    shown = layout(sweep, rows)
    assert shown.checks == tuple(f'c{k}' for k in range(MAX_ROWS))
    assert shown.metrics == {f'c{k}': None for k in range(MAX_ROWS)}
    fig = figure(sweep, rows)
    axes = fig.get_axes()
    assert len(axes) == MAX_ROWS * 2 and axes[0].get_ylabel() == 'c0'
    assert axes[0].collections[0].get_offsets()[:, 1].tolist() == [0.0, 1.0, 0.0, 1.0]
