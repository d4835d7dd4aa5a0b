"""What Model refuses, in one line naming the file at fault (the item's own source, else the
model's), and what it answers about a valid tree (model/model.py)."""

import math

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.model import (BodyVelocity, Box, Bushing, ContactMaterial, ContactPair, Device,
                               Frame, Function, Joint, Link, Load, LoopClosure, Manipulator,
                               Model, Motor, Pose, Shape, ShapeContact, Spring)

SRC = 'robot.yaml'


def _tree(**extra):
    """base -> upper (revolute 'shoulder') -> hand (prismatic 'slide'); base -> side (fixed)."""
    links = (Link('base'), Link('upper', Pose((0, 0, 1))),
             Link('hand', Pose((0, 0, 2)), collisions=(Shape(Box((1, 1, 1))),)),
             Link('side', Pose((1, 0, 0))))
    joints = (Joint('slide', 'prismatic', 'upper', 'hand', axis=(1, 0, 0)),
              Joint('shoulder', 'revolute', 'base', 'upper'),
              Joint('weld', 'fixed', 'base', 'side'))
    return Model('m', links, joints, root='base', source=SRC, **extra)


def _refused(**extra) -> str:
    with pytest.raises(ModelError) as refused:
        _tree(**extra)
    return str(refused.value)


FN = Function('constant', (1.0,))


