"""``info``'s tree and JSON (summary.py) of a model built in code: every kind of joint line,
devices with and without topics, frames, closures and forces, the URDF's link count."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from body_bridge.model import (Bushing, Device, DeviceKind, Frame, Inertial, Joint, JointType,
                               Limits, Link, LoadKind, LoopClosure, Mimic, Model, Pose,
                               Spring, SpringKind)
from body_bridge.model import Load
from body_bridge.summary import describe, joint_text, tree, urdf_links

Z, X = np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0])


def _link(name, mass=1.0):
    return Link(name, Pose(), None if mass is None else Inertial(mass, inertia=np.eye(3)))


def _joint(name, jtype, parent, child, axis=Z, limits=Limits(), mimic=None):
    return Joint(name, jtype, parent, child, np.asarray(axis, float), limits, mimic=mimic)


def _model(**extra):
    links = (_link('base', 2.0), _link('arm'), _link('hand', 0.25), _link('finger', None),
             _link('slide', 0.5))
    joints = (_joint('shoulder', JointType.REVOLUTE, 'base', 'arm', Z,
                     Limits(-math.pi / 2, 1.0, 2.0, 30.0)),
              _joint('wrist', JointType.CONTINUOUS, 'arm', 'hand', (0, -1, 0)),
              _joint('grip', JointType.PRISMATIC, 'hand', 'finger', (0.6, 0.8, 0),
                     Limits(0.0, 0.04, 0.1, 20.0), mimic=Mimic('shoulder', 0.5, -0.01)),
              _joint('rail', JointType.FIXED, 'base', 'slide'))
    devices = (Device('cam', DeviceKind.CAMERA, 'hand', type_name='Camera'),
               Device('imu', DeviceKind.IMU, 'base'), Device('lamp', DeviceKind.LIGHT, 'arm'))
    return Model(name='toy', links=links, joints=joints, root='base', devices=devices,
                 frames=(Frame('tip', 'hand'),), source='toy.body', **extra)


ENTRIES = [SimpleNamespace(device=SimpleNamespace(name='cam'), note='', topics=(
               SimpleNamespace(name='cam/image_raw', type='sensor_msgs/msg/Image', rate=30.0),
               SimpleNamespace(name='cam/camera_info', type='sensor_msgs/msg/CameraInfo',
                               rate=30.0))),
           SimpleNamespace(device=SimpleNamespace(name='imu'), note='', topics=(
               SimpleNamespace(name='imu', type='sensor_msgs/msg/Imu', rate=100.0),
               SimpleNamespace(name='imu/x', type='sensor_msgs/msg/Imu', rate=50.0))),
           SimpleNamespace(device=SimpleNamespace(name='lamp'), note='lights the rendered scene',
                           topics=())]


def test_the_tree_of_a_model():
    text = tree(_model(), ENTRIES)
    assert text == '\n'.join([
        'toy: 5 links, 3 moving joints, 3 devices, 3.75 kg',
        '  from toy.body',
        "  as URDF: 10 links (the model's 5, 1 named frame, 3 device frames, "
        '1 camera optical frame)',
        'world',
        '└── base  2 kg  (fixed to the world)',
        '    ├── device imu: imu -> imu, imu/x',
        '    ├── arm  1 kg  (revolute joint shoulder about z, -1.571..1 rad [-90..57.3 deg], '
        '2 rad/s, 30 N m)',
        '    │   ├── device lamp: light, lights the rendered scene',
        '    │   └── hand  0.25 kg  (continuous joint wrist about -y, unlimited)',
        '    │       ├── device cam: camera (Camera) -> cam/image_raw, cam/camera_info, 30 Hz',
        '    │       ├── frame tip',
        '    │       └── finger  0 kg  (prismatic joint grip along (0.6, 0.8, 0), 0..0.04 m, '
        '0.1 m/s, 20 N, = 0.5 shoulder - 0.01)',
        '    └── slide  0.5 kg  (fixed joint rail)'])


def test_the_tree_without_topics_and_with_another_source():
    text = tree(_model(), source='models/toy.body').splitlines()
    assert text[1] == '  from models/toy.body'
    assert '    ├── device imu: imu' in text
    assert '    │       ├── device cam: camera (Camera)' in text


def test_closures_and_forces_are_listed_after_the_tree():
    model = _model(closures=(LoopClosure('loop', 'revolute', 'hand', 'slide'),),
                   springs=(Spring('s', SpringKind.TRANSLATIONAL, 'arm', 'slide'),
                            Spring('t', SpringKind.ROTATIONAL, 'arm', 'hand')),
                   loads=(Load('push', LoadKind.FORCE, 'hand'),))
    lines = tree(model).splitlines()
    assert lines[-3:] == ['loop closures (enforced by the integrator, not in the URDF):',
                          '  loop: revolute between hand and slide',
                          'forces: 2 springs, 1 loads']
    model = _model(bushings=(Bushing('b', 'arm', 'hand'),))
    assert tree(model).splitlines()[-1] == 'forces: 1 bushings'
    assert tree(_model()).splitlines()[-1].startswith('    └── slide')


@pytest.mark.parametrize('joint, text', [
    (_joint('j', JointType.REVOLUTE, 'a', 'b', X, Limits(None, 0.5)),
     'revolute joint j about x, -inf..0.5 rad [-inf..28.65 deg]'),
    (_joint('j', JointType.REVOLUTE, 'a', 'b', (0, 0, -1), Limits(-0.5, None, effort=0.0)),
     'revolute joint j about -z, -0.5..inf rad [-28.65..inf deg]'),
    (_joint('j', JointType.REVOLUTE, 'a', 'b', (1, 1e-12, 0)), 'revolute joint j about x, '
     'unlimited'),
    (_joint('j', JointType.PRISMATIC, 'a', 'b', (0, 1, 0), Limits(None, 0.3)),
     'prismatic joint j along y, -inf..0.3 m'),
    (_joint('j', JointType.PRISMATIC, 'a', 'b', (-1, 0, 0), Limits(-0.1, 0.3, 0.5, 7.0),
            mimic=Mimic('k', 2.0, 0.25)),
     'prismatic joint j along -x, -0.1..0.3 m, 0.5 m/s, 7 N, = 2 k + 0.25'),
    (_joint('j', JointType.REVOLUTE, 'a', 'b', Z, mimic=Mimic('k', -1.0, 0.0)),
     'revolute joint j about z, unlimited, = -1 k + 0'),
    (_joint('j', JointType.REVOLUTE, 'a', 'b', Z, mimic=Mimic('k', 1.0, -0.5)),
     'revolute joint j about z, unlimited, = 1 k - 0.5'),
    (_joint('j', JointType.REVOLUTE, 'a', 'b', (0.6, 0.8, 0)),
     'revolute joint j about (0.6, 0.8, 0), unlimited'),
    (_joint('j', JointType.REVOLUTE, 'a', 'b', Z, mimic=Mimic('k', expression='sin(k)')),
     'revolute joint j about z, unlimited, = sin(k)'),
    (_joint('j', JointType.FIXED, 'a', 'b'), 'fixed joint j'),
    (_joint('j', JointType.BALL, 'a', 'b'), 'ball joint j'),
    (_joint('j', JointType.FREE, 'a', 'b'), 'free joint j'),
    (_joint('t', JointType.TRACK, 'a', 'b', X, Limits(velocity=0.5)),
     'track t on b, surface along x x normal, 0.5 m/s'),
    (_joint('t', JointType.TRACK, 'a', 'b', (0, -1, 0)), 'track t on b, surface along -y x normal'),
])
def test_one_line_per_joint(joint, text):
    assert joint_text(joint) == text


def test_the_model_as_data():
    data = describe(_model(closures=(LoopClosure('loop', 'revolute', 'hand', 'slide'),)),
                    {e.device.name: list(e.topics) for e in ENTRIES})
    assert (data['name'], data['root'], data['root_joint'], data['mass']) == \
        ('toy', 'base', 'fixed', 3.75)
    assert data['links'][0] == {'name': 'base', 'mass': 2.0}
    assert data['links'][3] == {'name': 'finger', 'mass': 0.0}
    assert data['joints'][0] == {
        'name': 'shoulder', 'type': 'revolute', 'parent': 'base', 'child': 'arm',
        'axis': [0.0, 0.0, 1.0],
        'limits': {'lower': -math.pi / 2, 'upper': 1.0, 'velocity': 2.0, 'effort': 30.0},
        'mimic': None}
    assert data['joints'][1]['limits'] == {'lower': None, 'upper': None, 'velocity': None,
                                           'effort': None}
    assert data['joints'][2]['mimic'] == 'shoulder'
    assert data['devices'][0] == {'name': 'cam', 'kind': 'camera', 'type': 'Camera',
                                  'link': 'hand', 'topics': [
                                      {'name': 'cam/image_raw', 'type': 'sensor_msgs/msg/Image',
                                       'rate': 30.0},
                                      {'name': 'cam/camera_info',
                                       'type': 'sensor_msgs/msg/CameraInfo', 'rate': 30.0}]}
    assert data['devices'][2]['topics'] == []
    assert data['closures'] == [{'name': 'loop', 'type': 'revolute', 'link1': 'hand',
                                 'link2': 'slide'}]
    assert describe(_model())['devices'][1]['topics'] == []


def test_the_urdf_link_count_in_words():
    assert urdf_links(_model()) == (10, "the model's 5, 1 named frame, 3 device frames, "
                                        '1 camera optical frame')
    model = _model()
    bare = Model(name='b', links=model.links, joints=model.joints, root='base')
    assert urdf_links(bare) == (5, "the model's 5")
