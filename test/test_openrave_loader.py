"""OpenRAVE XML semantics on small files written here, each against numbers worked by hand."""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.kinematics import forward_kinematics
from body_bridge.model import Box, Cylinder, DeviceKind, JointType, Mesh, Sphere


def write(folder, name: str, text: str):
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).strip() + '\n')
    return path


def load(folder, text: str, name: str = 'm.kinbody.xml'):
    return load_model(write(folder, name, text))


def world_point(model, link: str, point, q=None):
    pose = forward_kinematics(model, q or {})[link]
    return pose.apply(point)


# --- transforms -----------------------------------------------------------------------------

def test_translation_and_rotation_compound_separately(tmp_path):
    # OpenRAVE adds translations and multiplies rotations from the left, never mixing them:
    # a rotation given after a translation does not turn it.
    m = load(tmp_path, """
        <KinBody name="k">
          <Body name="a" type="static">
            <Translation>1 0 0</Translation>
            <RotationAxis>0 0 1 90</RotationAxis>
            <Translation>0 2 0</Translation>
            <RotationAxis>1 0 0 90</RotationAxis>
            <Geom type="sphere"><radius>0.1</radius></Geom>
          </Body>
        </KinBody>""")
    pose = m.link('a').pose
    np.testing.assert_allclose(pose.pos, [1, 2, 0], atol=1e-12)
    # R = Rx(90) @ Rz(90): local x -> world z... check two columns by hand
    np.testing.assert_allclose(pose.rot @ [1, 0, 0], [0, 0, 1], atol=1e-12)
    np.testing.assert_allclose(pose.rot @ [0, 1, 0], [-1, 0, 0], atol=1e-12)


def test_quat_is_scalar_first_and_rotationmat_row_major(tmp_path):
    h = math.sqrt(0.5)
    m = load(tmp_path, f"""
        <KinBody name="k">
          <Body name="a" type="static"><quat>{h} 0 0 {h}</quat>
            <Geom type="sphere"><radius>0.1</radius></Geom></Body>
          <Body name="b" type="static"><rotationmat>0 -1 0 1 0 0 0 0 1</rotationmat>
            <Geom type="sphere"><radius>0.1</radius></Geom></Body>
        </KinBody>""")
    quarter = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1.0]])  # 90 deg about z
    np.testing.assert_allclose(m.link('a').pose.rot, quarter, atol=1e-12)
    np.testing.assert_allclose(m.link('b').pose.rot, quarter, atol=1e-12)


def test_offsetfrom_and_kinbody_transform(tmp_path):
    m = load(tmp_path, """
        <KinBody name="k">
          <Translation>0 0 1</Translation>
          <Body name="base" type="static">
            <RotationAxis>0 0 1 90</RotationAxis>
            <Geom type="box"><extents>0.1 0.1 0.1</extents></Geom>
          </Body>
          <Body name="arm">
            <offsetfrom>base</offsetfrom>
            <Translation>1 0 0</Translation>
            <Geom type="box"><extents>0.1 0.1 0.1</extents></Geom>
          </Body>
          <Joint name="j" type="hinge" enable="false">
            <Body>base</Body><Body>arm</Body><limits>0 0</limits>
          </Joint>
        </KinBody>""")
    # arm is 1 m along base's x axis, which points along world y; the KinBody lifts both
    np.testing.assert_allclose(m.link('arm').pose.pos, [0, 1, 1], atol=1e-12)
    assert m.joint('j').type == JointType.FIXED
    assert not m.warnings  # a dummy joint (limits 0 0) is silent


def test_geometries_extents_are_half_sizes_and_cylinders_lie_along_y(tmp_path):
    m = load(tmp_path, """
        <KinBody name="k">
          <Body name="a" type="static">
            <Geom type="box"><extents>0.1 0.2 0.3</extents><translation>0 0 1</translation>
              <diffusecolor>1 0 0</diffusecolor><transparency>0.25</transparency></Geom>
            <Geom type="cylinder"><radius>0.05</radius><height>0.4</height></Geom>
            <Geom type="sphere"><radius>0.2</radius><ambientcolor>0 1 0</ambientcolor></Geom>
          </Body>
        </KinBody>""")
    box, cyl, sphere = m.link('a').collisions
    assert isinstance(box.geometry, Box) and box.geometry.size == pytest.approx((0.2, 0.4, 0.6))
    np.testing.assert_allclose(box.pose.pos, [0, 0, 1])
    assert box.material.rgba == pytest.approx((1, 0, 0, 0.75))
    assert isinstance(cyl.geometry, Cylinder)
    assert (cyl.geometry.radius, cyl.geometry.length) == pytest.approx((0.05, 0.4))
    # the model's cylinder axis (its z) lies along the file's y axis
    np.testing.assert_allclose(np.abs(cyl.pose.rot @ [0, 0, 1]), [0, 1, 0], atol=1e-12)
    assert isinstance(sphere.geometry, Sphere)
    assert m.link('a').visuals == m.link('a').collisions


