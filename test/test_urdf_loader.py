"""URDF files as models (formats/urdf.py): what ROS users already have, spawned like the rest."""

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.model import JointType, Pose
from body_bridge.sim.simulation import Simulation, SimOptions
from body_bridge.urdf import to_urdf

from conftest import SAMPLE_ARM

TWO = """<?xml version="1.0"?>
<robot name="two">
  <material name="blue"><color rgba="0 0 1 1"/></material>
  <link name="base">
    <inertial><origin xyz="0 0 0.05"/><mass value="2"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.03"/></inertial>
    <visual><geometry><box size="0.2 0.3 0.1"/></geometry><material name="blue"/></visual>
    <collision><geometry><box size="0.2 0.3 0.1"/></geometry></collision>
  </link>
  <link name="arm">
    <inertial><origin xyz="0 0 0.1" rpy="0 0 1.5707963267948966"/><mass value="1"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.002" iyz="0" izz="0.003"/></inertial>
    <visual><origin xyz="0 0 0.1"/>
      <geometry><cylinder radius="0.02" length="0.2"/></geometry></visual>
    <collision><origin xyz="0 0 0.1"/><geometry><sphere radius="0.03"/></geometry></collision>
  </link>
  <joint name="hinge" type="revolute">
    <parent link="base"/><child link="arm"/><origin xyz="0 0 0.1" rpy="0 0 0.5"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="5" velocity="2"/>
    <dynamics damping="0.1" friction="0.02"/>
  </joint>
</robot>
"""


def write(tmp_path, text, name='robot.urdf'):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_links_joints_inertia_and_shapes_are_read(tmp_path):
    m = load_model(write(tmp_path, TWO))
    assert (m.name, m.root, m.root_joint) == ('two', 'base', JointType.FREE)
    arm, base = m.link('arm'), m.link('base')
    expected = Pose.from_rpy((0, 0, 0.5), pos=(0, 0, 0.1))
    np.testing.assert_allclose(arm.pose.matrix(), expected.matrix(), atol=1e-12)
    assert base.inertial.mass == 2.0 and list(base.inertial.com) == [0, 0, 0.05]
    # The inertial frame turned 90 degrees about z: ixx and iyy swap in the link frame.
    np.testing.assert_allclose(np.diag(arm.inertial.inertia), [0.002, 0.001, 0.003],
                               atol=1e-12)
    joint = m.joint('hinge')
    assert joint.type == JointType.REVOLUTE and list(joint.axis) == [0, 1, 0]
    assert (joint.limits.lower, joint.limits.upper, joint.limits.velocity,
            joint.limits.effort) == (-1, 1, 2, 5)
    assert (joint.damping, joint.friction) == (0.1, 0.02)
    assert base.visuals[0].geometry.size == (0.2, 0.3, 0.1)
    assert base.visuals[0].material.rgba == (0, 0, 1, 1)
    cylinder = arm.visuals[0]
    assert (cylinder.geometry.radius, cylinder.geometry.length) == (0.02, 0.2)
    assert list(cylinder.pose.pos) == [0, 0, 0.1]
    assert arm.collisions[0].geometry.radius == 0.03


def test_the_urdf_written_for_the_sample_arm_reads_back_with_the_same_kinematics(tmp_path):
    model = load_model(SAMPLE_ARM)
    path = write(tmp_path, to_urdf(model, mesh_dir=str(tmp_path / 'meshes')), 'arm.urdf')
    back = load_model(path)
    for link in model.links:
        np.testing.assert_allclose(back.link(link.name).pose.matrix(), link.pose.matrix(),
                                   atol=1e-9, err_msg=link.name)
        assert back.link(link.name).inertial.mass == pytest.approx(link.inertial.mass)
    for joint in model.movable_joints:
        other = back.joint(joint.name)
        assert other.type == joint.type and list(other.axis) == pytest.approx(list(joint.axis))
        assert (other.limits.lower, other.limits.upper) == \
            pytest.approx((joint.limits.lower, joint.limits.upper))


def test_a_root_named_world_is_fixed_there(tmp_path):
    text = TWO.replace('<link name="base">', '<link name="world"/>\n  <link name="base">')
    text = text.replace('</robot>', '<joint name="bolt" type="fixed"><parent link="world"/>'
                        '<child link="base"/></joint>\n</robot>')
    m = load_model(write(tmp_path, text))
    assert (m.root, m.root_joint) == ('world', JointType.FIXED)


def test_a_urdf_box_spawned_above_the_floor_comes_to_rest_on_it(tmp_path):
    box = write(tmp_path, """<robot name="crate"><link name="crate">
      <inertial><mass value="1"/><inertia ixx="0.0017" ixy="0" ixz="0" iyy="0.0017" iyz="0"
        izz="0.0017"/></inertial>
      <collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>
      <visual><geometry><box size="0.1 0.1 0.1"/></geometry></visual></link></robot>""",
                'crate.urdf')
    arm = Simulation(load_model(SAMPLE_ARM))
    model = load_model(box)
    options = SimOptions(initial_pose=Pose((0.6, 0.0, 0.1)))
    arm.world.add(model, options, 'crate/')
    crate = Simulation(model, options, world=arm.world)
    for _ in range(int(round(1.0 / arm.period))):
        arm.step_period()
    assert crate.body_pose('crate')[0][2] == pytest.approx(0.05, abs=1e-3)


