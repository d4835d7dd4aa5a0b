"""Fisheye cameras: an equidistant image (``r = f * theta``) composed from pinhole renders of
the faces of a cube around the camera, as Choreonoid's FISHEYE lens.

The image is square (``width`` pixels a side); the circle of diameter ``width`` holds the
directions up to ``field_of_view / 2`` from the optical axis, so ``f = width / field_of_view``
pixels per radian, centred at ``((width - 1) / 2, (width - 1) / 2)``; pixels outside the circle
are black. This is ROS's ``equidistant`` camera model with zero distortion coefficients, so the
CameraInfo describes the image exactly.
"""

from __future__ import annotations

import math

import numpy as np

from .render import Intrinsics

__all__ = ['FisheyeLens', 'face_size']

#: Cube faces as rotations from the face's optical frame to the camera's (columns: the face's
#: x, y, z axes in camera optical coordinates): front, right, left, down, up.
_FACES = (
    np.eye(3),
    np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]]),
    np.array([[0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]),
    np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]]),
    np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]]),
)


def face_size(width: int, fov: float, limit: int) -> int:
    """Side [pixels] of a cube face that samples the fisheye's centre at its own resolution."""
    return max(2, min(limit, math.ceil(2.0 * width / fov)))


class FisheyeLens:
    """The lookup from fisheye pixels to cube-face pixels, and the composition.

    Attributes:
        intrinsics: the equidistant model (fx = fy = f, cx = cy) and the clip distances.
        face: the pinhole intrinsics of each cube face (90 degrees across).
        faces: indices into the cube faces that the image uses.
    """

    def __init__(self, width: int, fov: float, near: float, far: float, limit: int):
        f = width / fov
        c = (width - 1) / 2
        self.intrinsics = Intrinsics(width, width, f, f, c, c, near, far)
        s = face_size(width, fov, limit)
        self.face = Intrinsics(s, s, s / 2, s / 2, (s - 1) / 2, (s - 1) / 2, near, far)
        grid = np.arange(width, dtype=np.float64) - c
        x, y = np.meshgrid(grid, grid)
        radius = np.hypot(x, y)
        theta = radius / f
        phi = np.arctan2(y, x)
        d = np.stack([np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi), np.cos(theta)],
                     axis=-1)
        inside = radius <= width / 2
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

    def render(self, renderer, pos: np.ndarray, rot: np.ndarray) -> np.ndarray:
        """The fisheye colour image (H, W, 3) seen from the optical frame ``pos``, ``rot``."""
        for i, f_ in enumerate(self.faces):
            rgb, _ = renderer.render(pos, rot @ _FACES[f_], self.face, True, False,
                                     headlight=rot[:, 2])
            np.copyto(self._stack[i], rgb)
        image = self._stack.reshape(-1, 3)[self._index]
        image[self._outside] = 0
        return image