def test_trimesh_render_and_collision_files_with_scale(tmp_path):
    write(tmp_path, 'models/tri.stl', """
        solid t
        facet normal 0 0 1
        outer loop
        vertex 0 0 0
        vertex 1000 0 0
        vertex 0 1000 0
        endloop
        endfacet
        facet normal 0 0 1
        outer loop
        vertex 0 0 0
        vertex 0 1000 0
        vertex 0 0 1000
        endloop
        endfacet
        facet normal 0 0 1
        outer loop
        vertex 0 0 0
        vertex 0 0 1000
        vertex 1000 0 0
        endloop
        endfacet
        facet normal 0 0 1
        outer loop
        vertex 1000 0 0
        vertex 0 0 1000
        vertex 0 1000 0
        endloop
        endfacet
        endsolid t""")
    m = load(tmp_path, """
        <KinBody name="k">
          <Body name="a" type="static">
            <Geom type="trimesh">
              <render>models/tri.stl 0.001</render>
              <collision file="models/tri.stl" scale="0.002"/>
            </Geom>
          </Body>
        </KinBody>""", 'robots/k.kinbody.xml')
    link = m.link('a')
    (draw,), (collide,) = link.visuals, link.collisions
    assert isinstance(draw.geometry, Mesh) and isinstance(collide.geometry, Mesh)
    assert draw.geometry.vertices.max() == pytest.approx(1.0)      # 1000 mm x 0.001
    assert collide.geometry.vertices.max() == pytest.approx(2.0)   # its own scale
    assert not m.warnings


def test_unreadable_mesh_gives_a_bounding_box_stand_in(tmp_path):
    write(tmp_path, 'part.iv', """
        #Inventor V2.1 ascii
        Separator { Coordinate3 { point [ 0 0 0, 2 0 0, 0 4 0, 0 0 6 ] }
          NotARealNode { } }""")
    m = load(tmp_path, """
        <KinBody name="k"><Body name="a" type="static">
          <Geom type="trimesh"><data>part.iv 0.5</data></Geom>
        </Body></KinBody>""")
    (shape,) = m.link('a').collisions
    assert isinstance(shape.geometry, Box)
    assert shape.geometry.size == pytest.approx((1.0, 2.0, 3.0))
    np.testing.assert_allclose(shape.pose.pos, [0.5, 1.0, 1.5])
    assert any('stands in' in w for w in m.warnings)


def test_missing_mesh_is_a_warning_not_a_crash(tmp_path):
    m = load(tmp_path, """
        <KinBody name="k"><Body name="a" type="static">
          <Geom type="trimesh"><data>nowhere.iv</data></Geom>
          <Geom type="box"><extents>0.1 0.1 0.1</extents></Geom>
        </Body></KinBody>""")
    assert len(m.link('a').collisions) == 1
    assert any("'nowhere.iv' not found" in w and 'm.kinbody.xml:2' in w for w in m.warnings)


# --- masses ---------------------------------------------------------------------------------