@pytest.mark.parametrize('text, message', [
    ('<robot name="x"><link name="a">', r'robot\.urdf(:\d+)?: not a URDF robot'),
    ('<robot name="x"><link name="a"/><link name="b"/></robot>',
     'one root link; found 2: a, b'),
    ('<robot name="x"><link name="a"/><link name="b"/><joint name="p" type="planar">'
     '<parent link="a"/><child link="b"/></joint></robot>', 'joint p: planar joints'),
])
def test_broken_files_give_one_line(tmp_path, text, message):
    with pytest.raises(ModelError, match=message) as err:
        load_model(write(tmp_path, text))
    assert '\n' not in str(err.value)


TETRA = """solid tetra
facet normal 0 0 -1
 outer loop
  vertex 0 0 0
  vertex 0 1 0
  vertex 1 0 0
 endloop
endfacet
facet normal 0 -1 0
 outer loop
  vertex 0 0 0
  vertex 1 0 0
  vertex 0 0 1
 endloop
endfacet
facet normal -1 0 0
 outer loop
  vertex 0 0 0
  vertex 0 0 1
  vertex 0 1 0
 endloop
endfacet
facet normal 1 1 1
 outer loop
  vertex 1 0 0
  vertex 0 1 0
  vertex 0 0 1
 endloop
endfacet
endsolid tetra
"""


def _meshed(uri, scale='1 1 1'):
    return f"""<?xml version="1.0"?>
<robot name="meshed">
  <link name="base">
    <inertial><mass value="1"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <visual><geometry><mesh filename="{uri}" scale="{scale}"/></geometry></visual>
  </link>
</robot>
"""


def _tetra(folder):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / 'part.stl').write_text(TETRA)
    return folder / 'part.stl'


def _mesh_of(model):
    shape = model.link('base').visuals[0]
    return shape.geometry.source, np.asarray(shape.geometry.vertices)


@pytest.mark.parametrize('where', ['package root', 'beside', 'ROS_PACKAGE_PATH'])
def test_package_uris_find_the_mesh(tmp_path, monkeypatch, where):
    """package://pkg/meshes/part.stl: the package's folder above the URDF's (pkg/urdf/x.urdf),
    the URDF's folder itself, or pkg under a folder of ROS_PACKAGE_PATH."""
    urdf_dir = tmp_path / 'pkg' / 'urdf'
    urdf_dir.mkdir(parents=True)
    other = tmp_path / 'elsewhere'
    monkeypatch.setenv('ROS_PACKAGE_PATH', f'{tmp_path / "nothing"}:{other}')
    target = {'package root': tmp_path / 'pkg' / 'meshes', 'beside': urdf_dir / 'meshes',
              'ROS_PACKAGE_PATH': other / 'pkg' / 'meshes'}[where]
    mesh = _tetra(target)
    model = load_model(write(urdf_dir, _meshed('package://pkg/meshes/part.stl')))
    source, vertices = _mesh_of(model)
    assert source == str(mesh)
    assert vertices.max(axis=0).tolist() == [1.0, 1.0, 1.0]


def test_file_relative_and_absolute_mesh_paths_and_scale(tmp_path):
    mesh = _tetra(tmp_path / 'meshes')
    for uri in (f'file://{mesh}', str(mesh), 'meshes/part.stl'):
        source, vertices = _mesh_of(load_model(write(tmp_path, _meshed(uri, '2 3 4'))))
        assert source == str(mesh)
        assert vertices.max(axis=0).tolist() == [2.0, 3.0, 4.0]


def test_a_path_object_is_read_and_named_as_text(tmp_path):
    from body_bridge.formats import urdf
    path = write(tmp_path, TWO)
    model = urdf.load(path)  # a pathlib.Path
    assert model.source == str(path) and model.link('base').visuals[0].source == str(path)


def test_a_package_mesh_found_nowhere_is_a_missing_file(tmp_path, monkeypatch):
    monkeypatch.setenv('ROS_PACKAGE_PATH', '')
    with pytest.raises(ModelError, match='part.stl'):
        load_model(write(tmp_path, _meshed('package://pkg/meshes/part.stl')))


def test_mimic_joints_with_and_without_multiplier_and_offset(tmp_path):
    def joint(name, mimic=''):
        return (f'<link name="{name}_link"><inertial><mass value="1"/><inertia ixx="0.01" '
                'ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>'
                f'<joint name="{name}" type="revolute"><parent link="base"/>'
                f'<child link="{name}_link"/><axis xyz="0 0 1"/>'
                f'<limit lower="-1" upper="1" effort="1" velocity="1"/>{mimic}</joint>')
    text = ('<?xml version="1.0"?><robot name="m"><link name="base"><inertial><mass value="1"/>'
            '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>'
            '</link>' + joint('lead') + joint('plain', '<mimic joint="lead"/>') +
            joint('scaled', '<mimic joint="lead" multiplier="-2" offset="0.1"/>') + '</robot>')
    m = load_model(write(tmp_path, text))
    plain, scaled = m.joint('plain').mimic, m.joint('scaled').mimic
    assert (plain.joint, plain.multiplier, plain.offset) == ('lead', 1.0, 0.0)
    assert (scaled.joint, scaled.multiplier, scaled.offset) == ('lead', -2.0, 0.1)
    assert m.joint('lead').mimic is None


