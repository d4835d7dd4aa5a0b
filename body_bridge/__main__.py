"""Run the command line: ``python -m body_bridge``."""

import sys

from .cli import main

sys.exit(main())
