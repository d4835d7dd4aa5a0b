"""ros/process/stopping.py in this process: the handler the bridge stops with (test_stopping.py runs
the bridge and signals it)."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from body_bridge.ros.process import stopping


@pytest.fixture
def handler():
    before = {s: signal.getsignal(s) for s in stopping.SIGNALS}
    assert stopping.install()
    yield
    stopping.restore()
    assert {s: signal.getsignal(s) for s in stopping.SIGNALS} == before


def _signal_self(signum):
    os.kill(os.getpid(), signum)
    time.sleep(1.0)  # the handler runs at the next bytecode of this thread


@pytest.mark.parametrize('signum', stopping.SIGNALS)
def test_a_signal_raises_stopped_once_and_ignores_the_next(handler, signum, monkeypatch):
    ended = []
    monkeypatch.setattr(stopping, '_deadline', lambda seconds: ended.append(seconds) or
                        _Timer())
    assert not stopping.requested()
    assert not stopping.install()  # already there: the first caller restores
    with pytest.raises(Stopped) as stop:
        _signal_self(signum)
    assert stop.value.signum == signum and isinstance(stop.value, KeyboardInterrupt)
    assert str(stop.value) == signal.Signals(signum).name
    assert stopping.requested()
    assert ended == [stopping.TEARDOWN_LIMIT]
    # The teardown is not interrupted by a second Ctrl-C, nor by SIGTERM.
    for other in stopping.SIGNALS:
        assert signal.getsignal(other) == signal.SIG_IGN
        os.kill(os.getpid(), other)
    time.sleep(0.2)


class _Timer:
    cancelled = False

    def cancel(self):
        self.cancelled = True


Stopped = stopping.Stopped


def test_restore_cancels_the_deadline_and_forgets_the_request(monkeypatch):
    timer = _Timer()
    monkeypatch.setattr(stopping, '_deadline', lambda seconds: timer)
    # What was there before: Python's own handler, or SIG_IGN where the shell started the
    # tests in the background (a shell without job control ignores SIGINT for those).
    before = signal.getsignal(signal.SIGINT)
    assert stopping.install()
    assert signal.getsignal(signal.SIGINT) is not before
    with pytest.raises(Stopped):
        _signal_self(signal.SIGINT)
    stopping.restore()
    assert timer.cancelled and not stopping.requested()
    assert signal.getsignal(signal.SIGINT) is before
    assert stopping.install()  # a new run installs again
    stopping.restore()


class _Stream:
    def __init__(self, closed=False):
        self.closed, self.flushed = closed, 0

    def flush(self):
        if self.closed:
            raise ValueError('I/O operation on closed file')
        self.flushed += 1


def test_the_deadline_ends_the_process_with_status_0_what_it_printed_flushed(monkeypatch):
    # A stop must end within 2 s of the signal: the teardown's deadline leaves room for it.
    assert 0.5 <= stopping.TEARDOWN_LIMIT <= 1.5
    ends = []
    monkeypatch.setattr(stopping.os, '_exit', ends.append)
    out, err = _Stream(closed=True), _Stream()
    monkeypatch.setattr(stopping.sys, 'stdout', out)
    monkeypatch.setattr(stopping.sys, 'stderr', err)
    late = stopping._deadline(60.0)  # checked first: a failed check leaves no timer due soon
    assert isinstance(late, threading.Timer) and late.daemon and late.is_alive()
    late.cancel()
    timer = stopping._deadline(0.05)
    time.sleep(0.5)
    assert ends == [0] and err.flushed == 1  # a closed stream does not stop it
    late.join(1.0)
    assert not late.is_alive() and ends == [0]  # cancelled in time: nothing happens


def test_rclpy_is_initialised_without_its_own_signal_handlers():
    signals = pytest.importorskip('rclpy.signals')
    assert stopping.init_options() == {
        'signal_handler_options': signals.SignalHandlerOptions.NO}
