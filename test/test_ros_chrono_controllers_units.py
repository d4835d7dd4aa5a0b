"""The inputs of a model's external controllers (ros/control/chrono_controllers.py) in this process:
the topics a node subscribes, and each message handed to its callback as rclpy hands it over,
a recording stand-in for the model's force system. A Chrono model driven over DDS is in
test_chrono_ros.py."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from conftest import ROS_MISSING
from ros_standins import own_node

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from geometry_msgs.msg import Vector3, Wrench
from std_msgs.msg import Float64

from body_bridge.ros.stream import qos
from body_bridge.ros.control.chrono_controllers import attach, topic_name


@pytest.mark.parametrize('element, leaf, topic', [
    ('lift', 'setpoint', 'lift/setpoint'), ('arm-motor.1', 'wrench', 'arm_motor_1/wrench'),
    ('2nd', 'setpoint', '_2nd/setpoint'), ('', 'wrench', '_/wrench'),
    ('é', 'setpoint', '_/setpoint'), ('a_B9', 'x', 'a_B9/x')])
def test_topic_names_are_valid_ros_names(element, leaf, topic):
    assert topic_name(element, leaf) == topic


class Forces:
    def __init__(self, controllers):
        self.controllers, self.inputs = controllers, []

    def set_motor_input(self, name, value):
        self.inputs.append((name, value))

    def set_load_input(self, name, values):
        self.inputs.append((name, list(values)))


@pytest.fixture
def node():
    with own_node('chrono', namespace='/m') as made:
        made.warnings, made.logged = [], []
        made.warn_throttled = made.warnings.append
        made.get_logger = lambda: SimpleNamespace(info=made.logged.append)
        made.sim = SimpleNamespace(forces=Forces([('lift motor', 'motor'), ('push', 'force'),
                                                  ('twist', 'torque')]))
        yield made


def test_one_topic_per_controller(node):
    subs = attach(node)
    assert [(s.topic_name, s.msg_type) for s in subs] == [
        ('/m/lift_motor/setpoint', Float64), ('/m/push/wrench', Wrench),
        ('/m/twist/wrench', Wrench)]
    assert all(s.qos_profile.reliability == qos.COMMANDS.reliability for s in subs)
    assert node.logged == ["controller 'lift motor' listens on lift_motor/setpoint",
                           "controller 'push' listens on push/wrench",
                           "controller 'twist' listens on twist/wrench"]


def test_no_controllers_no_topics(node):
    node.sim = SimpleNamespace(forces=None)
    assert attach(node) == []
    node.sim = SimpleNamespace()
    assert attach(node) == [] and node.logged == []


def test_each_input_goes_to_its_controller(node):
    motor, force, torque = attach(node)
    forces = node.sim.forces
    motor.callback(Float64(data=-0.75))
    wrench = Wrench(force=Vector3(x=1.0, y=2.0, z=3.0), torque=Vector3(x=4.0, y=5.0, z=6.0))
    force.callback(wrench)
    torque.callback(wrench)
    assert forces.inputs == [('lift motor', -0.75), ('push', [1.0, 2.0, 3.0]),
                             ('twist', [4.0, 5.0, 6.0])]
    assert node.warnings == [] and node.commands_received == 3


def test_inputs_that_are_not_finite_are_rejected(node):
    motor, force, torque = attach(node)
    forces = node.sim.forces
    motor.callback(Float64(data=math.nan))
    force.callback(Wrench(force=Vector3(z=math.inf), torque=Vector3(x=math.nan)))
    torque.callback(Wrench(force=Vector3(x=1.0), torque=Vector3(y=-math.inf)))
    force.callback(Wrench(force=Vector3(x=1.0), torque=Vector3(x=math.nan)))  # torque unused
    assert forces.inputs == [('push', [1.0, 0.0, 0.0])]
    assert node.warnings == ['lift_motor/setpoint: rejected: the value is not finite',
                             'push/wrench: rejected: a value is not finite',
                             'twist/wrench: rejected: a value is not finite']
    assert node.commands_received == 4
