"""OpenRAVE's joint and link semantics the XML format page leaves to its reader: default axes
and limits, rotor inertia, disabled links, joined links, attributes the reader does not know."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.formats.openrave.assemble import (DEFAULT_MAXACCEL, DEFAULT_MAXTORQUE,
                                                   DEFAULT_MAXVEL)
from body_bridge.urdf import to_urdf

BOX = '<Geom type="box"><extents>0.05 0.05 0.05</extents></Geom>'


def _robot(tmp_path, joints: str, extra_bodies: str = '', kinbody_attrs: str = ''):
    text = f'''
        <Robot name="r"><KinBody {kinbody_attrs}>
          <Body name="base" type="static">{BOX}</Body>
          <Body name="l1"><Translation>0.3 0 0</Translation>{BOX}</Body>
          {extra_bodies}
          {joints}
        </KinBody></Robot>'''
    path = tmp_path / 'r.robot.xml'
    path.write_text(textwrap.dedent(text))
    return load_model(path)


def test_a_hinge_without_axis_turns_about_z(tmp_path):
    model = _robot(tmp_path, '<Joint name="j"><Body>base</Body><Body>l1</Body></Joint>')
    np.testing.assert_allclose(model.joint('j').axis, (0, 0, 1))


def test_a_slider_without_axis_slides_along_z(tmp_path):
    model = _robot(tmp_path, '<Joint name="s" type="slider"><Body>base</Body><Body>l1</Body>'
                             '<limits>0 0.1</limits></Joint>')
    np.testing.assert_allclose(model.joint('s').axis, (0, 0, 1))


def test_missing_speed_and_torque_take_openrave_defaults(tmp_path):
    model = _robot(tmp_path, '<Joint name="j"><Body>base</Body><Body>l1</Body>'
                             '<axis>0 0 1</axis></Joint>')
    limits = model.joint('j').limits
    assert (limits.velocity, limits.effort) == (DEFAULT_MAXVEL, DEFAULT_MAXTORQUE) == \
        (10.0, 1e5)
    assert model.joint('j').meta['maxaccel'] == (DEFAULT_MAXACCEL,)
    urdf = to_urdf(model)
    assert 'velocity="0' not in urdf and 'effort="0' not in urdf
    assert 'velocity="10.0"' in urdf and 'effort="100000.0"' in urdf


def test_given_speed_and_torque_win(tmp_path):
    model = _robot(tmp_path, '<Joint name="j"><Body>base</Body><Body>l1</Body>'
                             '<maxveldeg>90</maxveldeg><maxtorque>3</maxtorque></Joint>')
    limits = model.joint('j').limits
    assert limits.velocity == pytest.approx(np.pi / 2) and limits.effort == 3.0


def test_rotor_inertia_is_armature(tmp_path):
    model = _robot(tmp_path, '<Joint name="j"><Body>base</Body><Body>l1</Body>'
                             '<rotorinertia>0.25</rotorinertia></Joint>')
    assert model.joint('j').armature == 0.25


def test_a_disabled_body_is_drawn_but_never_collides(tmp_path):
    model = _robot(tmp_path, '<Joint name="j"><Body>base</Body><Body>l1</Body></Joint>'
                             '<Joint name="k"><Body>l1</Body><Body>l2</Body></Joint>',
                   f'<Body name="l2" enable="false"><Translation>0.6 0 0</Translation>{BOX}'
                   '</Body>')
    link = {link.name: link for link in model.links}['l2']
    assert len(link.visuals) == 1 and link.collisions == ()
    assert link.inertial is not None and link.inertial.mass > 0


LOOP = '''<Joint name="a"><Body>base</Body><Body>l1</Body></Joint>
          <Joint name="b"><Body>l1</Body><Body>l2</Body></Joint>
          <Joint name="c"><Body>l2</Body><Body>base</Body></Joint>'''
L2 = f'<Body name="l2"><Translation>0.3 0.3 0</Translation>{BOX}</Body>'


def test_links_a_loop_closing_joint_joins_never_collide(tmp_path):
    model = _robot(tmp_path, LOOP, L2)
    (closure,) = model.closures
    assert (closure.link1, closure.link2) in model.adjacent


def test_makejoinedlinksadjacent_false_is_reported(tmp_path):
    model = _robot(tmp_path, LOOP, L2, 'makejoinedlinksadjacent="false"')
    (closure,) = model.closures
    assert (closure.link1, closure.link2) not in model.adjacent
    assert any('makejoinedlinksadjacent="false"' in w for w in model.warnings)


def test_unknown_attributes_are_reported(tmp_path):
    model = _robot(tmp_path, '<Joint name="j" stiffnes="3"><Body>base</Body><Body>l1</Body>'
                             '</Joint>', '<Body name="l2" mass="3"><Geom type="sphere" '
                             'size="2"><radius>0.1</radius></Geom></Body>'
                             '<Joint name="k"><Body>l1</Body><Body>l2</Body></Joint>',
                   kinbody_attrs='colour="red"')
    assert any("<body> attribute 'mass' is not known" in w for w in model.warnings)
    assert any("<geom> attribute 'size' is not known" in w for w in model.warnings)
    assert any(":6: <joint> attribute 'stiffnes' is not known" in w for w in model.warnings)
    assert any("<kinbody> attribute 'colour' is not known" in w for w in model.warnings)
