"""``cmd_vel`` and ``odom`` for a mobile base (tracks, or two wheels on one axis).

``cmd_vel`` (geometry_msgs/Twist): ``linear.x`` [m/s] and ``angular.z`` [rad/s] become
velocity commands of the drive's joints (:mod:`body_bridge.sim.mechanics.drive`); the other fields
must be 0 (a base cannot move sideways), else the message is rejected with one warning. The
joints keep the last speed until the next message, or until ``cmd_vel_timeout`` [s of simulated
time] passes without one: then the base stops (velocity 0 on its joints), as a base
controller does when its navigation stack goes quiet.

``odom`` (nav_msgs/Odometry), every control period: the root link's pose in ``odom_frame``
and its velocity in its own frame (REP-105: ``child_frame_id`` is the root link). The values
are the integrator's, exact; the covariances say so: 1e-9 on their diagonals (m^2, rad^2,
(m/s)^2, (rad/s)^2), not 0, for consumers that invert them. ``odom_frame`` coincides with
``fixed_frame``: with ``odom_tf`` the root link's TF parent is ``odom_frame`` and a static
identity ``fixed_frame -> odom_frame`` keeps one tree (a localisation that publishes
``map -> odom`` itself sets ``fixed_frame`` to the odom frame's name).
"""

from __future__ import annotations

import math

import numpy as np
from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry

from ...errors import ParameterError
from ...model import JointType
from ...sim.mechanics.drive import Drive, DriveError, base_state, find_drive
from ...sim.names import CommandRejected, Mode
from ..stream import qos
from ..console import count_command

__all__ = ['MobileBase', 'drive_of', 'drive_and_why', 'COVARIANCE']

#: Diagonal of the pose and twist covariances of ``odom`` (exact values, see module text).
COVARIANCE = 1e-9


def drive_of(node) -> Drive | str | None:
    """The drive the node's parameters ask for (None: no cmd_vel; ``'planar'``: the kinematic
    planar drive of a ``root: planar`` base:
    :func:`body_bridge.ros.control.planar_base.make_mobile_base`).

    Raises:
        ParameterError: joints named that make no drive, or a bad separation.
    """
    return drive_and_why(node)[0]


def drive_and_why(node) -> tuple[Drive | str | None, str]:
    """:func:`drive_of`, and why cmd_vel is or is not offered, in a few words for the
    start-up line (which wheels or tracks drive, or why those found make no drive)."""
    p = node.params
    if not p['cmd_vel']:
        return None, 'no cmd_vel (cmd_vel is false)'
    if getattr(node, 'root_taken', None) == 'planar':
        return 'planar', 'cmd_vel moves the base in the plane (root planar)'
    left, right = _names(p['drive_left_joints']), _names(p['drive_right_joints'])
    if node.model.root_joint != JointType.FREE and not (left or right):
        return None, 'no cmd_vel'  # the root line said why the root is fixed
    separation = p['drive_separation']
    if not math.isfinite(separation) or separation < 0:
        raise ParameterError('drive_separation', f'must be 0 or positive, not {separation}')
    try:
        drive = find_drive(node.model, left, right, separation, p['default_velocity_limit'])
    except DriveError as err:
        if left or right:
            raise ParameterError('drive_left_joints', str(err)) from None
        return None, f'no cmd_vel: {err}'  # a model without a mobile base
    return drive, (f'cmd_vel drives {drive.kind} {", ".join(drive.left)} (left) and '
                   f'{", ".join(drive.right)} (right)')


def _names(value: str) -> list[str]:
    return [n for n in value.replace(',', ' ').split() if n]


