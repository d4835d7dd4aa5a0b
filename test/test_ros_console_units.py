"""The start-up table and the status lines (ros/console.py) of a node made here: its rows
(rates, QoS, infrastructure left out), the table's text and the reporter's thread. The table
of a real bridge node is in test_console_inputs.py, the status figures in
test_status_line.py."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest

from conftest import ROS_MISSING
from ros_standins import own_node

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from control_msgs.action import FollowJointTrajectory, GripperCommand
from rclpy.action import ActionServer
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import Image, JointState
from std_msgs.msg import String
from std_srvs.srv import Trigger
from tf2_msgs.msg import TFMessage

from body_bridge.ros import console
from body_bridge.ros.console import Row, action_server, format_table, interface_rows


@pytest.fixture
def node():
    with own_node('n', namespace='/r') as made:
        yield made


LATCHED = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
BEST_EFFORT = QoSProfile(depth=5, reliability=ReliabilityPolicy.BEST_EFFORT)


def _bridge_like(node):
    node.create_publisher(JointState, 'joint_states', 10)
    node.create_publisher(String, 'robot_description', LATCHED)
    node.create_publisher(TFMessage, '/tf', 100)
    node.create_publisher(String, 'notes', BEST_EFFORT)
    camera = node.create_publisher(Image, 'camera/image', BEST_EFFORT)
    depth = node.create_publisher(Image, 'camera/depth', BEST_EFFORT)
    node.sensors = SimpleNamespace(outputs={
        'camera': SimpleNamespace(publishers=[SimpleNamespace(raw=camera)],
                                  sampler=SimpleNamespace(rate=30.0, enabled=True)),
        'depth': SimpleNamespace(publishers=[depth],
                                 sampler=SimpleNamespace(rate=15.0, enabled=False))})
    node.create_subscription(JointState, 'joint_commands', print, BEST_EFFORT)
    node.create_service(Trigger, '~/reset', lambda req, res: res)
    node.create_service(Trigger, '/global', lambda req, res: res)
    action_server(node, FollowJointTrajectory, 'arm/follow_joint_trajectory',
                  execute_callback=lambda handle: None)


def test_the_rows_of_a_node(node):
    _bridge_like(node)
    node.sim = SimpleNamespace(period=0.004)
    rows = interface_rows(node)
    assert rows == [
        Row('publishes', '/r/joint_states', 'sensor_msgs/msg/JointState', '250 Hz',
            'reliable, volatile, depth 10'),
        Row('publishes', '/r/robot_description', 'std_msgs/msg/String', 'latched',
            'reliable, transient local, depth 1'),
        Row('publishes', '/tf', 'tf2_msgs/msg/TFMessage', '250 Hz',
            'reliable, volatile, depth 100'),
        Row('publishes', '/r/notes', 'std_msgs/msg/String', '', 'best effort, volatile, depth 5'),
        Row('publishes', '/r/camera/image', 'sensor_msgs/msg/Image', '30 Hz',
            'best effort, volatile, depth 5'),
        Row('publishes', '/r/camera/depth', 'sensor_msgs/msg/Image', '15 Hz, off',
            'best effort, volatile, depth 5'),
        Row('subscribes', '/r/joint_commands', 'sensor_msgs/msg/JointState', '',
            'best effort, volatile, depth 5'),
        Row('serves', '/r/n/reset', 'std_srvs/srv/Trigger'),
        Row('serves', '/global', 'std_srvs/srv/Trigger'),
        Row('serves', '/r/arm/follow_joint_trajectory',
            'control_msgs/action/FollowJointTrajectory')]


def test_a_node_that_does_not_simulate_publishes_with_joint_states(node):
    node.create_publisher(JointState, 'joint_states', 10)
    assert [r.rate for r in interface_rows(node)] == ['with joint_states']
    node.sim = None
    assert [r.rate for r in interface_rows(node)] == ['with joint_states']


def test_an_action_server_without_its_name_is_named_by_the_graph(node):
    ActionServer(node, GripperCommand, 'hand/gripper_command', lambda handle: None)
    ActionServer(node, GripperCommand, 'other/gripper_command', lambda handle: None)
    ActionServer(node, FollowJointTrajectory, 'unseen', lambda handle: None)
    node.get_service_names_and_types_by_node = lambda name, namespace: [
        ('/r/hand/gripper_command/_action/send_goal',
         ['control_msgs/action/GripperCommand_SendGoal']),
        ('/r/other/gripper_command/_action/send_goal',
         ['control_msgs/action/GripperCommand_SendGoal']),
        ('/r/odd/_action/send_goal', []),
        ('/r/also_odd/_action/send_goal', ['control_msgs/action/Other_Request']),
        ('/r/n/reset', ['std_srvs/srv/Trigger'])]
    assert interface_rows(node) == [
        Row('serves', '/r/hand/gripper_command', 'control_msgs/action/GripperCommand'),
        Row('serves', '/r/other/gripper_command', 'control_msgs/action/GripperCommand'),
        Row('serves', '(not in the ROS graph)', 'control_msgs/action/FollowJointTrajectory')]


def test_the_table_groups_sorts_and_aligns():
    rows = [Row('subscribes', '/r/joint_commands', 'sensor_msgs/msg/JointState', '',
                'reliable, volatile, depth 10'),
            Row('publishes', '/r/odom', 'nav_msgs/msg/Odometry', '100 Hz', 'reliable'),
            Row('publishes', '/r/a', 'std_msgs/msg/String', 'latched', 'reliable'),
            Row('serves', '/r/n/reset', 'std_srvs/srv/Trigger')]
    assert format_table(rows) == '\n'.join([
        'publishes:',
        '  /r/a               std_msgs/msg/String         latched  reliable',
        '  /r/odom            nav_msgs/msg/Odometry       100 Hz   reliable',
        'subscribes:',
        '  /r/joint_commands  sensor_msgs/msg/JointState           reliable, volatile, depth 10',
        'serves:',
        '  /r/n/reset         std_srvs/srv/Trigger'])


def test_the_table_says_when_sensor_topics_are_computed():
    sensor = Row('publishes', '/r/cam', 'sensor_msgs/msg/Image', '30 Hz', 'x')
    assert format_table([sensor]).endswith('\n(sensor topics are computed and published only '
                                           'while someone subscribes)')
    for row in (Row('publishes', '/r/js', 'sensor_msgs/msg/JointState', 'with joint_states', 'x'),
                Row('subscribes', '/r/c', 'sensor_msgs/msg/Image', '30 Hz', 'x'),
                Row('publishes', '/r/c', 'sensor_msgs/msg/Image', '30 Hz, off', 'x'),
                Row('publishes', '/r/o', 'nav_msgs/msg/Odometry', '100 Hz', 'x')):
        assert 'computed' not in format_table([row])
    assert format_table([Row('publishes', '/r/js', 'sensor_msgs/msg/JointState', '1 Hz', 'x'),
                         row]).count('computed') == 1


class Logger:
    def __init__(self):
        self.lines, self.logged = [], threading.Event()

    def info(self, text):
        self.lines.append(text)
        self.logged.set()


def _world_node(logger, commands=0):
    return SimpleNamespace(get_logger=lambda: logger, commands_received=commands,
                           publishers=[], subscriptions=[], services=[], waitables=[],
                           get_namespace=lambda: '/', sim=None)


def test_the_reporter_logs_status_lines_from_its_thread_until_stopped():
    first, second = Logger(), Logger()
    runner = SimpleNamespace(stepped=0.0, paused=True, world=SimpleNamespace(time=2.0))
    reporter = console.StatusReporter([_world_node(first), _world_node(second)], runner,
                                      period=0.01)
    reporter.start()
    assert reporter._thread.daemon and reporter._thread.name == 'body_bridge_status'
    assert first.logged.wait(5.0)
    reporter.stop()
    assert reporter._thread is None and second.lines == []
    assert first.lines[0].startswith('sim time 2.00 s, paused, commands ')
    count = len(first.lines)
    time.sleep(0.05)
    assert len(first.lines) == count
    reporter.stop()  # twice: nothing more


def test_announce_logs_each_table_and_starts_the_status_lines(monkeypatch):
    loggers = [Logger(), Logger()]
    nodes = [_world_node(logger) for logger in loggers]
    monkeypatch.setattr(console, 'STATUS_PERIOD', 0.01)
    monkeypatch.setattr(console.StatusReporter.__init__, '__defaults__', (0.01,))
    assert console.announce(nodes, None) is None
    assert [logger.lines for logger in loggers] == [['topics and services:\n'],
                                                    ['topics and services:\n']]
    api = _world_node(Logger())  # the simulator API's node: its table, not its status
    assert console.announce(nodes, None, also=[api]) is None
    assert api.get_logger().lines == ['topics and services:\n']
    runner = SimpleNamespace(stepped=0.0, paused=False, world=None)
    reporter = console.announce(nodes, runner, also=[api])
    try:
        assert isinstance(reporter, console.StatusReporter) and reporter.nodes == nodes
        assert reporter._thread.is_alive()
        loggers[0].logged.clear()
        assert loggers[0].logged.wait(5.0)
        assert loggers[0].lines[-1] == 'no world loaded'
    finally:
        reporter.stop()
    assert api.get_logger().lines == ['topics and services:\n'] * 2  # no status lines


class Warned:
    """A node as say_warnings sees it: its name and what its logger warned."""

    def __init__(self, name):
        self.warned = []
        self.get_fully_qualified_name = lambda: name
        self.get_logger = lambda: SimpleNamespace(warning=self.warned.append)


def test_a_model_s_warnings_are_said_once_among_the_nodes_alive():
    a, b, c = Warned('/a/body_bridge'), Warned('/b/body_bridge'), Warned('/c/body_bridge')
    lines = ['m.body:3: key x ignored', 'm.body:7: key y ignored']
    try:
        console.say_warnings(a, lines)
        console.say_warnings(b, lines)  # a second copy of the same file
        console.say_warnings(c, [lines[1], 'n.body:1: other'])
        console.say_warnings(a, lines)  # a node saying its own again: nothing more
        assert a.warned == lines
        assert b.warned == ['2 warnings of its model: the same as /a/body_bridge gave above']
        assert c.warned == ['n.body:1: other',
                            '1 warning of its model: the same as /a/body_bridge gave above']
        console.forget_warnings(a)  # gone (a reload): its lines may be said again
        console.say_warnings(b, lines)
        assert b.warned[1:] == lines
    finally:
        for node in (a, b, c):
            console.forget_warnings(node)
    assert console._SAID == {}
