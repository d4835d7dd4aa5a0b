"""ROS inputs of a model's external controllers (Chrono CONTROLLER motors, load controllers).

One topic per controller, relative to the node's namespace (the name is the element's, with
every character ROS does not allow in a name replaced by ``_``):

=====================  ======================  =============================================
topic                  type                    meaning
=====================  ======================  =============================================
``<motor>/setpoint``   std_msgs/Float64        the motor's input, by its actuation type:
                                               position [rad or m], speed [rad/s or m/s] or
                                               effort [N m or N], in the motor joint's
                                               coordinate (body1 relative to body2)
``<load>/wrench``      geometry_msgs/Wrench    a load controller's input: ``force`` [N] of a
                                               FORCE controller, ``torque`` [N m] of a TORQUE
                                               one, in the body's frame if ``local_load`` is
                                               true, else in the model frame
=====================  ======================  =============================================

Until a message arrives, and again after ``~/reset``, the input is zero. A message that is not
finite is rejected with a throttled warning naming the topic; the last valid input stays.
"""

from __future__ import annotations

import math
import re

from geometry_msgs.msg import Wrench
from std_msgs.msg import Float64

from ..stream import qos
from ..console import count_command

__all__ = ['attach', 'topic_name']

_NOT_ALLOWED = re.compile(r'[^A-Za-z0-9_]')


def topic_name(element: str, leaf: str) -> str:
    """``<element>/<leaf>`` with the element's name made a valid ROS name token."""
    token = _NOT_ALLOWED.sub('_', element) or '_'
    if token[0].isdigit():
        token = '_' + token
    return f'{token}/{leaf}'


def attach(node) -> list:
    """Subscribe the node to one topic per controller of its simulation's model.

    Args:
        node: the bridge node; ``node.sim.forces`` holds the controllers (None: none).

    Returns:
        The subscriptions (empty when the model has no controllers).
    """
    forces = getattr(node.sim, 'forces', None)
    if forces is None:
        return []
    subscriptions = []
    for name, kind in forces.controllers:
        if kind == 'motor':
            topic = topic_name(name, 'setpoint')
            callback = _setpoint(node, forces, name, topic)
            msg_type = Float64
        else:
            topic = topic_name(name, 'wrench')
            callback = _wrench(node, forces, name, topic, kind)
            msg_type = Wrench
        subscriptions.append(node.create_subscription(msg_type, topic, callback, qos.COMMANDS))
        node.get_logger().info(f'controller {name!r} listens on {topic}')
    return subscriptions


def _setpoint(node, forces, name: str, topic: str):
    def callback(msg: Float64) -> None:
        count_command(node)
        if not math.isfinite(msg.data):
            node.warn_throttled(f'{topic}: rejected: the value is not finite')
            return
        forces.set_motor_input(name, msg.data)
    return callback


def _wrench(node, forces, name: str, topic: str, kind: str):
    def callback(msg: Wrench) -> None:
        count_command(node)
        vec = msg.force if kind == 'force' else msg.torque
        values = [vec.x, vec.y, vec.z]
        if not all(math.isfinite(v) for v in values):
            node.warn_throttled(f'{topic}: rejected: a value is not finite')
            return
        forces.set_load_input(name, values)
    return callback
