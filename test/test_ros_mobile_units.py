"""cmd_vel and odom in this process (ros/control/mobile.py, ros/control/planar_base.py): a two-wheeled cart
built in code and simulated, a real rclpy node, each twist handed to the callback as rclpy
hands it over. A bridge serving a rover over DDS is in test_drive.py."""

from __future__ import annotations

import dataclasses
import math
from types import SimpleNamespace

import numpy as np
import pytest

from conftest import ROS_MISSING
from ros_standins import own_node

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Twist

from body_bridge.errors import ParameterError
from body_bridge.model import Box, Inertial, Link, Model, Pose
from body_bridge.ros.control.mobile import COVARIANCE, MobileBase, drive_of
from body_bridge.ros.control.planar_base import PlanarBase, make_mobile_base
from body_bridge.sim.mechanics.drive import base_state
from body_bridge.sim.names import Mode
from body_bridge.sim.simulation import Simulation
from test_drive_units import _cart

PARAMS = {'cmd_vel': True, 'drive_left_joints': '', 'drive_right_joints': '',
          'drive_separation': 0.0, 'default_velocity_limit': 0.0, 'odom_frame': 'odom',
          'cmd_vel_timeout': 0.5}


@pytest.fixture
def node():
    with own_node('base', namespace='/r') as made:
        made.params, made.period_outputs, made.warnings = dict(PARAMS), [], []
        made.warn_throttled = made.warnings.append
        made.frame = lambda link: f'cart/{link}'
        made.model = _cart()
        yield made


@pytest.fixture
def sim(node):
    made = Simulation(node.model)
    made.calls = []
    command = made.command

    def recording(mode, names, values, source=None):
        made.calls.append((mode, list(names), [float(v) for v in values], source))
        return command(mode, names, values, source=source)
    made.command = recording
    return made


def twist(x=0.0, y=0.0, z=0.0, rx=0.0, ry=0.0, rz=0.0):
    msg = Twist()
    msg.linear.x, msg.linear.y, msg.linear.z = x, y, z
    msg.angular.x, msg.angular.y, msg.angular.z = rx, ry, rz
    return msg


def test_the_drive_the_parameters_ask_for(node):
    drive = drive_of(node)
    assert drive.joints == ['wheel_l', 'wheel_r'] and drive.separation == pytest.approx(0.4)
    node.params.update(drive_left_joints='wheel_r, ', drive_right_joints=' wheel_l',
                       drive_separation=0.5, default_velocity_limit=3.0)
    drive = drive_of(node)
    assert (drive.left, drive.right, drive.separation) == (('wheel_r',), ('wheel_l',), 0.5)
    node.root_taken = 'planar'
    assert drive_of(node) == 'planar'
    node.params['cmd_vel'] = False
    assert drive_of(node) is None


def test_a_model_without_a_drive_has_no_cmd_vel_unless_joints_are_named(node):
    node.model = Model(name='box', links=(Link('base', Pose(), Inertial(1.0, inertia=np.eye(3)),
                                               collisions=()),), joints=(), root='base')
    assert drive_of(node) is None
    node.params['drive_left_joints'] = 'wheel_l'
    with pytest.raises(ParameterError) as err:
        drive_of(node)
    assert str(err.value).startswith('parameter drive_left_joints: ')


@pytest.mark.parametrize('separation', [-0.1, math.nan, math.inf])
def test_a_bad_separation_is_one_line(node, separation):
    node.params['drive_separation'] = separation
    with pytest.raises(ParameterError) as err:
        drive_of(node)
    assert str(err.value) == (f'parameter drive_separation: must be 0 or positive, not '
                              f'{separation}')


@pytest.mark.parametrize('timeout', [-1.0, math.nan, math.inf])
def test_a_bad_timeout_is_one_line(node, sim, timeout):
    node.params['cmd_vel_timeout'] = timeout
    with pytest.raises(ParameterError) as err:
        MobileBase(node, sim, drive_of(node))
    assert str(err.value) == f'parameter cmd_vel_timeout: must be 0 or positive, not {timeout}'


