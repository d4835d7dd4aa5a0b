"""The URDF read back by urdf_parser_py (the parser ROS's Python tools use) says what the model
says: joint kinds, axes, origins, limits, mimic, dynamics, inertials, geometry, materials,
device and optical frames. For a model with every joint kind and case, and for every real and
sample model of every format."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from urdf_parser_py import urdf as up

from body_bridge.model import (Box, Capsule, Cylinder, Device, DeviceKind, Frame, Inertial, Joint,
                               JointType, Limits, Link, Material, Mesh, Mimic, Model, Pose, Shape,
                               Sphere)
from body_bridge.urdf import OPTICAL, optical_frame, to_urdf, write_meshes

from model_files import MODEL_FILES, loaded

KINDS = {JointType.FIXED: 'fixed', JointType.REVOLUTE: 'revolute',
         JointType.CONTINUOUS: 'continuous', JointType.PRISMATIC: 'prismatic',
         JointType.BALL: 'floating', JointType.FREE: 'floating',
         JointType.TRACK: 'fixed'}  # a track's link rides on its parent; its belt is not a link


def rpy_matrix(rpy) -> np.ndarray:
    """URDF's fixed-axis roll, pitch, yaw: Rz(yaw) Ry(pitch) Rx(roll)."""
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = (math.cos(r), math.sin(r), math.cos(p), math.sin(p),
                              math.cos(y), math.sin(y))
    rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return rz @ ry @ rx


def _near(a, b, tol: float) -> bool:
    """Whether two sequences of numbers (or nested ones) agree within ``tol``: plain floats,
    as numpy costs more per call than these short vectors do."""
    a, b = np.ravel(a).tolist(), np.ravel(b).tolist()
    return len(a) == len(b) and all(abs(x - y) <= tol for x, y in zip(a, b))


def same_pose(origin, pose: Pose, what: str) -> None:
    xyz = [0.0] * 3 if origin is None else origin.xyz
    rpy = [0.0] * 3 if origin is None else origin.rpy
    assert _near(xyz, pose.pos, 1e-12), what
    if any(rpy) or not _near(pose.rot, np.eye(3), 0.0):
        assert _near(rpy_matrix(rpy), pose.rot, 1e-9), what


def check_joint(model: Model, joint: Joint, got) -> None:
    what = f'joint {joint.name}'
    assert got.type == KINDS[joint.type], what
    assert (got.parent, got.child) == (joint.parent, joint.child), what
    same_pose(got.origin, model.joint_origin(joint), what)
    if joint.type.dof != 1 or joint.type.rigid:
        assert got.limit is None and got.mimic is None and got.dynamics is None, what
        return
    assert got.axis == pytest.approx(list(joint.axis), abs=0), what
    lim = joint.limits
    if joint.type == JointType.CONTINUOUS and lim.velocity is None and lim.effort is None:
        assert got.limit is None, what
    else:
        assert got.limit.effort == (lim.effort or 0.0), what
        assert got.limit.velocity == (lim.velocity or 0.0), what
        if joint.type == JointType.CONTINUOUS:
            # no position bounds written (urdf_parser_py reads an absent one as 0)
            assert got.limit.lower in (None, 0.0) and got.limit.upper in (None, 0.0), what
        else:
            assert got.limit.lower == (-1e9 if lim.lower is None else lim.lower), what
            assert got.limit.upper == (1e9 if lim.upper is None else lim.upper), what
    if joint.damping or joint.friction:
        assert (got.dynamics.damping, got.dynamics.friction) == \
            (joint.damping, joint.friction), what
    else:
        assert got.dynamics is None, what
    mimic = joint.mimic
    if mimic is None or mimic.expression is not None:  # a formula has no URDF form
        assert got.mimic is None, what
    else:
        assert (got.mimic.joint, got.mimic.multiplier, got.mimic.offset) == \
            (mimic.joint, mimic.multiplier, mimic.offset), what


