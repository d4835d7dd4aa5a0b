"""One run of a sweep in a process of its own, as a cluster worker starts it:

    python -m body_bridge.sweep.remote SWEEP_TEXT_FILE SWEEP_PATH INDEX RUN_DIR

The sweep file's text comes from SWEEP_TEXT_FILE and is read as if it were at SWEEP_PATH (its
relative paths are taken from there: the models must be at the same paths on every machine).
Exit status 0 when the run wrote its ``result.json`` (passed or not), 2 when the sweep does not
resolve here, 1 otherwise.
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    from ..errors import BodyBridgeError
    from .pool import domain_lock
    from .run import isolate, run_one
    from .spec import read_sweep
    from .targets import resolve
    text_file, path, index, run_dir = argv
    with open(text_file, encoding='utf-8') as f:
        text = f.read()
    try:
        plan = resolve(read_sweep(path, text))
    except BodyBridgeError as err:
        print(err, file=sys.stderr)
        return 2
    domain, _held = domain_lock()
    isolate(domain, bool(plan.sweep.nodes))
    run_one(plan, int(index), run_dir)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