def test_mass_types(tmp_path):
    m = load(tmp_path, """
        <KinBody name="k">
          <Body name="custom" type="static">
            <Geom type="sphere"><radius>0.1</radius></Geom>
            <Mass type="custom"><total>2</total><com>0 0 0.5</com>
              <inertia>0.1 0 0 0 0.2 0 0 0 0.3</inertia></Mass>
          </Body>
          <Body name="box">
            <Geom type="sphere"><radius>0.1</radius></Geom>
            <Mass type="box"><extents>0.5 1 1.5</extents><density>2</density></Mass>
          </Body>
          <Body name="sphere">
            <Geom type="sphere"><radius>0.1</radius></Geom>
            <Mass type="sphere"><radius>0.5</radius><total>3</total></Mass>
          </Body>
          <Body name="geom_density">
            <Geom type="box"><extents>0.5 0.5 0.5</extents><translation>1 0 0</translation></Geom>
            <Geom type="box"><extents>0.5 0.5 0.5</extents><translation>-1 0 0</translation></Geom>
            <Mass type="mimicgeom"><density>10</density></Mass>
          </Body>
          <Body name="geom_total">
            <Geom type="box"><extents>0.5 0.5 0.5</extents></Geom>
            <Geom type="sphere"><radius>0.5</radius><translation>0 0 2</translation></Geom>
            <Mass type="mimicgeom"><total>6</total></Mass>
          </Body>
          <Body name="default"><Geom type="box"><extents>1 1 1</extents></Geom></Body>
          <Joint name="j1" enable="false"><Body>custom</Body><Body>box</Body></Joint>
          <Joint name="j2" enable="false"><Body>custom</Body><Body>sphere</Body></Joint>
          <Joint name="j3" enable="false"><Body>custom</Body><Body>geom_density</Body></Joint>
          <Joint name="j4" enable="false"><Body>custom</Body><Body>geom_total</Body></Joint>
          <Joint name="j5" enable="false"><Body>custom</Body><Body>default</Body></Joint>
        </KinBody>""")
    custom = m.link('custom').inertial
    assert custom.mass == 2 and custom.com.tolist() == [0, 0, 0.5]
    np.testing.assert_allclose(custom.inertia, np.diag([0.1, 0.2, 0.3]))
    box = m.link('box').inertial  # 1 x 2 x 3 m at 2 kg/m^3 = 12 kg
    assert box.mass == pytest.approx(12.0)
    np.testing.assert_allclose(box.inertia, 12 / 12 * np.diag([4 + 9, 1 + 9, 1 + 4]))
    sphere = m.link('sphere').inertial
    np.testing.assert_allclose(sphere.inertia, 0.4 * 3 * 0.25 * np.eye(3))
    dens = m.link('geom_density').inertial  # two 1 m cubes of 10 kg, 1 m either side
    assert dens.mass == pytest.approx(20.0)
    np.testing.assert_allclose(dens.inertia, np.diag([20 / 6, 20 / 6 + 20, 20 / 6 + 20]))
    total = m.link('geom_total').inertial  # 6 kg shared by volume: cube 1 m^3, sphere pi/6
    cube = 6.0 / (1 + math.pi / 6)
    assert total.mass == pytest.approx(6.0)
    assert total.com[2] == pytest.approx(2 * (6 - cube) / 6)
    default = m.link('default').inertial  # OpenRAVE's default: 1 kg, sphere of radius 1 m
    assert default.mass == 1.0
    np.testing.assert_allclose(default.inertia, 0.4 * np.eye(3))


# --- joints -------------------------------------------------------------------------------

HINGE_BODY = """
    <KinBody name="k">
      <Body name="base" type="static"><Geom type="box"><extents>0.1 0.1 0.1</extents></Geom></Body>
      <Body name="arm"><Translation>1 0 0</Translation>
        <Geom type="box"><extents>0.2 0.05 0.05</extents><translation>0.2 0 0</translation></Geom>
      </Body>
      <Joint name="j" type="hinge">
        <Body>base</Body><Body>arm</Body>
        <anchor>0.5 0 0.3</anchor><axis>0 0 1</axis>{extra}
      </Joint>
    </KinBody>"""


def test_hinge_anchor_moves_the_child_frame_onto_the_axis_and_keeps_geometry(tmp_path):
    m = load(tmp_path, HINGE_BODY.format(extra='<limitsdeg>-90 45</limitsdeg>'))
    joint = m.joint('j')
    assert joint.limits.lower == pytest.approx(-math.pi / 2)
    assert joint.limits.upper == pytest.approx(math.pi / 4)
    # the arm's frame moves onto the axis, a vertical line through (0.5, 0, *): the nearest
    # point to its origin (1, 0, 0) is (0.5, 0, 0)
    np.testing.assert_allclose(m.link('arm').pose.pos, [0.5, 0, 0], atol=1e-12)
    # the arm's box stays 1.2 m out at zero, and turns about the anchor
    np.testing.assert_allclose(world_point(m, 'arm', m.link('arm').collisions[0].pose.pos),
                               [1.2, 0, 0], atol=1e-12)
    turned = world_point(m, 'arm', m.link('arm').collisions[0].pose.pos, {'j': math.pi / 2})
    np.testing.assert_allclose(turned, [0.5, 0.7, 0], atol=1e-12)


