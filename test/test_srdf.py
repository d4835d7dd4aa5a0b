"""The SRDF written for MoveIt: well-formed, every name in the URDF, the never-colliding
pairs checked against a fresh sample, the declared pairs kept, the controller files in
agreement with the bridge's action names."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
import yaml

from body_bridge import urdf
from body_bridge.cli import main
from body_bridge.formats import load_model
from body_bridge.srdf import DEFAULT_SAMPLES, make_srdf, write_srdf
from body_bridge.srdf import collisions as C

from conftest import ROS_MISSING, SAMPLE_ARM, shared_model

MODELS = {
    'wam': 'openrave/src/robots/barrettwam.robot.xml',
    'sr1': 'choreonoid/share/model/SR1/SR1.body',
    'arm': None,
}
FRESH_SAMPLES, FRESH_SEED = 3000, 20261124


def _model(key):
    return load_model(SAMPLE_ARM if MODELS[key] is None else shared_model(MODELS[key]))


@pytest.fixture(scope='module', params=[
    pytest.param(key, marks=pytest.mark.corpus) if path else key
    for key, path in sorted(MODELS.items())])
def written(request, tmp_path_factory):
    model = _model(request.param)
    srdf = make_srdf(model, DEFAULT_SAMPLES, seed=0)
    folder = tmp_path_factory.mktemp(request.param)
    paths = write_srdf(srdf, folder / 'robot.srdf')
    text = urdf.to_urdf(model, mesh_dir=folder / 'meshes')
    return request.param, model, srdf, paths, ET.fromstring(text)


def test_srdf_is_well_formed_and_names_only_what_the_urdf_has(written):
    key, model, srdf, paths, robot_urdf = written
    root = ET.parse(paths[0]).getroot()
    assert root.tag == 'robot' and root.get('name') == robot_urdf.get('name')
    links = {e.get('name') for e in robot_urdf.iter('link')}
    joints = {e.get('name') for e in robot_urdf.iter('joint')}
    groups = {g.get('name') for g in root.findall('group')}
    assert groups and len(groups) == len(root.findall('group'))
    for group in root.findall('group'):
        assert len(group), f'group {group.get("name")} is empty'
        for chain in group.findall('chain'):
            assert {chain.get('base_link'), chain.get('tip_link')} <= links
        assert {e.get('name') for e in group.findall('link')} <= links
        assert {e.get('name') for e in group.findall('joint')} <= joints
        assert {e.get('name') for e in group.findall('group')} <= groups
    for state in root.findall('group_state'):
        assert state.get('name') == 'home' and state.get('group') in groups
        assert {e.get('name') for e in state.findall('joint')} <= joints
    for effector in root.findall('end_effector'):
        assert effector.get('parent_link') in links
        assert {effector.get('group'), effector.get('parent_group')} <= groups
    pairs = root.findall('disable_collisions')
    assert pairs and all({p.get('link1'), p.get('link2')} <= links for p in pairs)
    reasons = {p.get('reason') for p in pairs}
    assert {'Adjacent', 'Never'} <= reasons <= {'Adjacent', 'Declared', 'Never'}
    assert f'{DEFAULT_SAMPLES} configurations, seed 0' in paths[0].read_text()


def test_never_colliding_pairs_hold_over_a_fresh_sample(written):
    key, model, srdf, _, _ = written
    never = {p for p, reason in srdf.disabled.items() if reason == 'Never'}
    links, touching = C.colliding_pairs(
        model, C.sample_configurations(model, FRESH_SAMPLES, FRESH_SEED))
    assert touching, 'the fresh sample saw no contact at all: the check would be empty'
    assert not never & touching, sorted(never & touching)
    # ... and pairs that do touch were found: not everything is disabled.
    assert touching - set(srdf.disabled)


def test_declared_and_adjacent_pairs(written):
    key, model, srdf, _, _ = written
    for joint in model.joints:
        assert C.pair(joint.parent, joint.child) in srdf.disabled
    for a, b in model.adjacent:  # OpenRAVE <adjacent>
        assert C.pair(a, b) in srdf.disabled
    if key == 'sr1':  # collision_detection_rules: disabled_link_chain_level 3
        assert srdf.disabled[C.pair('RARM_SHOULDER_P', 'RARM_ELBOW')] in ('Adjacent',
                                                                          'Declared')
        assert srdf.disabled[C.pair('WAIST', 'RLEG_HIP_Y')] == 'Declared'  # 3 joints apart
        assert srdf.disabled.get(C.pair('WAIST', 'RLEG_KNEE')) != 'Declared'  # 4 apart


@pytest.mark.ros
def test_groups_and_controllers_match_the_bridge(written):
    pytest.importorskip('rclpy', reason=ROS_MISSING)
    from body_bridge.ros.control.commands import read_controllers
    from body_bridge.ros.control.grippers import find_grippers
    key, model, srdf, paths, _ = written
    names = {g.name for g in srdf.groups}
    expected = {'wam': {'arm', 'arm_hand'}, 'arm': {'sample_arm'},
                'sr1': {'UPPER-BODY', 'ARMS', 'R-ARM', 'L-ARM', 'LEGS', 'R-LEG', 'L-LEG'}}
    assert names == expected[key]
    moveit = yaml.safe_load(paths[1].read_text())['moveit_simple_controller_manager']
    bridge = yaml.safe_load(paths[2].read_text())['/**']['ros__parameters']['controllers']
    flat = {f'{name}.{k}': v for name, keys in bridge.items() for k, v in keys.items()}
    commanded = [j.name for j in model.movable_joints if j.mimic is None]
    controllers, warnings = read_controllers(flat, commanded)
    assert not warnings
    grippers = {g.name: g for g in find_grippers(model, controllers, commanded)}
    served = {c.name: ('FollowJointTrajectory', 'follow_joint_trajectory', list(c.joints))
              for c in controllers}
    served.update({name: ('GripperCommand', 'gripper_command', list(g.joints))
                   for name, g in grippers.items()})
    assert set(moveit['controller_names']) == set(served)
    for name in moveit['controller_names']:
        entry = moveit[name]
        assert (entry['type'], entry['action_ns'], entry['joints']) == served[name]
    if key == 'wam':
        assert served['arm_gripper'][2] == ['JF1', 'JF2', 'JF3']


def test_srdf_command_writes_the_three_files(tmp_path, capsys):
    out = tmp_path / 'arm.srdf'
    assert main(['srdf', str(SAMPLE_ARM), '-o', str(out), '--samples', '200']) == 0
    printed = capsys.readouterr().out.split()
    assert printed == [str(out), str(tmp_path / 'arm.moveit_controllers.yaml'),
                       str(tmp_path / 'arm.bridge.yaml')]
    assert '200 configurations' in out.read_text()


def test_bad_link_group_is_one_line(tmp_path, capsys):
    body = tmp_path / 'bad.body'
    body.write_text(SAMPLE_ARM.read_text() + '\nlink_group:\n  - name: G\n'
                    '    links: [ no_such_link ]\n')
    assert main(['srdf', str(body), '-o', str(tmp_path / 'x.srdf')]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and 'no_such_link' in err[0] and err[0].startswith(str(body))


TWO_TOOLS = """<Robot name="twotools"><KinBody>
  <Body name="base" type="static"><Geom type="box"><extents>0.1 0.1 0.05</extents></Geom></Body>
  <Body name="l1"><offsetfrom>base</offsetfrom><Translation>0 0 0.1</Translation>
    <Geom type="box"><extents>0.02 0.02 0.1</extents></Geom></Body>
  <Body name="l2"><offsetfrom>l1</offsetfrom><Translation>0 0 0.25</Translation>
    <Geom type="box"><extents>0.02 0.02 0.1</extents></Geom></Body>
  <Body name="finger"><offsetfrom>l2</offsetfrom><Translation>0 0 0.15</Translation>
    <Geom type="box"><extents>0.01 0.01 0.03</extents></Geom></Body>
  <Joint name="j1" type="hinge"><Body>base</Body><Body>l1</Body><axis>0 0 1</axis></Joint>
  <Joint name="j2" type="hinge"><Body>l1</Body><Body>l2</Body><axis>0 1 0</axis>
    <anchor>0 0 0.1</anchor></Joint>
  <Joint name="f" type="slider"><Body>l2</Body><Body>finger</Body><axis>1 0 0</axis>
    <limits>0 0.03</limits></Joint>
