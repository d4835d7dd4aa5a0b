"""pytest runs in forked children of one process that imported the heavy libraries once.

``mutate.py`` runs the same tests once per mutant. Started afresh, each run spends most of its
seconds before the first test: the interpreter, numpy, MuJoCo, rclpy and the message
packages, pytest and its plugins. Here the parent imports those once (``preload``) and, for each
run, forks: the child runs ``pytest.main`` on the repository copy (where the mutant was
written) and leaves with pytest's status. The package itself and the test modules are never
imported in the parent, so each child imports the mutant (and every module that uses it)
afresh, exactly as a new process would.

What the parent must not do before forking, and does not: initialise rclpy (no context, no
DDS participant, no executor threads), create a MuJoCo rendering context (``import mujoco``
only picks its GL back end from ``MUJOCO_GL``, set here as the test suite sets it), start
threads of its own. BLAS thread pools are kept to one thread (``OPENBLAS_NUM_THREADS``, unless
set): the children fork from a process with no worker threads.

The child is the leader of its own process group: a timeout kills it and every process the
tests started. A child that dies of a signal (a crash in a C extension) or cannot import a
module counts as failing, as a process started afresh would.
"""

from __future__ import annotations

import ast
import gc
import importlib
import importlib.metadata
import importlib.util
import os
import signal
import sys
import time
import warnings
from pathlib import Path

#: Never imported in the parent: imported at module level, they would act before any fork.
NEVER = ('body_bridge', 'conftest', 'test', '_pytest.cacheprovider')


def third_party_imports(files: list[Path], local: set[str]) -> list[str]:
    """The modules the files import (``import a.b``: ``a.b``; ``from a.b import c``: ``a.b``
    and ``a.b.c``), without relative imports and without names of ``local`` (the repository's
    own top-level names), in the order first seen."""
    out: dict[str, None] = {}
    for path in files:
        try:
            tree = ast.parse(path.read_text(), str(path))
        except (OSError, SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module, *(f'{node.module}.{a.name}' for a in node.names
                                        if a.name != '*')]
            else:
                continue
            for name in names:
                if name.split('.')[0] not in local:
                    out.setdefault(name)
    return list(out)


def preload(repo: Path, tests: list[str]) -> list[str]:
    """Import, in this process, the third-party modules the package and the test files
    import (and pytest); returns those imported. A module that is missing or fails to import
    is left to the children (they fail or skip as a fresh process would). pytest's plugins
    are among them: imported here, their own ``assert`` statements are not rewritten (that
    changes only the message of a failure inside a plugin)."""
    for name in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS'):
        os.environ.setdefault(name, '1')
    os.environ.setdefault('MUJOCO_GL', 'egl')  # as test/conftest.py: mujoco reads it on import
    local = {p.stem if p.suffix == '.py' else p.name for p in repo.iterdir()}
    local |= {p.stem for p in (repo / 'test').glob('*.py')} | set(NEVER)
    files = sorted((repo / 'body_bridge').rglob('*.py')) + [repo / 'test' / 'conftest.py']
    files += [repo / t.split('::')[0] for t in tests if t.split('::')[0].endswith('.py')]
    plugins = [ep.value.split(':')[0]
               for ep in importlib.metadata.entry_points(group='pytest11')]
    done = []
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for name in ['pytest', *plugins, 'hypothesis', *third_party_imports(files, local)]:
            if name in sys.modules:
                continue
            try:
                if importlib.util.find_spec(name.rpartition('.')[0] or name) is None:
                    continue
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - not a module (a class imported by name), or broken
                continue
            done.append(name)
    gc.collect()
    gc.freeze()  # the children's collections skip what is here, and leave its pages shared
    return done


#: Added to pytest's status by a child that got to the end: a child that leaves another way
#: (a test, or a timer it started, calling ``os._exit(0)``) has not passed the tests.
FINISHED = 100
#: The status :func:`run` gives a child that ended before pytest did.
ENDED_EARLY = 99


def run(repo: Path, args: list[str], timeout: float, log: Path) -> tuple[int | None, float]:
    """Run ``pytest args`` in the repository copy in a forked child, its output into ``log``;
    (pytest's exit status, or None on a timeout; a child killed by a signal gives 128 +
    the signal, one that ended before pytest finished :data:`ENDED_EARLY`; the seconds
    taken)."""
    sys.stdout.flush()
    sys.stderr.flush()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        _child(repo, args, log)
    status = None
    try:
        while time.monotonic() - start < timeout:
            done, raw = os.waitpid(pid, os.WNOHANG)
            if done:
                status = os.waitstatus_to_exitcode(raw)
                if status < 0:
                    status = 128 - status
                elif FINISHED <= status < 128:
                    status -= FINISHED
                else:
                    status = ENDED_EARLY
                break
            time.sleep(0.02)
    finally:
        _kill_group(pid)
        if status is None:
            os.waitpid(pid, 0)
    return status, time.monotonic() - start


def _kill_group(pid: int) -> None:
    """End the child's process group: the child if it is still running, and what it left."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _child(repo: Path, args: list[str], log: Path) -> None:
    code = 70  # an error before pytest's end (reported in the log)
    try:
        os.setpgid(0, 0)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        # new streams on the two descriptors: the parent's may be wrappers of something else
        # (another pytest's capture)
        sys.stdout = open(1, 'w', buffering=1, encoding='utf-8', errors='replace', closefd=False)
        sys.stderr = open(2, 'w', buffering=1, encoding='utf-8', errors='replace', closefd=False)
        os.chdir(repo)
        os.environ['PYTHONPATH'] = str(repo)  # processes the tests start import the copy too
        sys.path[:] = [str(repo)] + [p for p in sys.path[1:] if p != str(repo)]
        sys.argv = ['pytest', *args]
        import pytest
        code = int(pytest.main(args))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - reported in the log, counted as a failure
        import traceback
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(FINISHED + min(max(code, 0), 27))
