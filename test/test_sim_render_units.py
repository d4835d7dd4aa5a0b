"""sim/sensing/render.py in one process: the camera matrix and rays, the GL back end MUJOCO_GL names,
a renderer closed twice, and EGL offscreen pictures of 8 x 6 pixels: the frustum's edges to a
quarter pixel (depth and colour, two camera poses), the headlight, a model of more geoms than
the default scene holds, MuJoCo 3's make_current path rendering from two threads."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from body_bridge.sim.sensing import render as R

K = R.Intrinsics(4, 3, 2.0, 4.0, 1.5, 1.0, 0.1, 10.0)


def test_the_camera_matrix_and_the_rays_of_its_pixels():
    assert np.array_equal(K.matrix(), [[2.0, 0.0, 1.5], [0.0, 4.0, 1.0], [0.0, 0.0, 1.0]])
    x, y = K.rays()
    assert np.array_equal(x, [-0.75, -0.25, 0.25, 0.75]) and np.array_equal(y, [-0.25, 0, 0.25])


def test_the_depth_buffer_becomes_metres_along_the_axis_in_the_buffers_given():
    near, far = 0.1, 100.0
    z = [0.1, 1.0, 37.5, 99.0]
    stored = [near * (far - x) / (x * (far - near)) for x in z]  # reversed Z: 1 near, 0 far
    buffer = np.array([stored + [0.0], [1.0, 0.5, 0.25, 0.125, -0.0]], np.float32)[::-1]
    work, mask = np.empty((2, 5)), np.empty((2, 5), bool)
    out = np.full((2, 5), 7.0, np.float32)
    got = R._metric_depth(buffer, near, far, work, mask, out)
    assert got is out and got.dtype == np.float32  # written into the buffer given
    # each element as z = n f / (n + d (f - n)) in double precision, rounded to float32
    expected = [[near * far / (near + float(d) * (far - near)) if d > 0 else np.inf
                 for d in row] for row in buffer]
    assert got.tolist() == np.array(expected, np.float32).tolist()
    np.testing.assert_allclose(got[1, :4], z, rtol=1e-6)  # row 0 of the flipped buffer is last
    assert np.isinf(got[1, 4]) and np.isinf(got[0, 4])  # nothing within the far plane
    assert R._metric_depth(buffer, near, far).tolist() == got.tolist()  # allocating its own


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


def box_between(k: R.Intrinsics, u0: float, u1: float, v0: float, v1: float,
                pose=None) -> str:
    """A box whose face 1 m ahead of a camera (default: looking down from 1 m) spans image
    columns u0..u1 and rows v0..v1 (pixel coordinates of K)."""
    pos, rot = DOWN if pose is None else pose
    x0, x1 = (u0 - k.cx) / k.fx, (u1 - k.cx) / k.fx
    y0, y1 = (v0 - k.cy) / k.fy, (v1 - k.cy) / k.fy
    centre = pos + rot @ [(x0 + x1) / 2, (y0 + y1) / 2, 1.05]
    quat = np.zeros(4)
    mujoco.mju_mat2Quat(quat, rot.reshape(-1))
    return (f'<geom type="box" pos="{" ".join(map(str, centre))}" '
            f'quat="{" ".join(map(str, quat))}" size="{(x1 - x0) / 2} {(y1 - y0) / 2} 0.05"/>')


DOWN = (np.array([0.0, 0.0, 1.0]), np.diag([1.0, -1.0, -1.0]))
# looking along world +x from 1 m up, turned 30 degrees about its axis: its matrix is not
# symmetric, so rows and columns of it cannot be swapped unseen
_c, _s = np.cos(np.pi / 6), np.sin(np.pi / 6)
ASIDE = (np.array([0.0, 0.0, 1.0]),
         np.array([[0.0, 0.0, 1.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]])
         @ np.array([[_c, -_s, 0.0], [_s, _c, 0.0], [0.0, 0.0, 1.0]]))


@pytest.mark.parametrize('pose', [DOWN, ASIDE], ids=['down', 'aside'])
def test_edges_a_quarter_pixel_from_pixel_centres_fall_where_k_projects_them(pose):
    # fx != fy and a principal point off the centre: the frustum's four edges each matter
    k = R.Intrinsics(8, 6, 4.0, 3.0, 3.0, 2.0, 0.1, 10.0)
    # edges a quarter pixel inside the outer pixel centres: the outer ring is not hit
    inner, top = np.zeros((6, 8), bool), np.zeros((6, 8), bool)
    inner[1:5, 1:7] = True
    top[:2] = True  # and rows 0 and 1 only: the image's top is row 0
    for (u0, u1, v0, v1), hit in (((0.25, 6.75, 0.25, 4.75), inner),
                                  ((-0.25, 7.25, -0.25, 5.25), np.ones((6, 8), bool)),
                                  ((-9.0, 9.0, -9.0, 1.25), top)):
        _, renderer = box_scene(box_between(k, u0, u1, v0, v1, pose))
        rgb, depth = renderer.render(*pose, k)
        renderer.close()
        assert np.array_equal(np.isfinite(depth), hit), depth
        assert np.allclose(depth[hit], 1.0, atol=1e-4)
        # the colour image alike: the lit box against the black background, row 0 the top
        assert np.array_equal(rgb.astype(int).sum(axis=2) > 30, hit), rgb


def test_the_headlight_shines_along_the_optical_axis_unless_given():
    k = R.Intrinsics(8, 6, 4.0, 4.0, 3.5, 2.5, 0.1, 10.0)
    _, renderer = box_scene(box_between(k, -20.0, 20.0, -20.0, 20.0))
    along, _ = renderer.render(*DOWN, k, depth=False)
    along = along.copy()
    given, _ = renderer.render(*DOWN, k, depth=False, headlight=DOWN[1][:, 2])
    assert np.array_equal(along, given)
    grazing, _ = renderer.render(*DOWN, k, depth=False, headlight=np.array([1.0, 0.0, 0.0]))
    renderer.close()
    # light along the face's normal is brighter than light grazing it (ambient only)
    assert (along.astype(int) > grazing.astype(int) + 40).all(), (along[0, 0], grazing[0, 0])


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
    monkeypatch.delattr(mujoco.egl.GLContext, 'as_current', raising=False)  # MuJoCo 3: none
    k = R.Intrinsics(8, 6, 4.0, 4.0, 3.5, 2.5, 0.1, 10.0)
    _, renderer = box_scene(box_between(k, 0.25, 20.0, -20.0, 20.0))
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
