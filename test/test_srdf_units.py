"""The SRDF writer's parts on small models written here: adjacent, chained and declared pairs,
the sampled configurations, the never-colliding pairs at their margin, the planning groups and
home states, and the three files written (the SRDF and the two controller files)."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import yaml

from body_bridge.formats import load_model
from body_bridge.formats.choreonoid.groups import BodyRules, LinkGroup
from body_bridge.model import (Frame, Inertial, Joint, JointType, Limits, Link, Manipulator,
                               Mimic, Model)
from body_bridge.model.shapes import Box, Shape
from body_bridge.model.transforms import Pose
from body_bridge.srdf import make_srdf, write_srdf
from body_bridge.srdf import collisions as C
from body_bridge.srdf.groups import controller_name, home_state, plan_groups

INERTIAL = Inertial(1.0, inertia=np.eye(3) * 0.01)
R, P, C_, F, B = (JointType.REVOLUTE, JointType.PRISMATIC, JointType.CONTINUOUS,
                  JointType.FIXED, JointType.BALL)


def link(name, at=(0, 0, 0), box=None, shape_at=(0, 0, 0)):
    shapes = () if box is None else (Shape(Box((box, box, box)), Pose(shape_at)),)
    return Link(name, Pose(at), INERTIAL, collisions=shapes)


def joint(name, kind, parent, child, lo=None, hi=None, **kw):
    return Joint(name, kind, parent, child, limits=Limits(lo, hi), **kw)


def chain_model(**kw):
    """base -j1- l1 =f= l1b =g= l1c -j2- l2 -j3- l3, and base -j5- side (=: fixed)."""
    names = ['base', 'l1', 'l1b', 'l1c', 'l2', 'l3', 'side']
    joints = [joint('j1', R, 'base', 'l1', -1, 1), joint('f', F, 'l1', 'l1b'),
              joint('g', F, 'l1b', 'l1c'), joint('j2', P, 'l1c', 'l2', 0, 0.1),
              joint('j3', C_, 'l2', 'l3'), joint('j5', R, 'base', 'side', -1, 1)]
    return Model('chain', tuple(link(n) for n in names), tuple(joints), 'base', **kw)


def test_pair_is_in_name_order():
    assert C.pair('b', 'a') == C.pair('a', 'b') == ('a', 'b')


def test_adjacent_pairs_join_the_rigid_bodies_each_joint_connects():
    rigid = {('l1', 'l1b'), ('l1', 'l1c'), ('l1b', 'l1c')}
    across = {('base', 'l1'), ('base', 'l1b'), ('base', 'l1c'), ('l1', 'l2'), ('l1b', 'l2'),
              ('l1c', 'l2'), ('l2', 'l3'), ('base', 'side')}
    assert C.adjacent_pairs(chain_model()) == rigid | across


def test_sampled_configurations_fill_each_joint_range():
    inf = math.inf
    joints = [joint('lim', R, 'base', 'a', -0.5, 0.25), joint('cont', C_, 'base', 'b', -1, 1),
              joint('slide', P, 'base', 'c'), joint('half', P, 'base', 'd', 0.0, None),
              joint('open', R, 'base', 'e', -inf, inf), joint('upinf', P, 'base', 'f', 0.0, inf),
              joint('fixed', F, 'base', 'g'), joint('ball', B, 'base', 'h'),
              joint('follower', R, 'base', 'i', -2, 2, mimic=Mimic('lim', 2.0)),
              joint('grip', P, 'base', 'k', 0.0, 0.03)]
    names = ['base', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'k']
    model = Model('ranges', tuple(link(n) for n in names), tuple(joints), 'base')
    q = C.sample_configurations(model, 4000, seed=3)
    expected = [(-0.5, 0.25), (-math.pi, math.pi), (-1, 1), (-1, 1), (-math.pi, math.pi),
                (-1, 1), (0, 0.03)]
    assert q.shape == (4000, len(expected))
    for column, (lo, hi) in zip(q.T, expected):
        assert lo <= column.min() < lo + 0.01 * (hi - lo)
        assert hi - 0.01 * (hi - lo) < column.max() <= hi
    assert np.array_equal(q, C.sample_configurations(model, 4000, seed=3))
    assert not np.array_equal(q, C.sample_configurations(model, 4000, seed=4))


def gap_model():
    """Boxes of 0.1 m beside ``a``: ``near`` 5 mm away, ``far`` 15 mm; ``swing`` turns
    (0 to 90 degrees) an arm 0.3 m out onto ``post``; the others stay where they are (a
    nano-radian of range). ``base`` has no shape."""
    links = [link('base'), link('a', box=0.1), link('near', (0.105, 0, 0), 0.1),
             link('far', (0, 0.115, 0), 0.1), link('post', (0, 0.3, 0), 0.1),
             link('swing', box=0.1, shape_at=(0.3, 0, 0))]
    joints = [joint(f'j_{n}', R, 'base', n, 0.0, 1e-9) for n in ('a', 'near', 'far', 'post')]
    joints.append(joint('turn', R, 'base', 'swing', 0.0, math.pi / 2))
    return Model('gaps', tuple(links), tuple(joints), 'base')


def test_colliding_pairs_within_a_margin():
    model = gap_model()
    q = C.sample_configurations(model, 40, seed=1)
    links, touching = C.colliding_pairs(model, q)
    assert links == ['a', 'far', 'near', 'post', 'swing']
    assert touching == {('post', 'swing')}
    assert C.colliding_pairs(model, q, 0.01)[1] == {('post', 'swing'), ('a', 'near')}
    wider = C.colliding_pairs(model, q, 0.02)[1]  # far and near: 15.8 mm corner to corner
    assert {('post', 'swing'), ('a', 'near'), ('a', 'far')} <= wider <= {
        ('post', 'swing'), ('a', 'near'), ('a', 'far'), ('far', 'near')}


def test_never_colliding_pairs_keep_their_margin_and_skip_the_disabled():
    model = gap_model()
    assert C.NEVER_MARGIN == 0.01
    every = {C.pair(a, b) for a in ['a', 'far', 'near', 'post', 'swing']
             for b in ['a', 'far', 'near', 'post', 'swing'] if a != b}
    never = C.never_colliding(model, 40, seed=1)
    assert never == every - {('post', 'swing'), ('a', 'near')}
    assert C.never_colliding(model, 40, 1, skip={('a', 'far')}) == never - {('a', 'far')}


def hand_model(**kw):
    """root -j0- base -j1- l1 =f= l1b -j2- l2 -jm- l3 (jm mimics j2) -j3- tip, and on the tip
    two fingers ``f1`` (closing +1) and ``f2`` (0: not closed by the gripper), ``fm``
    mimicking ``f1``; the manipulator ``arm`` from ``base`` to ``tip``."""
    names = ['root', 'base', 'l1', 'l1b', 'l2', 'l3', 'tip', 'a', 'b', 'c']
    joints = [joint('j0', R, 'root', 'base', -1, 1), joint('j1', R, 'base', 'l1', -1, 1,
                                                              initial=0.1234567891234),
              joint('f', F, 'l1', 'l1b'), joint('j2', R, 'l1b', 'l2', -1, 1),
              joint('jm', R, 'l2', 'l3', -1, 1, mimic=Mimic('j2')),
              joint('j3', R, 'l3', 'tip', -1, 1), joint('f1', P, 'tip', 'a', 0, 0.03),
              joint('f2', P, 'tip', 'b', 0, 0.03),
              joint('fm', P, 'tip', 'c', 0, 0.03, mimic=Mimic('f1'))]
    return Model('hand', tuple(link(n) for n in names), tuple(joints), 'root',
                 frames=(Frame('tool', 'tip'),), **kw)


def manipulator(name, gripper=('f1', 'f2'), closing=(1, 0)):
    return Manipulator(name, 'base', 'tip', 'tool', gripper_joints=gripper,
                       closing_direction=closing)


def test_a_manipulator_is_an_arm_chain_and_a_hand():
    groups, effectors = plan_groups(hand_model(manipulators=(manipulator('arm'),)))
    arm, hand = groups
    assert (arm.name, arm.chain, arm.joints) == ('arm', ('base', 'tip'), ['j1', 'j2', 'j3'])
    assert (hand.name, hand.joint_elements, hand.joints, hand.gripper) == (
        'arm_hand', ['f1', 'f2', 'fm'], ['f1', 'f2'], ('f1',))
    assert [(e.name, e.parent_link, e.group, e.parent_group) for e in effectors] == [
        ('arm_hand', 'tip', 'arm_hand', 'arm')]


def test_a_manipulator_without_gripper_joints_has_no_hand():
    model = hand_model(manipulators=(manipulator('arm', (), ()),))
    groups, effectors = plan_groups(model)
    assert [g.name for g in groups] == ['arm'] and effectors == []


def test_link_groups_list_subgroups_first_with_their_commanded_joints():
    legs = LinkGroup('LEGS', ('l1',), (LinkGroup('R-LEG', ('l2', 'l3'), ()),))
    groups, effectors = plan_groups(hand_model(), BodyRules((legs, LinkGroup('BASE', ('root',),
                                                                             ()))))
    assert [(g.name, g.links, g.subgroups, g.joints) for g in groups] == [
        ('R-LEG', ['l2', 'l3'], [], ['j2']), ('LEGS', ['l1'], ['R-LEG'], ['j1', 'j2']),
        ('BASE', ['root'], [], [])]
    assert effectors == []


def test_without_manipulators_or_groups_one_group_of_every_1_dof_joint():
    (group,), _ = plan_groups(hand_model(), BodyRules())
    assert group.name == 'hand' and group.chain is None
    assert group.joint_elements == ['j0', 'j1', 'j2', 'jm', 'j3', 'f1', 'f2', 'fm']
    assert group.joints == ['j0', 'j1', 'j2', 'j3', 'f1', 'f2']
    still = Model('still', (link('a'), link('b')), (joint('fixed', F, 'a', 'b'),), 'a')
    assert plan_groups(still) == ([], [])


def test_controller_names_are_ros_names():
    assert controller_name('arm') == 'arm_controller'
    assert controller_name('R-ARM 2') == 'R_ARM_2_controller'
    assert controller_name('2arms') == 'g_2arms_controller'


def test_home_state_puts_joints_at_their_initial_positions_within_limits():
    joints = [joint('over', R, 'a', 'b', -0.2, 0.3, initial=0.5),
              joint('under', R, 'a', 'c', -0.2, 0.3, initial=-1.0),
              joint('inside', R, 'a', 'd', -0.2, 0.3, initial=0.1),
              joint('free', C_, 'a', 'e', initial=-7.0), joint('low', P, 'a', 'f', 0.0, None,
                                                             initial=-1.0)]
    model = Model('m', tuple(link(n) for n in 'abcdef'), tuple(joints), 'a')
    (group,), _ = plan_groups(model)
    values = home_state(model, group)
    assert values == {'over': 0.3, 'under': -0.2, 'inside': 0.1, 'free': -7.0, 'low': 0.0}
    assert all(type(v) is float for v in values.values())


def test_declared_pairs_are_disabled_unless_adjacent_and_no_sample_finds_none():
    model = chain_model(adjacent=(('l3', 'l1'), ('base', 'l1')))
    srdf = make_srdf(model, samples=0)
    assert srdf.disabled == {**{p: 'Adjacent' for p in C.adjacent_pairs(model)},
                             ('l1', 'l3'): 'Declared'}


def test_sampled_pairs_never_near_are_disabled_as_never():
    model = gap_model()
    srdf = make_srdf(model, samples=40, seed=1)
    never = {p for p, reason in srdf.disabled.items() if reason == 'Never'}
    assert never == C.never_colliding(model, 40, 1) == {
        ('a', 'far'), ('a', 'post'), ('a', 'swing'), ('far', 'near'), ('far', 'post'),
        ('far', 'swing'), ('near', 'post'), ('near', 'swing')}
    assert {p for p, reason in srdf.disabled.items() if reason == 'Adjacent'} == {
        C.pair('base', n) for n in ('a', 'near', 'far', 'post', 'swing')}
    assert (srdf.samples, srdf.seed) == (40, 1)


BODY = """format: ChoreonoidBody
format_version: 2.0
name: legs
root_link: WAIST
links:
  - { name: WAIST, joint_type: fixed, mass: 1, inertia: [0.01, 0, 0, 0.01, 0, 0.01] }
  - { name: HIP, parent: WAIST, joint_type: revolute, joint_axis: Z, joint_range: [-90, 90],
      mass: 1, inertia: [0.01, 0, 0, 0.01, 0, 0.01] }
  - { name: KNEE, parent: HIP, joint_type: revolute, joint_axis: Y, joint_range: [0, 90],
      mass: 1, inertia: [0.01, 0, 0, 0.01, 0, 0.01] }
  - { name: FOOT, parent: KNEE, joint_type: revolute, joint_axis: Y,
      mass: 1, inertia: [0.01, 0, 0, 0.01, 0, 0.01] }
  - { name: ARM, parent: WAIST, joint_type: revolute, joint_axis: Y,
      mass: 1, inertia: [0.01, 0, 0, 0.01, 0, 0.01] }
