"""sim/sensing/snapshot.py in one process: the points that frame a model, the overview's camera (EGL
offscreen, images of a few dozen pixels), a camera device's view, depth as grey, and the PNG
files read back byte by byte."""

from __future__ import annotations

import math
import struct
import zlib
from types import SimpleNamespace

import mujoco
import numpy as np
import pytest

from body_bridge.sim.sensing import snapshot as S


def scene(xml: str):
    mj = mujoco.MjModel.from_xml_string(f'<mujoco><worldbody>{xml}</worldbody></mujoco>')
    data = mujoco.MjData(mj)
    mujoco.mj_forward(mj, data)
    return SimpleNamespace(mj=mj, data=data)


def test_visible_points_are_the_corners_of_visible_geoms_and_the_visible_sites():
    sim = scene("""
        <geom type="plane" size="1 1 0.1"/>
        <geom type="box" pos="1 0 0" euler="0 0 90" size="0.1 0.2 0.3" group="2"/>
        <geom type="sphere" pos="5 5 5" size="0.1" rgba="1 1 1 0"/>
        <geom type="sphere" pos="-5 5 5" size="0.1" group="3"/>
        <site pos="0 0 2" group="2"/>
        <site pos="0 0 -9" group="3"/>""")
    points = S.visible_points(sim.mj, sim.data)
    corners = {(1 + x, y, z) for x in (-0.2, 0.2) for y in (-0.1, 0.1) for z in (-0.3, 0.3)}
    assert points.shape == (9, 3)
    assert {tuple(p) for p in np.round(points, 9) + 0.0} == corners | {(0.0, 0.0, 2.0)}
    assert np.array_equal(S.visible_points(*vars(scene('<geom type="plane" size="1 1 1"/>'))
                                           .values()), np.zeros((1, 3)))


def test_the_overview_camera_looks_along_its_direction_image_x_right_y_down():
    rot = S._look(np.array([-2.0, 0.0, 0.0]))  # from +x toward the origin
    assert np.allclose(rot, [[0, 0, -1], [1, 0, 0], [0, -1, 0]])  # +y right, +z up
    rot = S._look(np.array([1.0, 1.0, -1.0]))  # down at 35 degrees
    assert np.allclose(rot.T @ rot, np.eye(3)) and np.isclose(np.linalg.det(rot), 1.0)
    assert np.allclose(rot[:, 2], np.array([1, 1, -1]) / math.sqrt(3))
    assert np.isclose(rot[2, 0], 0.0) and rot[2, 1] < 0  # x level, y down the picture


#: Three cubes of 0.2 m: red in the middle, green above it, blue on +y beside it.
CUBES = """
    <geom type="box" pos="0 0 0" size="0.1 0.1 0.1" rgba="1 0 0 1"/>
    <geom type="box" pos="0 0 0.5" size="0.1 0.1 0.1" rgba="0 1 0 1"/>
    <geom type="box" pos="0 0.5 0" size="0.1 0.1 0.1" rgba="0 0 1 1"/>"""


def where(rgb, channel):
    """Rows and columns where one colour channel clearly dominates."""
    others = [c for c in range(3) if c != channel]
    mask = (rgb[..., channel].astype(int) > 60 + rgb[..., others].max(axis=2).astype(int))
    return np.nonzero(mask)


def test_the_overview_frames_the_model_from_its_azimuth_and_elevation():
    sim = scene(CUBES)
    rgb = S.overview(sim, 64, 48, azimuth=0.0, elevation=0.0, field_of_view=math.radians(40))
    assert rgb.shape == (48, 64, 3) and rgb.dtype == np.uint8
    # the sky: a vertical gradient where nothing is
    assert tuple(rgb[0, 0]) == (216, 220, 225) and tuple(rgb[-1, 0]) == (168, 171, 175)
    red, green, blue = where(rgb, 0), where(rgb, 1), where(rgb, 2)
    # from +x, +y is on the right and +z up; the red cube is at the height of the blue one
    assert green[0].max() < red[0].min() and red[1].max() < blue[1].min()
    assert abs(red[0].mean() - blue[0].mean()) < 1.0
    # framed: the model fills the picture up to 6 % from the sides, no closer
    rows = np.concatenate([red[0], green[0], blue[0]])
    cols = np.concatenate([red[1], green[1], blue[1]])
    assert 0.06 * 48 - 1 <= rows.min() and rows.max() <= 0.94 * 48
    assert 0.06 * 64 - 1 <= cols.min() and cols.max() <= 0.94 * 64
    assert rows.max() - rows.min() > 0.8 * 48 or cols.max() - cols.min() > 0.8 * 64
    # a quarter turn on and from above: +x now on the left, and the top of the cubes in view
    rgb = S.overview(sim, 40, 40, azimuth=math.radians(90), elevation=math.radians(60))
    red, green, blue = where(rgb, 0), where(rgb, 1), where(rgb, 2)
    assert blue[0].mean() > green[0].mean() and red[0].mean() > green[0].mean()
    assert abs(red[1].mean() - 19.5) < 3 and green[1].size and blue[1].size
    sim.mj.vis.global_.offwidth = 8
    assert S.overview(sim, 24, 12).shape == (12, 24, 3)  # grows the offscreen buffer


