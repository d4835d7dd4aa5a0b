"""Where the real model corpus lives: the test suite, the benchmarks and the examples look it up
here, one rule for all.

The corpus is a folder of model files from the Choreonoid, OpenRAVE and Project Chrono
repositories, laid out as ``<format>/<path in that repository>`` (``choreonoid/share/model/...``,
``openrave/src/robots/...``, ``chrono/data/yaml/...``). It is not part of this repository. It is
found, first match wins:

1. the folder given explicitly (the test suite's ``--models DIR``);
2. the environment variable ``BODY_BRIDGE_MODELS``;
3. ``../shared/models`` beside the repository.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ['ENV', 'REASON', 'DEFAULT', 'models_dir', 'present']

#: The environment variable naming the corpus folder.
ENV = 'BODY_BRIDGE_MODELS'
#: The folder looked at when nothing names one: ``shared/models`` beside the repository.
DEFAULT = Path(__file__).resolve().parents[2] / 'shared' / 'models'
#: Why a test or benchmark that reads the corpus does not run (one reason for all of them).
REASON = f'real model corpus not found: set {ENV}=DIR or place it at ../shared/models'


def models_dir(explicit: str | os.PathLike | None = None) -> Path:
    """The corpus folder: ``explicit`` if given, else ``$BODY_BRIDGE_MODELS``, else
    ``../shared/models`` beside the repository. It may not exist (see :func:`present`)."""
    if explicit:
        return Path(explicit).expanduser().resolve()
    named = os.environ.get(ENV, '').strip()
    if named:
        return Path(named).expanduser().resolve()
    return DEFAULT


def present(folder: Path) -> bool:
    """Whether ``folder`` holds a corpus (a folder with at least one of the format folders)."""
    return folder.is_dir() and any((folder / fmt).is_dir()
                                   for fmt in ('choreonoid', 'openrave', 'chrono'))
