"""sim/building/build.py: a small model of every kind of shape and joint, read back from the compiled
MuJoCo model (and the spec, for the source lines)."""

import mujoco
import numpy as np
import pytest
from PIL import Image

from body_bridge.formats import load_model
from body_bridge.model import (Box, Capsule, Inertial, Joint, Limits, Link, Material, Mesh,
                               Model, Pose, Shape, Sphere)
from body_bridge.sim.building.build import BuildOptions, build_spec, ground_plane_mode

from conftest import REPO, SAMPLE_ARM


def probe_model(texture):
    """base -hinge-> arm -wheel-> disc -slider-> rod, and a massless tag on the rod."""
    heavy = Inertial(1.0, (0.1, 0, 0), np.diag([0.01, 0.02, 0.02]))
    painted = Material(rgba=(0.1, 0.2, 0.3, 1.0))
    hidden = Shape(Box((0.1, 0.1, 0.1)), material=painted)  # collision only
    seen = Shape(Capsule(0.02, 0.2), Pose((0.1, 0, 0)))  # both
    ball = Shape(Sphere(0.03))  # visual only
    triangle = Mesh(np.array([[0, 0, 0], [0.1, 0, 0], [0, 0.1, 0]], float),
                    np.array([[0, 1, 2]]), 'tri', texcoords=np.array([[0, 0], [1, 0], [0, 1]]))
    tagged = Shape(triangle, material=Material(texture=str(texture)))
    pyramid = Mesh(np.array([[0, 0, 0], [0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.1]], float),
                   np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]), 'pyramid',
                   texcoords=np.array([[0, 0], [1, 0], [0, 1], [1, 1]]))
    wrapped = Shape(pyramid, material=Material(texture=str(texture)))
    links = (Link('base', source='probe.body:3'),
             Link('arm', Pose((0, 0, 0.1)), heavy, visuals=(seen, ball),
                  collisions=(hidden, seen), source='probe.body:7'),
             Link('disc', Pose((0.2, 0, 0)), heavy, collisions=(seen,)),
             Link('rod', Pose((0, 0.2, 0)), heavy, collisions=(seen,)),
             Link('tag', Pose((0, 0, 0.3)), visuals=(tagged, wrapped)))
    joints = (Joint('hinge', 'revolute', 'base', 'arm', (0, 1, 0), Limits(-1.0, 1.0),
                    damping=0.3, friction=0.2, armature=0.01, source='probe.body:9'),
              Joint('wheel', 'continuous', 'arm', 'disc', (0, 0, 1), Limits(-1.0, 1.0)),
              Joint('slider', 'prismatic', 'disc', 'rod', (1, 0, 0), Limits(None, 0.5)),
              Joint('fix', 'fixed', 'rod', 'tag'))
    return Model('probe', links, joints, 'base', timestep=0.004)


@pytest.fixture
def built(tmp_path):
    texture = tmp_path / 'stripes.png'
    Image.new('RGB', (2, 2), (200, 10, 10)).save(texture)
    spec = build_spec(probe_model(texture), BuildOptions(ground_plane='on'))
    return spec, spec.compile()


def test_the_compiled_model_is_named_and_steps_as_the_model_asks(built):
    _, mj = built
    assert mj.names.split(b'\0')[0] == b'probe'
    assert mj.opt.timestep == 0.004


def test_shapes_keep_their_kind_size_and_colour(built):
    _, mj = built
    arm = mj.body('arm').id
    geoms = [g for g in range(mj.ngeom) if mj.geom_bodyid[g] == arm]
    kinds = [int(mj.geom_type[g]) for g in geoms]
    assert kinds == [mujoco.mjtGeom.mjGEOM_BOX, mujoco.mjtGeom.mjGEOM_CAPSULE,
                     mujoco.mjtGeom.mjGEOM_SPHERE]
    box, capsule, sphere = geoms
    np.testing.assert_allclose(mj.geom_size[capsule, :2], [0.02, 0.1])
    # a shape that only collides keeps its colour, unseen; one only seen takes no part
    np.testing.assert_allclose(mj.geom_rgba[box], [0.1, 0.2, 0.3, 0.0], rtol=1e-6)
    assert mj.geom_rgba[capsule, 3] > 0
    assert (mj.geom_contype[sphere], mj.geom_conaffinity[sphere], mj.geom_group[sphere]) == \
        (0, 0, 1)


