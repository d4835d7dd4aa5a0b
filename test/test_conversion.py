"""URDF and MuJoCo output of loaded models: accepted by check_urdf, same kinematics, masses."""

import mujoco
import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.geometry import box_mesh
from body_bridge.model import Joint, Link, Model, Pose, Shape
from body_bridge.sim.building.build import build_spec
from body_bridge.urdf import to_urdf

from conftest import SAMPLE_ARM, shared_model
from model_checks import check_all

SIMPLE_REAL_MODELS = [
    'choreonoid/share/model/misc/box1.body',
    'choreonoid/share/model/misc/box2.body',
    'choreonoid/share/model/misc/floor.body',
    'choreonoid/share/model/misc/ball.body',
    'choreonoid/share/model/misc/rod.body',
    'choreonoid/share/model/misc/longtable.body',
    'choreonoid/share/model/SR1/SR1.body',
]


def test_sample_arm_converts(tmp_path, check_urdf):
    text = check_all(load_model(SAMPLE_ARM), tmp_path, check_urdf)
    # Every device has a frame; the camera also an optical frame.
    for frame in ('base_imu', 'hand_camera', 'hand_camera_optical_frame', 'wrist_force'):
        assert f'<link name="{frame}"/>' in text


@pytest.mark.corpus
@pytest.mark.parametrize('relative', SIMPLE_REAL_MODELS)
def test_real_models_convert(tmp_path, check_urdf, relative):
    check_all(load_model(shared_model(relative)), tmp_path, check_urdf)


def test_meshes_are_written_for_shapes_urdf_lacks(tmp_path, check_urdf):
    mesh = box_mesh((0.1, 0.2, 0.3))
    model = Model('m', (Link('a', visuals=(Shape(mesh, Pose((0, 0, 1))),)),), (), root='a')
    text = to_urdf(model, mesh_dir=tmp_path / 'meshes')
    (stl,) = (tmp_path / 'meshes').iterdir()
    assert f'filename="file://{stl}"' in text
    assert stl.stat().st_size == 84 + 50 * 12  # binary STL: header, count, 12 triangles
    (tmp_path / 'm.urdf').write_text(text)
    assert check_urdf(tmp_path / 'm.urdf')[0]
    with pytest.raises(ValueError, match='mesh directory'):
        to_urdf(model)


def test_mujoco_names_are_urdf_names():
    model = load_model(SAMPLE_ARM)
    mj = build_spec(model).compile()
    for link in model.links:
        assert mj.body(link.name).id > 0
    for joint in model.movable_joints:
        assert mj.joint(joint.name).type == mujoco.mjtJoint.mjJNT_HINGE


def test_inertia_reaches_mujoco():
    model = load_model(SAMPLE_ARM)
    mj = build_spec(model).compile()
    body = mj.body('shoulder_pitch')
    assert body.mass[0] == pytest.approx(1.2)
    np.testing.assert_allclose(body.ipos, (0, 0, 0.15))
    np.testing.assert_allclose(sorted(body.inertia), sorted((0.0093, 0.0093, 0.0006)), rtol=1e-9)


def test_fixed_joint_keeps_child_frame():
    links = (Link('a'), Link('b', Pose((0.5, 0, 0))))
    model = Model('m', links, (Joint('j', 'fixed', 'a', 'b'),), root='a')
    mj = build_spec(model).compile()
    data = mujoco.MjData(mj)
    mujoco.mj_kinematics(mj, data)
    np.testing.assert_allclose(data.xpos[mj.body('b').id], (0.5, 0, 0))


def test_extra_frames_are_fixed_links(tmp_path, check_urdf):
    from body_bridge.model import Frame
    links = (Link('a'), Link('b', Pose((0, 0, 1))))
    model = Model('m', links, (Joint('j', 'revolute', 'a', 'b', (0, 1, 0)),), root='a',
                  frames=(Frame('tool', 'b', Pose((0, 0, 0.2))),))
    text = to_urdf(model)
    (tmp_path / 'm.urdf').write_text(text)
    assert check_urdf(tmp_path / 'm.urdf')[0]
    from urdf_fk import urdf_forward_kinematics
    world = urdf_forward_kinematics(text, {'j': 0.5})
    np.testing.assert_allclose(world['tool'][:3, 3], (0.2 * np.sin(0.5), 0, 1 + 0.2 * np.cos(0.5)),
                               atol=1e-12)
