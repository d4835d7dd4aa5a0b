"""Texture images at the limits textures.py sets (checked when a model loads): the smallest
image, an image of exactly the most pixels and one row more, pixels that cannot be decoded
after a header that can, and which textures a model keeps."""

import io

import numpy as np
import pytest
from PIL import Image

from body_bridge.errors import ModelError
from body_bridge.textures import MAX_TEXTURE_PIXELS, read_texture, texture_problem


def _png(tmp_path, name, size, mode='RGB', colour=0):
    path = tmp_path / name
    Image.new(mode, size, colour).save(path, format='PNG')
    return path


def test_a_one_pixel_image_is_a_texture(tmp_path):
    path = _png(tmp_path, 'dot.png', (1, 1), colour=(10, 20, 30))
    assert texture_problem(str(path)) is None
    assert read_texture(path).tolist() == [[[10, 20, 30]]]


def test_exactly_the_most_pixels_are_read_and_one_row_more_is_refused(tmp_path):
    side = int(MAX_TEXTURE_PIXELS ** 0.5)
    assert side * side == MAX_TEXTURE_PIXELS
    assert texture_problem(str(_png(tmp_path, 'max.png', (side, side), mode='1'))) is None
    over = _png(tmp_path, 'over.png', (side, side + 1), mode='1')
    assert texture_problem(str(over)) == (f'texture image is {side} x {side + 1} pixels; at '
                                          f'most {MAX_TEXTURE_PIXELS} pixels are read')


def test_pixels_that_cannot_be_decoded_are_one_line(tmp_path):
    data = io.BytesIO()
    Image.fromarray(np.random.default_rng(1).integers(0, 255, (64, 64, 3), np.uint8)).save(
        data, format='PNG')
    path = tmp_path / 'cut.png'
    path.write_bytes(data.getvalue()[:len(data.getvalue()) // 2])
    with pytest.raises(ModelError, match=r'cut\.png: texture image cannot be decoded \('):
        read_texture(str(path))
    assert texture_problem(str(path)).startswith('texture image is damaged')


def test_a_model_keeps_its_drawable_textures_and_loses_the_others_once(tmp_path):
    from body_bridge.model import Box, Joint, Link, Material, Model, Shape
    from body_bridge.textures import check_textures
    good = str(_png(tmp_path, 'good.png', (2, 2)))
    bad = str(tmp_path / 'missing.png')
    painted = Shape(Box((1, 1, 1)), material=Material(texture=good))
    spoiled = Shape(Box((1, 1, 1)), material=Material(texture=bad))
    other = Shape(Box((2, 2, 2)), material=Material(texture=bad))   # a collision shape only
    model = Model('m', (Link('a', visuals=(painted, spoiled), collisions=(spoiled, painted)),
                        Link('b', collisions=(other,))),
                  (Joint('j', 'fixed', 'a', 'b'),), root='a')
    checked = check_textures(model)
    a, b = checked.link('a'), checked.link('b')
    assert [s.material.texture for s in a.visuals] == [good, None]
    assert [s.material.texture for s in a.collisions] == [None, good]
    assert b.collisions[0].geometry == Box((2, 2, 2)) and b.collisions[0].material.texture is None
    assert [w.split(':')[0] for w in checked.warnings] == [bad]      # once for the file
    fine = Model('m', (Link('a', visuals=(painted,)),), (), root='a')
    assert check_textures(fine).link('a').visuals[0].material.texture == good


def test_a_texture_file_over_64_mib_is_refused_unread(tmp_path):
    path = tmp_path / 'huge.png'
    with open(path, 'wb') as f:  # sparse: nothing is written
        f.truncate(64 * 1024 * 1024 + 1)
    with pytest.raises(ModelError) as refused:
        read_texture(path)
    assert str(refused.value) == (f'{path}: texture file is 67108865 bytes, more than the limit '
                                  'of 67108864 bytes')


def test_a_palette_image_with_a_transparent_index_keeps_its_transparency(tmp_path):
    """A palette PNG (mode P) whose index 0 is transparent: RGBA, alpha 0 where index 0 is."""
    image = Image.new('P', (2, 1))
    image.putpalette([255, 0, 0, 0, 0, 255] + [0] * 762)
    image.putdata([0, 1])
    path = tmp_path / 'keyed.png'
    image.save(path, format='PNG', transparency=0)
    assert read_texture(path).tolist() == [[[255, 0, 0, 0], [0, 0, 255, 255]]]