PARTIAL = """<?xml version="1.0"?>
<robot name="partial">
  <link name="base">
    <inertial><origin xyz="0 0 0.05"/><mass value="2"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.03"/></inertial>
    <visual><origin rpy="0 0 0.5"/><geometry><box size="0.1 0.1 0.1"/></geometry></visual>
    <collision><origin xyz="0.1 0.2 0.3"/><geometry><box size="0.1 0.1 0.1"/></geometry>
    </collision>
  </link>
  {links}
</robot>
"""


def _child(name, dynamics=''):
    return (f'<link name="{name}"><inertial><mass value="1"/><inertia ixx="0.01" ixy="0" '
            'ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>'
            f'<joint name="{name}_joint" type="revolute"><parent link="base"/>'
            f'<child link="{name}"/><axis xyz="0 0 1"/>'
            f'<limit lower="-1" upper="1" effort="1" velocity="1"/>{dynamics}</joint>')


def test_what_an_element_leaves_out_is_zero_or_urdf_s_default(tmp_path):
    """An origin with only rpy is at the link's origin, one with only xyz is not turned (the
    inertia stays as given); dynamics without damping or friction have none of it; an
    inertial without <inertia> has no moments; a joint without <axis> turns about x."""
    links = (_child('none') + _child('rubbing', '<dynamics friction="0.5"/>') +
             _child('damped', '<dynamics damping="0.3"/>') +
             '<link name="light"><inertial><mass value="0.5"/></inertial></link>'
             '<joint name="light_joint" type="fixed"><parent link="base"/>'
             '<child link="light"/></joint>' +
             _child('bare').replace('<axis xyz="0 0 1"/>', ''))
    m = load_model(write(tmp_path, PARTIAL.format(links=links)))
    base = m.link('base')
    np.testing.assert_array_equal(base.visuals[0].pose.pos, [0, 0, 0])
    np.testing.assert_allclose(base.visuals[0].pose.rot,
                               Pose.from_rpy((0, 0, 0.5)).rot, atol=1e-15)
    np.testing.assert_array_equal(base.collisions[0].pose.rot, np.eye(3))
    np.testing.assert_array_equal(base.collisions[0].pose.pos, [0.1, 0.2, 0.3])
    np.testing.assert_array_equal(base.inertial.inertia, np.diag([0.01, 0.02, 0.03]))
    assert (m.joint('none_joint').damping, m.joint('none_joint').friction) == (0.0, 0.0)
    assert (m.joint('rubbing_joint').damping, m.joint('rubbing_joint').friction) == (0.0, 0.5)
    assert (m.joint('damped_joint').damping, m.joint('damped_joint').friction) == (0.3, 0.0)
    assert list(m.joint('bare_joint').axis) == [1.0, 0.0, 0.0]  # the URDF default axis
    light = m.link('light').inertial  # no <inertia>: no moments of inertia
    assert light.mass == 0.5 and light.inertia.shape == (3, 3) and not light.inertia.any()


def test_a_mesh_without_scale_keeps_its_size(tmp_path):
    mesh = _tetra(tmp_path / 'meshes')
    text = _meshed('meshes/part.stl').replace(' scale="1 1 1"', '')
    assert 'scale' not in text
    source, vertices = _mesh_of(load_model(write(tmp_path, text)))
    assert source == str(mesh)
    assert vertices.max(axis=0).tolist() == [1.0, 1.0, 1.0]


def test_a_mesh_keeps_its_own_colour_unless_the_urdf_gives_one(tmp_path):
    folder = tmp_path / 'meshes'
    folder.mkdir()
    (folder / 'part.mtl').write_text('newmtl red\nKd 1 0 0\n')
    (folder / 'part.obj').write_text('mtllib part.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n'
                                     'usemtl red\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n')
    own = load_model(write(tmp_path, _meshed('meshes/part.obj')))
    assert own.link('base').visuals[0].material.rgba[:3] == (1.0, 0.0, 0.0)
    given = _meshed('meshes/part.obj').replace(
        '</geometry>', '</geometry><material name="g"><color rgba="0 1 0 1"/></material>')
    assert load_model(write(tmp_path, given)).link('base').visuals[0].material.rgba == \
        (0.0, 1.0, 0.0, 1.0)


def test_a_urdf_file_over_64_mib_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / 'huge.urdf'
    with open(path, 'wb') as f:  # sparse: nothing is written
        f.truncate(64 * 1024 * 1024 + 1)
    with pytest.raises(ModelError, match='is 67108865 bytes, more than the limit of 67108864 ') \
            as err:
        load_model(path)
    assert '\n' not in str(err.value)