def test_initial_is_the_position_the_file_was_written_at(tmp_path):
    m = load(tmp_path, HINGE_BODY.format(extra='<initial>0.5</initial>'))
    assert m.joint('j').initial == 0.5
    # at q = 0.5 the arm is where the file put it
    np.testing.assert_allclose(world_point(m, 'arm', m.link('arm').collisions[0].pose.pos,
                                           {'j': 0.5}), [1.2, 0, 0], atol=1e-12)


def test_joint_defaults_circular_slider_units_and_metadata(tmp_path):
    m = load(tmp_path, """
        <KinBody name="k">
          <Body name="a" type="static"><Geom type="sphere"><radius>0.1</radius></Geom></Body>
          <Body name="b"><Geom type="sphere"><radius>0.1</radius></Geom></Body>
          <Body name="c"><Geom type="sphere"><radius>0.1</radius></Geom></Body>
          <Body name="d"><Geom type="sphere"><radius>0.1</radius></Geom></Body>
          <Joint name="plain" type="hinge"><Body>a</Body><Body>b</Body><axis>1 0 0</axis>
            <maxvel>2</maxvel><maxaccel>5</maxaccel><maxtorque>7</maxtorque>
            <weight>0.5</weight><resolution>2</resolution></Joint>
          <Joint name="round" type="hinge" circular="true"><Body>b</Body><Body>c</Body>
            <axis>0 1 0</axis><limitsdeg>-180 180</limitsdeg></Joint>
          <Joint name="slide" type="slider"><Body>c</Body><Body>d</Body><axis>0 0 2</axis>
            <limitsdeg>0.1 0.3</limitsdeg></Joint>
        </KinBody>""")
    plain = m.joint('plain')
    assert (plain.limits.lower, plain.limits.upper) == pytest.approx((-math.pi, math.pi))
    assert (plain.limits.velocity, plain.limits.effort) == (2.0, 7.0)
    assert plain.meta['weight'] == (0.5,) and plain.meta['maxaccel'] == (5.0,)
    assert plain.meta['resolution'] == pytest.approx(math.radians(2))
    assert m.joint('round').type == JointType.CONTINUOUS
    slide = m.joint('slide')
    assert slide.type == JointType.PRISMATIC and slide.axis.tolist() == [0, 0, 1]
    assert (slide.limits.lower, slide.limits.upper) == pytest.approx((0.1, 0.3))  # metres


def test_universal_and_hinge2_become_two_hinges_through_a_massless_link(tmp_path):
    m = load(tmp_path, """
        <KinBody name="k">
          <Body name="a" type="static"><Geom type="sphere"><radius>0.1</radius></Geom></Body>
          <Body name="b"><Translation>0 0 1</Translation>
            <Geom type="box"><extents>0.1 0.1 0.1</extents></Geom></Body>
          <Joint name="u" type="universal"><Body>a</Body><Body>b</Body>
            <anchor>0 0 0.5</anchor><axis1>1 0 0</axis1><axis2>0 1 0</axis2>
            <limitsdeg>-30 30 -40 40</limitsdeg></Joint>
        </KinBody>""")
    first, second = m.joint('u_axis1'), m.joint('u_axis2')
    assert (first.parent, first.child) == ('a', 'u_link') and second.child == 'b'
    assert m.link('u_link').inertial is None
    assert second.limits.upper == pytest.approx(math.radians(40))
    # q1 about x then q2 about the turned y, both through the anchor
    q1, q2 = 0.3, -0.2
    centre = world_point(m, 'b', [0, 0, 0.5], {'u_axis1': q1, 'u_axis2': q2})
    rx = np.array([[1, 0, 0], [0, math.cos(q1), -math.sin(q1)], [0, math.sin(q1), math.cos(q1)]])
    ry = np.array([[math.cos(q2), 0, math.sin(q2)], [0, 1, 0], [-math.sin(q2), 0, math.cos(q2)]])
    np.testing.assert_allclose(centre, np.array([0, 0, 0.5]) + rx @ ry @ [0, 0, 0.5],
                               atol=1e-12)


@pytest.mark.corpus
def test_spherical_joint_is_a_ball_at_the_anchor(tmp_path, check_urdf):
    from conftest import shared_model
    m = load_model(shared_model('openrave/src/data/balljoint.kinbody.xml'))
    joint = m.joint('joint0')
    assert joint.type == JointType.BALL
    np.testing.assert_allclose(m.link('b1').pose.pos, [1, 0, 0])  # moved to the anchor
    np.testing.assert_allclose(m.link('b1').collisions[0].pose.pos, [1, 0, 0])  # box stays