def check_link(link: Link, got) -> None:
    what = f'link {link.name}'
    inertial = link.inertial
    if inertial is None or inertial.mass <= 0.0:
        assert got.inertial is None, what
    else:
        i, t = got.inertial.inertia, inertial.inertia
        assert got.inertial.mass == inertial.mass, what
        same_pose(got.inertial.origin, Pose(tuple(inertial.com)), what)
        # the writer keeps 16 significant digits; files' tensors are symmetric to rounding
        tol = 1e-12 * float(np.abs(t).max())
        got_cells = [i.ixx, i.ixy, i.ixz, i.iyy, i.iyz, i.izz]
        assert _near(got_cells, [t[0, 0], t[0, 1], t[0, 2], t[1, 1], t[1, 2], t[2, 2]], tol), what
        assert _near(got_cells, [t[0, 0], t[1, 0], t[2, 0], t[1, 1], t[2, 1], t[2, 2]], tol), what
    assert len(got.visuals) == len(link.visuals) and \
        len(got.collisions) == len(link.collisions), what
    for shape, out in zip((*link.visuals, *link.collisions), (*got.visuals, *got.collisions)):
        same_pose(out.origin, shape.pose, what)
        check_geometry(shape, out.geometry, what)
    for shape, out in zip(link.visuals, got.visuals):
        if shape.material is None:
            assert out.material is None, what
        else:
            assert out.material.color.rgba == list(shape.material.rgba), what
            if shape.material.name:
                assert out.material.name == shape.material.name, what


def check_geometry(shape: Shape, got, what: str) -> None:
    g = shape.geometry
    if isinstance(g, Box):
        assert got.size == list(g.size), what
    elif isinstance(g, Sphere):
        assert got.radius == g.radius, what
    elif isinstance(g, Cylinder):
        assert (got.radius, got.length) == (g.radius, g.length), what
    else:  # written as a mesh file
        assert got.filename.startswith('file:///') and got.filename.endswith('.stl'), what
        assert os.path.getsize(got.filename[len('file://'):]) > 84, what


def check_model(model: Model, mesh_dir) -> up.URDF:
    robot = up.URDF.from_xml_string(to_urdf(model, mesh_dir=mesh_dir))
    joints = {j.name: j for j in robot.joints}
    links = {link.name: link for link in robot.links}
    for joint in model.joints:
        check_joint(model, joint, joints[joint.name])
    for link in model.links:
        check_link(link, links[link.name])
    for frame in model.frames:
        joint = joints[f'{frame.name}_joint']
        assert (joint.type, joint.parent, joint.child) == ('fixed', frame.link, frame.name)
        same_pose(joint.origin, frame.pose, frame.name)
    frames = model.device_frames()
    for device in model.devices:
        name = frames[device.name]
        joint = joints[f'{name}_joint']
        assert (joint.type, joint.parent, joint.child) == ('fixed', device.link, name)
        same_pose(joint.origin, device.pose, name)
        optical = joints.get(f'{optical_frame(name)}_joint')
        assert (optical is not None) == (device.kind == DeviceKind.CAMERA), name
        if optical is not None:
            check_optical(optical, name)
    extra = len(model.frames) + len(model.devices) + sum(
        d.kind == DeviceKind.CAMERA for d in model.devices)
    assert len(robot.joints) == len(model.joints) + extra
    assert len(robot.links) == len(model.links) + extra
    return robot


def check_optical(joint, frame: str) -> None:
    """REP-103: the optical frame looks along the camera's x (forward), its x to the camera's
    right (-y), its y down (-z)."""
    assert (joint.type, joint.parent, joint.child) == ('fixed', frame, optical_frame(frame))
    rot = rpy_matrix(joint.origin.rpy)
    assert joint.origin.xyz == [0.0, 0.0, 0.0]
    assert np.allclose(rot @ [0, 0, 1], [1, 0, 0], atol=1e-12), frame  # z forward
    assert np.allclose(rot @ [1, 0, 0], [0, -1, 0], atol=1e-12), frame  # x right
    assert np.allclose(rot @ [0, 1, 0], [0, 0, -1], atol=1e-12), frame  # y down


def test_the_optical_rotation_the_renderer_and_the_urdf_share():
    """REP-103: optical z along the body's x (forward), x along -y (right), y along -z (down);
    a rotation, with no offset."""
    assert OPTICAL.pos.tolist() == [0.0, 0.0, 0.0]
    assert OPTICAL.rot.tolist() == [[0.0, 0.0, 1.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]]


