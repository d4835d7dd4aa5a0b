"""``python -m body_bridge`` (body_bridge/__main__.py) run in this process: its exit status,
Ctrl-C or SIGTERM while a command runs (0 for ``sim``, whose normal end that is; 130 for
another command), a signal that came before the handler was installed, and errors that are not
a stop. The same with a real process is in test_stopping.py."""

from __future__ import annotations

import os
import runpy
import signal
import sys
import time

import pytest

import body_bridge.cli
from body_bridge.ros.process import stopping
from conftest import REPO

BOX = str(REPO / 'test' / 'data' / 'choreonoid' / 'box.body')


class _Timer:
    def cancel(self):
        pass


@pytest.fixture
def main(monkeypatch):
    """Runs the package as ``python -m body_bridge ARGS``: its exit status."""
    saved = {s: signal.getsignal(s) for s in stopping.SIGNALS}
    monkeypatch.setattr(stopping, '_deadline', lambda seconds: _Timer())

    def run(*args):
        monkeypatch.setattr(sys, 'argv', ['body_bridge', *args])
        with pytest.raises(SystemExit) as done:
            runpy.run_module('body_bridge', run_name='__main__')
        return done.value.code
    yield run
    stopping.restore()
    for signum, handler in saved.items():
        signal.signal(signum, handler)


def _stopped_while_running(signum):
    def command():
        os.kill(os.getpid(), signum)
        time.sleep(2.0)  # the handler runs at the next bytecode
        raise AssertionError('not stopped')
    return command


@pytest.mark.ros  # info names the device topics (ros/devices/graph.py)
def test_a_command_s_status_is_the_exit_status(main, capsys):
    assert main('info', BOX) == 0
    assert capsys.readouterr().out.startswith('box: ')
    assert main('info', str(REPO / 'no such.body')) == 2


@pytest.mark.parametrize('signum', stopping.SIGNALS)
@pytest.mark.parametrize('command, status', [('sim', 0), ('info', 130)])
def test_a_stop_while_a_command_runs(main, monkeypatch, signum, command, status):
    monkeypatch.setattr(body_bridge.cli, 'main', _stopped_while_running(signum))
    assert main(command, 'x') == status


def test_a_signal_before_the_handler_is_delivered_to_it(main, monkeypatch):
    real = stopping.install

    def early():  # SIGTERM arrives while the package loads, before the handler is there
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.1)
        return real()
    ran = []
    monkeypatch.setattr(stopping, 'install', early)
    monkeypatch.setattr(body_bridge.cli, 'main', lambda: ran.append(1) or 0)
    assert main('sim', 'x') == 0 and ran == [] and stopping.requested()
    stopping.restore()
    assert main('info', 'x') == 130 and ran == []


def test_an_error_that_is_not_a_stop_is_raised(main, monkeypatch):
    def broken():
        raise RuntimeError('a bug')
    monkeypatch.setattr(body_bridge.cli, 'main', broken)
    with pytest.raises(RuntimeError, match='a bug'):
        runpy.run_module('body_bridge', run_name='__main__')
    assert not stopping.requested()