link_group:
  - name: BODY
    links: [ WAIST, { name: LEG, links: [ HIP, KNEE, FOOT ] } ]
collision_detection_rules:
  - disabled_link_chain_level: 2
  - disabled_link_group: [ FOOT, ARM, KNEE ]
  - enabled_link_group: [ KNEE, ARM ]
"""


def test_a_body_files_groups_and_collision_rules_applied_in_order(tmp_path):
    """Links 2 joints apart, and the group FOOT, ARM, KNEE but for KNEE and ARM."""
    path = tmp_path / 'legs.body'
    path.write_text(BODY)
    srdf = make_srdf(load_model(path), samples=0)
    assert [g.name for g in srdf.groups] == ['LEG', 'BODY']
    declared = {p for p, reason in srdf.disabled.items() if reason == 'Declared'}
    assert declared == {('HIP', 'WAIST'), ('ARM', 'HIP'), ('KNEE', 'WAIST'), ('FOOT', 'HIP'),
                        ('ARM', 'FOOT')} - C.adjacent_pairs(srdf.model)
    assert declared == {('ARM', 'HIP'), ('KNEE', 'WAIST'), ('FOOT', 'HIP'), ('ARM', 'FOOT')}
    no_rules = tmp_path / 'plain.body'
    no_rules.write_text(BODY.split('link_group:')[0])
    srdf = make_srdf(load_model(no_rules), samples=0)
    assert set(srdf.disabled.values()) == {'Adjacent'} and srdf.groups[0].name == 'legs'


def test_no_sample_no_never_pairs_one_sample_some():
    assert set(make_srdf(gap_model(), samples=0).disabled.values()) == {'Adjacent'}
    assert 'Never' in make_srdf(gap_model(), samples=1).disabled.values()


def test_the_srdf_file(tmp_path):
    legs = LinkGroup('LEGS', ('l1',), (LinkGroup('R-LEG', ('l2', 'l3'), ()),))
    model = hand_model(manipulators=(manipulator('arm'),), adjacent=(('tip', 'root'),))
    srdf = make_srdf(model, samples=0)
    srdf.groups, srdf.effectors = plan_groups(model, BodyRules((legs, LinkGroup('BASE', ('root',),
                                                                               ()))))
    path, moveit, bridge = write_srdf(srdf, tmp_path / 'r.srdf')
    text = path.read_text()
    assert text.startswith('<?xml version="1.0"?>\n<robot name="hand">')
    # one element a line, indented two spaces a level (a file a person reads and diffs)
    assert '\n  <group name="arm">\n    <chain ' in text and text.endswith('</robot>\n')
    robot = ET.fromstring(text)
    assert '<!-- written by body_bridge from ; never-colliding pairs from 0 configurations, ' \
        'seed 0 -->' in text
    groups = {g.get('name'): [(e.tag, dict(e.attrib)) for e in g] for g in robot.findall('group')}
    assert list(groups) == ['arm', 'arm_hand', 'R-LEG', 'LEGS', 'BASE']
    assert groups['arm'] == [('chain', {'base_link': 'base', 'tip_link': 'tip'})]
    assert groups['arm_hand'] == [('joint', {'name': n}) for n in ('f1', 'f2', 'fm')]
    assert groups['LEGS'] == [('link', {'name': 'l1'}), ('group', {'name': 'R-LEG'})]
    states = [(s.get('name'), s.get('group'), [(j.get('name'), j.get('value')) for j in s])
              for s in robot.findall('group_state')]
    j1 = ('j1', '0.123456789')
    assert states == [('home', 'arm', [j1, ('j2', '0'), ('j3', '0')]),
                      ('home', 'arm_hand', [('f1', '0'), ('f2', '0')]),
                      ('home', 'R-LEG', [('j2', '0')]), ('home', 'LEGS', [j1, ('j2', '0')])]
    assert [dict(e.attrib) for e in robot.findall('end_effector')] == [
        {'name': 'arm_hand', 'parent_link': 'tip', 'group': 'arm_hand', 'parent_group': 'arm'}]
    pairs = [(e.get('link1'), e.get('link2'), e.get('reason'))
             for e in robot.findall('disable_collisions')]
    assert pairs == sorted(pairs) and ('root', 'tip', 'Declared') in pairs
    assert len(pairs) == len(srdf.disabled)
    assert (moveit, bridge) == (tmp_path / 'r.moveit_controllers.yaml',
                                tmp_path / 'r.bridge.yaml')
    controllers = yaml.safe_load(moveit.read_text())
    assert controllers['moveit_controller_manager'] == \
        'moveit_simple_controller_manager/MoveItSimpleControllerManager'
    manager = controllers['moveit_simple_controller_manager']
    # in the order MoveIt's documentation writes them: the names first, each entry's type first
    assert list(manager) == ['controller_names', 'arm_controller', 'arm_gripper',
                             'R_LEG_controller']
    assert list(manager['arm_controller']) == ['type', 'action_ns', 'default', 'joints']
    assert list(yaml.safe_load(bridge.read_text())['/**']['ros__parameters']['controllers'][
        'arm_controller']) == ['type', 'joints']
    assert manager.pop('controller_names') == ['arm_controller', 'arm_gripper',
                                               'R_LEG_controller']
    assert manager == {
        'arm_controller': {'type': 'FollowJointTrajectory', 'action_ns':
                           'follow_joint_trajectory', 'default': True,
                           'joints': ['j1', 'j2', 'j3']},
        'arm_gripper': {'type': 'GripperCommand', 'action_ns': 'gripper_command',
                        'default': True, 'joints': ['f1']},
        'R_LEG_controller': {'type': 'FollowJointTrajectory', 'action_ns':
                             'follow_joint_trajectory', 'default': True, 'joints': ['j2']}}
    assert yaml.safe_load(bridge.read_text()) == {'/**': {'ros__parameters': {'controllers': {
        name: {'type': 'joint_trajectory_controller/JointTrajectoryController',
               'joints': manager[name]['joints']}
        for name in ('arm_controller', 'R_LEG_controller')}}}}


def test_one_default_controller_per_joint_set_and_the_file_names(tmp_path):
    model = hand_model(manipulators=(manipulator('arm'), manipulator('arm_tool')))
    paths = write_srdf(make_srdf(model, samples=0), tmp_path / 'robot')
    assert paths == [tmp_path / 'robot', tmp_path / 'robot.moveit_controllers.yaml',
                     tmp_path / 'robot.bridge.yaml']
    assert all(p.is_file() for p in paths)
    manager = yaml.safe_load(paths[1].read_text())['moveit_simple_controller_manager']
    assert [(n, manager[n]['default']) for n in manager['controller_names']] == [
        ('arm_controller', True), ('arm_gripper', True), ('arm_tool_controller', False),
        ('arm_tool_gripper', False)]