def test_closed_loop_becomes_a_closure(tmp_path):
    m = load(tmp_path, """
        <KinBody name="four_bar">
          <Body name="ground" type="static"><Geom type="box"><extents>0.3 0.01 0.01</extents>
            </Geom></Body>
          <Body name="crank"><Geom type="box"><extents>0.01 0.01 0.1</extents>
            <translation>0 0 0.1</translation></Geom></Body>
          <Body name="rocker"><Translation>0.5 0 0</Translation>
            <Geom type="box"><extents>0.01 0.01 0.1</extents><translation>0 0 0.1</translation>
            </Geom></Body>
          <Body name="coupler"><Translation>0 0 0.2</Translation>
            <Geom type="box"><extents>0.25 0.01 0.01</extents><translation>0.25 0 0</translation>
            </Geom></Body>
          <Joint name="a" type="hinge"><Body>ground</Body><Body>crank</Body>
            <axis>0 1 0</axis></Joint>
          <Joint name="d" type="hinge"><Body>ground</Body><Body>rocker</Body><axis>0 1 0</axis>
            <anchor>0.5 0 0</anchor></Joint>
          <Joint name="b" type="hinge"><Body>crank</Body><Body>coupler</Body><axis>0 1 0</axis>
            <anchor>0 0 0.2</anchor></Joint>
          <Joint name="c" type="hinge"><Body>coupler</Body><Body>rocker</Body><axis>0 1 0</axis>
            <anchor>0.5 0 0.2</anchor><limitsdeg>-90 90</limitsdeg></Joint>
        </KinBody>""")
    (closure,) = m.closures
    assert (closure.name, closure.type, closure.link1, closure.link2) == \
        ('c', 'hinge', 'coupler', 'rocker')
    np.testing.assert_allclose(closure.pose1.pos, [0.5, 0, 0])
    np.testing.assert_allclose(closure.pose2.pos, [0, 0, 0.2])
    np.testing.assert_allclose(closure.axis, [0, 1, 0])
    assert any("'c' closes a loop: its limits" in w for w in m.warnings)


# --- mimic --------------------------------------------------------------------------------

MIMIC = """
    <KinBody name="k">
      <Body name="a" type="static"><Geom type="sphere"><radius>0.1</radius></Geom></Body>
      <Body name="b"><Geom type="sphere"><radius>0.1</radius></Geom></Body>
      <Body name="c"><Geom type="sphere"><radius>0.1</radius></Geom></Body>
      <Body name="d"><Geom type="sphere"><radius>0.1</radius></Geom></Body>
      <Joint name="j1" type="hinge"><Body>a</Body><Body>b</Body><axis>0 0 1</axis></Joint>
      <Joint name="j2" type="hinge"><Body>b</Body><Body>c</Body><axis>0 0 1</axis></Joint>
      <Joint name="m" type="hinge" enable="false" {attrs}><Body>c</Body><Body>d</Body>
        <axis>0 0 1</axis></Joint>
    </KinBody>"""


@pytest.mark.parametrize('formula, expected', [
    ('j1/3+0.8727', ('j1', 1 / 3, 0.8727, None)),
    ('-j2', ('j2', -1.0, 0.0, None)),
    ('2*(j1-0.5)', ('j1', 2.0, -1.0, None)),
    ('j1^2+1', ('j1', 1.0, 0.0, 'j1^2.0+1.0')),
    ('j1+j2+atan(j1)', ('j1', 1.0, 0.0, 'j1+j2+atan(j1)')),
])
def test_mimic_formulas(tmp_path, formula, expected):
    m = load(tmp_path, MIMIC.format(attrs=f'mimic_pos="{formula}" mimic_vel="|j1 1"'))
    mimic = m.joint('m').mimic
    assert (mimic.joint, mimic.expression) == (expected[0], expected[3])
    if expected[3] is None:
        assert (mimic.multiplier, mimic.offset) == pytest.approx(expected[1:3])
    assert m.joint('m').type == JointType.REVOLUTE  # a passive joint with a formula moves


def test_old_mimic_attribute(tmp_path):
    m = load(tmp_path, MIMIC.format(attrs='mimic="j2 -2 0.1"'))
    mimic = m.joint('m').mimic
    assert (mimic.joint, mimic.multiplier, mimic.offset) == ('j2', -2.0, 0.1)


