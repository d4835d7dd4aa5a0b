"""An OpenRAVE arm with a gripper, written here: the manipulator's arm chain, gripper joints
and tool frame, and <adjacent> pairs the integrator never lets collide (a clone without the
real model corpus tests what the Barrett WAM and hand test with it)."""

import textwrap

import numpy as np
import pytest

from body_bridge.formats import load_model

ARM = """
    <Robot name="arm">
      <KinBody>
        <Body name="base" type="static">
          <Geom type="box"><extents>0.1 0.1 0.05</extents></Geom></Body>
        <Body name="l1"><offsetfrom>base</offsetfrom><translation>0 0 0.1</translation>
          <Geom type="cylinder"><radius>0.03</radius><height>0.1</height></Geom>
          <Mass type="box"><total>1</total><extents>0.03 0.03 0.05</extents></Mass></Body>
        <Joint name="j1" type="hinge"><Body>base</Body><Body>l1</Body>
          <offsetfrom>l1</offsetfrom><axis>0 0 1</axis><limitsdeg>-90 90</limitsdeg></Joint>
        <Body name="l2"><offsetfrom>l1</offsetfrom><translation>0 0 0.2</translation>
          <Geom type="box"><extents>0.02 0.02 0.1</extents></Geom></Body>
        <Joint name="j2" type="hinge"><Body>l1</Body><Body>l2</Body>
          <offsetfrom>l2</offsetfrom><axis>0 1 0</axis></Joint>
        <Body name="finger"><offsetfrom>l2</offsetfrom><translation>0 0 0.12</translation>
          <Geom type="box"><extents>0.01 0.01 0.02</extents></Geom></Body>
        <Joint name="f1" type="slider"><Body>l2</Body><Body>finger</Body>
          <offsetfrom>finger</offsetfrom><axis>1 0 0</axis><limits>0 0.05</limits></Joint>
        <adjacent>l2 finger</adjacent>
        <adjacent>l1 nope</adjacent>
      </KinBody>
      <Manipulator name="gripper"><base>base</base><effector>l2</effector>
        <joints>f1</joints><closingdirection>1</closingdirection>
        <translation>0 0 0.1</translation><direction>0 0 1</direction></Manipulator>
    </Robot>
"""


@pytest.fixture
def arm(tmp_path):
    path = tmp_path / 'arm.robot.xml'
    path.write_text(textwrap.dedent(ARM).strip() + '\n')
    return load_model(path)


def test_manipulator_chain_gripper_and_tool_frame(arm, tmp_path):
    from body_bridge.urdf import to_urdf
    (manip,) = arm.manipulators
    assert (manip.name, manip.base, manip.effector) == ('gripper', 'base', 'l2')
    assert list(manip.arm_joints) == ['j1', 'j2'] and list(manip.gripper_joints) == ['f1']
    assert list(manip.closing_direction) == [1]
    np.testing.assert_allclose(manip.direction, (0, 0, 1))
    tool = next(f for f in arm.frames if f.name == manip.tool_frame)
    assert tool.link == 'l2'
    np.testing.assert_allclose(tool.pose.pos, (0, 0, 0.1))
    urdf = to_urdf(arm, mesh_dir=tmp_path)
    assert f'<link name="{manip.tool_frame}"' in urdf


def test_adjacent_links_never_collide_and_unknown_ones_are_warned(arm):
    from body_bridge.sim.building.build import BuildOptions, build_spec
    assert arm.adjacent == (('l2', 'finger'),)
    assert any("<adjacent> names a link that does not exist: 'l1' or 'nope'; ignored" in w
               for w in arm.warnings), arm.warnings
    mj = build_spec(arm, BuildOptions(self_collision=True)).compile()
    pairs = {frozenset((mj.body(b1).name, mj.body(b2).name))
             for b1, b2 in zip(mj.exclude_signature >> 16, mj.exclude_signature & 0xFFFF)}
    assert frozenset(('l2', 'finger')) in pairs
