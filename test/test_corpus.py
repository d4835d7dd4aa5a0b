"""Where the real model corpus is looked for, and what the suite does without it: the tests
that read it are skipped for one reason, counted; with --require-models they may not be."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from body_bridge import corpus

from conftest import REPO

#: One test that reads the corpus and a few that do not (fast ones).
SELECTION = ['test/test_chrono_load.py', '-k', 'shared_set_is_covered or own_models_convert']


def test_the_corpus_is_named_by_option_then_environment_then_beside_the_repository(
        tmp_path, monkeypatch):
    monkeypatch.delenv(corpus.ENV, raising=False)
    assert corpus.models_dir() == REPO.parent / 'shared' / 'models' == corpus.DEFAULT
    monkeypatch.setenv(corpus.ENV, str(tmp_path / 'env'))
    assert corpus.models_dir() == tmp_path / 'env'
    assert corpus.models_dir(tmp_path / 'option') == tmp_path / 'option'
    assert not corpus.present(tmp_path / 'env')
    (tmp_path / 'env' / 'openrave').mkdir(parents=True)
    assert corpus.present(tmp_path / 'env')
    assert not corpus.present(tmp_path)  # a folder without a format folder is not a corpus


def _pytest(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if k not in (corpus.ENV, 'BODY_BRIDGE_REQUIRE_MODELS', 'PYTEST_CURRENT_TEST')}
    return subprocess.run([sys.executable, '-m', 'pytest', '-p', 'no:cacheprovider', *args],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)


def test_without_the_corpus_its_tests_are_skipped_for_one_reason(tmp_path):
    proc = _pytest('--models', str(tmp_path / 'none'), *SELECTION)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert f'real model corpus: {tmp_path / "none"}: not found' in proc.stdout
    assert f'\n1 skipped: {corpus.REASON}\n' in proc.stdout
    own = len(list((REPO / 'test' / 'data' / 'chrono').glob('*.yaml'))) - 1  # not the solver
    assert f' {own} passed, 1 skipped' in proc.stdout.splitlines()[-1]


def test_where_the_corpus_is_required_a_missing_one_stops_the_run(tmp_path):
    proc = _pytest('--models', str(tmp_path / 'none'), '--require-models', *SELECTION)
    assert proc.returncode == 4  # a usage error: nothing ran
    assert corpus.REASON in proc.stderr and 'required here' in proc.stderr


@pytest.mark.corpus
def test_where_the_corpus_is_required_and_there_its_tests_run():
    from conftest import CORPUS
    proc = _pytest('--models', str(CORPUS), '--require-models', *SELECTION)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert 'skipped' not in proc.stdout.splitlines()[-1]