def test_formula_is_never_evaluated_as_python(tmp_path):
    with pytest.raises(Exception) as info:
        load(tmp_path, MIMIC.format(attrs='mimic_pos="__import__(&quot;os&quot;).getcwd()"'))
    assert 'm.kinbody.xml:8' in str(info.value) and 'mimic formula' in str(info.value)


# --- includes, prefixes, environments ------------------------------------------------------

def test_includes_prefix_name_and_appended_bodies(tmp_path):
    write(tmp_path, 'robots/finger.kinbody.xml', """
        <KinBody name="finger">
          <Body name="tip"><Geom type="box"><extents>0.01 0.01 0.05</extents></Geom></Body>
        </KinBody>""")
    m = load(tmp_path, """
        <Robot name="hand">
          <KinBody>
            <Body name="palm" type="static"><Geom type="box"><extents>0.05 0.05 0.01</extents>
              </Geom></Body>
            <KinBody prefix="L_" file="finger.kinbody.xml">
              <Body name="L_tip"><offsetfrom>palm</offsetfrom>
                <Translation>0 0.03 0.05</Translation>
                <Geom type="sphere"><radius>0.01</radius></Geom></Body>
            </KinBody>
            <KinBody prefix="R_" file="finger.kinbody.xml">
              <Body name="R_tip"><offsetfrom>palm</offsetfrom>
                <Translation>0 -0.03 0.05</Translation>
              </Body>
            </KinBody>
            <Joint name="jl" type="slider"><Body>palm</Body><Body>L_tip</Body><axis>0 1 0</axis>
              <limits>0 0.02</limits></Joint>
            <Joint name="jr" type="slider" enable="false" mimic_pos="-jl" mimic_vel="|jl -1">
              <Body>palm</Body><Body>R_tip</Body><axis>0 1 0</axis></Joint>
          </KinBody>
        </Robot>""", 'robots/hand.robot.xml')
    assert m.name == 'hand'
    assert [link.name for link in m.links] == ['palm', 'L_tip', 'R_tip']
    assert len(m.link('L_tip').collisions) == 2  # the file's box and the appended sphere
    assert len(m.link('R_tip').collisions) == 1
    np.testing.assert_allclose(m.link('L_tip').pose.pos, [0, 0.03, 0.05])


def test_include_cycle_is_reported(tmp_path):
    write(tmp_path, 'a.kinbody.xml', '<KinBody><KinBody file="b.kinbody.xml"/></KinBody>')
    write(tmp_path, 'b.kinbody.xml', '<KinBody><KinBody file="a.kinbody.xml"/></KinBody>')
    with pytest.raises(Exception) as info:
        load_model(tmp_path / 'a.kinbody.xml')
    assert 'b.kinbody.xml:1' in str(info.value) and 'includes itself' in str(info.value)


def test_modelsdir_and_data_root_lookup(tmp_path):
    write(tmp_path, 'share/meshes/cube.stl', '\n'.join(
        ['solid c'] + [f'facet normal 0 0 0\nouter loop\nvertex {a}\nvertex {b}\nvertex {c}\n'
                       'endloop\nendfacet' for a, b, c in
                       [('0 0 0', '1 0 0', '0 1 0'), ('0 0 0', '0 1 0', '0 0 1'),
                        ('0 0 0', '0 0 1', '1 0 0'), ('1 0 0', '0 0 1', '0 1 0')]] +
        ['endsolid c']))
    m = load(tmp_path, """
        <KinBody name="k"><modelsdir>../share</modelsdir>
          <Body name="a" type="static"><Geom type="trimesh"><data>meshes/cube.stl</data></Geom>
          </Body></KinBody>""", 'robots/k.kinbody.xml')
    assert isinstance(m.link('a').collisions[0].geometry, Mesh)
    assert not m.warnings