def test_the_base_subscribes_publishes_and_says_so(node, sim):
    logged = []
    node.get_logger = lambda: SimpleNamespace(info=logged.append)
    base = make_mobile_base(node, sim, drive_of(node))
    assert logged == [base._announcement()]
    assert type(base) is MobileBase and node.period_outputs == [base.publish]
    assert base._sub.topic_name == '/r/cmd_vel' and base._pub.topic_name == '/r/odom'
    assert base._announcement() == 'cmd_vel drives wheels wheel_l (left) and wheel_r (right), ' \
        '0.4 m apart'


def test_a_twist_drives_the_wheels(node, sim):
    base = MobileBase(node, sim, drive_of(node))
    base._on_twist(twist(x=0.2, rz=1.0))  # the wheels' radius is 0.1 m, 0.4 m apart
    assert sim.calls == [(Mode.VELOCITY, ['wheel_l', 'wheel_r'], pytest.approx([0.0, 4.0]),
                          '/r/cmd_vel')]
    assert node.warnings == [] and node.commands_received == 1
    assert base._moving and base._last == sim.time


@pytest.mark.parametrize('fields', [{'y': 0.1}, {'z': 0.1}, {'rx': 0.1}, {'ry': -0.1}])
def test_a_twist_a_wheeled_base_cannot_follow_is_rejected(node, sim, fields):
    base = MobileBase(node, sim, drive_of(node))
    base._on_twist(twist(x=0.2, **fields))
    assert sim.calls == [] and not base._moving
    assert node.warnings == ['/r/cmd_vel: rejected: a base on wheels moves along linear.x and '
                             'turns about angular.z only']


@pytest.mark.parametrize('fields', [{'x': math.nan}, {'rz': math.inf}, {'y': -math.inf}])
def test_a_twist_that_is_not_finite_is_rejected(node, sim, fields):
    base = MobileBase(node, sim, drive_of(node))
    base._on_twist(twist(**fields))
    assert sim.calls == []
    assert node.warnings == ['/r/cmd_vel: rejected: a value is NaN or infinite']


def test_a_twist_beyond_the_limits_is_scaled_with_a_warning(node, sim):
    node.params['default_velocity_limit'] = 2.0
    base = MobileBase(node, sim, drive_of(node))
    base._on_twist(twist(x=0.4, rz=1.0))  # 2 and 6 rad/s: scaled to 2/3 and 2
    assert sim.calls[0][2] == pytest.approx([2 / 3, 2.0])
    assert node.warnings == ["/r/cmd_vel: the twist is beyond the drive joints' velocity "
                             'limits: scaled down, curvature kept']


def test_a_twist_the_simulation_refuses_is_one_warning_and_not_obeyed(node, sim):
    base = MobileBase(node, sim, drive_of(node))
    sim.kinematic = False
    base.drive = SimpleNamespace(joints=['nothing'], kind='wheels',
                                 joint_speeds=lambda x, w: (np.array([1.0]), False))
    base._on_twist(twist(x=0.1))
    assert len(node.warnings) == 1 and node.warnings[0].startswith('/r/cmd_vel: rejected: ')
    assert not base._moving and base._last == 0.0


def _advance(sim, seconds):
    for _ in range(round(seconds / sim.period)):
        sim.step_period()


def test_the_base_stops_when_cmd_vel_goes_quiet(node, sim):
    base = MobileBase(node, sim, drive_of(node))
    base._on_twist(twist(x=0.1))
    _advance(sim, 0.45)
    base.publish(Time())
    assert len(sim.calls) == 1
    _advance(sim, 0.05)
    base.timeout = sim.time - base._last  # quiet for exactly the timeout: not yet
    base.publish(Time())
    assert len(sim.calls) == 1
    base.timeout = 0.5
    _advance(sim, 0.05)
    base.publish(Time())
    assert sim.calls[-1][:3] == (Mode.VELOCITY, ['wheel_l', 'wheel_r'], [0.0, 0.0])
    assert node.warnings == ['/r/cmd_vel: nothing for 0.5 s: the base stops (cmd_vel_timeout)']
    _advance(sim, 1.0)
    base.publish(Time())
    assert len(sim.calls) == 2 and len(node.warnings) == 1  # stopped once


def test_a_base_told_to_stand_still_is_not_stopped_again(node, sim):
    base = MobileBase(node, sim, drive_of(node))
    base._on_twist(twist())
    assert not base._moving
    _advance(sim, 1.0)
    base.publish(Time())
    assert len(sim.calls) == 1 and node.warnings == []


