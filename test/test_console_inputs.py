"""The start-up table and the status line cover every command input a node has: each of its
subscriptions and action servers, found from rclpy itself (a new input that is not counted,
or an action server the table leaves out, fails here)."""

import re
import time
from pathlib import Path

import pytest

from conftest import ROS_MISSING, SAMPLE_ARM

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from rclpy.action import ActionClient, ActionServer
from rclpy.executors import SingleThreadedExecutor
from rclpy.parameter import Parameter

from body_bridge.ros.stream import qos
from body_bridge.ros.console import StatusReporter, format_table, interface_rows

DATA = Path(__file__).parent / 'data'
ARM_CONTROLLERS = {
    'controllers.arm.type': 'joint_trajectory_controller/JointTrajectoryController',
    'controllers.arm.joints': ['shoulder_yaw', 'shoulder_pitch'],
    'controllers.elbow.type': 'position_controllers/JointGroupPositionController',
    'controllers.elbow.joints': ['elbow_pitch'],
    'controllers.hand.type': 'position_controllers/GripperActionController',
    'controllers.hand.joints': ['wrist_pitch'],
}
#: Models with every kind of command input: topics by name, group commands, trajectories and
#: both actions (the arm); cmd_vel (a tracked base); controller inputs (a Chrono model).
MODELS = {
    'arm': (SAMPLE_ARM, ARM_CONTROLLERS),
    'tracked': (DATA / 'choreonoid' / 'tracked.body', {}),
    'chrono': (DATA / 'chrono' / 'controllers.yaml', {}),
}


@pytest.fixture(params=list(MODELS))
def bridge_node(request, ros, tmp_path):
    from body_bridge.ros.node.node import BridgeNode
    path, extra = MODELS[request.param]
    node = BridgeNode(parameter_overrides=[
        Parameter('model', value=str(path)), Parameter('start_paused', value=True),
        Parameter('mesh_directory', value=str(tmp_path)),
        *(Parameter(k, value=v) for k, v in extra.items())])
    yield request.param, node
    node.destroy_node()


def command_subscriptions(node) -> list:
    return [s for s in node.subscriptions if s.topic_name != '/clock']


def action_servers(node) -> list:
    return [w for w in node.waitables if isinstance(w, ActionServer)]


def spin_until(executor, predicate, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, f'timed out waiting for {what}'
        executor.spin_once(timeout_sec=0.05)


def test_every_command_input_is_counted_once(ros, bridge_node):
    name, node = bridge_node
    subscriptions, servers = command_subscriptions(node), action_servers(node)
    kinds = {'arm': (3, 2), 'tracked': (2, 0), 'chrono': (4, 0)}[name]
    # joint_commands + 2 controller topics; joint_commands + cmd_vel; joint_commands + 3 inputs
    assert (len(subscriptions), len(servers)) == kinds, \
        [s.topic_name for s in subscriptions]
    reporter = StatusReporter([node], node.runner, period=3600.0)
    client = ros.create_node('command_sender')
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    executor.add_node(client)
    try:
        publishers = [client.create_publisher(s.msg_type, s.topic_name, qos.COMMANDS)
                      for s in subscriptions]
        spin_until(executor, lambda: all(p.get_subscription_count() for p in publishers), 10.0,
                   'the publishers to meet the subscriptions')
        for pub, sub in zip(publishers, subscriptions):
            pub.publish(sub.msg_type())
        goals = []
        for server in servers:
            action_type = server._action_type  # noqa: SLF001 - rclpy 4 (Humble) has no property
            name = next(r.name for r in interface_rows(node)
                        if r.type == type_name(action_type))
            action = ActionClient(client, action_type, name)
            spin_until(executor, action.server_is_ready, 10.0, f'action {name}')
            goals.append(action.send_goal_async(action_type.Goal()))
        expected = len(subscriptions) + len(servers)
        spin_until(executor, lambda: getattr(node, 'commands_received', 0) >= expected, 10.0,
                   'every command to be counted')
        end = time.monotonic() + 0.3
        while time.monotonic() < end:  # nothing is counted twice
            executor.spin_once(timeout_sec=0.05)
        assert node.commands_received == expected
        assert all(goal.done() for goal in goals)  # each goal was answered
    finally:
        executor.shutdown()
        client.destroy_node()
    line = reporter.line()
    rate = float(line.split('commands ')[1].split('/s')[0])
    assert rate > 0.0, line


def test_the_table_lists_every_action_server(ros, bridge_node):
    name, node = bridge_node
    rows = [r for r in interface_rows(node) if r.kind == 'serves']
    servers = action_servers(node)
    actions = {(r.name, r.type) for r in rows if '/action/' in r.type}
    assert len(actions) == len(servers)
    assert sorted(t for _, t in actions) == sorted(type_name(s._action_type) for s in servers)
    if name == 'arm':
        made = node.trajectory_actions.servers + node.gripper_actions.servers
        assert [s.served_as for s in made] == ['arm/follow_joint_trajectory',
                                               'hand/gripper_command']
        assert actions == {
            ('/arm/follow_joint_trajectory', 'control_msgs/action/FollowJointTrajectory'),
            ('/hand/gripper_command', 'control_msgs/action/GripperCommand')}
        table = format_table(interface_rows(node))
        serves = table[table.index('serves:'):]
        assert re.search(r'^  /arm/follow_joint_trajectory +control_msgs/action/'
                         r'FollowJointTrajectory$', serves, re.M)
        assert '/body_bridge/reset' in serves and '/hand/gripper_command' in serves


def type_name(action_type) -> str:
    return f'{action_type.__module__.split(".")[0]}/action/{action_type.__name__}'


@pytest.mark.parametrize('make', ['action_server', 'rclpy'])
def test_any_action_server_is_listed_with_its_name_and_type(ros, make):
    """Made by console.action_server or by rclpy directly (which keeps no name: the ROS
    graph gives it): relative, private and absolute names, next to a plain service."""
    from control_msgs.action import FollowJointTrajectory, GripperCommand
    from std_srvs.srv import Trigger

    from body_bridge.ros.console import action_server
    node = ros.create_node(f'bare_{make}', namespace='/ns')
    new = action_server if make == 'action_server' else ActionServer
    try:
        new(node, GripperCommand, 'g', execute_callback=lambda handle: None)
        new(node, FollowJointTrajectory, '/top/f', execute_callback=lambda handle: None)
        new(node, GripperCommand, '~/mine', execute_callback=lambda handle: None)
        node.create_service(Trigger, 'plain', lambda request, response: response)
        rows = [(r.name, r.type) for r in interface_rows(node) if r.kind == 'serves']
        assert sorted(rows) == [(f'/ns/bare_{make}/mine', 'control_msgs/action/GripperCommand'),
                                ('/ns/g', 'control_msgs/action/GripperCommand'),
                                ('/ns/plain', 'std_srvs/srv/Trigger'),
                                ('/top/f', 'control_msgs/action/FollowJointTrajectory')]
    finally:
        node.destroy_node()
