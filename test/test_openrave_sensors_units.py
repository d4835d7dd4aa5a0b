"""OpenRAVE ``<Manipulator>``, ``<AttachedSensor>`` and environment ``<sensor>`` elements
(body_bridge.formats.openrave.sensors) on small files written here: directions, IK solver
names, frames, where a device is defined, and the warnings about what is not read."""

from __future__ import annotations

import math
import textwrap

import numpy as np

from body_bridge.formats import load_model

BASE = ('<KinBody><Body name="base" type="static"><Geom type="box"><extents>0.1 0.1 0.1'
        '</extents></Geom></Body></KinBody>')


def robot(folder, extra: str):
    path = folder / 'r.robot.xml'
    path.write_text(textwrap.dedent(f"""\
        <Robot name="r">
          {BASE}
          {extra}
        </Robot>
        """))
    return path, load_model(path)


def test_manipulator_direction_solver_and_what_is_not_read(tmp_path):
    path, model = robot(tmp_path, """<Manipulator name="a" speed="3"><base>base</base>
            <effector>base</effector><direction>1 1 0</direction>
            <iksolver> ikfast_arm </iksolver><grip>1</grip></Manipulator>
          <Manipulator name="b"><base>base</base><effector>base</effector>
            <palmdirection>0 0 0</palmdirection></Manipulator>""")
    manips = {m.name: m for m in model.manipulators}
    h = math.sqrt(0.5)
    np.testing.assert_allclose(manips['a'].direction, [h, h, 0], atol=1e-12)
    assert manips['a'].ik_solver == 'ikfast_arm'
    np.testing.assert_array_equal(manips['b'].direction, [0, 0, 1])
    assert manips['b'].ik_solver is None
    assert model.warnings == (
        f"{path}:3: <manipulator> attribute 'speed' is not known and was ignored",
        f'{path}:5: <grip> in a Manipulator is not supported and was ignored')


def test_attached_sensor_is_defined_by_its_sensor_element(tmp_path):
    path, model = robot(tmp_path, """<AttachedSensor name="cam" kind="x"><link>base</link>
            <translation>0 0 0.5</translation><mount>top</mount>
            <sensor type="BaseCamera" args="fast"><width>32</width></sensor>
          </AttachedSensor>""")
    [camera] = model.devices
    assert camera.source == f'{path}:5'
    np.testing.assert_allclose(camera.pose.pos, [0, 0, 0.5])
    assert model.warnings == (
        f"{path}:3: <attachedsensor> attribute 'kind' is not known and was ignored",
        f'{path}:4: <mount> in an AttachedSensor is not supported and was ignored',
        f'{path}:5: sensor args are deprecated in OpenRAVE and were ignored')


def test_an_environment_sensor_has_its_own_frame(tmp_path):
    path = tmp_path / 'scene.env.xml'
    path.write_text(textwrap.dedent(f"""\
        <Environment>
          <Robot name="r">{BASE}</Robot>
          <sensor name="overhead" type="BaseLaser2D">
            <translation>1 0 3</translation><rotationaxis>0 0 1 90</rotationaxis>
            <maxrange>4</maxrange>
          </sensor>
        </Environment>
        """))
    model = load_model(path)
    [laser] = model.devices
    assert (laser.link, laser.source) == ('world', f'{path}:3')
    np.testing.assert_allclose(laser.pose.pos, [1, 0, 3])
    np.testing.assert_allclose(laser.pose.rot @ [1, 0, 0], [0, 1, 0], atol=1e-12)
    assert laser.params['max_distance'] == 4.0


FINGER = ('<KinBody><Body name="finger"><offsetfrom>base</offsetfrom><translation>0 0 0.2'
          '</translation><Geom type="box"><extents>0.01 0.01 0.01</extents></Geom></Body>'
          '<Joint name="f" type="slider"><Body>base</Body><Body>finger</Body>'
          '<axis>1 0 0</axis><limits>0 0.05</limits></Joint></KinBody>')


def test_gripper_joints_closing_signs_and_a_sensor_on_another_link(tmp_path):
    # The format's table: gripperjoints are k joint names, closingdirection k floats, of
    # which the sign says which way closes; an AttachedSensor's <link> names its link.
    path, model = robot(tmp_path, FINGER + """<Manipulator name="hand"><base>base</base>
            <effector>finger</effector><gripperjoints>f</gripperjoints>
            <closingdirection>-2.5</closingdirection></Manipulator>
          <AttachedSensor name="tip"><link>finger</link>
            <sensor type="BaseLaser2D"><maxrange>4</maxrange></sensor></AttachedSensor>""")
    [hand] = model.manipulators
    assert tuple(hand.gripper_joints) == ('f',)
    assert tuple(hand.closing_direction) == (-1.0,)
    [laser] = model.devices
    assert laser.link == 'finger'


def test_a_manipulator_of_a_missing_base_is_one_warning_and_a_taken_name_gets_tool(tmp_path):
    path, model = robot(tmp_path, FINGER + """<Manipulator name="m"><base>zz</base>
            <effector>finger</effector></Manipulator>
          <Manipulator name="finger"><base>base</base><effector>finger</effector>
            <translation>0 0 0.1</translation></Manipulator>""")
    [manip] = model.manipulators
    assert [w for w in model.warnings if "manipulator '" in w] == [
        f"{path}:3: manipulator 'm': base link 'zz' does not exist; it was ignored"]
    # the tool frame may not take the link's name 'finger': it is 'finger_tool'
    assert manip.name == 'finger' and manip.tool_frame == 'finger_tool'
    [frame] = model.frames
    assert (frame.name, frame.link) == ('finger_tool', 'finger')
    np.testing.assert_allclose(frame.pose.pos, [0, 0, 0.1], atol=1e-12)


def test_closing_directions_not_one_per_gripper_joint_are_warned(tmp_path):
    path, model = robot(tmp_path, FINGER + """<Manipulator name="hand"><base>base</base>
            <effector>finger</effector><gripperjoints>f</gripperjoints>
            <closingdirection>1 -1</closingdirection></Manipulator>""")
    assert [w for w in model.warnings if "manipulator '" in w] == [
        f"{path}:3: manipulator 'hand': 2 closing directions for 1 gripper joints"]


def test_a_manipulator_without_an_effector_is_one_warning(tmp_path):
    path, model = robot(tmp_path, '<Manipulator name="m"><base>base</base></Manipulator>')
    assert model.manipulators == ()
    assert [w for w in model.warnings if "manipulator '" in w] == [
        f"{path}:3: manipulator 'm': effector link None does not exist; it was ignored"]
