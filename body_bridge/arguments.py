"""The command line's arguments, checked before any work is done: every number in its range,
every file to write in a folder that exists, every mistake told in one line.

A numeric option takes a :class:`Number` as its argparse ``type``: a value that is not a
number, not finite, or outside the range is refused by argparse, and :class:`Parser` prints
argparse's refusals as one line (``python -m body_bridge snapshot: argument --width: ...``)
with status 2. :func:`check_outputs` refuses an output path whose folder does not exist (or
that is a folder) before the command loads anything.
"""

from __future__ import annotations

import argparse
import math
import os

from .errors import BodyBridgeError

__all__ = ['Number', 'Parser', 'OutputError', 'check_outputs', 'OUTPUTS']

#: Options that name a file a command writes, by command (``convert --mesh-dir`` is a folder
#: the command creates, so its parent must exist).
OUTPUTS = {
    'convert': ('output', 'mjcf', 'mesh_dir'),
    'snapshot': ('output',),
    'rviz': ('output',),
    'params': ('write',),
    'srdf': ('output',),
    'record': ('output',),
    'sim': ('record',),
    'sweep': ('output',),
}
#: Outputs that are a folder the command creates (a rosbag2 bag), by (command, option).
_NEW_FOLDERS = {('record', 'output'), ('sim', 'record')}
#: Outputs that are a folder which may exist already (a sweep's folder: it is resumed).
_FOLDERS = {('convert', 'mesh_dir'), ('sweep', 'output')}


class Number:
    """An argparse ``type``: a number of ``kind`` (int or float) from ``low`` to ``high``.

    NaN and infinities are never accepted, whatever the range.
    """

    def __init__(self, kind: type, low: float, high: float, unit: str = ''):
        self.kind, self.low, self.high, self.unit = kind, low, high, unit
        self.__name__ = 'whole number' if kind is int else 'number'  # argparse's word for it

    def __call__(self, text: str):
        try:
            value = self.kind(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or not self.low <= value <= self.high:
            raise argparse.ArgumentTypeError(f'{text!r} is not {self.range()}')
        return value

    def range(self) -> str:
        unit = f' {self.unit}' if self.unit else ''
        return f'a {self.__name__} from {self.low:g} to {self.high:g}{unit}'


class Parser(argparse.ArgumentParser):
    """argparse with its refusals in one line: ``prog: message (--help lists the options)``."""

    def error(self, message: str):
        self.exit(2, f'{self.prog}: {message} ({self.prog} --help lists the options)\n')


class OutputError(BodyBridgeError):
    """A file a command was asked to write cannot be written there."""


def check_outputs(command: str, args) -> None:
    """Refuse, before any work, an output path whose folder is missing or not a folder.

    Raises:
        OutputError: one line naming the option, the path and what is wrong.
    """
    for dest in OUTPUTS.get(command, ()):
        path = getattr(args, dest, None)
        if not path:
            continue
        option = '--' + dest.replace('_', '-')
        folder = os.path.dirname(os.path.abspath(path))
        if (command, dest) in _NEW_FOLDERS:
            if os.path.exists(path):
                raise OutputError(f'{option} {path}: already exists (a bag is written into '
                                  'a new folder)')
        elif (command, dest) in _FOLDERS:
            if os.path.exists(path) and not os.path.isdir(path):
                raise OutputError(f'{option} {path}: exists and is not a folder')
        elif os.path.isdir(path):
            raise OutputError(f'{option} {path}: is a folder, not a file')
        if not os.path.isdir(folder):
            what = 'is not a folder' if os.path.exists(folder) else 'does not exist'
            raise OutputError(f'{option} {path}: the folder {folder} {what}')
