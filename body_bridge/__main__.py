"""Run the command line: ``python -m body_bridge``."""

import sys

from .ros.stopping import install, requested


def _main() -> int:
    install()  # Ctrl-C or SIGTERM from here on ends the program quietly (ros/stopping.py)
    try:
        from .cli import main
        return main()
    except BaseException:
        if not requested():
            raise
        # The bridge (sim) was asked to stop: that is its normal end. Any other command was
        # interrupted before it finished: 130, as a shell reports Ctrl-C.
        return 0 if sys.argv[1:2] == ['sim'] else 130


sys.exit(_main())