</KinBody>
  <Manipulator name="arm"><base>base</base><effector>l2</effector>
    <joints>f</joints><closingdirection>1</closingdirection></Manipulator>
  <Manipulator name="arm_tool"><base>base</base><effector>l2</effector>
    <Translation>0 0 0.2</Translation>
    <joints>f</joints><closingdirection>1</closingdirection></Manipulator>
</Robot>
"""


def test_one_default_controller_per_joint_set(tmp_path):
    """Two manipulators on one arm (two tool frames): two trajectory controllers and two
    grippers on the same joints, one of each the default, so MoveIt has no choice to make."""
    path = tmp_path / 'twotools.robot.xml'
    path.write_text(TWO_TOOLS)
    srdf = make_srdf(load_model(path), 200, seed=0)
    moveit = yaml.safe_load(write_srdf(srdf, tmp_path / 'r.srdf')[1].read_text())
    controllers = moveit['moveit_simple_controller_manager']
    defaults: dict[frozenset, list[str]] = {}
    for name in controllers['controller_names']:
        joints = frozenset(controllers[name]['joints'])
        defaults.setdefault(joints, [])
        if controllers[name]['default']:
            defaults[joints].append(name)
    assert defaults == {frozenset({'j1', 'j2'}): ['arm_controller'],
                        frozenset({'f'}): ['arm_gripper']}
    assert controllers['arm_tool_controller']['default'] is False
    assert controllers['arm_tool_gripper']['default'] is False
