"""DDS transport settings the node needs for its sensor topics (camera images)."""

from __future__ import annotations

import os

from ..errors import ModelError
from ..paths import share_dir

__all__ = ['use_bundled_fastdds_profile', 'FASTDDS_PROFILE']

#: The bundled Fast DDS profile, relative to the package's share directory.
FASTDDS_PROFILE = os.path.join('config', 'fastdds.xml')

_FASTDDS_RMWS = ('', 'rmw_fastrtps_cpp', 'rmw_fastrtps_dynamic_cpp')
#: Where Fast DDS looks for a profile file: 3.x (Kilted) reads the first, 2.x (Humble, Jazzy)
#: the second.
_PROFILE_VARIABLES = ('FASTDDS_DEFAULT_PROFILES_FILE', 'FASTRTPS_DEFAULT_PROFILES_FILE')


def use_bundled_fastdds_profile(environ=os.environ) -> str | None:
    """Point Fast DDS at the bundled profile (a large shared-memory segment) before rclpy.init.

    Both variables are set, the one of Fast DDS 3.x and the one of 2.x, so the profile applies
    whichever version rmw_fastrtps_cpp was built with. Nothing changes when another RMW is
    chosen or the user names a profile of their own (in either variable).

    Returns:
        The profile now in use, or None.
    """
    if environ.get('RMW_IMPLEMENTATION', '') not in _FASTDDS_RMWS:
        return None
    if any(environ.get(name) for name in _PROFILE_VARIABLES):
        return None
    try:
        path = os.path.join(share_dir(), FASTDDS_PROFILE)
    except ModelError:  # no share directory: Fast DDS keeps its defaults
        return None
    if not os.path.isfile(path):
        return None
    for name in _PROFILE_VARIABLES:
        environ[name] = path
    return path
