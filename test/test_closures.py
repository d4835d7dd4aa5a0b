"""Loop closures held by the integrator: a four-bar linkage closed by each closure type."""


import mujoco
import numpy as np
import pytest

from body_bridge.model import LoopClosure, Model, Pose
from body_bridge.sim.building.build import BuildOptions, build_spec
from body_bridge.sim.mechanics.closures import CLOSURE_TYPES

from linkages import four_bar_parts


def four_bar(closure_type: str) -> Model:
    """A parallelogram: crank at the origin, rocker at x = 0.5, bars 0.3 m, coupler 0.5 m."""
    links, joints = four_bar_parts('revolute')
    closure = LoopClosure('loop', closure_type, 'coupler', 'rocker', Pose((0.5, 0, 0)),
                          Pose((0, 0, 0.3)), axis=(0, 1, 0))
    return Model('four_bar', links, joints, 'ground', closures=(closure,))


def simulate(model, seconds, kick=1.0):
    mj = build_spec(model, BuildOptions(ground_plane=False)).compile()
    data = mujoco.MjData(mj)
    data.qvel[mj.joint('a').dofadr[0]] = kick
    coupler, rocker = mj.body('coupler').id, mj.body('rocker').id
    gap = 0.0
    for _ in range(int(seconds / mj.opt.timestep)):
        mujoco.mj_step(mj, data)
        p1 = data.xpos[coupler] + data.xmat[coupler].reshape(3, 3) @ (0.5, 0, 0)
        p2 = data.xpos[rocker] + data.xmat[rocker].reshape(3, 3) @ (0, 0, 0.3)
        gap = max(gap, float(np.linalg.norm(p1 - p2)))
    assert not any(w.number for w in data.warning)
    return mj, data, gap


@pytest.mark.parametrize('kind', ['hinge', 'ball', 'universal', 'weld'])
def test_loop_stays_closed(kind):
    _, _, gap = simulate(four_bar(kind), 5.0)
    assert gap < 1e-4


def test_hinge_loop_moves_as_a_parallelogram():
    mj, data, _ = simulate(four_bar('hinge'), 2.0)
    a, b, d = (data.qpos[mj.joint(n).qposadr[0]] for n in 'abd')
    assert abs(a) > 0.5  # it moved
    assert d == pytest.approx(a, abs=1e-3) and b == pytest.approx(-a, abs=1e-3)


def test_weld_loop_locks_the_mechanism():
    mj, data, _ = simulate(four_bar('weld'), 2.0)
    assert abs(data.qpos[mj.joint('a').qposadr[0]]) < 1e-3


def test_closure_bodies_are_virtual():
    mj = build_spec(four_bar('piston'), BuildOptions(ground_plane=False)).compile()
    names = [mj.body(i).name for i in range(mj.nbody)]
    assert [n for n in names if n.startswith('loop:')] == ['loop:virtual0', 'loop:virtual1']
    assert all(mj.body(n).mass[0] <= 1e-4 for n in names if n.startswith('loop:'))


def test_unknown_type_is_refused():
    with pytest.raises(ValueError, match="type 'glue'"):
        build_spec(four_bar('glue'))
    assert 'glue' not in CLOSURE_TYPES
