"""Loader warnings that say the same thing many times, folded into one line each.

A key a model repeats on every joint, a mesh feature every shape uses: the loaders warn once
per place, and a model can fill the log with one problem. Warnings of one file whose texts
differ only in their line, their numbers and the first name they quote (the link, joint or
device they are about) are one problem; from :data:`FOLD_FROM` of them on, they become their
first line followed by how many there are and the first few names that differ::

    robot.body:12: link 'J1': key 'gearRatio' is not supported and was ignored (16 warnings
    like this one; the others at 'J2' (line 20), 'J3' (line 28), 'J4' (line 36) and 12 more)
"""

from __future__ import annotations

import re

__all__ = ['fold_repeats', 'FOLD_FROM', 'SHOWN']

#: Warnings of one problem from which they are folded into one line.
FOLD_FROM = 3
#: Places named in a folded line (besides the first, shown in full).
SHOWN = 3

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


def fold_repeats(lines, fold_from: int = FOLD_FROM, shown: int = SHOWN) -> tuple[str, ...]:
    """The warnings, in order, each problem said once when it comes ``fold_from`` times or
    more (at the place it first came)."""
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
            out.append((members[0], _folded([lines[i] for i in members], shown)))
    return tuple(line for _, line in sorted(out))


def _times(line: str) -> tuple[str, int]:
    """A line without the ``(N times)`` a loader adds to a warning it gave N times, and N."""
    match = _TIMES.search(line)
    return (line, 1) if match is None else (line[:match.start()], int(match[1]))


def _folded(lines: list[str], shown: int) -> str:
    first, _ = _times(lines[0])
    name = _NAME.search(_split(first)[2])
    places = []
    for line in lines[1:1 + shown]:
        _, number, text = _split(_times(line)[0])
        other = _NAME.search(text)
        label = other[0] if other is not None and other[0] != name[0] else ''
        if number is not None:
            label = f'{label} (line {number})' if label else f'line {number}'
        if label:
            places.append(label)
    more = len(lines) - 1 - len(places)
    others = f'; the others at {", ".join(places)}' if places else ''
    others += f' and {more} more' if more and places else ''
    total = sum(_times(line)[1] for line in lines)
    return f'{first} ({total} warnings like this one{others})'