def test_no_timeout_keeps_the_last_twist(node, sim):
    node.params['cmd_vel_timeout'] = 0.0
    base = MobileBase(node, sim, drive_of(node))
    base._on_twist(twist(x=0.1))
    _advance(sim, 2.0)
    base.publish(Time())
    assert len(sim.calls) == 1 and node.warnings == []


def test_odom_is_the_root_link_s_state(node, sim):
    base = MobileBase(node, sim, drive_of(node))
    base._on_twist(twist(x=0.3, rz=0.5))
    _advance(sim, 0.3)
    base.publish(Time(sec=4, nanosec=5))
    msg = base._msg
    assert (msg.header.frame_id, msg.child_frame_id) == ('odom', 'cart/base')
    assert (msg.header.stamp.sec, msg.header.stamp.nanosec) == (4, 5)
    pos, quat, linear, angular = base_state(sim)
    p, q = msg.pose.pose.position, msg.pose.pose.orientation
    assert [p.x, p.y, p.z] == pos.tolist() and [q.w, q.x, q.y, q.z] == quat.tolist()
    v, w = msg.twist.twist.linear, msg.twist.twist.angular
    assert [v.x, v.y, v.z] == linear.tolist() and [w.x, w.y, w.z] == angular.tolist()
    assert p.x > 0.0 and w.z > 0.0  # it moved and turns
    np.testing.assert_array_equal(np.reshape(msg.pose.covariance, (6, 6)),
                                  np.eye(6) * COVARIANCE)
    np.testing.assert_array_equal(np.reshape(msg.twist.covariance, (6, 6)),
                                  np.eye(6) * COVARIANCE)


def test_a_planar_base_moves_itself(node, sim):
    base = make_mobile_base(node, sim, 'planar')
    assert type(base) is PlanarBase and base.drive.kind == 'planar base'
    assert base._announcement().startswith('cmd_vel moves the base in the plane')
    base._on_twist(twist(x=0.2, y=-0.1, rz=0.3))
    assert base.mover.twist.tolist() == [0.2, -0.1, 0.3] and base._moving
    base._on_twist(twist(x=0.2, rx=0.1))
    assert node.warnings == ['/r/cmd_vel: rejected: a planar base moves along linear.x and '
                             'linear.y and turns about angular.z only']
    assert base.mover.twist.tolist() == [0.2, -0.1, 0.3] and sim.calls == []
    _advance(sim, 0.6)
    base.publish(Time())
    assert base.mover.twist.tolist() == [0.0, 0.0, 0.0]


def test_why_cmd_vel_is_or_is_not_offered(node):
    from body_bridge.model import JointType
    from body_bridge.ros.control.mobile import drive_and_why
    drive, why = drive_and_why(node)
    assert drive.joints == ['wheel_l', 'wheel_r']
    assert why == 'cmd_vel drives wheels wheel_l (left) and wheel_r (right)'
    node.params['cmd_vel'] = False
    assert drive_and_why(node) == (None, 'no cmd_vel (cmd_vel is false)')
    node.params['cmd_vel'] = True
    node.root_taken = 'planar'
    assert drive_and_why(node) == ('planar', 'cmd_vel moves the base in the plane (root planar)')
    node.root_taken = 'fixed'
    free = node.model
    node.model = dataclasses.replace(free, root_joint=JointType.FIXED)
    assert drive_and_why(node) == (None, 'no cmd_vel')  # the root line says why
    node.params['drive_left_joints'] = 'wheel_l'  # named: the fixed root is the error
    node.params['drive_right_joints'] = 'wheel_r'
    with pytest.raises(ParameterError, match='the root link is fixed to the world'):
        drive_and_why(node)
    node.params['drive_left_joints'] = node.params['drive_right_joints'] = ''
    node.model = Model(name='box', links=(Link('base', Pose(), Inertial(1.0, inertia=np.eye(3)),
                                               collisions=()),), joints=(), root='base',
                       root_joint=JointType.FREE)
    assert drive_and_why(node) == (None, 'no cmd_vel: box has no left and right tracks, nor '
                                   'two wheels on one axis; name them with drive_left_joints '
                                   'and drive_right_joints')