@pytest.mark.parametrize('extra, line', [
    (dict(devices=(Device('imu', 'imu', 'nowhere', source='d.body:3'),)),
     "d.body:3: device 'imu' is on unknown link 'nowhere'"),
    (dict(devices=(Device('imu', 'imu', 'nowhere'),)),
     f"{SRC}: device 'imu' is on unknown link 'nowhere'"),
    (dict(frames=(Frame('tool', 'nowhere', source='f.xml:2'),)),
     "f.xml:2: frame 'tool' is on unknown link 'nowhere'"),
    (dict(frames=(Frame('upper', 'hand', source='f.xml:4'),)),
     "f.xml:4: frame 'upper' has the name of a link"),
    (dict(frames=(Frame('upper', 'hand'),)), f"{SRC}: frame 'upper' has the name of a link"),
    (dict(adjacent=(('base', 'ghost'),)),
     f"{SRC}: adjacent pair ('base', 'ghost') names unknown link 'ghost'"),
    (dict(springs=(Spring('s', 'joint', joint='elbow', source='s.yaml:1'),)),
     "s.yaml:1: spring 's' refers to unknown joint 'elbow'"),
    (dict(springs=(Spring('s', 'translational', link1='base', link2='ghost'),)),
     f"{SRC}: spring 's' refers to unknown link 'ghost'"),
    (dict(closures=(LoopClosure('loop', 'ball', 'side', 'ghost', source='c.body:9'),)),
     "c.body:9: loop closure 'loop' refers to unknown link 'ghost'"),
    (dict(closures=(LoopClosure('loop', 'weld', 'ghost', 'hand'),)),
     f"{SRC}: loop closure 'loop' refers to unknown link 'ghost'"),
    (dict(closures=(LoopClosure('loop', 'ball', 'hand', 'hand', source='c.body:9'),)),
     "c.body:9: loop closure 'loop' joins link 'hand' to itself"),
    (dict(closures=(LoopClosure('loop', 'weld', 'side', 'side'),)),
     f"{SRC}: loop closure 'loop' joins link 'side' to itself"),
    (dict(bushings=(Bushing('b', 'ghost', 'hand'),)),
     f"{SRC}: bushing 'b' refers to unknown link 'ghost'"),
    (dict(motors=(Motor('m', 'rotation', 'speed', FN, source='m.yaml:2'),)),
     "m.yaml:2: motor 'm' must drive exactly one joint or closure"),
    (dict(motors=(Motor('m', 'rotation', 'speed', FN, joint='shoulder', closure='c'),)),
     f"{SRC}: motor 'm' must drive exactly one joint or closure"),
    (dict(motors=(Motor('m', 'rotation', 'speed', FN, joint='elbow'),)),
     f"{SRC}: motor 'm' refers to unknown joint 'elbow'"),
    (dict(motors=(Motor('m', 'rotation', 'speed', FN, closure='loop', source='m.yaml:5'),)),
     "m.yaml:5: motor 'm' refers to unknown closure 'loop'"),
    (dict(loads=(Load('push', 'force', 'ghost', source='l.yaml:1'),)),
     "l.yaml:1: load 'push' refers to unknown link 'ghost'"),
    (dict(initial_velocities=(BodyVelocity('ghost'),)),
     f"{SRC}: initial velocity of '' refers to unknown link 'ghost'"),
    (dict(contacts=(ShapeContact('ghost', 0, ContactMaterial('steel')),)),
     f"{SRC}: contact material of '' refers to unknown link 'ghost'"),
    (dict(contacts=(ShapeContact('hand', 1, ContactMaterial('steel')),)),
     f"{SRC}: contact material of 'hand': no collision shape 1"),
    (dict(contacts=(ShapeContact('hand', -1, ContactMaterial('steel')),)),
     f"{SRC}: contact material of 'hand': no collision shape -1"),
    (dict(contacts=(ShapeContact('base', 0, ContactMaterial('steel')),)),
     f"{SRC}: contact material of 'base': no collision shape 0"),
    (dict(passive_joints=('shoulder', 'elbow')),
     f"{SRC}: passive joint list '' refers to unknown joint 'elbow'"),
    (dict(welded_balls=('weld', 'elbow')),
     f"{SRC}: welded ball joint list '' refers to unknown joint 'elbow'"),
    (dict(welded_balls=('weld', 'shoulder')), f"{SRC}: welded ball joint 'shoulder' is not fixed"),
    (dict(manipulators=(Manipulator('arm', 'base', 'ghost', 'tool', source='r.xml:7'),)),
     "r.xml:7: manipulator 'arm': unknown link 'ghost'"),
    (dict(manipulators=(Manipulator('arm', 'ghost', 'hand', 'tool'),)),
     f"{SRC}: manipulator 'arm': unknown link 'ghost'"),
    (dict(manipulators=(Manipulator('arm', 'base', 'hand', 'tool'),)),
     f"{SRC}: manipulator 'arm': tool frame 'tool' is not in the model's frames"),
    (dict(frames=(Frame('tool', 'hand'),),
          manipulators=(Manipulator('arm', 'base', 'hand', 'tool', ('shoulder', 'elbow')),)),
     f"{SRC}: manipulator 'arm': unknown joint 'elbow'"),
    (dict(frames=(Frame('tool', 'hand'),),
          manipulators=(Manipulator('arm', 'base', 'hand', 'tool', gripper_joints=('f',)),)),
     f"{SRC}: manipulator 'arm': unknown joint 'f'"),
])
def test_a_model_naming_what_is_not_there_is_refused_in_one_line(extra, line):
    assert _refused(**extra) == line


