"""Ctrl-C (SIGINT) and SIGTERM at any moment of the bridge's life end it quickly, with status 0
(or 130) and no traceback: while Python and the model load, while rclpy initialises, while it
runs; one model or several; ``python -m body_bridge sim`` and the ``bridge`` entry point
(``ros2 run``, ``ros2 launch``). A model that fails to start prints one line and status 2.

``bench/stopping.py`` runs the same over a few hundred cycles with a camera subscribed."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time

import pytest

from conftest import REPO, ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

sys.path.insert(0, str(REPO / 'bench'))
from stopping import BOUND, CLEAN, interrupt  # noqa: E402

#: Seconds from the moment the program's code runs to the signal: the imports, the model
#: loading, rclpy starting, the nodes being made, the first periods (the issue saw each of
#: 0.3-1.2 s go wrong).
DELAYS = (0.02, 0.05, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 1.05, 1.2, 1.5, 2.0)
#: The bound of a stop, with room for a loaded machine: it must end, and soon.
LOADED_BOUND = 4 * BOUND


def _python_start() -> float:
    """Seconds this machine takes now to start Python in this environment, up to the first
    line of a program (the interpreter, its site packages, the wheel environment's re-exec):
    before that a signal meets Python's default handling, which no program can change."""
    times = []
    for _ in range(3):
        begin = time.monotonic()
        subprocess.run([sys.executable, '-c', 'pass'], check=True)
        times.append(time.monotonic() - begin)
    return sorted(times)[1]


@pytest.fixture(scope='module')
def start():
    return _python_start()


def _in_python_start(stop) -> bool:
    """Whether the signal came while Python itself was starting (its site packages, the
    entry point's imports), before the program's code ran: the machine was slower than
    measured. The program's code starts at ``__main__``'s first lines (``python -m``) or at
    ``main()`` (the ``bridge`` entry point)."""
    text = stop.stderr
    if 'init_import_site' in text:
        return True
    started = re.search(r'__main__\.py", line \d+, in (<module>|_main)|, in (main|_main|run)\b',
                        text)
    return 'Traceback' in text and started is None


def stopped(models, delay, signum, entry='cli'):
    """A bridge stopped ``delay`` seconds after its start; again, a little later, when the
    signal came before the program started (at most three times)."""
    for attempt in range(3):
        result = interrupt(models, delay + 0.05 * attempt, signum, entry)
        if not _in_python_start(result):
            break
    return result


def _check(stops) -> None:
    slow = max(s.seconds for s in stops)
    print(f'slowest stop {slow:.2f} s after the signal')
    for s in stops:
        where = f'{signal.Signals(s.signum).name} at {s.delay:.2f} s'
        assert s.status in CLEAN, f'{where}: status {s.status}\n{s.stderr}'
        assert 'Traceback' not in s.stderr, f'{where}:\n{s.stderr}'
        assert s.seconds < LOADED_BOUND, f'{where}: ended {s.seconds:.1f} s after it'


@pytest.mark.parametrize('signum', [signal.SIGINT, signal.SIGTERM])
def test_a_signal_at_any_moment_ends_the_sim_command(signum, start):
    _check([stopped(['sample_arm'], start + delay, signum) for delay in DELAYS])


def test_a_signal_ends_a_world_of_several_models(start):
    _check([stopped(['a=sample_arm', 'b=sample_arm'], start + delay, signum)
            for delay, signum in zip(DELAYS[1::2], [signal.SIGINT, signal.SIGTERM] * 3)])


def test_a_signal_ends_the_bridge_entry_point(start):
    """What ``ros2 run body_bridge bridge`` and ``ros2 launch`` start (launch sends SIGINT,
    then SIGTERM)."""
    _check([stopped(['sample_arm'], start + delay, signum, entry='bridge')
            for delay, signum in zip(DELAYS[::3], [signal.SIGINT, signal.SIGTERM] * 2)])


BROKEN = {
    'bad file': ('robot.body', 'format: ChoreonoidBody\nlinks: [\n', 'robot.body:'),
    'missing mesh': ('robot.body', '''\
format: ChoreonoidBody
format_version: 2.0
links:
  - name: base
    joint_type: fixed
    elements: [ { type: Resource, uri: missing.stl } ]
''', 'missing.stl'),
    'missing file': (None, None, 'nowhere.body'),
}


@pytest.mark.parametrize('kind', sorted(BROKEN))
def test_a_model_that_fails_to_start_prints_one_line(kind, tmp_path):
    name, text, expected = BROKEN[kind]
    if name is None:
        path = tmp_path / 'nowhere.body'
    else:
        path = tmp_path / name
        path.write_text(text)
    proc = subprocess.run([sys.executable, '-m', 'body_bridge', 'sim', str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and expected in lines[0], proc.stderr


@pytest.mark.parametrize('given', ['control_rate:=-5.0', 'on_divergence:=explode',
                                   'initial_pose:=[1.0]'])
def test_a_bad_parameter_at_start_prints_one_line(given):
    proc = subprocess.run([sys.executable, '-m', 'body_bridge', 'sim', 'sample_arm',
                           '--ros-args', '-p', given], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    name = given.split(':=')[0]
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and name in lines[0], proc.stderr