def every_case() -> Model:
    """A model with every joint kind, limit, mimic, dynamics, shape and material case."""
    rot = Pose.from_matrix(np.array([[0, -1, 0, 0.1], [1, 0, 0, 0.2], [0, 0, 1, 0.3],
                                     [0, 0, 0, 1.0]]))
    inertia = np.array([[0.02, 0.003, -0.004], [0.003, 0.05, 0.006], [-0.004, 0.006, 0.06]])
    heavy = Inertial(2.5, (0.01, -0.02, 0.03), inertia)
    light = Inertial(0.2, (0.0, 0.0, 0.05), 0.1 * np.eye(3))
    shapes = (Shape(Box((0.1, 0.2, 0.3)), rot, Material((1.0, 0.0, 0.0, 1.0), 'red')),
              Shape(Sphere(0.05), Pose((0, 0, 0.1)), Material((0.1, 0.2, 0.3, 0.5))),
              Shape(Cylinder(0.02, 0.3)), Shape(Capsule(0.03, 0.2)))
    names = ['base', 'rev', 'unb', 'cont', 'contlim', 'pri', 'mim', 'poly', 'fix', 'conteff',
             'ball',
             'free']
    links = [Link(n, Pose((0.1 * k, 0.05 * k, 0.02 * k)), heavy if k % 2 else light,
                  visuals=shapes if k < 3 else (), collisions=shapes[:3] if k == 1 else ())
             for k, n in enumerate(names)]
    links[-1] = Link('free', Pose((1, 1, 1)), None)  # no inertial
    links[-2] = Link('ball', Pose((1, 0, 1)), Inertial(0.0))  # massless: no inertial either
    axis = np.array([0.0, 0.6, 0.8])
    joints = [
        Joint('j_rev', JointType.REVOLUTE, 'base', 'rev', axis,
              Limits(-1.5, 2.0, 3.0, 40.0), damping=0.5, friction=0.25),
        Joint('j_unb', JointType.REVOLUTE, 'rev', 'unb', (1, 0, 0), Limits(None, None, None, 5.0)),
        Joint('j_cont', JointType.CONTINUOUS, 'unb', 'cont', (0, 1, 0), damping=0.1),
        Joint('j_contlim', JointType.CONTINUOUS, 'cont', 'contlim', (0, 0, 1),
              Limits(velocity=7.0, effort=11.0), friction=0.3),
        Joint('j_pri', JointType.PRISMATIC, 'contlim', 'pri', (0, 0, -1),
              Limits(-0.1, None, 0.5, 100.0)),
        Joint('j_mim', JointType.REVOLUTE, 'rev', 'mim', (0, 0, 1), Limits(-1, 1, 2, 3),
              mimic=Mimic('j_rev', multiplier=-0.5, offset=0.25)),
        Joint('j_poly', JointType.REVOLUTE, 'rev', 'poly', (0, 0, 1), Limits(-1, 1, 2, 3),
              mimic=Mimic('j_rev', expression='j_rev^2')),
        Joint('j_fix', JointType.FIXED, 'base', 'fix'),
        Joint('j_conteff', JointType.CONTINUOUS, 'fix', 'conteff', (1, 0, 0),
              Limits(effort=2.0)),
        Joint('j_ball', JointType.BALL, 'fix', 'ball'),
        Joint('j_free', JointType.FREE, 'base', 'free'),
    ]
    devices = (Device('cam', DeviceKind.CAMERA, 'rev', rot), Device('imu', DeviceKind.IMU, 'pri'),
               Device('rev', DeviceKind.RANGE, 'pri', Pose((0, 0, 0.2))))
    return Model('every_case', tuple(links), tuple(joints), 'base', devices=devices,
                 frames=(Frame('tool', 'pri', Pose((0, 0, 0.4))),))


