"""Sweep files read and checked, and the values each run draws (sweep/spec.py, sweep/draw.py):
no ROS, no simulation."""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import pytest

from body_bridge.errors import ModelError
from body_bridge.sweep.draw import Distribution, read_distribution, unit
from body_bridge.sweep.spec import MAX_DURATION, MAX_RUNS, read_sweep

EXAMPLE = Path(__file__).resolve().parents[1] / 'examples' / 'sweep' / 'crate_push.sweep.yaml'


# --- drawing ------------------------------------------------------------------------------------


def test_a_unit_number_depends_on_seed_index_name_and_draw_only():
    a = unit(7, 3, 'crate.x')
    assert a == unit(7, 3, 'crate.x')
    assert 0.0 <= a < 1.0
    others = {unit(8, 3, 'crate.x'), unit(7, 4, 'crate.x'), unit(7, 3, 'crate.y'),
              unit(7, 3, 'crate.x', 1)}
    assert a not in others and len(others) == 4


def test_uniform_numbers_are_spread_evenly_over_the_range():
    d = read_distribution({'uniform': [2.0, 6.0]})
    values = [d.value(1, i, 'q') for i in range(4000)]
    assert min(values) >= 2.0 and max(values) < 6.0
    assert statistics.fmean(values) == pytest.approx(4.0, abs=0.1)       # (a + b) / 2
    assert statistics.pvariance(values) == pytest.approx(16 / 12, rel=0.08)  # (b - a)^2 / 12
    # each quarter of the range takes about a quarter of the draws
    quarters = [sum(2 + k <= v < 3 + k for v in values) for k in range(4)]
    assert all(850 < q < 1150 for q in quarters)


def test_normal_numbers_have_the_mean_and_deviation_asked():
    d = read_distribution({'normal': [-1.5, 0.25]})
    values = [d.value(3, i, 'q') for i in range(4000)]
    assert statistics.fmean(values) == pytest.approx(-1.5, abs=0.02)
    assert statistics.pstdev(values) == pytest.approx(0.25, rel=0.05)
    within = sum(abs(v + 1.5) <= 0.25 for v in values) / len(values)
    assert within == pytest.approx(0.6827, abs=0.03)  # one deviation either side
    assert read_distribution({'normal': [2, 0]}).value(1, 5, 'q') == 2.0
    # as docs/sweeps.md says: Box-Muller on the quantity's first two unit numbers
    for i in range(5):
        u, v = unit(3, i, 'q'), unit(3, i, 'q', 1)
        assert d.value(3, i, 'q') == -1.5 + 0.25 * math.sqrt(-2 * math.log(1 - u)) * \
            math.cos(2 * math.pi * v)


def test_integers_take_every_value_of_the_range_both_ends_included():
    d = read_distribution({'integers': [-2, 2]})
    values = [d.value(5, i, 'q') for i in range(1000)]
    assert set(values) == {-2, -1, 0, 1, 2}
    assert all(isinstance(v, int) for v in values)
    assert all(150 < values.count(k) < 250 for k in range(-2, 3))


def test_a_list_is_taken_in_turn_and_a_choice_at_random():
    cycle = read_distribution([0.47, 1.0, 'x'])
    assert [cycle.value(9, i, 'q') for i in range(5)] == [0.47, 1.0, 'x', 0.47, 1.0]
    choice = read_distribution({'choice': ['a', 'b', 'c']})
    values = [choice.value(9, i, 'q') for i in range(600)]
    assert all(150 < values.count(k) < 250 for k in 'abc')
    assert read_distribution({'uniform': [2, 2]}).value(4, 1, 'q') == 2.0  # a range of one
    assert read_distribution({'integers': [3, 3]}).value(4, 1, 'q') == 3
    assert read_distribution(3.5) == Distribution('constant', (3.5,))
    assert read_distribution(3.5).value(1, 99, 'q') == 3.5


@pytest.mark.parametrize('value, message', [
    ({'uniform': [1.0, 0.5]}, 'the range [1.0, 0.5] is negative'),
    ({'integers': [3, 1]}, 'the range [3, 1] is negative'),
    ({'integers': [0.5, 3]}, 'two whole numbers'),
    ({'normal': [0, -1]}, 'the deviation -1 is negative'),
    ({'uniform': [0, float('inf')]}, 'two numbers'),
    ({'uniform': [0]}, 'two numbers'),
    ({'gauss': [0, 1]}, 'a distribution is one of'),
    ({'uniform': [0, 1], 'normal': [0, 1]}, 'a distribution is one of'),
    ({'choice': []}, 'takes a list'),
    ([], 'an empty list'),
    (None, 'neither a value'),
])
def test_a_bad_distribution_says_why(value, message):
    with pytest.raises(ValueError, match=message.replace('[', r'\[').replace(']', r'\]')):
        read_distribution(value)


