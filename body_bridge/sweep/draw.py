"""The values of one run: each varied quantity drawn from its distribution by the run's index.

A value depends on the sweep's seed, the run's index and the quantity's name only: the same
run gives the same bits on any machine, in any order, with any number of jobs, and adding a
quantity to a sweep leaves the others' values unchanged. Each uniform number comes from
SHA-256 of those three (53 bits, as a double holds them); a normal one from two of them
(Box-Muller). No generator state is kept between runs or quantities.

Distributions, as a sweep file writes them::

    {uniform: [low, high]}       # low <= high
    {normal: [mean, deviation]}  # deviation >= 0
    {integers: [low, high]}      # low..high, both included
    {choice: [a, b, ...]}        # one of them, each as likely
    [a, b, ...]                  # a list: run i takes item i mod n
    3.5                          # a constant
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

__all__ = ['Distribution', 'unit', 'read_distribution', 'KINDS']

#: The distributions a mapping may name.
KINDS = ('uniform', 'normal', 'integers', 'choice')


def unit(seed: int, index: int, name: str, k: int = 0) -> float:
    """A number in [0, 1) determined by (seed, index, name, k) alone."""
    digest = hashlib.sha256(f'{seed}\x00{index}\x00{name}\x00{k}'.encode()).digest()
    return (int.from_bytes(digest[:8], 'big') >> 11) / float(1 << 53)


@dataclass(frozen=True)
class Distribution:
    """Where a varied quantity's values come from.

    Attributes:
        kind: ``uniform``, ``normal``, ``integers``, ``choice``, ``list`` or ``constant``.
        args: its arguments (two numbers; the items; the constant, as the only item).
    """

    kind: str
    args: tuple

    def value(self, seed: int, index: int, name: str):
        """The value of run ``index`` for the quantity ``name``."""
        a = self.args
        if self.kind == 'constant':
            return a[0]
        if self.kind == 'list':
            return a[index % len(a)]
        # u <= 1 - 2**-53, so u * n rounds below n for any n: floor(u * n) is at most n - 1
        u = unit(seed, index, name)
        if self.kind == 'uniform':
            return a[0] + (a[1] - a[0]) * u
        if self.kind == 'integers':
            return a[0] + int(u * (a[1] - a[0] + 1))
        if self.kind == 'choice':
            return a[int(u * len(a))]
        v = unit(seed, index, name, 1)  # normal: Box-Muller on (u, v)
        return a[0] + a[1] * math.sqrt(-2.0 * math.log(1.0 - u)) * math.cos(2.0 * math.pi * v)


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and \
        math.isfinite(value)


def read_distribution(value) -> Distribution:
    """The distribution a sweep file writes.

    Raises:
        ValueError: not a distribution; the message says why in a few words.
    """
    if isinstance(value, list):
        if not value:
            raise ValueError('an empty list has no value to take')
        return Distribution('list', tuple(value))
    if not isinstance(value, dict):
        if isinstance(value, (str, bool)) or _number(value):
            return Distribution('constant', (value,))
        raise ValueError(f'{value!r} is neither a value, a list nor a distribution')
    if len(value) != 1 or next(iter(value)) not in KINDS:
        raise ValueError(f'a distribution is one of {{{", ".join(KINDS)}}}: [...], not '
                         f'{dict(value)!r}')
    kind, args = next(iter(value.items()))
    if not isinstance(args, list) or not args:
        raise ValueError(f'{kind} takes a list, not {args!r}')
    if kind == 'choice':
        return Distribution('choice', tuple(args))
    if len(args) != 2 or not all(_number(v) for v in args):
        raise ValueError(f'{kind} takes two numbers, not {args!r}')
    low, high = args
    if kind == 'integers':
        if not all(float(v).is_integer() for v in args):
            raise ValueError(f'integers takes two whole numbers, not {args!r}')
        low, high = int(low), int(high)
    if kind == 'normal':
        if high < 0:
            raise ValueError(f'normal: the deviation {high} is negative')
        return Distribution('normal', (float(low), float(high)))
    if high < low:
        raise ValueError(f'{kind}: the range [{low}, {high}] is negative (high < low)')
    return Distribution(kind, (low, high) if kind == 'integers' else (float(low), float(high)))
