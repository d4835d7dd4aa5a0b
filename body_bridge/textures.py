"""Texture images: checked when a model is loaded, decoded when the integrator's model is built.

Texture files are read like mesh files (:func:`body_bridge.fileaccess.read_regular`: regular
files only, at most ``MAX_TEXTURE_BYTES``) and decoded with Pillow (PNG, JPEG, BMP, GIF, TGA,
...), refusing images of more than ``MAX_TEXTURE_PIXELS`` before their pixels are decoded (a
small compressed file can state a huge image). A texture that cannot be drawn is dropped from
its material with one warning at load; the surface keeps its colour.
"""

from __future__ import annotations

import dataclasses
import io
import os
import struct

import numpy as np

from .errors import ModelError
from .fileaccess import read_regular
from .model import Model, Shape

__all__ = ['MAX_TEXTURE_BYTES', 'MAX_TEXTURE_PIXELS', 'read_texture', 'texture_problem',
           'check_textures']

#: Largest texture file read [bytes].
MAX_TEXTURE_BYTES = 64 * 1024 * 1024
#: Most pixels (width times height) of one texture image.
MAX_TEXTURE_PIXELS = 4096 * 4096


def _open(path: str):
    """The Pillow image of a file (header read, pixels not yet decoded)."""
    from PIL import Image, UnidentifiedImageError

    data = read_regular(path, MAX_TEXTURE_BYTES, 'texture file')
    try:
        image = Image.open(io.BytesIO(data))
    except (UnidentifiedImageError, OSError, ValueError) as err:
        raise ModelError(path, None, f'texture file is not an image Pillow can read ({err})') \
            from None
    width, height = image.size
    if width < 1 or height < 1 or width * height > MAX_TEXTURE_PIXELS:
        raise ModelError(path, None, f'texture image is {width} x {height} pixels; at most '
                         f'{MAX_TEXTURE_PIXELS} pixels are read')
    return image


def read_texture(path: str | os.PathLike) -> np.ndarray:
    """The pixels of an image file, (height, width, 3) or (height, width, 4) uint8 (RGB or
    RGBA), the first row the top of the image.

    Raises:
        ModelError: the file is missing, not a regular file, too large or not an image.
    """
    path = os.fspath(path)
    image = _open(path)
    try:
        has_alpha = image.mode in ('RGBA', 'LA', 'PA') or 'transparency' in image.info
        pixels = np.asarray(image.convert('RGBA' if has_alpha else 'RGB'), dtype=np.uint8)
    except (OSError, ValueError, SyntaxError) as err:  # truncated or corrupt pixel data
        raise ModelError(path, None, f'texture image cannot be decoded ({err})') from None
    return pixels


def texture_problem(path: str) -> str | None:
    """Why a texture file cannot be drawn (one line), or None when it can."""
    from PIL import Image

    try:
        _open(path).verify()
    except ModelError as err:
        return err.message
    except (OSError, ValueError, SyntaxError, IndexError, TypeError, struct.error,
            Image.DecompressionBombError) as err:  # what Pillow's decoders raise on bad data
        return f'texture image is damaged ({type(err).__name__}: {err})'
    return None


def check_textures(model: Model) -> Model:
    """The model with every texture that cannot be drawn dropped, one warning per file.

    Remote references (``http://...``) are dropped too: nothing is downloaded.
    """
    problems: dict[str, str | None] = {}
    warnings = list(model.warnings)

    def usable(shape: Shape) -> Shape:
        material = shape.material
        if material is None or material.texture is None:
            return shape
        path = material.texture
        if path not in problems:
            problems[path] = ('a remote texture is not downloaded' if '://' in path
                              else texture_problem(path))
            if problems[path]:
                warnings.append(f'{path}: {problems[path]}; the surface keeps its colour')
        if problems[path] is None:
            return shape
        return dataclasses.replace(shape, material=dataclasses.replace(material, texture=None))

    links = []
    for link in model.links:
        visuals = tuple(usable(s) for s in link.visuals)
        same = {id(a): b for a, b in zip(link.visuals, visuals)}
        collisions = tuple(same.get(id(s)) or usable(s) for s in link.collisions)
        links.append(dataclasses.replace(link, visuals=visuals, collisions=collisions))
    if not any(problems.values()):
        return model
    return dataclasses.replace(model, links=tuple(links), warnings=tuple(warnings))
