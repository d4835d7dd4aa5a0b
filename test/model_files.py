"""Every model file the oracle tests go through: the real models of the shared set that load
(each format) and the repository's sample and test models."""

from __future__ import annotations

import functools

import pytest
from conftest import CORPUS, SAMPLE_ARM

from body_bridge.formats import load_model

CHOREONOID = CORPUS / 'choreonoid'
OPENRAVE = CORPUS / 'openrave'
CHRONO = CORPUS / 'chrono'


def _model_files() -> list:
    from test_chrono_load import DATA, OWN, REAL_MBS
    from test_openrave_models import COLLADA, FILES, _id
    return [*sorted(CHOREONOID.rglob('*.body')),
            *[p for p in FILES if _id(p) not in COLLADA],
            *[CHRONO / r for r in REAL_MBS], *[DATA / n for n in OWN], SAMPLE_ARM]


def name_of(path) -> str:
    """The test id of a model file: its path in the shared set or the repository."""
    for base in (CORPUS, SAMPLE_ARM.parents[2]):
        if base in path.parents:
            return str(path.relative_to(base))
    return path.name


def _param(path):
    """A model file as a test parameter; the corpus's files marked ``corpus``."""
    marks = [pytest.mark.corpus] if CORPUS in path.parents else []
    return pytest.param(path, id=name_of(path), marks=marks)


MODEL_FILES = [_param(path) for path in _model_files()]


@functools.lru_cache(maxsize=None)
def loaded(path):
    """The model of a file, loaded once per test session (models are immutable)."""
    return load_model(path)