def test_a_mesh_of_three_vertices_gets_the_fourth_mujoco_wants(built):
    _, mj = built
    mesh = mj.mesh('tag:v0:tri').id
    assert (mj.mesh_vertnum[mesh], mj.mesh_facenum[mesh]) == (4, 1)
    assert mj.mesh_texcoordnum[mesh] == 0  # three coordinates for four vertices: none
    assert mj.mesh_texcoordnum[mj.mesh('tag:v1:pyramid').id] == 4  # a textured mesh's own


def test_each_kind_of_joint_moves_its_link_as_it_should(built):
    """The hinge and the wheel turn their links, the slider moves the rod along the x axis by
    its position (a joint's position of 0.1 m: 0.1 m further along x)."""
    _, mj = built
    kinds = [int(mj.joint(n).type[0]) for n in ('hinge', 'wheel', 'slider')]
    assert kinds == [mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_HINGE,
                     mujoco.mjtJoint.mjJNT_SLIDE]
    data = mujoco.MjData(mj)
    mujoco.mj_kinematics(mj, data)
    rod, disc = mj.body('rod').id, mj.body('disc').id
    before = data.xpos[rod].copy()
    data.qpos[mj.joint('slider').qposadr[0]] = 0.1
    mujoco.mj_kinematics(mj, data)
    assert data.xpos[rod] - before == pytest.approx([0.1, 0, 0], abs=1e-12)
    # from the disc the rod is at (-0.2, 0.2) + (0.1, 0) slid: (-0.1, 0.2); a quarter turn of
    # the wheel about z takes it to (-0.2, -0.1)
    assert data.xpos[rod] - data.xpos[disc] == pytest.approx([-0.1, 0.2, 0], abs=1e-12)
    data.qpos[mj.joint('wheel').qposadr[0]] = np.pi / 2
    mujoco.mj_kinematics(mj, data)
    assert data.xpos[rod] - data.xpos[disc] == pytest.approx([-0.2, -0.1, 0], abs=1e-12)


def test_joints_keep_their_limits_friction_and_damping(built):
    _, mj = built
    hinge, wheel, slider = (mj.joint(n) for n in ('hinge', 'wheel', 'slider'))
    assert hinge.limited[0] == 1 and hinge.range.tolist() == [-1.0, 1.0]
    assert wheel.limited[0] == 0  # a continuous joint turns on whatever it says
    assert slider.limited[0] == 0  # a limit on one side only is none
    dof = int(hinge.dofadr[0])
    assert (mj.dof_damping[dof], mj.dof_frictionloss[dof], mj.dof_armature[dof]) == \
        pytest.approx((0.3, 0.2, 0.01))


def test_a_link_without_mass_has_it_at_its_origin(built):
    _, mj = built
    tag = mj.body('tag').id
    assert mj.body_ipos[tag].tolist() == [0.0, 0.0, 0.0]
    assert mj.body_mass[tag] == pytest.approx(1e-4)  # MuJoCo's bound, MIN_MASS
    np.testing.assert_allclose(mj.body_inertia[tag], 1e-8)  # and MIN_INERTIA


def test_every_element_names_its_source_line(built):
    spec, _ = built
    assert spec.body('base').info == 'probe.body:3' and spec.body('arm').info == 'probe.body:7'
    assert spec.joint('hinge').info == 'probe.body:9'


def test_the_ground_plane_is_a_checkerboard(built):
    _, mj = built
    plane = mj.geom('ground_plane')
    texture = int(mj.mat_texid[int(plane.matid[0]), mujoco.mjtTextureRole.mjTEXROLE_RGB])
    assert mj.texture(texture).name == 'ground_plane_checker'


