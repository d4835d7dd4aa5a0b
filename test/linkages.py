"""Linkages the tests build in code: the bars of a planar four-bar (a parallelogram) whose
loop each test closes its own way."""

from __future__ import annotations

import numpy as np

from body_bridge.model import Box, Inertial, Joint, Link, Pose, Shape

__all__ = ['four_bar_parts']


def four_bar_parts(joint_type: str = 'continuous') -> tuple[tuple, tuple]:
    """(links, joints) of a parallelogram in the x-z plane, hinges about y of ``joint_type``:
    ground; crank at the origin and rocker at x = 0.5 (0.3 m each, 1 kg at 0.15 m, 0.01 kg m^2
    about the centre); a 0.5 m coupler (1 kg) on the crank's top. The rocker's top is where
    the loop closes on the coupler's end."""
    def bar(name, pose, com):
        return Link(name, pose, Inertial(1.0, com, np.eye(3) * 0.01),
                    visuals=(Shape(Box((0.02, 0.02, 0.02)), Pose(com)),))
    links = (Link('ground'), bar('crank', Pose((0, 0, 0)), (0, 0, 0.15)),
             bar('coupler', Pose((0, 0, 0.3)), (0.25, 0, 0)),
             bar('rocker', Pose((0.5, 0, 0)), (0, 0, 0.15)))
    joints = (Joint('a', joint_type, 'ground', 'crank', (0, 1, 0)),
              Joint('b', joint_type, 'crank', 'coupler', (0, 1, 0)),
              Joint('d', joint_type, 'ground', 'rocker', (0, 1, 0)))
    return links, joints