def test_every_joint_kind_and_case_reads_back(tmp_path):
    model = every_case()
    robot = check_model(model, tmp_path)
    assert {j.type for j in robot.joints} >= {'fixed', 'revolute', 'continuous', 'prismatic',
                                              'floating'}
    joints = {j.name: j for j in robot.joints}
    assert joints['j_unb'].limit.lower == -1e9 and joints['j_unb'].limit.upper == 1e9
    assert joints['j_unb'].limit.velocity == 0.0 and joints['j_unb'].limit.effort == 5.0
    assert joints['j_contlim'].limit.velocity == 7.0 and joints['j_contlim'].limit.effort == 11.0
    assert joints['j_conteff'].limit.velocity == 0.0 and joints['j_conteff'].limit.effort == 2.0
    assert joints['j_cont'].limit is None
    assert joints['j_mim'].mimic.multiplier == -0.5 and joints['j_mim'].mimic.offset == 0.25
    assert joints['j_rev'].dynamics.damping == 0.5 and joints['j_rev'].dynamics.friction == 0.25
    assert 'pri_rev_joint' in joints  # a device named like a link gets <link>_<name>
    links = {link.name: link for link in robot.links}
    assert links['rev'].inertial.inertia.ixz == -0.004
    assert links['base'].inertial.mass == 0.2  # light links keep their inertial
    assert links['ball'].inertial is None and links['free'].inertial is None
    colours = [v.material.color.rgba for v in links['rev'].visuals if v.material]
    assert colours == [[1.0, 0.0, 0.0, 1.0], [0.1, 0.2, 0.3, 0.5]]


def test_a_tensor_symmetric_only_to_rounding_is_written_as_its_symmetric_part():
    # asymmetric by 2e-12 (well within the numbers check's 1e-9, which leaves it as it is):
    # each off-diagonal of the URDF is the mean of its two cells, neither one alone
    t = np.array([[0.02, 0.003, -0.004], [0.003, 0.05, 0.006], [-0.004, 0.006, 0.06]])
    t[1, 0] += 2e-12
    t[0, 2] -= 4e-12
    t[2, 1] += 6e-12
    model = Model('m', (Link('a', Pose(), Inertial(1.0, inertia=t)),), (), 'a')
    got = up.URDF.from_xml_string(to_urdf(model)).links[0].inertial.inertia
    sym = 0.5 * (t + t.T)
    assert (got.ixx, got.iyy, got.izz) == (0.02, 0.05, 0.06)
    assert (got.ixy, got.ixz, got.iyz) == (sym[0, 1], sym[0, 2], sym[1, 2])
    assert (got.ixy, got.ixz, got.iyz) != (t[0, 1], t[0, 2], t[1, 2])
    assert got.ixy != t[1, 0] and got.ixz != t[2, 0] and got.iyz != t[2, 1]


def test_only_shapes_urdf_lacks_are_written_as_files_named_after_their_link(tmp_path):
    capsule = Shape(Capsule(0.1, 0.3))
    shapes = (Shape(Box((1, 1, 1))), capsule, Shape(Sphere(0.1)), Shape(Cylinder(0.1, 1)))
    link = Link('arm/1 x-y_z', visuals=shapes, collisions=(capsule,))
    paths = write_meshes(Model('m', (link,), (), link.name), tmp_path / 'meshes')
    assert list(paths) == [id(capsule)]  # once, for both of its roles
    files = sorted(p.name for p in (tmp_path / 'meshes').iterdir())
    assert len(files) == 1 and files[0].startswith('arm_1_x-y_z_') and files[0].endswith('.stl')
    assert paths[id(capsule)] == str(tmp_path / 'meshes' / files[0])


def test_a_mesh_shape_is_an_stl_file(tmp_path):
    mesh = Mesh(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1.0]]),
                np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]), 'tetra')
    model = Model('meshy', (Link('a', visuals=(Shape(mesh),)),), (), 'a')
    got = check_model(model, tmp_path).links[0].visuals[0].geometry
    assert got.filename.endswith('.stl')
    with pytest.raises(ValueError, match='a mesh directory is needed'):
        to_urdf(model)


@pytest.mark.parametrize('path', MODEL_FILES)
def test_real_models_read_back(path, tmp_path_factory):
    check_model(loaded(path), tmp_path_factory.getbasetemp() / 'readback_meshes')
