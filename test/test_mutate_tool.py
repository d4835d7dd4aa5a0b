"""bench/mutate.py's judgement of a run (a baseline where no test ran is no measurement), its
runs in forked children (bench/_forkrun.py) and bench/coverage_map.py's choice of the test
files that may execute a changed module."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

import hypothesis  # noqa: F401 - imported once, as in mutate.py's parent: a forked run skips it
import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / 'bench'))
import _forkrun  # noqa: E402
import coverage_map  # noqa: E402
import mutate  # noqa: E402


@pytest.mark.parametrize('output, counts', [
    ('....\n4 passed in 0.50s\n', {'passed': 4}),
    ('s.s\n1 passed, 2 skipped in 1.2s\n', {'passed': 1, 'skipped': 2}),
    ('ss\n2 skipped in 0.1s\n', {'skipped': 2}),
    ('F\nFAILED t.py::x - assert 1 in [2]\n1 failed, 3 passed in 2s\n',
     {'failed': 1, 'passed': 3}),
    ('\n1 error in 0.3s\n', {'error': 1}),
    ('\n3 deselected in 0.3s\n', {'deselected': 3}),
    ('\nno tests ran in 0.01s\n', {}),
    ('', {}),
])
def test_the_summary_line_is_read(output, counts):
    assert mutate.summary_counts(output) == counts


@pytest.mark.parametrize('outcome, counts, problem', [
    ('survived', {'passed': 3}, None),
    ('survived', {'passed': 3, 'skipped': 2}, None),
    ('survived', {'skipped': 5}, 'every selected test was skipped (5); nothing to measure'),
    ('survived', {'deselected': 4}, 'no test ran; nothing to measure'),
    ('killed', {}, 'no test ran; nothing to measure'),         # pytest: none collected
    ('killed (timeout)', {}, 'the tests fail on the unmutated module (killed (timeout)); '
     'nothing to measure'),
    ('killed', {'failed': 1, 'passed': 2},
     'the tests fail on the unmutated module (killed); nothing to measure'),
    ('killed (import)', {'error': 1},
     'the tests fail on the unmutated module (killed (import)); nothing to measure'),
])
def test_a_baseline_where_no_test_ran_measures_nothing(outcome, counts, problem):
    assert mutate.baseline_problem(outcome, counts) == problem


def test_a_module_whose_tests_all_skip_is_refused_in_one_line(tmp_path):
    skipping = REPO / 'test' / 'test_mutate_tool.py'
    proc = subprocess.run(
        [sys.executable, str(REPO / 'bench' / 'mutate.py'), 'body_bridge/sim/names.py',
         '--sample', '1', '--', f'{skipping}::test_the_summary_line_is_read', '-k', 'nothing'],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == \
        'body_bridge/sim/names.py: no test ran; nothing to measure'


def test_relative_imports_resolve_to_modules(tmp_path):
    pkg = tmp_path / 'body_bridge' / 'sim'
    pkg.mkdir(parents=True)
    (tmp_path / 'body_bridge' / '__init__.py').write_text('')
    (pkg / '__init__.py').write_text('from .drive import x\n')
    (pkg / 'drive.py').write_text('from ..model import Joint\nfrom . import names\n'
                                  'def f():\n    import numpy\n')
    found = coverage_map._imports(pkg / 'drive.py', 'body_bridge.sim.drive')
    assert {'body_bridge.model', 'body_bridge.model.Joint', 'body_bridge.sim',
            'body_bridge.sim.names', 'numpy'} <= found
    assert coverage_map._imports(pkg / '__init__.py', 'body_bridge.sim') >= \
        {'body_bridge.sim.drive'}


def test_the_test_files_importing_a_module_directly_or_not_are_its_candidates():
    found = coverage_map.importers(['body_bridge/sim/mechanics/drive.py', 'body_bridge/ros/control/goals.py'])
    drive, goals = found['body_bridge/sim/mechanics/drive.py'], found['body_bridge/ros/control/goals.py']
    assert 'test/test_drive_units.py' in drive and 'test/test_drive.py' in drive
    assert 'test/test_goal_rules.py' in goals and 'test/test_goals.py' in goals
    assert 'test/test_fparser_values.py' not in drive + goals      # imports neither
    # through other modules: the node imports goals through ros/control/actions.py
    assert 'test/test_commands_params.py' in goals


def _tiny_repo(tmp_path, value: int, test_body: str):
    """A repository with one module (``VALUE = value``) and one test file."""
    repo = tmp_path / 'repo'
    (repo / 'test').mkdir(parents=True, exist_ok=True)
    (repo / 'pytest.ini').write_text('[pytest]\n')
    (repo / 'tiny.py').write_text(f'VALUE = {value}\n')
    (repo / 'test' / 'test_tiny.py').write_text(textwrap.dedent(test_body))
    return repo


def _forked(repo, timeout=60.0):
    log = repo.parent / 'pytest.log'
    status, seconds = _forkrun.run(repo, [*mutate.PYTEST_ARGS, 'test/test_tiny.py'], timeout,
                                   log)
    output = log.read_text() if log.exists() else ''
    return status, mutate.verdict(status, output) if status is not None else None, output


def test_each_forked_run_imports_the_module_as_it_is_written_then(tmp_path):
    repo = _tiny_repo(tmp_path, 1, 'import tiny\n\ndef test_value():\n    assert tiny.VALUE == 1\n')
    assert _forked(repo)[:2] == (0, 'survived')
    assert mutate.summary_counts(_forked(repo)[2]) == {'passed': 1}
    (repo / 'tiny.py').write_text('VALUE = 2\n')  # same size, same second: a stale .pyc
    mutate._forget_bytecode(repo / 'tiny.py')
    status, outcome, output = _forked(repo)
    assert (status, outcome) == (1, 'killed')
    assert 'assert 2 == 1' in output
    assert 'tiny' not in sys.modules  # never imported here


def test_a_mutant_that_breaks_an_import_is_killed(tmp_path):
    repo = _tiny_repo(tmp_path, 1, 'import tiny\n\ndef test_value():\n    assert tiny.VALUE\n')
    (repo / 'tiny.py').write_text('VALUE = (\n')
    status, outcome, _ = _forked(repo)
    assert (status, outcome) == (2, 'killed (import)')


def test_a_crashed_child_is_killed_and_a_hung_one_ends_with_what_it_started(tmp_path):
    repo = _tiny_repo(tmp_path, 1, '''
        import os, subprocess, time

        def test_abort():
            if os.environ.get('HANG'):
                child = subprocess.Popen(['sleep', '60'])
                open('sleeper.pid', 'w').write(str(child.pid))
                time.sleep(60)
            os.abort()
        ''')
    assert _forked(repo)[:2] == (128 + 6, 'killed')
    os.environ['HANG'] = '1'
    try:
        start = time.monotonic()
        status, _, _ = _forked(repo, timeout=4.0)
    finally:
        del os.environ['HANG']
    assert status is None and time.monotonic() - start < 20
    sleeper = int((repo / 'sleeper.pid').read_text())
    time.sleep(0.2)
    assert not os.path.exists(f'/proc/{sleeper}') or \
        open(f'/proc/{sleeper}/stat').read().split()[2] == 'Z'


def test_a_child_that_ends_before_pytest_does_has_not_passed(tmp_path):
    """A test (or a timer it started) calling os._exit(0) leaves with status 0: not a pass."""
    repo = _tiny_repo(tmp_path, 1, '''
        import os

        def test_leaves():
            os._exit(0)
        ''')
    status, outcome, _ = _forked(repo)
    assert (status, outcome) == (_forkrun.ENDED_EARLY, 'killed')


def test_an_equivalent_entry_may_name_its_place(tmp_path):
    listing = tmp_path / 'equivalent.txt'
    listing.write_text('''# module: pkg/m.py
# a comment
x = a < b < c || < -> <= || col 4 || the first comparison cannot be equal here
return None || drop `return None` || in Reader.close || the function ends there anyway
return None || drop `return None` || in f col 8 || the last statement of f
y = 1 || 1 -> 0 || y is never read
z = (1, 1) || 1 -> 0 || all || neither is read
# module: pkg/other.py
x = a < b < c || < -> <= || not this module's
''')
    keys = mutate.equivalent_keys('pkg/m.py', listing)
    assert keys == {
        ('x = a < b < c', '< -> <=', None, 4, False): 'the first comparison cannot be equal here',
        ('return None', 'drop `return None`', 'Reader.close', None, False):
            'the function ends there anyway',
        ('return None', 'drop `return None`', 'f', 8, False): 'the last statement of f',
        ('y = 1', '1 -> 0', None, None, False): 'y is never read',
        ('z = (1, 1)', '1 -> 0', None, None, True): 'neither is read'}

    def mutant(code, description, col, scope=''):
        return mutate.Mutant(0, 'k', 3, col, description, code, scope=scope)
    assert mutate._excluded(mutant('x = a < b < c', '< -> <=', 4), keys)[3] == 4
    assert mutate._excluded(mutant('x = a < b < c', '< -> <=', 8), keys) is None
    assert mutate._excluded(mutant('return None', 'drop `return None`', 8, 'Reader.close'),
                            keys)[2] == 'Reader.close'
    assert mutate._excluded(mutant('return None', 'drop `return None`', 8, 'f'), keys)[2] == 'f'
    assert mutate._excluded(mutant('return None', 'drop `return None`', 4, 'f'), keys) is None
    assert mutate._excluded(mutant('return None', 'drop `return None`', 8, 'g'), keys) is None
    assert mutate._excluded(mutant('y = 1', '1 -> 0', 4), keys)[:2] == ('y = 1', '1 -> 0')
    assert mutate._excluded(mutant('z = (1, 1)', '1 -> 0', 9), keys)[4] is True
    rows = mutate.equivalent_rows([mutant('y = 1', '1 -> 0', 4), mutant(
        'return None', 'drop `return None`', 8, 'f')], keys)
    assert [(r['code'], r['scope'], r['reason']) for r in rows] == [
        ('y = 1', '', 'y is never read'), ('return None', 'f', 'the last statement of f')]
    listing.write_text('# module: pkg/m.py\nx = 1 || 1 -> 0 || column 4 || reason\n')
    with pytest.raises(SystemExit) as err:
        mutate.equivalent_keys('pkg/m.py', listing)
    assert str(err.value).startswith(f'{listing}:2: expected CODE || MUTATION || REASON or ')


def test_each_mutant_knows_the_function_it_is_in():
    found = mutate.mutants('X = 1\n\n\nclass A:\n    def f(self):\n        return 2\n\n\n'
                           'def g():\n    def h():\n        return 3\n    return 4\n')
    scopes = {m.code: m.scope for m in found if m.kind == 'const' or 'return' in m.code}
    assert scopes == {'X = 1': '', 'return 2': 'A.f', 'return 3': 'g.h', 'return 4': 'g'}


def test_an_entry_that_lists_alike_mutants_in_several_places_is_warned_about(capsys):
    source = 'def f(a):\n    return None\n\n\ndef g(b):\n    return None\n'
    module = REPO / 'bench' / '_scratch_equivalent_module.py'
    module.write_text(source)
    args = mutate.argparse.Namespace(all=False, lines=None, survivors_of=None, sample=None,
                                     seed=7, list=True)
    original = mutate.equivalent_keys
    try:
        for listing, hidden, warned in (
                ({('return None', 'drop `return None`', None, None, False): 'r'}, 2, True),
                ({('return None', 'drop `return None`', None, None, True): 'r'}, 2, False),
                ({('return None', 'drop `return None`', 'g', None, False): 'r'}, 1, False)):
            mutate.equivalent_keys = lambda name, listing=listing: listing
            assert mutate.measure(module.relative_to(REPO), [], args) == (0, 0, hidden)
            err = capsys.readouterr().err
            assert ('lists 2 mutants (line 2 col 4 in f, line 6 col 4 in g)' in err) == warned
    finally:
        mutate.equivalent_keys = original
        module.unlink()


def test_the_libraries_preloaded_are_third_party_imports_only(tmp_path):
    (tmp_path / 'a.py').write_text('import numpy.linalg, os\nfrom yaml import safe_load\n'
                                   'from . import sibling\nfrom body_bridge.model import Link\n'
                                   'import conftest\nfrom lxml import etree as et\n')
    found = _forkrun.third_party_imports([tmp_path / 'a.py'], {'body_bridge', 'conftest'})
    assert found == ['numpy.linalg', 'os', 'yaml', 'yaml.safe_load', 'lxml', 'lxml.etree']


def test_a_forked_run_and_a_new_process_give_the_same_outcome_and_counts(tmp_path):
    repo = _tiny_repo(tmp_path, 1, '''
        import pytest
        import tiny

        def test_value():
            assert tiny.VALUE == 1

        @pytest.mark.skip
        def test_skipped():
            pass
        ''')
    seen = []
    for text in ('VALUE = 1\n', 'VALUE = 3\n', 'VALUE = (\n'):
        (repo / 'tiny.py').write_text(text)
        mutate._forget_bytecode(repo / 'tiny.py')
        for isolated in (False, True):
            counts = {}
            outcome, _ = mutate._run_tests(repo, ['test/test_tiny.py'], 60, counts=counts,
                                           isolated=isolated)
            seen.append((text, isolated, outcome, counts))
    assert [s[2:] for s in seen] == [
        ('survived', {'passed': 1, 'skipped': 1}), ('survived', {'passed': 1, 'skipped': 1}),
        ('killed', {'failed': 1}), ('killed', {'failed': 1}),
        ('killed (import)', {'error': 1}), ('killed (import)', {'error': 1})]


def test_a_sample_without_a_seed_is_drawn_with_a_new_one_printed_and_drawn_again_with_it(
        capsys):
    module = REPO / 'bench' / '_scratch_seed_module.py'
    module.write_text(''.join(f'X{i} = {i + 2}\n' for i in range(40)))
    name = str(module.relative_to(REPO))
    try:
        draws = []
        for _ in range(2):
            assert mutate.main([name, 'x', '--list', '--sample', '5']) == 0
            out = capsys.readouterr().out.splitlines()
            seed = int(out[0].split()[1])
            assert out[0] == (f'seed {seed} (drawn for this run; --seed {seed} draws the same '
                              'sample)')
            assert 1 <= seed <= 999_999
            draws.append((seed, out[1:6]))
        assert draws[0][0] != draws[1][0]  # one in a million to fail
        for seed, listed in draws:
            assert mutate.main([name, 'x', '--list', '--sample', '5', '--seed', str(seed)]) == 0
            out = capsys.readouterr().out.splitlines()
            assert out[:5] == listed  # the same seed draws the same sample; no seed line
    finally:
        module.unlink()