# --- the sweep file ------------------------------------------------------------------------------


def test_the_example_reads_with_every_value_a_run_draws():
    sweep = read_sweep(str(EXAMPLE))
    assert sweep.name == 'crate_push' and sweep.runs == 8 and sweep.duration == 4.0
    assert sweep.world == str(EXAMPLE.parent / 'arm_and_crate.world.yaml')
    assert sweep.commands == str(EXAMPLE.parent / 'push.yaml')
    assert [v.name for v in sweep.variables] == ['crate.x', 'crate.y', 'crate.yaw',
                                                 'arm.noise_seed']
    assert [c.kind for c in sweep.checks] == ['moved', 'inside', 'joint', 'no_divergence',
                                              'topic', 'contact']
    values = sweep.values(3)
    assert values == sweep.values(3)  # the same index, the same bits
    assert values['crate.x'] == 1.0 and sweep.values(2)['crate.x'] == 0.47
    assert -0.2 <= values['crate.y'] <= 0.2 and -3.1416 <= values['crate.yaw'] <= 3.1416
    assert isinstance(values['arm.noise_seed'], int)
    assert sweep.values(4) != values


def _write(tmp_path, text: str) -> str:
    (tmp_path / 'w.world.yaml').write_text('models: [{name: arm, file: sample_arm}]\n')
    path = tmp_path / 'bad.sweep.yaml'
    path.write_text(text)
    return str(path)


GOOD = 'world: w.world.yaml\nduration: 1.0\nruns: 4\n'


@pytest.mark.parametrize('text, line, message', [
    (GOOD + 'vary:\n  arm.x: {uniform: [1.0, 0.0]}\n', 5, 'vary.arm.x: uniform: the range '
     '[1.0, 0.0] is negative'),
    (GOOD + 'runz: 3\n', 4, "unknown key 'runz'"),
    ('world: w.world.yaml\nduration: 1.0\nruns: 0\n', 3, 'runs: 0 is not a whole number of '
     f'runs, 1 to {MAX_RUNS}'),
    ('world: w.world.yaml\nduration: 1.0\nruns: 1e9\n', 3, "runs: '1e9' is not"),
    ('world: w.world.yaml\nduration: 1.0\nruns: 1.0e+9\n', 3, 'runs: 1000000000.0 is not'),
    ('world: w.world.yaml\nduration: 1.0\nruns: 2.5\n', 3, 'runs: 2.5 is not'),
    ('world: nowhere.world.yaml\nduration: 1.0\nruns: 2\n', 1, 'nowhere.world.yaml: no such '
     'file, and no bundled world has that name'),
    (GOOD + 'commands: gone.yaml\n', 4, 'commands: ' ),
    ('world: w.world.yaml\nduration: -1\nruns: 2\n', 2, 'duration: -1 is not'),
    ('world: w.world.yaml\nduration: 0\nruns: 2\n', 2, 'duration: 0 is not'),
    ('duration: 1\nruns: 2\n', 1, 'give the world'),
    ('world: w.world.yaml\nmodels: [sample_arm]\nduration: 1\nruns: 2\n', 1, 'give the world'),
    ('world: w.world.yaml\nduration: 1\n', 1, 'runs: how many runs is needed'),
    (GOOD + 'checks:\n  a: {moved: arm, inside: arm}\n', 5, 'checks.a: say one of'),
    (GOOD + 'checks:\n  a: {moved: arm, at_leest: 1}\n', 5, "unknown key 'at_leest'"),
    (GOOD + 'checks:\n  9a: {no_divergence: true}\n', 5, "'9a' is not a name"),
    (GOOD + 'checks: [a, b]\n', 4, 'checks must be a mapping of names'),
    (GOOD + 'parameters:\n  arm.noise_seed: {integers: [0, 9]}\n', 5,
     'a fixed value, not a distribution'),
    (GOOD + 'parameters:\n  arm.noise_seed:\n', 5, 'a fixed value, not a distribution'),
    (GOOD + 'seed: -3\n', 4, 'seed: -3 is not a whole number >= 0'),
    (GOOD + 'nodes: 5\n', 4, 'nodes: a command line is needed'),
    ('world: w.world.yaml\nduration: 1\nruns: 100001\n', 3, 'runs: 100001 is not'),
    ('world: w.world.yaml\nduration: 86400.5\nruns: 1\n', 2, 'duration: 86400.5 is not a '
     'simulated duration in (0, 86400] s'),
    (GOOD + 'commands: 5\n', 4, 'commands: a file is needed, not int 5'),
    (GOOD + 'vary:\n  5: [1, 2]\n', 5, "vary: 5 is not a name"),
    (GOOD + 'vary:\n  arm..x: [1, 2]\n', 5, "vary: 'arm..x' is not a name"),
    (GOOD + 'checks:\n  a.b: {no_divergence: true}\n', 5, "checks: 'a.b' is not a name"),
    (GOOD + 'checks:\n  a: [no_divergence]\n', 5, 'checks.a must be a mapping'),
    (GOOD + 'topics: [/a, 5]\n', 4, 'topics must be a list of names'),
    (GOOD + 'models: []\n', 1, 'give the world'),
    ('models: []\nduration: 1\nruns: 1\n', 1, 'models: at least one model is needed'),
    ('world: 5\nduration: 1\nruns: 1\n', 1, 'world: a world file is needed'),
    (GOOD + 'sweep: 5\n', 4, 'sweep: the name must be text'),
    (GOOD + 'description: [a]\n', 4, 'description must be text'),
    ('- a\n- b\n', 1, 'a sweep file is a mapping'),
])
def test_a_bad_sweep_file_is_one_line_naming_its_line(tmp_path, text, line, message):
    path = _write(tmp_path, text)
    with pytest.raises(ModelError) as err:
        read_sweep(path)
    assert err.value.line == line
    assert str(err.value).startswith(f'{path}:{line}: ')
    assert message in str(err.value)
    assert '\n' not in str(err.value)