def test_environment_bodies_jointvalues_and_sensors(tmp_path):
    write(tmp_path, 'robots/arm.robot.xml', HINGE_BODY.replace('KinBody name="k"', 'KinBody')
          .format(extra='').replace('<KinBody>', '<Robot name="arm"><KinBody>')
          .replace('</KinBody>', '</KinBody></Robot>'))
    m = load(tmp_path, """
        <Environment>
          <camtrans>1 2 3</camtrans>
          <Robot file="robots/arm.robot.xml" name="left">
            <translation>0 1 0</translation><jointvalues>0.25</jointvalues>
          </Robot>
          <KinBody name="crate"><Translation>2 0 0.5</Translation>
            <Body name="box"><Geom type="box"><extents>0.1 0.1 0.1</extents></Geom></Body>
          </KinBody>
          <sensor name="overhead" type="BaseCamera">
            <translation>0 0 3</translation>
            <KK>500 500 320 240</KK><width>640</width><height>480</height><framerate>10</framerate>
          </sensor>
        </Environment>""", 'data/scene.env.xml')
    assert m.name == 'scene' and m.root == 'world'
    assert m.joint('left/j').initial == 0.25
    np.testing.assert_allclose(m.link('left/base').pose.pos, [0, 1, 0])
    assert m.joint('crate/world_joint').type == JointType.FREE
    assert m.joint('left/world_joint').type == JointType.FIXED
    assert m.joint('crate/world_joint').meta['body'] == 'crate'
    (camera,) = m.devices
    assert (camera.name, camera.link, camera.kind) == ('overhead', 'world', DeviceKind.CAMERA)
    assert camera.params['fx'] == 500 and camera.params['frame_rate'] == 10
    assert camera.params['field_of_view'] == pytest.approx(2 * math.atan(240 / 500))
    assert any('camtrans' in w and 'viewer' in w for w in m.warnings)


# --- sensors and manipulators --------------------------------------------------------------

SENSOR_ROBOT = """
    <Robot name="r">
      <KinBody>
        <Body name="base" type="static"><Geom type="box"><extents>0.1 0.1 0.1</extents></Geom>
        </Body>
      </KinBody>
      <AttachedSensor name="cam">
        <link>base</link><translation>0 0 0.5</translation>
        <sensor type="BaseCamera"><KK>600 600 320 240</KK><width>640</width>
          <height>480</height><framerate>5</framerate></sensor>
      </AttachedSensor>
      <AttachedSensor name="laser">
        <link>base</link><rotationaxis>0 0 1 90</rotationaxis>
        <sensor type="BaseLaser2D"><minangle>-135</minangle><maxangle>135</maxangle>
          <resolution>0.5</resolution><maxrange>5</maxrange><scantime>0.1</scantime></sensor>
      </AttachedSensor>
      <AttachedSensor name="wrench"><link>base</link>
        <sensor type="BaseForce6D"><polarity>1</polarity></sensor></AttachedSensor>
      <AttachedSensor name="gizmo"><link>base</link><sensor type="MagicSensor"/></AttachedSensor>
      <AttachedSensor name="file_cam"><link>base</link><sensor file="cam.sensor.xml"/>
      </AttachedSensor>
      <Manipulator name="grip"><base>base</base><effector>base</effector>
        <translation>0 0 0.2</translation><rotationaxis>1 0 0 90</rotationaxis>
        <direction>0 0 2</direction></Manipulator>
    </Robot>"""


def test_attached_sensors_become_devices(tmp_path):
    write(tmp_path, 'cam.sensor.xml', '<sensor type="BaseCamera"><KK>300 300 160 120</KK>'
          '<width>320</width><height>240</height></sensor>')
    m = load(tmp_path, SENSOR_ROBOT, 'r.robot.xml')
    devices = {d.name: d for d in m.devices}
    cam = devices['cam']
    assert cam.kind == DeviceKind.CAMERA and cam.type_name == 'BaseCamera'
    assert (cam.params['width'], cam.params['height'], cam.params['frame_rate']) == (640, 480, 5)
    assert (cam.params['fx'], cam.params['cy']) == (600, 240)
    # OpenRAVE's camera looks along its z; the device frame looks along its x
    np.testing.assert_allclose(cam.pose.pos, [0, 0, 0.5])
    np.testing.assert_allclose(cam.pose.rot @ [1, 0, 0], [0, 0, 1], atol=1e-12)
    np.testing.assert_allclose(cam.pose.rot @ [0, 0, 1], [0, -1, 0], atol=1e-12)
    laser = devices['laser']
    assert laser.kind == DeviceKind.RANGE
    assert laser.params['min_angle'] == pytest.approx(math.radians(-135))
    assert laser.params['resolution'] == pytest.approx(math.radians(0.5))
    assert (laser.params['max_distance'], laser.params['scan_rate']) == pytest.approx((5, 10))
    np.testing.assert_allclose(laser.pose.rot @ [1, 0, 0], [0, 1, 0], atol=1e-12)
    assert devices['wrench'].kind == DeviceKind.FORCE
    assert devices['gizmo'].kind == DeviceKind.OTHER
    assert any("'MagicSensor' is not known" in w for w in m.warnings)
    assert devices['file_cam'].params['width'] == 320