def framed(rgb, mask, reach=0.8):
    """The model's pixels keep 6 % of the picture free on each side, and come near that on
    one (``reach`` of the picture)."""
    rows, cols = np.nonzero(mask)
    height, width = mask.shape
    assert 0.06 * height - 1 <= rows.min() and rows.max() <= 0.94 * height
    assert 0.06 * width - 1 <= cols.min() and cols.max() <= 0.94 * width
    assert rows.max() - rows.min() + 1 >= reach * height or \
        cols.max() - cols.min() + 1 >= reach * width
    return rows, cols


def not_sky(rgb):
    sky = np.linspace(225.0, 175.0, rgb.shape[0])[:, None, None] * np.array([0.96, 0.98, 1.0])
    return np.any(rgb != sky.astype(np.uint8), axis=2)


def test_the_overview_is_centred_framed_and_lit_in_any_shape():
    sim = scene('<geom type="box" size="0.1 0.1 0.1" rgba="0.5 0.5 0.5 1"/>')
    for width, height in ((16, 12), (20, 40)):
        rgb = S.overview(sim, width, height, 0.0, 0.0)
        rows, cols = framed(rgb, not_sky(rgb))
        # centred, up to a pixel where an edge falls near a pixel's centre
        assert abs(cols.min() + cols.max() - (width - 1)) <= 1
        assert abs(rows.min() + rows.max() - (height - 1)) <= 1
    # the head light: a mid-grey face seen head on, brightened by the light's specular part
    assert 180 <= rgb[20, 10, 0] <= 195
    # the defaults: from 35 degrees about z, 25 degrees up, 40 degrees across the short side
    assert np.array_equal(S.overview(sim, 16, 12), S.overview(
        sim, 16, 12, math.radians(35), math.radians(25), math.radians(40)))
    # a field of view of 120 degrees: the camera comes close, the far plane stays behind
    framed(rgb := S.overview(sim, 16, 12, field_of_view=math.radians(120)), not_sky(rgb), 0.7)


def test_near_things_are_framed_from_their_front():
    """A big cube close to the camera, a small one far behind it: the big one's front face
    decides how far the camera stays."""
    sim = scene('<geom type="box" pos="0.8 0 0" size="0.2 0.2 0.2" rgba="1 0 0 1"/>'
                '<geom type="box" pos="-0.8 0 0" size="0.02 0.02 0.02" rgba="0 0 1 1"/>')
    rgb = S.overview(sim, 20, 20, 0.0, 0.0)
    framed(rgb, not_sky(rgb))
    # and a building of 10 m is within the far plane
    rgb = S.overview(scene('<geom type="box" size="5 5 5" rgba="1 0 0 1"/>'), 20, 20)
    framed(rgb, not_sky(rgb), 0.7)


def test_tiny_and_pointlike_models_are_seen():
    rgb = S.overview(scene('<geom type="box" size="0.005 0.005 0.005" rgba="1 0 0 1"/>'),
                     16, 12, 0.0, 0.0)
    framed(rgb, not_sky(rgb), 0.2)  # from no nearer than 5 cm: 3 pixels of 12
    # a lone site (a spring's end, 5 mm across) is seen from 5 cm
    rgb = S.overview(scene('<site pos="0.3 0.2 0.1" group="0"/>'), 16, 12)
    assert not_sky(rgb)[5:7, 7:9].all() and not not_sky(rgb)[:, 0].any()


def test_every_renderer_made_is_closed(monkeypatch):
    made = []

    class Counted(S.OffscreenRenderer):
        def __init__(self, *args):
            super().__init__(*args)
            made.append(self)

    monkeypatch.setattr(S, 'OffscreenRenderer', Counted)
    S.overview(scene(CUBES), 8, 6)
    assert len(made) == 1 and made[0]._gl is None


def test_depth_as_grey_near_white_far_dark_nothing_black():
    depth = np.array([[1.0, 2.0], [3.0, np.inf]])
    assert S.depth_to_gray(depth).tolist() == [[255, 155], [55, 0]]
    assert S.depth_to_gray(depth).dtype == np.uint8
    assert S.depth_to_gray(np.full((2, 3), 4.0)).tolist() == [[255] * 3] * 2
    assert S.depth_to_gray(np.full((1, 2), np.inf)).tolist() == [[0, 0]]


