"""Fisheye cameras: an equidistant image (``r = f * theta``) composed from pinhole renders of
the faces of a cube around the camera, as Choreonoid's FISHEYE and DUAL_FISHEYE lenses.

FISHEYE: the image is square (``width`` pixels a side); the circle of diameter ``width`` holds
the directions up to ``field_of_view / 2`` from the optical axis, so ``f = width /
field_of_view`` pixels per radian, centred at ``((width - 1) / 2, (width - 1) / 2)``; pixels
outside the circle are black. This is ROS's ``equidistant`` camera model with zero distortion
coefficients, so the CameraInfo describes the image exactly.

DUAL_FISHEYE (an omnidirectional camera): the image is ``2 h`` x ``h`` pixels, ``h = width //
2``; its left square is the front hemisphere (180 degrees across the circle of diameter ``h``,
``f = h / pi``), its right square the back hemisphere as the camera turned half a turn about
its vertical (optical y) axis sees it. No ROS camera model describes two circles in one image:
its CameraInfo says ``dual_equidistant`` and its K is the left circle's.
"""

from __future__ import annotations

import math

import numpy as np

from .render import Intrinsics

__all__ = ['FisheyeLens', 'face_size', 'DUAL_MODEL']

#: CameraInfo ``distortion_model`` of a DUAL_FISHEYE image (see the module's text).
DUAL_MODEL = 'dual_equidistant'

#: Cube faces as rotations from the face's optical frame to the camera's (columns: the face's
#: x, y, z axes in camera optical coordinates): front, right, left, down, up, back.
_BACK = np.diag([-1.0, 1.0, -1.0])  # half a turn about the optical y axis
_FACES = (
    np.eye(3),
    np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]]),
    np.array([[0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]),
    np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]]),
    np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]]),
    _BACK,
)


def face_size(width: int, fov: float, limit: int) -> int:
    """Side [pixels] of a cube face that samples the fisheye's centre at its own resolution."""
    return max(2, min(limit, math.ceil(2.0 * width / fov)))


def _directions(size: int, f: float) -> tuple[np.ndarray, np.ndarray]:
    """Unit directions (optical frame) of the pixels of a ``size`` x ``size`` equidistant
    image with ``f`` pixels per radian, and which pixels lie inside its circle."""
    c = (size - 1) / 2
    grid = np.arange(size, dtype=np.float64) - c
    x, y = np.meshgrid(grid, grid)
    radius = np.hypot(x, y)
    theta = radius / f
    phi = np.arctan2(y, x)
    d = np.stack([np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi), np.cos(theta)],
                 axis=-1)
    return d, radius <= size / 2


class FisheyeLens:
    """The lookup from fisheye pixels to cube-face pixels, and the composition.

    Attributes:
        intrinsics: the equidistant model (fx = fy = f, cx = cy) and the clip distances; for a
            dual lens, those of the left (front) circle and the size of the whole image.
        face: the pinhole intrinsics of each cube face (90 degrees across).
        faces: indices into the cube faces that the image uses.
    """

    def __init__(self, width: int, fov: float, near: float, far: float, limit: int,
                 dual: bool = False):
        if dual:  # two hemispheres side by side
            size = width // 2
            f = size / math.pi
            front, inside = _directions(size, f)
            d = np.concatenate([front, front @ _BACK.T], axis=1)
            inside = np.concatenate([inside, inside], axis=1)
            s = face_size(size, math.pi, limit)
            shape = (2 * size, size)
        else:
            size = width
            f = width / fov
            d, inside = _directions(size, f)
            s = face_size(width, fov, limit)
            shape = (width, width)
        c = (size - 1) / 2
        self.intrinsics = Intrinsics(shape[0], shape[1], f, f, c, c, near, far)
        self.face = Intrinsics(s, s, s / 2, s / 2, (s - 1) / 2, (s - 1) / 2, near, far)
        axes = np.stack([r[:, 2] for r in _FACES])  # each face's viewing direction
        face = np.argmax(d @ axes.T, axis=-1)
        self.faces = sorted(int(i) for i in np.unique(face[inside]))
        slot = {f_: i for i, f_ in enumerate(self.faces)}
        index = np.zeros(face.shape, dtype=np.int64)
        for f_ in self.faces:
            mask = inside & (face == f_)
            p = d[mask] @ _FACES[f_]  # in the face's optical frame
            col = np.clip(np.rint(self.face.fx * p[:, 0] / p[:, 2] + self.face.cx), 0, s - 1)
            row = np.clip(np.rint(self.face.fy * p[:, 1] / p[:, 2] + self.face.cy), 0, s - 1)
            index[mask] = (slot[f_] * s + row.astype(np.int64)) * s + col.astype(np.int64)
        self._index = index
        self._outside = ~inside
        self._stack = np.zeros((len(self.faces), s, s, 3), np.uint8)
        # The light at the camera: along its axis; a dual lens has no front, so each face is
        # lit along its own view.
        self._lights = [_FACES[f_][:, 2] if dual else _FACES[0][:, 2] for f_ in self.faces]

    def render(self, renderer, pos: np.ndarray, rot: np.ndarray) -> np.ndarray:
        """The fisheye colour image (H, W, 3) seen from the optical frame ``pos``, ``rot``."""
        for i, f_ in enumerate(self.faces):
            rgb, _ = renderer.render(pos, rot @ _FACES[f_], self.face, True, False,
                                     headlight=rot @ self._lights[i])
            np.copyto(self._stack[i], rgb)
        image = self._stack.reshape(-1, 3)[self._index]
        image[self._outside] = 0
        return image