def test_manipulator_tool_frame(tmp_path):
    write(tmp_path, 'cam.sensor.xml', '<sensor type="BaseCamera"/>')
    m = load(tmp_path, SENSOR_ROBOT, 'r.robot.xml')
    (manip,) = m.manipulators
    (frame,) = m.frames
    assert (frame.name, frame.link) == ('grip', 'base') and manip.tool_frame == 'grip'
    np.testing.assert_allclose(frame.pose.pos, [0, 0, 0.2])
    np.testing.assert_allclose(frame.pose.rot @ [0, 1, 0], [0, 0, 1], atol=1e-12)
    np.testing.assert_allclose(manip.direction, [0, 0, 1])


# --- plain .xml files -------------------------------------------------------------------

def test_plain_xml_is_loaded_when_its_root_is_openrave(tmp_path):
    m = load(tmp_path, HINGE_BODY.format(extra=''), 'arm.xml')
    assert m.joint('j').type == JointType.REVOLUTE


def test_plain_xml_of_another_kind_is_refused(tmp_path):
    path = write(tmp_path, 'scene.xml', '<mujoco model="x"/>')
    with pytest.raises(Exception) as info:
        load_model(path)
    assert str(info.value) == f'{path}:1: not an OpenRAVE file: the root element is <mujoco>, ' \
        'not <Environment>, <Robot> or <KinBody>'


def test_joint_listed_child_first_turns_the_child_the_other_way(tmp_path):
    # OpenRAVE: body1 = body0 * rot(axis, q). With body0 the child (the tree grows from the
    # first link, 'base'), the child turns by -q about the axis.
    m = load(tmp_path, HINGE_BODY.format(extra='').replace('<Body>base</Body><Body>arm</Body>',
                                                           '<Body>arm</Body><Body>base</Body>'))
    assert (m.joint('j').parent, m.joint('j').child) == ('base', 'arm')
    box = m.link('arm').collisions[0].pose.pos
    np.testing.assert_allclose(world_point(m, 'arm', box, {'j': math.pi / 2}), [0.5, -0.7, 0],
                               atol=1e-12)


NO_MASS = """<Robot name="light"><KinBody>
  <Body name="base" type="static"><Geom type="box"><extents>0.1 0.1 0.1</extents></Geom></Body>
  <Body name="a"><Geom type="box"><extents>0.1 0.1 0.1</extents></Geom>{mass}</Body>
  <Body name="b"><Geom type="box"><extents>0.1 0.1 0.1</extents></Geom></Body>
  <Joint name="j1" type="hinge"><Body>base</Body><Body>a</Body></Joint>
  <Joint name="j2" type="hinge"><Body>a</Body><Body>b</Body>{torque}</Joint>
  <Joint name="j3" type="hinge" enable="false" mimic_pos="j1"><Body>base</Body><Body>b</Body>
  </Joint>
</KinBody></Robot>
"""


def test_a_robot_without_masses_is_told_the_defaults_once(tmp_path):
    model = load(tmp_path, NO_MASS.format(mass='', torque=''), 'light.robot.xml')
    said = [w for w in model.warnings if 'gives no <mass>' in w]
    assert said == [f"{tmp_path / 'light.robot.xml'}:1: robot 'light' gives no <mass>: each "
                    "of its links weighs OpenRAVE's default 1 kg with the inertia of a 1 m "
                    "sphere; its 2 joints without <maxtorque> take 100000 N m (or N)"]
    assert model.link('a').inertial.mass == 1.0 and model.joint('j1').limits.effort == 1e5
    model = load(tmp_path, NO_MASS.format(mass='', torque='<maxtorque>5</maxtorque>'),
                 'light.robot.xml')
    assert [w for w in model.warnings if 'gives no <mass>' in w][0].endswith(
        'its 1 joint without <maxtorque> takes 100000 N m (or N)')
    # One link with a mass: the file weighs its links, nothing to say.
    model = load(tmp_path, NO_MASS.format(mass='<mass type="box"><total>2</total>'
                                          '<extents>0.1 0.1 0.1</extents></mass>', torque=''),
                 'light.robot.xml')
    assert not [w for w in model.warnings if 'gives no <mass>' in w]
