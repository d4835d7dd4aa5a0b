"""Offscreen rendering of pinhole cameras with MuJoCo's OpenGL renderer (EGL: no display).

One GL context and one MuJoCo render context serve every camera of a model. The projection
is set from the camera's intrinsics (fx, fy, cx, cy in pixels, the ROS CameraInfo convention:
pixel centres at integer coordinates, u right, v down), so a point that K projects to pixel
(u, v) is drawn at row v, column u: CameraInfo and image agree exactly.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass

import mujoco
import numpy as np

__all__ = ['Intrinsics', 'OffscreenRenderer', 'RenderError']


class RenderError(RuntimeError):
    """Offscreen rendering is not available (no EGL, no OpenGL driver)."""


@dataclass(frozen=True)
class Intrinsics:
    """A pinhole camera.

    Attributes:
        width, height: image size [pixels].
        fx, fy: focal lengths [pixels].
        cx, cy: principal point [pixels] (the centre of the top-left pixel is (0, 0)).
        near, far: clip distances along the optical axis [m].
    """

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    near: float
    far: float

    def matrix(self) -> np.ndarray:
        """The 3x3 camera matrix K."""
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])

    def rays(self) -> tuple[np.ndarray, np.ndarray]:
        """Per pixel, x/z and y/z of its ray in the optical frame; shapes (W,), (H,)."""
        u = np.arange(self.width, dtype=np.float64)
        v = np.arange(self.height, dtype=np.float64)
        return (u - self.cx) / self.fx, (v - self.cy) / self.fy


def _gl_context_class():
    """MuJoCo's GL context: EGL unless MUJOCO_GL names another backend.

    Chosen here, when the first camera renders, rather than by ``import mujoco`` (which picks
    GLFW, a window system, when MUJOCO_GL was not set before it ran).
    """
    backend = os.environ.get('MUJOCO_GL', '').strip().lower()
    if backend in ('', 'egl'):
        from mujoco.egl import GLContext
        return GLContext
    if backend == 'osmesa':
        from mujoco.osmesa import GLContext
        return GLContext
    return mujoco.GLContext


class OffscreenRenderer:
    """Renders colour and depth images of a MuJoCo model from arbitrary camera poses.

    Use from one thread at a time. With EGL the GL context is current only while a call
    renders (with MuJoCo 3 and 4 alike), so the next call may come from another thread (the
    node renders in its simulation thread, and in the executor's when a service steps or
    resets the world).
    """

    def __init__(self, mj: mujoco.MjModel, max_width: int, max_height: int):
        self._mj = mj
        try:
            self._gl = _gl_context_class()(max_width, max_height)
            with self._bound():
                self._con = mujoco.MjrContext(mj, mujoco.mjtFontScale.mjFONTSCALE_100.value)
                mujoco.mjr_setBuffer(mujoco.mjtFramebuffer.mjFB_OFFSCREEN.value, self._con)
        except Exception as err:  # every GL backend fails in its own way
            raise RenderError(f'offscreen rendering is not available: {err}') from err
        # Depth buffer read back as 1 at the near plane and 0 at the far plane (reversed Z).
        self._con.readDepthMap = mujoco.mjtDepthMap.mjDEPTH_ZEROFAR
        self._scene = mujoco.MjvScene(mj, maxgeom=max(1000, 2 * mj.ngeom + 100))
        self._option = mujoco.MjvOption()
        self._camera = mujoco.MjvCamera()
        mujoco.mjv_defaultFreeCamera(mj, self._camera)
        self._buffers: dict[tuple[int, int], tuple[np.ndarray, ...]] = {}

    @contextlib.contextmanager
    def _bound(self):
        """The GL context current in this thread for a ``with`` block, released after it where
        the backend can (EGL), so that the next block may run in another thread. MuJoCo 4's
        contexts do this themselves (``as_current``); MuJoCo 3's only have ``make_current``."""
        as_current = getattr(self._gl, 'as_current', None)
        if as_current is not None:
            with as_current():
                yield
            return
        self._gl.make_current()
        try:
            yield
        finally:
            _release_egl(self._gl)

    def update(self, data: mujoco.MjData) -> None:
        """Take the geometry of the current state (once per instant, for every camera)."""
        mujoco.mjv_updateScene(self._mj, data, self._option, None, self._camera,
                               mujoco.mjtCatBit.mjCAT_ALL.value, self._scene)

    def render(self, pos: np.ndarray, rot: np.ndarray, k: Intrinsics, color: bool = True,
               depth: bool = True, headlight: np.ndarray | None = None
               ) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Render the scene of the last ``update`` from an optical frame.

        Args:
            pos: the optical frame's origin in the world [m].
            rot: the optical frame's axes in the world (columns: x right, y down, z forward).
            k: the intrinsics (image size, focal lengths, principal point, clip distances).
            color: read the colour image.
            depth: read the depth image.
            headlight: direction of the light at the camera in the world (default: the optical
                axis; the faces of a fisheye share their camera's).

        Returns:
            (rgb (H, W, 3) uint8 or None, depth (H, W) float32 [m] along the optical axis,
            +inf where nothing is within the far clip distance, or None). Row 0 is the top.
            The arrays are reused by the next call with the same size.
        """
        self._place_camera(pos, rot, k, rot[:, 2] if headlight is None else headlight)
        rect = mujoco.MjrRect(0, 0, k.width, k.height)
        rgb_buf, depth_buf, *conversion = self._buffer(k.width, k.height)
        try:
            with self._bound():
                mujoco.mjr_render(rect, self._scene, self._con)
                mujoco.mjr_readPixels(rgb_buf if color else None, depth_buf if depth else None,
                                      rect, self._con)
        except Exception as err:  # every GL backend fails in its own way
            raise RenderError(f'offscreen rendering failed: {err}') from err
        rgb = rgb_buf[::-1] if color else None
        meters = _metric_depth(depth_buf[::-1], k.near, k.far, *conversion) if depth else None
        return rgb, meters

    def _place_camera(self, pos, rot, k: Intrinsics, headlight) -> None:
        forward, up = rot[:, 2], -rot[:, 1]
        n = k.near
        # The image plane's edges at the near plane: pixel edges lie half a pixel outside the
        # centres of the outer pixels.
        left = n * (-0.5 - k.cx) / k.fx
        right = n * (k.width - 0.5 - k.cx) / k.fx
        top = n * (k.cy + 0.5) / k.fy
        bottom = -n * (k.height - 0.5 - k.cy) / k.fy
        for cam in self._scene.camera:  # both eyes: mono rendering averages them
            cam.pos[:] = pos
            cam.forward[:] = forward
            cam.up[:] = up
            cam.frustum_center = 0.5 * (left + right)
            cam.frustum_width = 0.5 * (right - left)
            cam.frustum_bottom = bottom
            cam.frustum_top = top
            cam.frustum_near = n
            cam.frustum_far = k.far
            cam.orthographic = 0
        for i in range(self._scene.nlight):
            light = self._scene.lights[i]
            if light.headlight:
                light.pos[:] = pos
                light.dir[:] = headlight

    def _buffer(self, width: int, height: int) -> tuple[np.ndarray, ...]:
        """The arrays of one image size: colour and depth as read back, and those of the
        depth's conversion to metres (its float64 work, its mask, the metres)."""
        key = (width, height)
        if key not in self._buffers:
            self._buffers[key] = (np.empty((height, width, 3), np.uint8),
                                  np.empty((height, width), np.float32),
                                  np.empty((height, width), np.float64),
                                  np.empty((height, width), bool),
                                  np.empty((height, width), np.float32))
        return self._buffers[key]

    def close(self) -> None:
        """Free the GL resources (the renderer cannot be used afterwards)."""
        if getattr(self, '_con', None) is not None:
            with self._bound():
                self._con.free()
            self._con = None
        if getattr(self, '_gl', None) is not None:
            self._gl.free()
            self._gl = None


def _release_egl(gl) -> None:
    """Make no context current in this thread, if ``gl`` is an EGL context."""
    if type(gl).__module__ != 'mujoco.egl':
        return
    import mujoco.egl
    from mujoco.egl import egl_ext as EGL
    EGL.eglMakeCurrent(mujoco.egl.EGL_DISPLAY, EGL.EGL_NO_SURFACE, EGL.EGL_NO_SURFACE,
                       EGL.EGL_NO_CONTEXT)


def _metric_depth(buffer: np.ndarray, near: float, far: float, work: np.ndarray | None = None,
                  mask: np.ndarray | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """Reversed-Z depth buffer values (1 near, 0 far) to distance along the axis [m].

    With the perspective projection of the near and far planes n and f, a point at distance z
    is stored as d = n (f - z) / (z (f - n)); so z = n f / (n + d (f - n)), computed in
    float64 and stored as float32; +inf where d <= 0 (nothing within the far plane).

    ``work`` (float64), ``mask`` (bool) and ``out`` (float32), of the buffer's shape, are
    used when given (no array is allocated then: a 640x480 frame would otherwise allocate
    about 8 MB a frame); ``out`` is returned.
    """
    shape = buffer.shape
    work = np.empty(shape) if work is None else work
    mask = np.empty(shape, bool) if mask is None else mask
    out = np.empty(shape, np.float32) if out is None else out
    np.multiply(buffer, far - near, out=work, dtype=np.float64)  # each d as float64, exactly
    np.add(work, near, out=work)
    np.divide(near * far, work, out=work)
    np.less_equal(buffer, 0.0, out=mask)
    np.copyto(work, np.inf, where=mask)
    np.copyto(out, work, casting='same_kind')
    return out