def test_paths_are_taken_from_the_sweep_files_folder(tmp_path):
    (tmp_path / 'sub').mkdir()
    (tmp_path / 'sub' / 'm.body').write_text('x')
    path = tmp_path / 'sub' / 's.sweep.yaml'
    path.write_text('models: [m.body, other=m.body, sample_arm]\nduration: 2\nruns: 1\n')
    sweep = read_sweep(str(path))
    assert sweep.models == (str(tmp_path / 'sub' / 'm.body'),
                            f'other={tmp_path / "sub" / "m.body"}', 'sample_arm')
    assert sweep.name == 's' and sweep.seed == 0 and sweep.real_time_factor == 0.0


def test_a_bundled_world_is_found_by_its_name(tmp_path):
    path = tmp_path / 'a.sweep.yaml'
    path.write_text('world: arm_pair\nduration: 1\nruns: 1\n')
    assert read_sweep(str(path)).world.endswith('arm_pair.world.yaml')


def test_a_missing_sweep_file_is_one_line(tmp_path):
    with pytest.raises(ModelError, match='cannot read the sweep file'):
        read_sweep(str(tmp_path / 'none.sweep.yaml'))


def test_values_are_the_same_whatever_else_varies(tmp_path):
    path = _write(tmp_path, GOOD + 'vary:\n  arm.x: {uniform: [0, 1]}\n')
    one = read_sweep(path)
    path = _write(tmp_path, GOOD + 'vary:\n  arm.y: {normal: [0, 1]}\n  arm.x: {uniform: [0, 1]}\n')
    two = read_sweep(path)
    assert [one.values(i)['arm.x'] for i in range(4)] == [two.values(i)['arm.x'] for i in range(4)]
    assert not any(math.isnan(two.values(i)['arm.y']) for i in range(4))


def test_the_bounds_of_the_numbers_are_taken(tmp_path):
    sweep = read_sweep(_write(tmp_path, 'world: w.world.yaml\nduration: 86400\nruns: 100000\n'
                                        'seed: 0\nreal_time_factor: 0\nvary:\nchecks:\n'))
    assert (sweep.runs, sweep.duration, sweep.seed) == (MAX_RUNS, MAX_DURATION, 0)
    assert sweep.variables == () and sweep.checks == ()
    sweep = read_sweep(_write(tmp_path, 'world: w.world.yaml\nduration: 1.0e-6\nruns: 1\n'
                                        'topics: /arm/joint_states\n'))
    assert sweep.runs == 1 and sweep.duration == 1e-6 and sweep.topics == ('/arm/joint_states',)


def test_whole_numbers_written_as_floats_draw_ints():
    d = read_distribution({'integers': [0.0, 3.0]})
    assert all(type(d.value(1, i, 'q')) is int for i in range(20))


def test_sweeps_and_their_parts_do_not_change_once_read():
    import dataclasses
    sweep = read_sweep(str(EXAMPLE))
    for part in (sweep, sweep.variables[0], sweep.checks[0], sweep.variables[0].distribution):
        with pytest.raises(dataclasses.FrozenInstanceError):
            part.name = 'other'


@pytest.mark.parametrize('line, good', [
    ('seed: 9223372036854775807', True), ('seed: 9223372036854775808', False),
    ('real_time_factor: 1000000', True), ('real_time_factor: 1000001', False),
    ('nodes: "   "', False), ('nodes: ros2 run my_pkg my_node', True),
])
def test_the_edges_of_seeds_paces_and_node_commands(tmp_path, line, good):
    path = _write(tmp_path, GOOD + line + '\n')
    if good:
        read_sweep(path)
    else:
        with pytest.raises(ModelError) as err:
            read_sweep(path)
        assert err.value.line == 4
