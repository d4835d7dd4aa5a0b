"""Run the command line: ``python -m body_bridge``."""

import os
import signal
import sys

#: Signals that came before ros/process/stopping.py was loaded: kept, then delivered again to it.
_EARLY: list[int] = []


def _keep(signum, frame):
    _EARLY.append(signum)


for _signum in (signal.SIGINT, signal.SIGTERM):
    signal.signal(_signum, _keep)

from .ros.process.stopping import install, requested  # noqa: E402 - after the handler above


def _main() -> int:
    install()  # Ctrl-C or SIGTERM from here on ends the program quietly (ros/process/stopping.py)
    try:
        if _EARLY:
            os.kill(os.getpid(), _EARLY[0])
        from .cli import main
        return main()
    except BaseException:
        if not requested():
            raise
        # The bridge (sim) was asked to stop: that is its normal end. Any other command was
        # interrupted before it finished: 130, as a shell reports Ctrl-C.
        return 0 if sys.argv[1:2] == ['sim'] else 130


sys.exit(_main())
