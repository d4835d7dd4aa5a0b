"""What the in-process ROS unit tests hand the code under test: a real rclpy node in a context
of its own, the same node carrying a Simulation stand-in as the bridge node carries its
Simulation, a goal handle as rclpy's action server hands one over, and a logger that keeps
its lines.

rclpy is imported only when a node is made, so importing this module needs no ROS."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from types import SimpleNamespace


@contextmanager
def own_node(name: str, namespace: str | None = None):
    """A node in an rclpy context of its own, destroyed and its context shut down after."""
    import rclpy
    from rclpy.node import Node
    context = rclpy.Context()
    rclpy.init(context=context)
    made = (Node(name, context=context) if namespace is None
            else Node(name, namespace=namespace, context=context))
    try:
        yield made
    finally:
        made.destroy_node()
        rclpy.shutdown(context=context)


@contextmanager
def sim_node(name: str, sim, namespace: str | None = None):
    """``own_node`` as the bridge node looks to its action servers: ``sim`` as its Simulation,
    a runner holding only the lock, and the period outputs and throttled warnings recorded."""
    with own_node(name, namespace) as made:
        made.sim, made.runner = sim, SimpleNamespace(lock=threading.RLock())
        made.period_outputs, made.warnings = [], []
        made.warn_throttled = made.warnings.append
        yield made


class GoalHandle:
    """A goal handle as rclpy's action server gives it: what the servers do to it is recorded.
    Each handle made has a goal id of its own."""

    count = 0

    def __init__(self, request):
        GoalHandle.count += 1
        self.request = request
        self.goal_id = SimpleNamespace(uuid=bytes([GoalHandle.count % 256] * 16))
        self.is_active, self.is_cancel_requested = True, False
        self.feedback, self.executed, self.status = [], 0, None

    def publish_feedback(self, msg):
        self.feedback.append(msg)

    def execute(self):
        self.executed += 1

    def succeed(self):
        self.status = 'succeeded'

    def abort(self):
        self.status = 'aborted'

    def canceled(self):
        self.status = 'canceled'


class Log:
    """A node's logger as the code under test uses it: the lines kept, with their level."""

    def __init__(self):
        self.lines = []

    def info(self, text):
        self.lines.append(('info', text))

    def warning(self, text):
        self.lines.append(('warning', text))
