"""bench/mutate.py's judgement of a run (a baseline where no test ran is no measurement) and
bench/coverage_map.py's choice of the test files that may execute a changed module."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / 'bench'))
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
    found = coverage_map.importers(['body_bridge/sim/drive.py', 'body_bridge/ros/goals.py'])
    drive, goals = found['body_bridge/sim/drive.py'], found['body_bridge/ros/goals.py']
    assert 'test/test_drive_units.py' in drive and 'test/test_drive.py' in drive
    assert 'test/test_goal_rules.py' in goals and 'test/test_goals.py' in goals
    assert 'test/test_fparser_values.py' not in drive + goals      # imports neither
    # through other modules: the node imports goals through ros/actions.py
    assert 'test/test_commands_params.py' in goals
