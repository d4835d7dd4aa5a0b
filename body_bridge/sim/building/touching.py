"""Which links of a model touch in a given configuration (for the SRDF writer).

The model's collision shapes are built as the integrator builds them, with every link free to
touch every other, and posed without dynamics: joint positions in, MuJoCo's collision
detection out.
"""

from __future__ import annotations

import mujoco
import numpy as np

from ...model import Model
from .build import BuildOptions, build_spec
from ..mechanics.mimic import formula_of

__all__ = ['ShapeContacts']


class ShapeContacts:
    """A model's collision shapes in MuJoCo, posed joint by joint; shapes closer than
    ``margin`` [m] count as touching.

    Attributes:
        free: the 1-DOF joints no other drives, in the order of a configuration's values.
        links: the links that have collision shapes.
    """

    def __init__(self, model: Model, margin: float = 0.0):
        spec = build_spec(model, BuildOptions(self_collision=True, ground_plane='off'))
        self.mj = spec.compile()
        # MuJoCo finds a pair within the SUM of its two geoms' margins (MuJoCo 4): the contacts
        # found are filtered by their distance below, so that ``margin`` is the pair's.
        self.margin = margin
        self.mj.geom_margin[:] = margin
        self.data = mujoco.MjData(self.mj)
        self.free = [j for j in model.movable_joints if j.mimic is None and j.type.dof == 1]
        self.followers = [(j, formula_of(j)) for j in model.ordered_joints()
                          if j.mimic is not None and j.type.dof == 1]
        self.qadr = {j.name: int(self.mj.joint(j.name).qposadr[0])
                     for j in model.movable_joints if j.type.dof == 1}
        self.link_of = [self.mj.body(int(b)).name for b in self.mj.geom_bodyid]
        collide = (self.mj.geom_contype != 0) | (self.mj.geom_conaffinity != 0)
        self.links = sorted({self.link_of[g] for g in np.flatnonzero(collide)})

    def touching(self, q: np.ndarray) -> set[tuple[str, str]]:
        """Link pairs (in name order) in contact with the free joints at ``q`` [rad or m];
        mimic joints where their formulas put them."""
        qpos = self.data.qpos
        values = {}
        for joint, value in zip(self.free, q):
            qpos[self.qadr[joint.name]] = value
            values[joint.name] = value
        for joint, formula in self.followers:
            try:
                value = formula.evaluate({v: values.get(v, 0.0) for v in formula.variables})
            except ValueError:
                value = 0.0
            qpos[self.qadr[joint.name]] = values[joint.name] = value
        mujoco.mj_kinematics(self.mj, self.data)
        mujoco.mj_collision(self.mj, self.data)
        out = set()
        for contact in self.data.contact[:self.data.ncon]:
            a, b = self.link_of[contact.geom1], self.link_of[contact.geom2]
            if a != b and contact.dist <= self.margin:
                out.add((a, b) if a < b else (b, a))
        return out
