"""Ending the bridge on Ctrl-C (SIGINT) or SIGTERM, at any moment, quickly and quietly.

rclpy's own signal handlers (installed by ``rclpy.init`` unless told not to) shut the ROS
context down from the signal, while the bridge may still be loading a model, creating its
nodes or publishing from the stepping thread: what then uses the context fails
(``RCLError``, ``NotInitializedException``), and a signal that arrived between Python's handler
and rclpy's could be lost. The bridge therefore initialises rclpy without them
(:data:`INIT_OPTIONS`) and installs :func:`install`'s handler for both signals, before
anything slow: the first signal raises :class:`Stopped` in the main thread, wherever it is,
and the ``finally`` blocks take everything down in order (the stepping thread, then the nodes,
then rclpy), with the context still valid; whatever error the interrupted code made of it
ends the program just as quietly (:func:`requested`). Further signals while that runs are ignored, and a
teardown that would hang past :data:`TEARDOWN_LIMIT` ends the process anyway.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

__all__ = ['Stopped', 'install', 'restore', 'requested', 'init_options', 'TEARDOWN_LIMIT']

#: Seconds the teardown may take after the first signal before the process ends regardless.
TEARDOWN_LIMIT = 1.5
#: The signals that stop the bridge.
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Stopped(KeyboardInterrupt):
    """The user (Ctrl-C) or a supervisor (SIGTERM, ``ros2 launch``) asked the bridge to stop.

    A KeyboardInterrupt, so that code which lets Ctrl-C through lets this through too.
    """

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


_previous: dict[int, object] = {}
_timer: list[threading.Timer] = []


def requested() -> bool:
    """Whether a signal asked the bridge to stop. An exception raised after that is its
    consequence, not a fault: the interrupted code may have turned :class:`Stopped` into its
    own error (an extension module interrupted while it loads raises ImportError)."""
    return bool(_timer)


def _on_signal(signum, frame):
    for other in SIGNALS:
        signal.signal(other, signal.SIG_IGN)  # the teardown below is not interrupted
    _timer.append(_deadline(TEARDOWN_LIMIT))
    raise Stopped(signum)


def _deadline(seconds: float) -> threading.Timer:
    """End the process with status 0 after ``seconds`` unless it has ended by then."""
    def end():
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(0)
    timer = threading.Timer(seconds, end)
    timer.daemon = True
    timer.start()
    return timer


def install() -> bool:
    """Stop on SIGINT and SIGTERM by raising :class:`Stopped` in the main thread (call from
    the main thread, as early as possible). Returns whether it installed the handler (False:
    an earlier call did, and its caller restores)."""
    if _previous:
        return False
    for signum in SIGNALS:
        _previous[signum] = signal.signal(signum, _on_signal)
    return True


def restore() -> None:
    """The handlers that were there before :func:`install`, and no deadline (for a process
    that goes on: a test that ran the bridge in-process)."""
    for signum, previous in list(_previous.items()):
        signal.signal(signum, previous)
        del _previous[signum]
    while _timer:
        _timer.pop().cancel()


def init_options() -> dict:
    """Keyword arguments of ``rclpy.init`` that keep rclpy's own signal handlers out."""
    from rclpy.signals import SignalHandlerOptions
    return {'signal_handler_options': SignalHandlerOptions.NO}
