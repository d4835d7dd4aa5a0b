"""Small helpers of the model's records: read-only mappings and arrays."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

#: The read-only empty mapping every record shares.
EMPTY: Mapping = MappingProxyType({})


def freeze(mapping: Mapping | None) -> Mapping:
    """Return a read-only view of a mapping (for parameters kept in the model)."""
    return EMPTY if not mapping else MappingProxyType(dict(mapping))


def vector(value, n: int = 3) -> np.ndarray:
    """A read-only float vector of length ``n``."""
    arr = np.array(value, dtype=float).reshape(n)
    arr.setflags(write=False)
    return arr


def frozen_array(arr: np.ndarray) -> np.ndarray:
    """A read-only float copy of an array."""
    arr = np.array(arr, dtype=float)
    arr.setflags(write=False)
    return arr


def optional_array(value, shape) -> np.ndarray | None:
    """A read-only float array of ``shape``, or None."""
    return None if value is None else frozen_array(np.array(value, float).reshape(shape))