def test_an_unknown_ground_plane_mode_is_refused():
    assert ground_plane_mode(True) == 'on' and ground_plane_mode('auto') == 'auto'
    with pytest.raises(ValueError, match="ground_plane 'sometimes' is not one of auto, on, off"):
        ground_plane_mode('sometimes')


def test_tracks_get_belts_and_devices_their_sites():
    tracked = build_spec(load_model(REPO / 'test' / 'data' / 'choreonoid' / 'tracked.body'))
    assert tracked.body('TRACK_L:belt') is not None and tracked.body('TRACK_R:belt') is not None
    arm = build_spec(load_model(SAMPLE_ARM)).compile()
    assert arm.nsite > 0 and arm.nsensor > 0


def _faller(mass=1.0):
    """A 0.2 m cube on a free root, its centre 0.5 m up."""
    return Model('faller', (Link('cube', Pose((0, 0, 0.5)),
                                 Inertial(mass, inertia=np.eye(3) * mass * 0.04 / 6),
                                 collisions=(Shape(Box((0.2, 0.2, 0.2))),)),),
                 (), 'cube', root_joint='free')


def test_a_model_without_its_own_time_step_gets_the_documented_1_ms():
    mj = build_spec(_faller(), BuildOptions(ground_plane='off')).compile()
    assert mj.opt.timestep == 0.001  # docs/topics-and-parameters.md: timestep 0.001


@pytest.mark.parametrize('bit', [0, 3, 29])
def test_a_plane_that_is_on_carries_a_model_of_any_collision_bit(bit):
    """Mode 'on': every model touches the plane, the second and later models of a world (bits
    1 to 29) as the first: a cube dropped from 0.5 m rests with its centre 0.1 m up."""
    mj = build_spec(_faller(), BuildOptions(ground_plane='on', contact_bit=bit)).compile()
    data = mujoco.MjData(mj)
    mujoco.mj_step(mj, data, nstep=1500)
    assert data.qpos[2] == pytest.approx(0.1, abs=2e-3)


def test_the_checker_squares_are_half_a_metre_and_grey_blue():
    """docs/commands-and-simulation.md: squares of 0.5 m. MuJoCo's builtin checker is 2 x 2
    squares per texture, and a uniform material repeats it texrepeat times per metre; the two
    colours are the documented RGB (0.42, 0.46, 0.50) and (0.32, 0.35, 0.39)."""
    mj = build_spec(_faller(), BuildOptions(ground_plane='on')).compile()
    material = int(mj.geom('ground_plane').matid[0])
    assert mj.mat_texuniform[material]
    assert (1.0 / (2 * mj.mat_texrepeat[material])).tolist() == [0.5, 0.5]
    tex = int(mj.mat_texid[material, mujoco.mjtTextureRole.mjTEXROLE_RGB])
    w, h, channels = int(mj.tex_width[tex]), int(mj.tex_height[tex]), int(mj.tex_nchannel[tex])
    pixels = mj.tex_data[mj.tex_adr[tex]:mj.tex_adr[tex] + w * h * channels]
    image = pixels.reshape(h, w, channels)[:, :, :3].astype(int)
    colours = {tuple(p) for p in image.reshape(-1, 3).tolist()}
    want = [np.array(rgb) * 255 for rgb in ((0.42, 0.46, 0.50), (0.32, 0.35, 0.39))]
    assert len(colours) == 2
    for colour in colours:
        assert min(np.abs(np.array(colour) - rgb).max() for rgb in want) <= 1.0
    # 2 x 2 squares of one size: every row and every column half one colour, half the other,
    # and the pattern flips from one half to the other.
    first = np.all(image == image[0, 0], axis=2)
    assert (first.sum(axis=0) * 2 == h).all() and (first.sum(axis=1) * 2 == w).all()
    assert first[0, 0] and not first[0, w - 1] and not first[h - 1, 0] and first[h - 1, w - 1]


