"""The bounded fuzz campaign: generated documents and mutated real files, for every loader.

Every input must load (and then convert to URDF and run in the integrator) or fail with the
project's own error as one ``path:line: message`` line (``fuzz_oracle.run_input``). Seeded
and deterministic (Hypothesis derandomized, a seeded mutator), a few seconds per format; the
long campaign is ``python bench/fuzz.py --minutes N``.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from fuzz_oracle import Mirror, Mutator, Tally, hostile_folder, run_input, seed_files
from fuzz_strategies import DOCUMENTS

#: Generated documents per format (each loaded, converted and simulated when it loads).
GENERATED = 100
#: Mutations of real files per format (every fifth one converted and simulated).
MUTATED = 150

_SETTINGS = settings(max_examples=GENERATED, derandomize=True, deadline=None, database=None,
                     suppress_health_check=list(HealthCheck))


@pytest.fixture(scope='module')
def folder(tmp_path_factory):
    """One folder for the generated documents, beside FIFOs, a socket and small meshes."""
    return hostile_folder(tmp_path_factory.mktemp('fuzz'))


def _generated(fmt: str, folder) -> Tally:
    strategy, name = DOCUMENTS[fmt]
    path = folder / name
    tally = Tally()

    @_SETTINGS
    @given(strategy())
    def one(text: str) -> None:
        path.write_text(text)
        outcome = run_input(path, deep=True, timeout=20)
        tally.add(fmt, outcome, str(path))
        assert outcome.status != 'failure', f'{outcome.detail}\n--- input ---\n{text}'
    one()
    return tally


@pytest.mark.parametrize('fmt', sorted(DOCUMENTS))
def test_generated_documents_load_or_fail_with_one_line(fmt, folder):
    tally = _generated(fmt, folder)
    assert tally.tried[fmt] >= GENERATED  # (Hypothesis replays the examples it shrank)
    # The strategies are tuned so that a fair share gets through every check and loads.
    assert tally.outcomes['loaded'] >= GENERATED // 20, tally.outcomes
    assert tally.outcomes['refused'] >= GENERATED // 2, tally.outcomes


@pytest.mark.corpus
@pytest.mark.parametrize('fmt', sorted(DOCUMENTS))
def test_mutated_real_files_load_or_fail_with_one_line(fmt, tmp_path):
    seeds = seed_files(fmt)
    assert len(seeds) >= 15, seeds
    mirror = Mirror(tmp_path)
    mutator = Mutator(seed=9)
    tally = Tally()
    for i in range(MUTATED):
        original = seeds[i % len(seeds)]
        path = mirror.write(original, mutator.mutate(original.read_bytes(), fmt))
        tally.add(fmt, run_input(path, deep=i % 5 == 0, timeout=20), str(path))
    assert tally.tried[fmt] == MUTATED
    assert not tally.failures, '\n'.join(f'{sig}: {detail} ({path})' for sig, (detail, path)
                                         in tally.failures.items())
    assert tally.outcomes['loaded'] > 0 and tally.outcomes['refused'] > 0, tally.outcomes


def test_the_oracle_catches_what_it_is_for(tmp_path):
    """Escaping exceptions, multi-line messages and hangs are failures; refusals are not."""
    from body_bridge.formats import LOADERS

    def boom(path):
        raise KeyError('x')

    def long_message(path):
        from body_bridge.errors import ModelError
        raise ModelError(path, 3, 'first\nsecond')  # ModelError joins the lines

    def hang(path):
        while True:
            pass
    path = tmp_path / 'x.fuzzext'
    path.write_text('')
    LOADERS['.fuzzext'] = boom
    try:
        outcome = run_input(path)
        assert outcome.status == 'failure' and outcome.signature == \
            'load: KeyError in __init__.py:load_model', outcome
        LOADERS['.fuzzext'] = long_message
        assert run_input(path).status == 'refused'
        LOADERS['.fuzzext'] = hang
        outcome = run_input(path, timeout=0.5)
        assert outcome.status == 'failure' and 'hang' in outcome.signature, outcome
    finally:
        del LOADERS['.fuzzext']
