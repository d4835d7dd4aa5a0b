"""The long fuzz campaign of the loaders (the test suite runs a bounded one).

    python bench/fuzz.py [--minutes N] [--seed S] [--deep-every K] [--formats F,...]
                         [--keep DIR]

Alternates, per format (Choreonoid Body, OpenRAVE XML, Chrono YAML), between documents the
Hypothesis strategies of ``test/fuzz_strategies.py`` generate and seeded mutations of the real
files of the model corpus (``$BODY_BRIDGE_MODELS``, else ``../shared/models``), until the time
is up. Every input must load or fail with the
project's own error as one ``path:line: message`` line (``test/fuzz_oracle.py``); every K-th
input that loads is also converted to URDF and run in the integrator.

Prints ``name value unit`` lines: inputs tried per format and source, outcomes, distinct
failures; then one ``# failure`` line per distinct failure (its signature, what happened and,
with ``--keep``, the file that shows it).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / 'test'))

from fuzz_oracle import Mirror, Mutator, Tally, hostile_folder, run_input, seed_files  # noqa: E402
from fuzz_strategies import DOCUMENTS  # noqa: E402

#: Inputs per turn of one (format, source) before the next one's turn.
TURN = 50


def _arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--minutes', type=float, default=5.0, help='wall time of the campaign')
    parser.add_argument('--seed', type=int, default=0, help='first seed (runs are repeatable '
                        'for a given seed and number of turns)')
    parser.add_argument('--deep-every', type=int, default=5,
                        help='convert and simulate every K-th input (1: all)')
    parser.add_argument('--formats', default=','.join(sorted(DOCUMENTS)),
                        help='comma-separated formats')
    parser.add_argument('--keep', type=Path, default=None,
                        help='copy the first input of each distinct failure here')
    parser.add_argument('--timeout', type=float, default=30.0,
                        help='seconds one input may take before it counts as a hang')
    return parser.parse_args(argv)


class Campaign:
    """Turns of generated and mutated inputs; one tally for all."""

    def __init__(self, args, folder: Path):
        self.args = args
        self.folder = hostile_folder(folder / 'generated')
        self.mirror = Mirror(folder / 'mirror')
        self.tally = Tally()
        self.count = 0

    def judge(self, source: str, path: Path) -> None:
        self.count += 1
        deep = self.count % max(1, self.args.deep_every) == 0
        before = set(self.tally.failures)
        self.tally.add(source, run_input(path, deep=deep, timeout=self.args.timeout), str(path))
        new = set(self.tally.failures) - before
        if new and self.args.keep is not None:
            self.args.keep.mkdir(parents=True, exist_ok=True)
            kept = self.args.keep / f'failure{len(self.tally.failures)}_{path.name}'
            shutil.copyfile(path, kept)
            signature = new.pop()
            self.tally.failures[signature] = (self.tally.failures[signature][0], str(kept))

    def generated(self, fmt: str, seed: int) -> None:
        from hypothesis import HealthCheck, Phase, given, settings
        from hypothesis import seed as hypothesis_seed
        strategy, name = DOCUMENTS[fmt]
        path = self.folder / name

        @hypothesis_seed(seed)
        @settings(max_examples=TURN, deadline=None, database=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(strategy())
        def one(text: str) -> None:
            path.write_text(text)
            self.judge(f'{fmt} generated', path)
        one()

    def mutated(self, fmt: str, seed: int) -> None:
        seeds = seed_files(fmt)
        mutator = Mutator(seed)
        for i in range(TURN):
            original = seeds[(seed * TURN + i) % len(seeds)]
            path = self.mirror.write(original, mutator.mutate(original.read_bytes(), fmt))
            self.judge(f'{fmt} mutated', path)


def main(argv=None) -> int:
    args = _arguments(argv)
    formats = [f for f in args.formats.split(',') if f]
    unknown = set(formats) - set(DOCUMENTS)
    if unknown:
        print(f'unknown formats: {", ".join(sorted(unknown))}', file=sys.stderr)
        return 2
    warnings.simplefilter('ignore')  # numpy overflow notes of hostile numbers: judged anyway
    start = time.monotonic()
    deadline = start + 60.0 * args.minutes
    with tempfile.TemporaryDirectory(prefix='body_bridge_fuzz_') as scratch:
        campaign = Campaign(args, Path(scratch))
        turn = 0
        while time.monotonic() < deadline:
            fmt = formats[turn % len(formats)]
            seed = args.seed + turn // (2 * len(formats))
            if (turn // len(formats)) % 2 == 0:
                campaign.generated(fmt, seed)
            else:
                campaign.mutated(fmt, seed)
            turn += 1
    _report(campaign.tally, time.monotonic() - start)
    return 1 if campaign.tally.failures else 0


def _report(tally: Tally, seconds: float) -> None:
    for source in sorted(tally.tried):
        print(f'fuzz_inputs_{source.replace(" ", "_")} {tally.tried[source]} inputs')
    print(f'fuzz_inputs_total {sum(tally.tried.values())} inputs')
    for status in ('loaded', 'refused', 'failure'):
        print(f'fuzz_outcome_{status} {tally.outcomes[status]} inputs')
    print(f'fuzz_distinct_failures {len(tally.failures)} failures')
    print(f'fuzz_wall_time {seconds:.0f} s')
    print(f'fuzz_rate {sum(tally.tried.values()) / max(seconds, 1e-9):.1f} inputs/s')
    for signature, (detail, path) in tally.failures.items():
        print(f'# failure {signature} | {detail} | {path}')


if __name__ == '__main__':
    sys.exit(main())