class MobileBase:
    """Subscribes to ``cmd_vel``, publishes ``odom`` every period."""

    def __init__(self, node, sim, drive: Drive):
        self.node, self.sim, self.drive = node, sim, drive
        self.frame = node.frame(sim.model.root)
        self.odom_frame = node.params['odom_frame']
        self._sub = node.create_subscription(Twist, 'cmd_vel', self._on_twist, qos.COMMANDS)
        self._pub = node.create_publisher(Odometry, 'odom', qos.JOINT_STATES)
        self._msg = Odometry()
        self._msg.header.frame_id = self.odom_frame
        self._msg.child_frame_id = self.frame
        covariance = np.diag([COVARIANCE] * 6).reshape(-1).tolist()
        self._msg.pose.covariance = covariance
        self._msg.twist.covariance = covariance
        self.timeout = node.params['cmd_vel_timeout']
        if not math.isfinite(self.timeout) or self.timeout < 0:
            raise ParameterError('cmd_vel_timeout', f'must be 0 or positive, not {self.timeout}')
        self._last = 0.0  # simulated time of the last twist obeyed [s]
        self._moving = False
        node.period_outputs.append(self.publish)
        node.get_logger().info(self._announcement())

    def _announcement(self) -> str:
        drive = self.drive
        return (f'cmd_vel drives {drive.kind} {", ".join(drive.left)} (left) and '
                f'{", ".join(drive.right)} (right), {drive.separation:.4g} m apart')

    #: The twist's components (linear x, y, z, angular x, y, z) this base obeys; a twist
    #: with any other one not zero is rejected.
    MOVES = (0, 5)

    def _refusal(self) -> str:
        return f'a base on {self.drive.kind} moves along linear.x and turns about angular.z only'

    def _on_twist(self, msg: Twist) -> None:
        count_command(self.node)
        topic = self._sub.topic_name
        values = [msg.linear.x, msg.linear.y, msg.linear.z, msg.angular.x, msg.angular.y,
                  msg.angular.z]
        if not all(math.isfinite(v) for v in values):
            self.node.warn_throttled(f'{topic}: rejected: a value is NaN or infinite')
            return
        if any(v for i, v in enumerate(values) if i not in self.MOVES):
            self.node.warn_throttled(f'{topic}: rejected: {self._refusal()}')
            return
        if self._obey(values, topic):
            self._last, self._moving = self.sim.time, any(values)

    def _obey(self, values: list[float], topic: str) -> bool:
        """Drive the joints for a twist already checked; whether it was obeyed."""
        speeds, scaled = self.drive.joint_speeds(values[0], values[5])
        if scaled:
            self.node.warn_throttled(f'{topic}: the twist is beyond the drive joints\' '
                                     'velocity limits: scaled down, curvature kept')
        try:
            self.sim.command(Mode.VELOCITY, self.drive.joints, speeds, source=topic)
        except CommandRejected as err:
            self.node.warn_throttled(f'{topic}: rejected: {err}')
            return False
        return True

    def _halt(self) -> None:
        self.sim.command(Mode.VELOCITY, self.drive.joints, np.zeros(len(self.drive.joints)))

    def _stop_if_quiet(self) -> None:
        """Stop the base when cmd_vel has been quiet for ``cmd_vel_timeout``."""
        if self._moving and self.timeout > 0 and self.sim.time - self._last > self.timeout:
            self._moving = False
            self._halt()
            self.node.warn_throttled(f'{self._sub.topic_name}: nothing for {self.timeout:g} s: '
                                     'the base stops (cmd_vel_timeout)')

    def publish(self, stamp) -> None:
        """The root link's pose and twist at ``stamp`` (called with the world locked)."""
        self._stop_if_quiet()
        msg = self._msg
        msg.header.stamp = stamp
        pos, quat, linear, angular = base_state(self.sim)
        p, q = msg.pose.pose.position, msg.pose.pose.orientation
        p.x, p.y, p.z = (float(v) for v in pos)
        q.w, q.x, q.y, q.z = (float(v) for v in quat)
        v, w = msg.twist.twist.linear, msg.twist.twist.angular
        v.x, v.y, v.z = (float(x) for x in linear)
        w.x, w.y, w.z = (float(x) for x in angular)
        self._pub.publish(msg)
