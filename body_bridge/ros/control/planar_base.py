"""``cmd_vel`` and ``odom`` for a ``root: planar`` base: a kinematic planar drive.

``cmd_vel`` (geometry_msgs/Twist): ``linear.x``, ``linear.y`` [m/s] and ``angular.z``
[rad/s] in the root link's frame move the base in the ground plane
(:class:`body_bridge.sim.mechanics.planar.PlanarMove`, as Gazebo's planar-move plug-in);
``linear.z``, ``angular.x`` and ``angular.y`` must be 0, else the message is rejected with one warning.
The base keeps the last twist until the next message or until ``cmd_vel_timeout`` passes
without one (then it stops). ``odom`` as for a wheeled base (:mod:`body_bridge.ros.control.mobile`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...sim.mechanics.planar import PlanarMove
from .mobile import MobileBase

__all__ = ['PlanarBase', 'make_mobile_base']


@dataclass(frozen=True)
class _Planar:
    kind: str = 'planar base'


class PlanarBase(MobileBase):
    """Subscribes to ``cmd_vel``, publishes ``odom`` every period; moves the base itself."""

    def __init__(self, node, sim):
        self.mover = PlanarMove(sim)
        super().__init__(node, sim, _Planar())

    def _announcement(self) -> str:
        return ('cmd_vel moves the base in the plane (linear.x, linear.y, angular.z), '
                'kinematically: root planar')

    MOVES = (0, 1, 5)

    def _refusal(self) -> str:
        return ('a planar base moves along linear.x and linear.y and turns about angular.z '
                'only')

    def _obey(self, values: list[float], topic: str) -> bool:
        self.mover.command(values[0], values[1], values[5])
        return True

    def _halt(self) -> None:
        self.mover.command(0.0, 0.0, 0.0)


def make_mobile_base(node, sim, drive) -> MobileBase:
    """The cmd_vel/odom outlet for a drive of :func:`body_bridge.ros.control.mobile.drive_of`."""
    if drive == 'planar':
        return PlanarBase(node, sim)
    return MobileBase(node, sim, drive)