def test_a_thin_rod_s_zero_moment_is_raised_to_the_bound():
    """A rod along z has no moment about its axis: raised to MIN_INERTIA (1e-8 kg m^2), which
    MuJoCo 4's compiler also does and MuJoCo 3's refuses to compile; the others as given."""
    rod = Inertial(0.3, inertia=np.diag([0.01, 0.01, 0.0]))
    model = Model('rod', (Link('base'), Link('rod', Pose((0, 0, 0.1)), rod)),
                  (Joint('j', 'revolute', 'base', 'rod', (1, 0, 0), Limits(-1.0, 1.0)),),
                  'base')
    mj = build_spec(model, BuildOptions(ground_plane='off')).compile()
    assert sorted(mj.body_inertia[mj.body('rod').id]) == pytest.approx([1e-8, 0.01, 0.01],
                                                                        rel=1e-9)


def test_turned_links_and_shapes_keep_their_orientation():
    """A link turned 90 degrees about z and, on it, a box turned 30 degrees about x: at the
    reference configuration the body's orientation is the link's, the geom's is the link's
    times the shape's, and the box's long side points where both turns take it."""
    link_pose = Pose.from_axis_angle((0, 0, 1), np.pi / 2, (0.3, 0, 0))
    shape_pose = Pose.from_axis_angle((1, 0, 0), np.pi / 6, (0.1, 0, 0))
    box = Shape(Box((0.4, 0.1, 0.05)), shape_pose, source='turned.body:5')
    mass = Inertial(1.0, inertia=np.eye(3) * 0.01)
    model = Model('turned', (Link('base'), Link('arm', link_pose, mass, collisions=(box,))),
                  (Joint('j', 'revolute', 'base', 'arm', (0, 0, 1), Limits(-1.0, 1.0)),), 'base')
    spec = build_spec(model, BuildOptions(ground_plane='off'))
    mj = spec.compile()
    data = mujoco.MjData(mj)
    mujoco.mj_kinematics(mj, data)
    arm = mj.body('arm').id
    assert data.xmat[arm].reshape(3, 3) == pytest.approx(link_pose.matrix()[:3, :3], abs=1e-12)
    geom = int(mj.body_geomadr[arm])
    want = link_pose.matrix() @ shape_pose.matrix()
    assert data.geom_xmat[geom].reshape(3, 3) == pytest.approx(want[:3, :3], abs=1e-12)
    assert data.geom_xpos[geom] == pytest.approx(want[:3, 3], abs=1e-12)  # (0.3, 0.1, 0)
    assert data.geom_xmat[geom].reshape(3, 3)[:, 0] == pytest.approx([0, 1, 0], abs=1e-12)
    assert spec.body('arm').geoms[0].info == 'turned.body:5'  # a compile error names it


def test_a_fixed_root_named_world_is_mujoco_s_world_body():
    """An environment's root link 'world' (fixed, at the origin): its shapes are the world
    body's and its children hang from the world body, no body of its own."""
    mass = Inertial(1.0, inertia=np.eye(3) * 0.01)
    floor = Shape(Box((2.0, 2.0, 0.1)))
    door = Link('door', Pose((0.5, 0, 0.5)), mass, collisions=(Shape(Box((0.1, 0.8, 1.0))),))
    hinge = (Joint('hinge', 'revolute', 'world', 'door', (0, 0, 1), Limits(-1.0, 1.0)),)
    room = Model('room', (Link('world', collisions=(floor,)), door), hinge, 'world')
    mj = build_spec(room, BuildOptions(ground_plane='off')).compile()
    assert mj.nbody == 2 and mj.body('door').parentid[0] == 0
    assert [int(mj.geom_bodyid[g]) for g in range(mj.ngeom)] == [0, mj.body('door').id]
    data = mujoco.MjData(mj)
    mujoco.mj_kinematics(mj, data)
    assert data.xpos[mj.body('door').id] == pytest.approx([0.5, 0, 0.5], abs=1e-12)