def test_what_every_reference_names_is_accepted():
    model = _tree(
        devices=(Device('imu', 'imu', 'hand'),), frames=(Frame('tool', 'hand'),),
        adjacent=(('base', 'side'),),
        closures=(LoopClosure('loop', 'ball', 'side', 'hand'),),
        springs=(Spring('s', 'joint', joint='shoulder'),
                 Spring('t', 'translational', link1='base', link2='hand')),
        bushings=(Bushing('b', 'side', 'hand'),),
        motors=(Motor('m', 'rotation', 'speed', FN, joint='shoulder'),
                Motor('n', 'linear', 'force', FN, closure='loop')),
        loads=(Load('push', 'force', 'hand'),), initial_velocities=(BodyVelocity('upper'),),
        contacts=(ShapeContact('hand', 0, ContactMaterial('steel')),),
        passive_joints=('slide',), welded_balls=('weld',), gravity=(0, 0, -1.62), timestep=0.002,
        contact_pairs=(ContactPair('steel', 'ice', 0.05),), contact_ground='ice',
        self_collision=True, ground_plane=False, warnings=('robot.yaml:3: ignored',),
        manipulators=(Manipulator('arm', 'base', 'hand', 'tool', ('shoulder',), ('slide',)),))
    assert model.gravity.tolist() == [0, 0, -1.62] and not model.gravity.flags.writeable
    assert (model.timestep, model.contact_pairs[0].second, model.contact_ground,
            model.self_collision, model.ground_plane, model.warnings) == \
        (0.002, 'ice', 'ice', True, False, ('robot.yaml:3: ignored',))
    plain = _tree()
    assert (plain.timestep, plain.contact_pairs, plain.contact_ground, plain.self_collision,
            plain.ground_plane, plain.gravity) == (None, (), None, None, None, None)
    assert (plain.warnings, plain.dropped) == ((), ())  # nothing ignored, nothing left out
    # the printed model names its parts once, not the lookup tables built from them
    assert ' _joints=' not in repr(plain) and ' _links=' not in repr(plain)
    for table in ('_links', '_joints', '_parent_joint'):  # built from the parts, never given
        with pytest.raises(TypeError):
            _tree(**{table: {}})
    assert model.link('hand').name == 'hand' and model.joint('slide').type.value == 'prismatic'
    assert model.parent_joint('hand').name == 'slide' and model.parent_joint('base') is None


def test_joints_are_ordered_parents_first():
    model = _tree()
    order = [j.name for j in model.ordered_joints()]
    assert sorted(order) == ['shoulder', 'slide', 'weld']
    assert order.index('shoulder') < order.index('slide')   # slide hangs from shoulder's child
    assert [j.name for j in model.movable_joints] == ['slide', 'shoulder']
    np.testing.assert_allclose(model.joint_origin(model.joint('slide')).pos, (0, 0, 1))


@pytest.mark.parametrize('norm, ok', [(1 + 5e-7, True), (1 - 5e-7, True), (1 + 1.5e-6, False),
                                      (1 - 1.5e-6, False), (math.nan, False)])
def test_a_moving_joint_s_axis_is_a_unit_vector_within_a_millionth(norm, ok):
    links = (Link('a'), Link('b'))
    joint = Joint('j', 'revolute', 'a', 'b', axis=(0, 0, norm))
    if ok:
        assert Model('m', links, (joint,), root='a').joint('j').axis[2] == norm
    else:
        with pytest.raises(ModelError, match="joint 'j': axis is not a unit vector"):
            Model('m', links, (joint,), root='a')
    assert Model('m', links, (Joint('j', 'fixed', 'a', 'b', axis=(0, 0, 5)),), root='a')


def test_duplicates_cycles_and_a_root_that_moves_are_refused():
    a, b = Link('a'), Link('b', source='b.body:4')
    with pytest.raises(ModelError, match="^b.body:4: duplicate link name 'b'$"):
        Model('m', (a, b, b), (), root='a')
    j = Joint('j', 'fixed', 'a', 'b')
    with pytest.raises(ModelError, match="^j.body:2: duplicate joint name 'j'$"):
        Model('m', (a, b, Link('c')), (j, Joint('j', 'fixed', 'a', 'c', source='j.body:2')),
              root='a')
    with pytest.raises(ModelError, match="link 'b' has two parent joints"):
        Model('m', (a, b), (j, Joint('k', 'fixed', 'a', 'b')), root='a')
    with pytest.raises(ModelError, match="root link 'z' does not exist"):
        Model('m', (a, b), (j,), root='z')
    with pytest.raises(ModelError, match='attached to the world by revolute; only fixed or free'):
        Model('m', (a, b), (j,), root='a', root_joint='revolute')
    assert Model('m', (a, b), (j,), root='a', root_joint='free').root_joint.value == 'free'
    c = Link('c')
    with pytest.raises(ModelError, match="the joints form a cycle through|not connected"):
        Model('m', (a, b, c), (Joint('x', 'fixed', 'b', 'c'), Joint('y', 'fixed', 'c', 'b')),
              root='a')
