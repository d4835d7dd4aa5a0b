"""Loader warnings that say the same thing many times, folded into one line each.

A key a model repeats on every joint, a mesh feature every shape uses: the loaders warn once
per place, and a model can fill the log with one problem. Warnings of one file whose texts
differ only in their line, their numbers and the first name they quote (the link, joint or
device they are about) are one problem; from :data:`FOLD_FROM` of them on, they become their
first line followed by how many there are and the names that differ (the first few with
their line, up to :data:`NAMED` in all, so that nothing a warning was about goes unnamed in
all but the longest lists)::

    robot.body:12: link 'J1': key 'gearRatio' is not supported and was ignored (6 warnings
    like this one; the others at 'J2' (line 20), 'J3' (line 28), 'J4' (line 36), 'J5', 'J6')
"""

from __future__ import annotations

import re

__all__ = ['fold_repeats', 'FOLD_FROM', 'SHOWN', 'NAMED']

#: Warnings of one problem from which they are folded into one line.
FOLD_FROM = 3
#: Places named with their line in a folded line (besides the first, shown in full).
SHOWN = 3
#: Places named in all in a folded line: every link a problem is about, up to this many.
NAMED = 20

#: ``path:line: `` or ``path: `` at the start of a warning.
_LOCATION = re.compile(r'^(?P<path>.+?)(?::(?P<line>\d+))?: ')
#: The count a loader puts after a warning it gave several times.
_TIMES = re.compile(r' \((\d+) times\)$')
#: A quoted name.
_NAME = re.compile(r"'[^']*'|\"[^\"]*\"")
#: A quoted name, or a number outside quotes.
_TOKEN = re.compile(r"(?P<name>'[^']*'|\"[^\"]*\")|(?<![\w.])[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?(?!\w)")


def _split(line: str) -> tuple[str, str | None, str]:
    match = _LOCATION.match(line)
    if match is None:
        return '', None, line
    return match['path'], match['line'], line[match.end():]


def _problem(text: str) -> str:
    """What a warning says, without what varies between the places it comes from: its
    numbers and its first quoted name (the link, joint or device it is about)."""
    first = [True]

    def blank(match: re.Match) -> str:
        if match['name'] is None:
            return '#'
        if first[0]:
            first[0] = False
            return '#'
        return match[0]
    return _TOKEN.sub(blank, text)


def fold_repeats(lines, fold_from: int = FOLD_FROM, shown: int = SHOWN,
                 named: int = NAMED) -> tuple[str, ...]:
    """The warnings, in order, each problem said once when it comes ``fold_from`` times or
    more (at the place it first came), naming the other places: ``shown`` of them with their
    line, ``named`` in all."""
    lines = list(lines)
    groups: dict[tuple[str, str], list[int]] = {}
    for index, line in enumerate(lines):
        path, _, text = _split(_times(line)[0])
        groups.setdefault((path, _problem(text)), []).append(index)
    out = []
    for members in groups.values():
        if len(members) < fold_from:
            out.extend((i, lines[i]) for i in members)
        else:
            out.append((members[0], _folded([lines[i] for i in members], shown, named)))
    return tuple(line for _, line in sorted(out))


def _times(line: str) -> tuple[str, int]:
    """A line without the ``(N times)`` a loader adds to a warning it gave N times, and N."""
    match = _TIMES.search(line)
    return (line, 1) if match is None else (line[:match.start()], int(match[1]))


def _first_name(text: str) -> str:
    match = _NAME.search(text)
    return '' if match is None else match[0]


def _folded(lines: list[str], shown: int, named: int) -> str:
    first, _ = _times(lines[0])
    name = _first_name(_split(first)[2])
    listed = []
    for index, line in enumerate(lines[1:]):
        _, number, text = _split(_times(line)[0])
        label = _first_name(text)
        label = '' if label == name else label
        if index < shown and number is not None:
            label = f'{label} (line {number})' if label else f'line {number}'
        if label and len(listed) < named:
            listed.append(label)
    more = len(lines) - 1 - len(listed)
    others = f'; the others at {", ".join(listed)}' if listed else ''
    others += f' and {more} more' if more and listed else ''
    total = sum(_times(line)[1] for line in lines)
    return f'{first} ({total} warnings like this one{others})'
