"""Mesh files the mesh reader tests write and read back through ``load_mesh_file``: the file
written, its parts with the warnings said, their bounds and volume, and the one line a broken
file is refused with."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from body_bridge import geometry as geo
from body_bridge.errors import ModelError
from body_bridge.meshfiles import load_mesh_file


def write(folder: Path, name: str, content: str | bytes) -> Path:
    """``content`` as the file ``name`` in ``folder``: bytes as they are, text as text."""
    path = folder / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


def load(path: Path, node: str | None = None) -> tuple[list, list[str]]:
    """The parts of the mesh file (of its ``node`` if named) and the warnings it said."""
    messages: list[str] = []
    parts = load_mesh_file(path, node, warn=messages.append)
    return parts, messages


def bounds(parts) -> tuple[np.ndarray, np.ndarray]:
    """The low and high corners of the box around every part's vertices."""
    v = np.concatenate([p.mesh.vertices for p in parts])
    return v.min(axis=0), v.max(axis=0)


def volume(parts) -> float:
    return sum(geo.mesh_volume(p.mesh) for p in parts)


def refusal(path: Path, error: type[Exception] = ModelError, node: str | None = None) -> str:
    """The message of the ``error`` refusing the file (or its ``node``); the test fails if it
    loads."""
    with pytest.raises(error) as refused:
        load_mesh_file(path, node)
    return str(refused.value)
