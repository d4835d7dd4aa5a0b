"""Shared fixtures: real model files, an isolated DDS domain, a bridge in another process."""

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

REPO = Path(__file__).resolve().parents[1]
SHARED_MODELS = REPO.parent / 'shared' / 'models'
SAMPLE_ARM = REPO / 'models' / 'sample_arm' / 'sample_arm.body'

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


#: Fixtures that need ROS 2: a test that uses one is marked ``ros`` too.
ROS_FIXTURES = {'ros', 'bridge'}


@pytest.hookimpl(tryfirst=True)  # before ``-m`` selects by marker
def pytest_collection_modifyitems(config, items):
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
    """A real model file from ../shared/models (the tests never copy them)."""
    path = SHARED_MODELS / relative
    if not path.exists():
        raise FileNotFoundError(f'{path}: the shared model set is expected beside the repository')
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
