"""The root and passive_joints parameters in a bridge node: the choice is taken before the
model is simulated and published, a planar base takes cmd_vel in x, y and yaw, bad values
stop the node with one line."""

from __future__ import annotations

import pytest

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from geometry_msgs.msg import Twist
from rclpy.parameter import Parameter

from body_bridge.model import JointType

from conftest import REPO

ROVER = str(REPO / 'test' / 'data' / 'openrave' / 'rover.robot.xml')


def _node(tmp_path, **params):
    from body_bridge.ros.node.node import BridgeNode
    given = {'model': ROVER, 'start_paused': True, 'mesh_directory': str(tmp_path), **params}
    return BridgeNode(parameter_overrides=[Parameter(k, value=v) for k, v in given.items()])


def test_a_rover_starts_free_with_its_caster_passive_and_cmd_vel(ros, tmp_path):
    from body_bridge.ros.control.mobile import MobileBase
    node = _node(tmp_path)
    try:
        assert node.root_taken == 'free' and node.model.root_joint == JointType.FREE
        assert node.sim.model.passive_joints == ('caster',)
        assert type(node.mobile) is MobileBase
        assert node.mobile.drive.joints == ['left_wheel', 'right_wheel']
    finally:
        node.destroy_node()


def test_root_and_passive_joints_parameters(ros, tmp_path):
    from body_bridge.ros.control.planar_base import PlanarBase
    node = _node(tmp_path, root='planar', passive_joints=['left_wheel'])
    try:
        assert node.root_taken == 'planar'
        assert node.sim.model.passive_joints == ('caster', 'left_wheel')
        mobile = node.mobile
        assert isinstance(mobile, PlanarBase)
        msg = Twist()
        msg.linear.x, msg.linear.y, msg.angular.z = 0.2, -0.1, 0.3
        mobile._on_twist(msg)
        assert mobile.mover.twist.tolist() == [0.2, -0.1, 0.3]
        msg.linear.z = 0.5  # refused: the last twist stays
        mobile._on_twist(msg)
        msg.linear.z, msg.angular.x = 0.0, float('nan')
        mobile._on_twist(msg)
        assert mobile.mover.twist.tolist() == [0.2, -0.1, 0.3]
    finally:
        node.destroy_node()
    node = _node(tmp_path, root='fixed')
    try:
        assert node.model.root_joint == JointType.FIXED and node.drive is None
        assert getattr(node, 'mobile', None) is None
    finally:
        node.destroy_node()


@pytest.mark.parametrize('args, message', [
    (['-p', 'root:=floating'],
     "parameter root: 'floating' is not one of auto, fixed, free, planar"),
    (['-p', 'passive_joints:=caster, nope'],
     "parameter passive_joints: 'nope' is not a joint of rover that takes commands"),
])
def test_bad_values_stop_the_bridge_with_one_line(bridge, args, message):
    proc = bridge(ROVER, *args)
    assert proc.proc.wait(timeout=60) == 2
    lines = proc.output().strip().splitlines()
    assert lines == [message]
