"""Names and small types that several integrator modules share; imports nothing of sim/.

MuJoCo element names are the model's names with a prefix (per model in a shared world) and,
for elements the bridge adds, one of the prefixes or suffixes below. The command modes are
here so that the servo set-up, the commands and the forces agree on them.
"""

from __future__ import annotations

import enum

__all__ = ['ACTUATOR_PREFIX', 'WORLD', 'SITE_PREFIX', 'TENDON_PREFIX', 'DRIVER_SUFFIX',
           'DRIVE_SUFFIX', 'BELT_SUFFIX', 'Mode', 'POSITION', 'VELOCITY', 'EFFORT',
           'CommandRejected', 'MIN_MASS', 'MIN_INERTIA']

#: Actuators are named ACTUATOR_PREFIX + joint name.
ACTUATOR_PREFIX = 'servo:'
#: A model whose root link has this name and is fixed is rooted at MuJoCo's world body.
WORLD = 'world'
#: Device sites are named SITE_PREFIX + device name.
SITE_PREFIX = 'device:'
#: Tendons of mimic couplings are named TENDON_PREFIX + joint name.
TENDON_PREFIX = 'mimic:'
#: A motor's driver body and joint are named motor + DRIVER_SUFFIX, its equality + DRIVE_SUFFIX.
DRIVER_SUFFIX = ':driver'
DRIVE_SUFFIX = ':drive'
#: The belt of a track (sim/mechanics/tracks.py) is a body named track + BELT_SUFFIX.
BELT_SUFFIX = ':belt'
#: Lower bounds MuJoCo applies to bodies whose file gives no (or zero) mass [kg, kg m^2].
MIN_MASS = 1e-4
MIN_INERTIA = 1e-8


class Mode(enum.IntEnum):
    """How a joint is commanded."""

    POSITION = 0
    VELOCITY = 1
    EFFORT = 2


#: The modes as plain integers, for the arrays compared every period.
POSITION, VELOCITY, EFFORT = int(Mode.POSITION), int(Mode.VELOCITY), int(Mode.EFFORT)


class CommandRejected(ValueError):
    """A command that names unknown joints or carries values that are not finite."""
