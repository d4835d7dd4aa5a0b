"""Chrono YAML files the Chrono loader tests write, and the one line a broken one is refused
with."""

from __future__ import annotations

from pathlib import Path

import pytest

from body_bridge.errors import ModelError
from body_bridge.formats import load_model


def write(folder: Path, text: str, name: str = 'model.yaml') -> Path:
    """``text`` as the file ``name`` in ``folder``."""
    path = folder / name
    path.write_text(text)
    return path


def error(path: Path) -> str:
    """What the one line refusing the model file says after its place (the test fails if the
    model loads, or if the message is not one line naming the file)."""
    with pytest.raises(ModelError) as err:
        load_model(path)
    text = str(err.value)
    assert text.startswith(f'{path}:') and '\n' not in text
    return text.split(': ', 1)[1]
