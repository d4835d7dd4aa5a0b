"""Link poses at given joint positions, by MuJoCo's forward kinematics (for ``check``).

The model is compiled without a ground plane; nothing is stepped.
"""

from __future__ import annotations

import mujoco
import numpy as np

from ...model import Model
from .build import BuildOptions, build_spec


class LinkPoses:
    """Forward kinematics of one model in MuJoCo, for any number of configurations."""

    def __init__(self, model: Model):
        self._mj = build_spec(model, BuildOptions(ground_plane='off')).compile()
        self._data = mujoco.MjData(self._mj)
        self._bodies = {link.name: self._mj.body(link.name).id for link in model.links}

    def at(self, positions: dict[str, float]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Each link's world position [m] and rotation matrix with the joints at
        ``positions`` (joint name -> rad or m) and every other coordinate at its zero."""
        mj, data = self._mj, self._data
        mujoco.mj_resetData(mj, data)
        for name, value in positions.items():
            data.qpos[mj.joint(name).qposadr[0]] = value
        mujoco.mj_kinematics(mj, data)
        return {name: (data.xpos[body].copy(), data.xmat[body].reshape(3, 3).copy())
                for name, body in self._bodies.items()}
