"""sim/render.py in one process: the camera matrix and rays, the GL back end MUJOCO_GL names,
a renderer closed twice, and EGL offscreen pictures of 8 x 6 pixels: the frustum's edges to a
quarter pixel, a model of more geoms than the default scene holds, MuJoCo 3's make_current path
rendering from two threads."""

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
    # the context class `import mujoco` chose (EGL's too in this process) stands for any other
    picked_at_import = type('PickedAtImport', (), {})
    monkeypatch.setattr(mujoco, 'GLContext', picked_at_import)
    for value in ('', 'egl', ' EGL '):
        monkeypatch.setenv('MUJOCO_GL', value)
        assert R._gl_context_class() is EGL
    monkeypatch.delenv('MUJOCO_GL')
    assert R._gl_context_class() is EGL
    monkeypatch.setenv('MUJOCO_GL', 'glfw')
    assert R._gl_context_class() is picked_at_import


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


def box_scene(boxes: str, extra: str = '', width: int = 8, height: int = 6):
    """A model of boxes on z = 0 (top faces at 0) and its renderer; depth sampled at pixel
    centres (no multisampling: with it, depth is read at one sample off the centre)."""
    mj = mujoco.MjModel.from_xml_string(
        f'<mujoco><visual><global offwidth="{width}" offheight="{height}"/>'
        f'<quality offsamples="0"/></visual><worldbody>{boxes}{extra}</worldbody></mujoco>')
    data = mujoco.MjData(mj)
    mujoco.mj_forward(mj, data)
    renderer = R.OffscreenRenderer(mj, width, height)
    renderer.update(data)
    return mj, renderer


def box_between(k: R.Intrinsics, u0: float, u1: float, v0: float, v1: float) -> str:
    """A box whose top face, 1 m below a camera looking down, spans image columns u0..u1 and
    rows v0..v1 (pixel coordinates of K); world x is the image's right, world y its up."""
    x0, x1 = (u0 - k.cx) / k.fx, (u1 - k.cx) / k.fx
    y0, y1 = -(v1 - k.cy) / k.fy, -(v0 - k.cy) / k.fy
    return (f'<geom type="box" pos="{(x0 + x1) / 2} {(y0 + y1) / 2} -0.05" '
            f'size="{(x1 - x0) / 2} {(y1 - y0) / 2} 0.05"/>')


DOWN = (np.array([0.0, 0.0, 1.0]), np.diag([1.0, -1.0, -1.0]))


def test_edges_a_quarter_pixel_from_pixel_centres_fall_where_k_projects_them():
    # fx != fy and a principal point off the centre: the frustum's four edges each matter
    k = R.Intrinsics(8, 6, 4.0, 3.0, 3.0, 2.0, 0.1, 10.0)
    # left edge at u = 0.25, top at v = 0.25, bottom at v = 4.75; the right beyond the image
    mj, renderer = box_scene(box_between(k, 0.25, 20.0, 0.25, 4.75))
    rgb, depth = renderer.render(*DOWN, k)
    hit = np.zeros((6, 8), bool)
    hit[1:5, 1:] = True
    assert np.array_equal(np.isfinite(depth), hit)
    assert np.allclose(depth[hit], 1.0, atol=1e-4)
    # top edge a quarter pixel below row 4's centre, right edge a quarter left of column 6's
    renderer.close()
    mj, renderer = box_scene(box_between(k, -20.0, 6.25, 4.25, 20.0))
    _, depth = renderer.render(*DOWN, k)
    hit = np.zeros((6, 8), bool)
    hit[5:, :7] = True
    assert np.array_equal(np.isfinite(depth), hit)
    renderer.close()


def test_a_model_of_more_geoms_than_the_default_scene_holds_is_drawn_whole():
    k = R.Intrinsics(8, 6, 4.0, 4.0, 3.5, 2.5, 0.1, 10.0)
    spheres = ''.join(f'<geom type="sphere" size="0.01" pos="{i * 0.03} 50 0"/>'
                      for i in range(1100))
    mj, renderer = box_scene(spheres, box_between(k, -20.0, 20.0, -20.0, 20.0))
    _, depth = renderer.render(*DOWN, k)  # the box, the model's last geom, fills the view
    assert mj.ngeom == 1101 and np.allclose(depth, 1.0, atol=1e-4)
    renderer.close()


def test_mujoco_3_contexts_made_current_and_released_render_from_two_threads(monkeypatch):
    """MuJoCo 3's EGL context has make_current only: each render makes it current and
    releases it, so the next one may run in another thread (EGL refuses a context current
    in another thread)."""
    import threading

    import mujoco.egl
    from mujoco.egl import egl_ext as EGL
    monkeypatch.delattr(mujoco.egl.GLContext, 'as_current')
    k = R.Intrinsics(8, 6, 4.0, 4.0, 3.5, 2.5, 0.1, 10.0)
    mj, renderer = box_scene(box_between(k, 0.25, 20.0, -20.0, 20.0))
    assert not EGL.eglGetCurrentContext()  # no context current: released after construction
    results = []

    def render():
        try:
            results.append(np.isfinite(renderer.render(*DOWN, k)[1]).copy())
        except R.RenderError as err:
            results.append(err)
    render()
    thread = threading.Thread(target=render)
    thread.start()
    thread.join()
    hit = np.ones((6, 8), bool)
    hit[:, 0] = False
    assert len(results) == 2 and all(np.array_equal(r, hit) for r in results), results
    # a context of another back end is not released by _release_egl
    renderer._gl.make_current()
    R._release_egl(type('Other', (), {})())
    assert EGL.eglGetCurrentContext()  # still current
    R._release_egl(renderer._gl)
    assert not EGL.eglGetCurrentContext()
    renderer.close()
