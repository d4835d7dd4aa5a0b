"""The node's parameters (ros/node/params.py) without a node: each type's values taken or
refused in one line, the declaration on a node stand-in, the groups and the unused names.
The parameters of a running node: test_commands_params.py, test_runtime_params.py."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from conftest import ROS_MISSING  # noqa: E402

pytestmark = pytest.mark.ros  # the descriptors are ROS messages
pytest.importorskip('rcl_interfaces', reason=ROS_MISSING)

from body_bridge.errors import ParameterError  # noqa: E402
from body_bridge.model import Joint, JointType, Limits, Link, Model  # noqa: E402
from body_bridge.ros.node import params as P  # noqa: E402


def refused(name, value):
    with pytest.raises(ParameterError) as err:
        P._coerce(name, value, P.PARAMETERS[name][1])
    return str(err.value)


def taken(name, value):
    return P._coerce(name, value, P.PARAMETERS[name][1])


def test_numbers_are_floats_whole_or_not():
    assert taken('timestep', 1) == 1.0 and isinstance(taken('timestep', 1), float)
    assert taken('control_rate', 250.0) == 250.0
    assert refused('real_time_factor', 'fast') == \
        "parameter real_time_factor: must be a number, not 'fast'"
    assert refused('real_time_factor', True) == \
        'parameter real_time_factor: must be a number, not True'


def test_switches_and_integers():
    assert taken('self_collision', True) is True and taken('self_collision', False) is False
    assert refused('self_collision', 1) == 'parameter self_collision: must be true or false, not 1'
    assert taken('noise_seed', 5) == 5 and taken('noise_seed', -1) == -1
    assert refused('noise_seed', 5.0) == 'parameter noise_seed: must be an integer, not 5.0'
    assert refused('noise_seed', True) == 'parameter noise_seed: must be an integer, not True'


def test_choices_take_on_and_off_for_true_and_false():
    assert taken('gravity_compensation', True) == 'on'
    assert taken('gravity_compensation', False) == 'off'
    assert taken('ground_plane', 'auto') == 'auto'
    assert taken('joint_states_reliability', 'best_effort') == 'best_effort'
    assert refused('gravity_compensation', 'sometimes') == \
        "parameter gravity_compensation: 'sometimes' is not one of auto, on, off"
    assert refused('joint_commands_reliability', True) == \
        "parameter joint_commands_reliability: 'on' is not one of reliable, best_effort"


def test_strings_and_lists_of_names():
    assert taken('fixed_frame', 'map') == 'map'
    assert refused('fixed_frame', 3) == 'parameter fixed_frame: must be a string, not 3'
    assert taken('passive_joints', ['a', 'b']) == 'a, b'
    assert taken('casters', ('c',)) == 'c'
    assert taken('drive_left_joints', 'l1, l2') == 'l1, l2'
    assert refused('passive_joints', ['a', 1]) == \
        "parameter passive_joints: must be a string, not ['a', 1]"
    assert refused('fixed_frame', ['a']) == "parameter fixed_frame: must be a string, not ['a']"


def test_lists_of_numbers():
    assert taken('initial_pose', [1, 2, 3, 0, 0, 0]) == [1.0, 2.0, 3.0, 0.0, 0.0, 0.0]
    assert all(isinstance(x, float) for x in taken('initial_pose', (1, 2)))
    assert taken('initial_pose', np.array([0.5, 1.5])) == [0.5, 1.5]
    assert refused('initial_pose', 'abc') == \
        "parameter initial_pose: must be a list of numbers, not 'abc'"
    assert refused('initial_pose', [1, True]).endswith('not [1, True]')
    assert refused('initial_pose', 7.0).endswith('must be a list of numbers, not 7.0')


class Node:
    """What declare_parameters uses of a node: the values given by the user (untyped)."""

    def __init__(self, given=None):
        self.values = dict(given or {})
        self.descriptors, self.undeclared, self.prefixes = {}, [], {}

    def has_parameter(self, name):
        return name in self.values

    def get_parameter(self, name):
        return SimpleNamespace(value=self.values[name])

    def undeclare_parameter(self, name):
        self.undeclared.append(name)
        del self.values[name]

    def declare_parameters(self, namespace, parameters, ignore_override):
        assert namespace == '' and ignore_override
        for name, value, descriptor in parameters:
            assert name not in self.values, f'{name} declared twice'
            self.values[name], self.descriptors[name] = value, descriptor

    def get_parameters_by_prefix(self, prefix):
        """As rclpy: ``<prefix>.<rest>`` by ``<rest>`` (every parameter for an empty prefix)."""
        prefix = f'{prefix}.' if prefix else ''
        return {name[len(prefix):]: SimpleNamespace(value=v) for name, v in self.values.items()
                if name.startswith(prefix)}


def test_every_parameter_is_declared_with_its_descriptor_and_the_given_values():
    node = Node({'timestep': 1, 'ground_plane': False, 'gains.elbow.p': 3})
    values = P.declare_parameters(node, {'frame_prefix': 'a/', 'control_rate': 50.0})
    assert set(values) == set(P.PARAMETERS)
    assert values['timestep'] == 1.0 and isinstance(values['timestep'], float)
    assert values['ground_plane'] == 'off'
    assert values['frame_prefix'] == 'a/' and values['control_rate'] == 50.0  # the caller's
    assert values['servo_frequency'] == P.PARAMETERS['servo_frequency'][0]
    assert sorted(node.undeclared) == ['ground_plane', 'timestep']
    assert {n: node.values[n] for n in values} == values
    for name, descriptor in node.descriptors.items():
        assert descriptor.name == name and descriptor.type == P.PARAMETERS[name][1]
        assert descriptor.description == P.PARAMETERS[name][2]
        assert descriptor.read_only == (name not in P.SETTABLE)
    assert node.descriptors['model'].read_only is False
    assert node.descriptors['simulate'].read_only is True
    assert node.values['gains.elbow.p'] == 3  # a group member: left as given
    with pytest.raises(ParameterError, match='parameter joint_states_depth: must be 1 or more'):
        P.declare_parameters(Node({'joint_states_depth': 0}))


def test_joint_topics_refused_in_one_line():
    values = {'joint_states_topic': 'joint_states', 'joint_states_depth': 1,
              'joint_commands_topic': 'joint_commands', 'joint_commands_depth': 10}
    P.check_joint_topics(values)
    with pytest.raises(ParameterError) as err:
        P.check_joint_topics({**values, 'joint_commands_depth': 0})
    assert str(err.value) == 'parameter joint_commands_depth: must be 1 or more, not 0'
    with pytest.raises(ParameterError) as err:
        P.check_joint_topics({**values, 'joint_commands_topic': 'a b'})
    assert str(err.value).startswith("parameter joint_commands_topic: 'a b' is not a topic "
                                     'name: ') and '\n' not in str(err.value)
    assert P._topic_problem('/ok/name') is None and P._topic_problem('~/state') is None
    assert P._topic_problem('1abc') and P._topic_problem('a//b')


def test_groups_and_the_names_nobody_uses():
    node = Node({'gains.elbow.p': 3.0, 'gains.elbow.d': 0.5, 'controllers.arm.type': 't',
                 'timestep': 0.002, 'use_sim_time': True, 'qos_overrides./tf.depth': 5,
                 'initial_positions.elbow': 0.1, 'gainz': 1, 'typo.rate': 2})
    assert P.group(node, 'gains') == {'elbow.p': 3.0, 'elbow.d': 0.5}
    assert P.unused_parameters(node) == ['gainz', 'typo.rate']


def test_gains_are_numbers_not_below_zero():
    joints = ['elbow']
    assert P.read_gains({'elbow.p': 0, 'elbow.d': 2}, joints)[0] == {'elbow': (0.0, 2.0)}
    assert P.read_gains({'elbow.d': 2}, joints)[0] == {'elbow': (None, 2.0)}
    for value in ('x', True, math.inf, math.nan):
        with pytest.raises(ParameterError) as err:
            P.read_gains({'elbow.p': value}, joints)
        assert str(err.value) == f'parameter gains.elbow.p: must be a finite number, not {value!r}'
    with pytest.raises(ParameterError) as err:
        P.read_gains({'elbow.p': -0.5}, joints)
    assert str(err.value) == 'parameter gains.elbow.p: must not be negative, not -0.5'
    with pytest.raises(ParameterError) as err:
        P.read_gains({'knee.p': 1.0}, [])
    assert str(err.value) == \
        "parameter gains.knee.p: 'knee' is not a joint with a servo (one of none)"
    gains, warnings = P.read_gains({'p': 1.0}, joints)
    assert gains == {} and warnings == [
        'parameter gains.p is not used (gains are gains.<joint>.p and gains.<joint>.d)']


def arm():
    links = [Link('base'), Link('upper'), Link('lower')]
    joints = [Joint('shoulder', JointType.REVOLUTE, 'base', 'upper',
                    limits=Limits(lower=-1.0, upper=2.0)),
              Joint('spin', JointType.CONTINUOUS, 'upper', 'lower')]
    return Model('arm', tuple(links), tuple(joints), 'base')


def test_initial_positions_are_clipped_into_the_joint_range():
    model = arm()
    out, warnings = P.read_initial_positions({'shoulder': -3, 'spin': 40.0}, model)
    assert out == {'shoulder': -1.0, 'spin': 40.0} and isinstance(out['shoulder'], float)
    assert warnings == ['parameter initial_positions.shoulder: -3.0 is outside the joint '
                        'range [-1, 2]; clipped']
    out, warnings = P.read_initial_positions({'shoulder': 2.5}, model)
    assert out == {'shoulder': 2.0} and warnings[0].startswith(
        'parameter initial_positions.shoulder: 2.5 is outside')
    assert P.read_initial_positions({'shoulder': 2.0}, model) == ({'shoulder': 2.0}, [])
    assert P.read_initial_positions({'shoulder': -1.0}, model) == ({'shoulder': -1.0}, [])
    with pytest.raises(ParameterError) as err:
        P.read_initial_positions({'elbow': 0.0}, model)
    assert str(err.value) == \
        "parameter initial_positions.elbow: 'elbow' is not a 1-DOF joint of arm"
    with pytest.raises(ParameterError, match='must be a finite number'):
        P.read_initial_positions({'shoulder': 'up'}, model)


def test_the_initial_pose_is_six_finite_numbers():
    pose = P.initial_pose([1.0, 2.0, 3.0, 0.0, 0.0, math.pi / 2])
    assert np.allclose(pose.pos, [1, 2, 3])
    assert np.allclose(pose.rot @ [1, 0, 0], [0, 1, 0])
    pose = P.initial_pose([0, 0, 0, math.pi / 2, 0, 0])
    assert np.allclose(pose.rot @ [0, 1, 0], [0, 0, 1])  # roll about x
    for values in ([0.0] * 5, [0.0] * 7, [0, 0, math.inf, 0, 0, 0], [0, 0, 0, 0, math.nan, 0]):
        with pytest.raises(ParameterError) as err:
            P.initial_pose(values)
        assert str(err.value) == ('parameter initial_pose: must be six finite numbers [x, y, '
                                  f'z, roll, pitch, yaw], not {list(values)}')
