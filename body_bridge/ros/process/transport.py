"""DDS transport settings the node needs for its sensor topics (camera images)."""

from __future__ import annotations

import os
import re
import sys

from ...errors import ModelError
from ...paths import share_dir

__all__ = ['use_bundled_fastdds_profile', 'fastdds_major', 'FASTDDS_PROFILE']

#: The bundled Fast DDS profile, relative to the package's share directory.
FASTDDS_PROFILE = os.path.join('config', 'fastdds.xml')

_FASTDDS_RMWS = ('', 'rmw_fastrtps_cpp', 'rmw_fastrtps_dynamic_cpp')
#: The variable each Fast DDS major version reads its profile file from: 3.x (Kilted) the
#: first, 2.x (Humble, Jazzy) the second (3.x still reads it, with a deprecation warning).
_PROFILE_VARIABLES = {3: 'FASTDDS_DEFAULT_PROFILES_FILE', 2: 'FASTRTPS_DEFAULT_PROFILES_FILE'}
#: rmw_fastrtps releases from this major version on are built on Fast DDS 3 (Kilted: 9.x;
#: Jazzy's 8.x and Humble's 6.x use Fast DDS 2).
_RMW_ON_FASTDDS_3 = 9


def fastdds_major(environ=os.environ) -> int | None:
    """The major version of the Fast DDS that rmw_fastrtps_cpp is built on (2 or 3), from
    that package's version (found through AMENT_PREFIX_PATH, or in this Python's prefix as the
    PyPI wheels install it); None when it is not installed."""
    prefixes = [p for p in environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep) if p]
    for prefix in [*prefixes, sys.prefix]:
        path = os.path.join(prefix, 'share', 'rmw_fastrtps_cpp', 'package.xml')
        try:
            with open(path, encoding='utf-8') as f:
                found = re.search(r'<version>\s*(\d+)\.', f.read())
        except OSError:
            continue
        if found is not None:
            return 3 if int(found.group(1)) >= _RMW_ON_FASTDDS_3 else 2
    return None


def use_bundled_fastdds_profile(environ=os.environ, major: int | None = None) -> str | None:
    """Point Fast DDS at the bundled profile (a large shared-memory segment) before rclpy.init.

    The variable set is the one the installed Fast DDS reads (``major``, default: found by
    :func:`fastdds_major`); both when that is not known. Nothing changes when another RMW is
    chosen or the user names a profile of their own (in either variable).

    Returns:
        The profile now in use, or None.
    """
    if environ.get('RMW_IMPLEMENTATION', '') not in _FASTDDS_RMWS:
        return None
    if any(environ.get(name) for name in _PROFILE_VARIABLES.values()):
        return None
    try:
        path = os.path.join(share_dir(), FASTDDS_PROFILE)
    except ModelError:  # no share directory: Fast DDS keeps its defaults
        return None
    if not os.path.isfile(path):
        return None
    major = fastdds_major(environ) if major is None else major
    names = [_PROFILE_VARIABLES[major]] if major in _PROFILE_VARIABLES \
        else list(_PROFILE_VARIABLES.values())
    for name in names:
        environ[name] = path
    return path
