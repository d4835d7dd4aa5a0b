"""sim/render.py's pieces that need no picture: the camera matrix and rays, the GL back end
MUJOCO_GL names, and a renderer closed twice."""

from __future__ import annotations

import mujoco
import numpy as np

from body_bridge.sim import render as R

K = R.Intrinsics(4, 3, 2.0, 4.0, 1.5, 1.0, 0.1, 10.0)


def test_the_camera_matrix_and_the_rays_of_its_pixels():
    assert np.array_equal(K.matrix(), [[2.0, 0.0, 1.5], [0.0, 4.0, 1.0], [0.0, 0.0, 1.0]])
    x, y = K.rays()
    assert np.array_equal(x, [-0.75, -0.25, 0.25, 0.75]) and np.array_equal(y, [-0.25, 0, 0.25])


def test_the_gl_back_end_is_egl_unless_mujoco_gl_names_another(monkeypatch):
    from mujoco.egl import GLContext as EGL
    for value in ('', 'egl', ' EGL '):
        monkeypatch.setenv('MUJOCO_GL', value)
        assert R._gl_context_class() is EGL
    monkeypatch.delenv('MUJOCO_GL')
    assert R._gl_context_class() is EGL
    monkeypatch.setenv('MUJOCO_GL', 'glfw')
    assert R._gl_context_class() is mujoco.GLContext


def test_a_renderer_closed_twice_and_a_context_of_another_back_end_left_alone():
    mj = mujoco.MjModel.from_xml_string('<mujoco><worldbody><geom size="0.3"/></worldbody>'
                                        '</mujoco>')
    renderer = R.OffscreenRenderer(mj, 8, 6)
    data = mujoco.MjData(mj)
    mujoco.mj_forward(mj, data)
    renderer.update(data)
    rgb, depth = renderer.render(np.array([0.0, 0.0, 1.0]), np.diag([1.0, -1.0, -1.0]),
                                 R.Intrinsics(8, 6, 4.0, 4.0, 3.5, 2.5, 0.1, 10.0))
    # the sphere, 0.729 m away along the axis on this ray (its drawn facets lie a little inside)
    assert rgb.shape == (6, 8, 3) and np.isclose(depth[3, 4], 0.729, atol=0.05)
    renderer.close()
    assert renderer._con is None and renderer._gl is None
    renderer.close()  # nothing left to free: no error

    class Other:
        pass
    assert R._release_egl(Other()) is None  # not an EGL context: no EGL call made
