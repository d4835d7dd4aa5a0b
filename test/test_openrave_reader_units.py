"""OpenRAVE XML reading semantics (body_bridge.formats.openrave.reader) on small files written
here: names of unnamed bodies, a prefix that renames mimic formulas, a KinBody's colour and
transparency over all its geometries, a Body element that adds to a link already read, a
KinBody's ambient colour warned about, a mesh file that is a FIFO named, not opened."""

from __future__ import annotations

import os
import textwrap

import pytest

from body_bridge.errors import ModelError
from body_bridge.formats import load_model

SPHERE = '<Geom type="sphere"><radius>0.1</radius></Geom>'


def write(folder, name: str, text: str):
    path = folder / name
    path.write_text(textwrap.dedent(text).strip() + '\n')
    return path


def test_unnamed_bodies_are_named_by_their_place_or_their_file(tmp_path):
    env = write(tmp_path, 'two.env.xml', f"""
        <Environment>
          <KinBody><Body name="a" type="static">{SPHERE}</Body></KinBody>
          <KinBody><Body name="a" type="static">{SPHERE}</Body></KinBody>
        </Environment>""")
    assert [link.name for link in load_model(env).links] == ['world', 'body0/a', 'body1/a']
    empty = write(tmp_path, 'crate.v2.kinbody.xml', '<KinBody>\n<translation>0 0 1</translation>'
                                                     '\n</KinBody>')
    with pytest.raises(ModelError) as info:
        load_model(empty)
    assert str(info.value) == f"{empty}:1: kinbody 'crate' has no links"


def test_a_prefix_renames_the_joints_a_mimic_formula_names(tmp_path):
    write(tmp_path, 'finger.kinbody.xml', f"""
        <KinBody name="finger">
          <Body name="base">{SPHERE}</Body>
          <Body name="p1">{SPHERE}</Body>
          <Body name="p2">{SPHERE}</Body>
          <Joint name="j1" type="hinge"><body>base</body><body>p1</body>
            <limitsdeg>-90 90</limitsdeg></Joint>
          <Joint name="j2" type="hinge" mimic_pos="2*j1" mimic_vel="|j1 2">
            <body>p1</body><body>p2</body><limitsdeg>-180 180</limitsdeg></Joint>
        </KinBody>""")
    hand = write(tmp_path, 'hand.robot.xml', f"""
        <Robot name="hand">
          <KinBody><Body name="palm">{SPHERE}</Body></KinBody>
          <KinBody prefix="L_" file="finger.kinbody.xml"/>
          <KinBody prefix="R_" file="finger.kinbody.xml"/>
          <KinBody>
            <Joint name="L" type="hinge" enable="false"><body>palm</body><body>L_base</body>
              <limitsdeg>0 0</limitsdeg></Joint>
            <Joint name="R" type="hinge" enable="false"><body>palm</body><body>R_base</body>
              <limitsdeg>0 0</limitsdeg></Joint>
          </KinBody>
        </Robot>""")
    joints = {j.name: j for j in load_model(hand).joints}
    for side in 'LR':
        mimic = joints[f'{side}_j2'].mimic
        assert (mimic.joint, mimic.multiplier, mimic.offset) == (f'{side}_j1', 2.0, 0.0)


def test_kinbody_colour_and_transparency_cover_its_geometries(tmp_path):
    path = write(tmp_path, 'thing.kinbody.xml', """
        <KinBody name="thing">
          <transparency>0.25 9</transparency>
          <diffusecolor>2 0.5 -1</diffusecolor>
          <Body name="a"><Geom type="sphere"><radius>0.1</radius>
            <diffusecolor>0 0 1</diffusecolor></Geom></Body>
          <Body name="b"><Geom type="box"><extents>0.1 0.1 0.1</extents></Geom></Body>
          <Joint name="j" type="hinge"><body>a</body><body>b</body></Joint>
        </KinBody>""")
    for link in load_model(path).links:
        assert [v.material.rgba for v in link.visuals] == [(1.0, 0.5, 0.0, 0.75)]
    clear = write(tmp_path, 'clear.kinbody.xml', f"""
        <KinBody name="clear"><transparency>-2</transparency>
          <Body name="a" type="static">{SPHERE}</Body></KinBody>""")
    [visual] = load_model(clear).link('a').visuals
    assert visual.material.rgba[3] == 1.0
    short = write(tmp_path, 'short.kinbody.xml', f"""
        <KinBody name="short">
          <Body name="a" type="static">{SPHERE}</Body>
          <diffusecolor>1 0</diffusecolor></KinBody>""")
    with pytest.raises(ModelError) as info:
        load_model(short)
    assert str(info.value) == f'{short}:3: <diffusecolor> must hold three numbers'


def test_a_body_read_again_adds_geometry_and_keeps_its_mass(tmp_path):
    path = write(tmp_path, 'again.kinbody.xml', """
        <KinBody name="again">
          <Body name="a"><Geom type="sphere"><radius>0.1</radius></Geom>
            <mass type="sphere"><radius>0.1</radius><total>3</total></mass></Body>
          <Body name="b"><Geom type="box"><extents>0.1 0.1 0.1</extents></Geom></Body>
          <Body name="a"><Geom type="box"><extents>0.1 0.1 0.1</extents></Geom></Body>
          <Joint name="j" type="hinge"><body>a</body><body>b</body></Joint>
        </KinBody>""")
    model = load_model(path)
    a = model.link('a')
    assert len(a.collisions) == 2
    assert a.inertial.mass == 3.0
    assert a.inertial.inertia[0, 0] == pytest.approx(0.4 * 3 * 0.1 ** 2)


def test_a_kinbody_ambient_colour_is_warned_and_a_fifo_mesh_is_not_opened(tmp_path):
    os.mkfifo(tmp_path / 'pipe.obj')
    path = write(tmp_path, 'k.kinbody.xml', f"""
        <KinBody name="k">
          <ambientcolor>0.1 0.1 0.1</ambientcolor>
          <Body name="a">{SPHERE}
            <Geom type="box"><extents>1 1 1</extents><render>pipe.obj</render></Geom>
          </Body>
        </KinBody>""")
    model = load_model(path)
    # the FIFO is named, not read (a read could wait for a writer): one line, the box drawn
    assert model.warnings == (
        f'{path}:2: <ambientcolor> is not kept (the model has no ambient colour)',
        f"{path}:4: mesh file 'pipe.obj' ({tmp_path / 'pipe.obj'}) is a FIFO (named pipe), not "
        'a regular file; the geometry has no shape from it')
    assert [type(v.geometry).__name__ for v in model.link('a').visuals] == ['Sphere', 'Box']
