"""Shared fixtures: the real model corpus, an isolated DDS domain, a bridge in another process.

The real model corpus (files from the Choreonoid, OpenRAVE and Chrono repositories) is not part
of the repository. It is found by ``--models DIR``, then ``$BODY_BRIDGE_MODELS``, then
``../shared/models`` (``body_bridge.corpus``). Tests that read it are marked ``corpus`` (a
module's ``pytestmark`` or a decorator); without the corpus they are skipped, all for one reason.
With ``--require-models`` (or ``BODY_BRIDGE_REQUIRE_MODELS=1``, as ``.ci/run`` sets) a missing
corpus stops the run and a skipped corpus test fails.
"""

from __future__ import annotations

import importlib.util
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from body_bridge import corpus

REPO = Path(__file__).resolve().parents[1]
SAMPLE_ARM = REPO / 'models' / 'sample_arm' / 'sample_arm.body'
#: The corpus folder (set again from ``--models`` before the test modules are imported).
CORPUS = corpus.models_dir()
#: Whether the corpus is there.
HAVE_CORPUS = corpus.present(CORPUS)
REQUIRE_ENV = 'BODY_BRIDGE_REQUIRE_MODELS'

#: Whether ROS 2 (rclpy and the message packages) is here; the Humble environment
#: (tools/setup.sh humble) has none: there are no Humble wheels.
HAVE_ROS = importlib.util.find_spec('rclpy') is not None
ROS_MISSING = ('needs ROS 2: rclpy is not importable in this environment (the Humble '
               'environment has no ROS wheels)')

# Each test run talks on its own DDS domain, discovering only this machine, so parallel runs
# never cross-talk. Set before anything imports rclpy.
os.environ.setdefault('ROS_DOMAIN_ID', str(random.Random(os.getpid() ^ int(time.time())).randint(1, 100)))
os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
os.environ.pop('ROS_LOCALHOST_ONLY', None)
os.environ.setdefault('MUJOCO_GL', 'egl')


def pytest_addoption(parser):
    group = parser.getgroup('body_bridge')
    group.addoption('--models', metavar='DIR', default=None,
                    help=f'the real model corpus (default: ${corpus.ENV}, else ../shared/models)')
    group.addoption('--require-models', action='store_true', default=False,
                    help=f'fail, not skip, without the corpus (also: {REQUIRE_ENV}=1)')


def pytest_configure(config):
    global CORPUS, HAVE_CORPUS
    config.addinivalue_line('markers', 'corpus: reads the real model corpus (skipped without it)')
    CORPUS = corpus.models_dir(config.getoption('--models'))
    HAVE_CORPUS = corpus.present(CORPUS)
    os.environ[corpus.ENV] = str(CORPUS)  # processes the tests start look in the same place


def _required(config) -> bool:
    return config.getoption('--require-models') or os.environ.get(REQUIRE_ENV, '') not in ('', '0')


@pytest.hookimpl(tryfirst=True)  # before ``-m`` selects by marker
def pytest_collection_modifyitems(config, items):
    mark_ros_tests(items)
    skip_corpus_tests(config, items)


def skip_corpus_tests(config, items) -> None:
    """Without the corpus, every test marked ``corpus`` is skipped for one reason (also one
    whose parameters, listed from the corpus, came out empty); where it is required, a
    missing corpus stops the run."""
    if HAVE_CORPUS:
        return
    if _required(config):
        raise pytest.UsageError(f'{corpus.REASON} (looked at {CORPUS}; the corpus tests are '
                                f'required here: --require-models or {REQUIRE_ENV})')
    skip = pytest.mark.skip(reason=corpus.REASON)
    for item in items:
        if item.get_closest_marker('corpus') is not None:
            item.add_marker(skip, append=False)  # before an empty parameter set's own skip


def pytest_report_header(config):
    found = 'found' if HAVE_CORPUS else 'not found (the tests that read it are skipped)'
    return f'real model corpus: {CORPUS}: {found}'