def read_png(path):
    """(width, height, bit depth, colour type, rows) of a PNG file, each chunk's CRC checked."""
    blob = path.read_bytes()
    assert blob[:8] == b'\x89PNG\r\n\x1a\n'
    at, chunks = 8, []
    while at < len(blob):
        (length,) = struct.unpack('>I', blob[at:at + 4])
        tag, data = blob[at + 4:at + 8], blob[at + 8:at + 8 + length]
        (crc,) = struct.unpack('>I', blob[at + 8 + length:at + 12 + length])
        assert crc == zlib.crc32(tag + data)
        chunks.append((tag, data))
        at += 12 + length
    assert [t for t, _ in chunks] == [b'IHDR', b'IDAT', b'IEND'] and chunks[2][1] == b''
    width, height, bits, kind, *rest = struct.unpack('>IIBBBBB', chunks[0][1])
    assert rest == [0, 0, 0]
    raw = zlib.decompress(chunks[1][1])
    stride = len(raw) // height
    rows = [raw[i * stride:(i + 1) * stride] for i in range(height)]
    assert all(row[0] == 0 for row in rows)  # filter: none
    return width, height, bits, kind, [row[1:] for row in rows]


def test_png_files_of_rgb_and_grey(tmp_path):
    rgb = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3) * 10
    S.write_png(str(tmp_path / 'c.png'), rgb)
    assert read_png(tmp_path / 'c.png') == (3, 2, 8, 2, [rgb[0].tobytes(), rgb[1].tobytes()])
    gray = np.array([[0, 128], [255, 7], [1, 2]], dtype=np.uint8)
    S.write_png(str(tmp_path / 'g.png'), gray)
    assert read_png(tmp_path / 'g.png') == (2, 3, 8, 0, [bytes(r) for r in gray.tolist()])
    # any integer array, and a view of one (a mirrored picture), as 8 bits
    S.write_png(str(tmp_path / 'm.png'), gray.astype(np.int64)[:, ::-1])
    assert read_png(tmp_path / 'm.png')[4] == [bytes(r[::-1]) for r in gray.tolist()]
    with pytest.raises(ValueError, match=r'\(2, 2, 4\) is neither RGB nor grey'):
        S.write_png(str(tmp_path / 'x.png'), np.zeros((2, 2, 4)))
    assert not (tmp_path / 'x.png').exists()


EYES = """format: ChoreonoidBody
format_version: 2.0
name: eyes
root_link: base
links:
  - name: base
    joint_type: fixed
    mass: 1
    inertia: [0.01, 0, 0, 0.01, 0, 0.01]
    elements:
      - { type: Shape, translation: [0, 0, 0.5], geometry: { type: Box, size: [0.4, 0.4, 0.2] } }
      - { type: Camera, name: both, translation: [0, 0, 1], format: COLOR_DEPTH, width: 8,
          height: 6, field_of_view: 30, near_clip_distance: 0.05, far_clip_distance: 5 }
      - { type: Camera, name: color, translation: [0, 0, 1], format: COLOR, width: 4,
          height: 2, field_of_view: 30 }
      - { type: Camera, name: depth, translation: [0, 0, 1], format: DEPTH, width: 4,
          height: 2, field_of_view: 30 }
"""


def test_a_camera_device_sees_what_its_topics_publish(tmp_path):
    from body_bridge.formats import load_model
    from body_bridge.sim.simulation import Simulation
    path = tmp_path / 'eyes.body'
    path.write_text(EYES)
    sim = Simulation(load_model(path))
    rgb, depth = S.device_view(sim, 'both')
    assert rgb.shape == (6, 8, 3) and rgb.dtype == np.uint8
    assert depth.shape == (6, 8) and np.allclose(depth, 0.4, atol=1e-3)  # the box's top
    rgb, depth = S.device_view(sim, 'color')
    assert rgb.shape == (2, 4, 3) and depth is None
    rgb, depth = S.device_view(sim, 'depth')
    assert rgb is None and depth.shape == (2, 4)
    with pytest.raises(KeyError, match=r"'eye' is not a simulated camera of eyes "
                                       r"\(cameras: both, color, depth\)"):
        S.device_view(sim, 'eye')


def test_a_camera_view_closes_its_sensors(tmp_path, monkeypatch):
    from body_bridge.formats import load_model
    from body_bridge.sim.simulation import Simulation
    closed = []
    monkeypatch.setattr(S.SensorSuite, 'close', lambda suite: closed.append(suite))
    path = tmp_path / 'eyes.body'
    path.write_text(EYES)
    S.device_view(Simulation(load_model(path)), 'color')
    assert len(closed) == 1