def pytest_terminal_summary(terminalreporter):
    skipped = [r for r in terminalreporter.stats.get('skipped', [])
               if isinstance(r.longrepr, tuple) and r.longrepr[2].endswith(corpus.REASON)]
    if skipped:
        terminalreporter.write_line(f'{len(skipped)} skipped: {corpus.REASON}', yellow=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under ``--require-models`` a corpus test that is skipped (for whatever reason) fails."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and item.get_closest_marker('corpus') is not None \
            and _required(item.config):
        report.outcome = 'failed'
        report.longrepr = f'corpus test skipped where the corpus is required: {report.longrepr}'


#: Fixtures that need ROS 2: a test that uses one is marked ``ros`` too.
ROS_FIXTURES = {'ros', 'bridge'}


def mark_ros_tests(items) -> None:
    """Tests marked ``ros`` (or using a ROS fixture) are skipped, with the reason, where ROS 2
    is missing (modules that import ROS packages skip themselves with
    ``pytest.importorskip``)."""
    skip = pytest.mark.skip(reason=ROS_MISSING)
    for item in items:
        if ROS_FIXTURES & set(getattr(item, 'fixturenames', ())):
            item.add_marker(pytest.mark.ros)
        if not HAVE_ROS and 'ros' in item.keywords:
            item.add_marker(skip)


def shared_model(relative: str) -> Path:
    """A file of the real model corpus (the tests never copy them), by its path in the corpus.

    Only tests marked ``corpus`` may read it: without the corpus, any other test that asks for
    a file fails saying so (at import time, for parameter lists, the path is returned as is).
    """
    path = CORPUS / relative
    if not HAVE_CORPUS:
        if os.environ.get('PYTEST_CURRENT_TEST'):
            pytest.fail(f'{relative}: this test reads the real model corpus and must be marked '
                        '@pytest.mark.corpus', pytrace=False)
        return path
    if not path.exists():
        raise FileNotFoundError(f'{path}: not in the real model corpus at {CORPUS}')
    return path


@pytest.fixture(scope='session')
def check_urdf():
    """Run the C++ URDF parser ROS tools use; return (ok, output)."""
    exe = shutil.which('check_urdf')
    assert exe, 'check_urdf is missing: tools/setup.sh installs liburdfdom-tools'

    def run(path) -> tuple[bool, str]:
        proc = subprocess.run([exe, str(path)], capture_output=True, text=True, timeout=60)
        return proc.returncode == 0, proc.stdout + proc.stderr
    return run


@pytest.fixture(scope='session')
def ros():
    """rclpy initialised once in the test process (the 'other process' of end-to-end tests)."""
    import rclpy
    rclpy.init()
    yield rclpy
    rclpy.shutdown()


class BridgeProcess:
    """``python -m body_bridge sim MODEL`` in its own process."""

    def __init__(self, model: str, *ros_args: str, tmp_path: Path | None = None):
        env = dict(os.environ)
        if tmp_path is not None:
            env['XDG_CACHE_HOME'] = str(tmp_path / 'cache')
        cmd = [sys.executable, '-m', 'body_bridge', 'sim', str(model)]
        if ros_args:
            cmd += ['--ros-args', *ros_args]
        self.log = tempfile_path(tmp_path, 'bridge.log')
        self._log_file = open(self.log, 'w')
        self.proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=self._log_file,
                                     stderr=subprocess.STDOUT)

    def output(self) -> str:
        self._log_file.flush()
        return Path(self.log).read_text()

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(2)  # SIGINT, as Ctrl-C
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log_file.close()
        return self.proc.returncode


def tempfile_path(tmp_path: Path | None, name: str) -> str:
    import tempfile
    folder = tmp_path if tmp_path is not None else Path(tempfile.mkdtemp())
    return str(folder / name)


@pytest.fixture
def bridge(tmp_path):
    """Start bridges in other processes; all are stopped at the end of the test."""
    started: list[BridgeProcess] = []

    def start(model, *ros_args) -> BridgeProcess:
        proc = BridgeProcess(model, *ros_args, tmp_path=tmp_path)
        started.append(proc)
        return proc
    yield start
    for proc in started:
        proc.stop()
