"""The simulated link inertias are the URDF's: nothing is balanced unless the file's inertia
is not one of a rigid body, and then a load warning says so."""

import warnings

import mujoco
import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.model import Inertial, JointType, Link, Model
from body_bridge.sim.building.build import BuildOptions, build_spec

from conftest import CORPUS, shared_model
from test_chrono_load import CHRONO, REAL_MBS
from test_openrave_models import COLLADA, OPENRAVE

REAL = sorted([*CORPUS.glob('choreonoid/**/*.body'),
               *(p for p in OPENRAVE.rglob('*.xml')
                 if p.name.endswith(('.robot.xml', '.kinbody.xml', '.env.xml')) and
                 str(p.relative_to(OPENRAVE)) not in COLLADA),
               *(CHRONO / name for name in REAL_MBS if (CHRONO / name).exists())])


def simulated_inertias(model: Model):
    """link -> (mass [kg], centre of mass [m], inertia [kg m^2] in the link frame)."""
    mj = build_spec(model, BuildOptions(ground_plane=False)).compile()
    out = {}
    for link in model.links:
        body = mj.body(link.name)
        if body.id == 0:  # a root link named 'world' is MuJoCo's world body
            continue
        rot = np.zeros(9)
        mujoco.mju_quat2Mat(rot, mj.body_iquat[body.id])
        rot = rot.reshape(3, 3)
        out[link.name] = (float(mj.body_mass[body.id]), mj.body_ipos[body.id].copy(),
                          rot @ np.diag(mj.body_inertia[body.id]) @ rot.T)
    return out


def differing_links(model: Model) -> list[str]:
    """Links whose simulated mass properties are not the model's (the URDF's)."""
    different = []
    for name, (mass, com, inertia) in simulated_inertias(model).items():
        inertial = model.link(name).inertial
        if inertial is None or inertial.mass <= 0:
            continue
        scale = max(float(np.abs(inertial.inertia).max()), 1e-12)
        if (abs(mass - inertial.mass) > 1e-9 * max(1.0, inertial.mass) or
                np.abs(com - inertial.com).max() > 1e-9 or
                np.abs(inertia - inertial.inertia).max() > 1e-6 * scale):
            different.append(name)
    return different


@pytest.mark.corpus
@pytest.mark.parametrize('path', REAL, ids=lambda p: str(p.relative_to(CORPUS)))
def test_simulated_inertia_is_the_urdfs_or_a_warning_says_why(path):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        model = load_model(path)
    for name in differing_links(model):
        assert any(f"'{name}'" in w and ('balance' in w or 'mean' in w or 'A + B' in w)
                   for w in model.warnings), f'{name}: inertia changed without a warning'


def plate_model(inertia: np.ndarray) -> Model:
    return Model('plate', (Link('plate', inertial=Inertial(0.05, np.zeros(3), inertia)),), (),
                 'plate', root_joint=JointType.FREE)


@pytest.mark.parametrize('size', [(0.2, 0.1), (0.25, 0.004), (1.0, 1.0)])
def test_a_flat_plate_keeps_its_inertia(size):
    # A thin plate in x-y: A + B = C exactly, a rigid body at the bound (a propeller blade).
    m, (a, b) = 0.05, size
    ixx, iyy = m * b * b / 12, m * a * a / 12
    tensor = np.diag([ixx, iyy, ixx + iyy])
    rot = np.linalg.qr(np.random.default_rng(3).normal(size=(3, 3)))[0]
    for inertia in (tensor, rot @ tensor @ rot.T):  # also off its principal axes
        model = plate_model(inertia)
        _, _, simulated = simulated_inertias(model)['plate']
        np.testing.assert_allclose(simulated, inertia, rtol=0, atol=1e-9 * inertia.max())


def test_an_inertia_no_rigid_body_has_is_balanced():
    model = plate_model(np.diag([0.1, 0.1, 0.5]))
    assert differing_links(model) == ['plate']  # the integrator cannot take it as given


@pytest.mark.parametrize('largest', [0.02, 40.0])
def test_an_inertia_just_beyond_rounding_of_the_bound_is_balanced_not_nudged(largest):
    """A + B short of C by 5e-7 of C (beyond rounding, the 1e-9 of C the builder allows)
    is no rigid body's: balanced as any other, whatever the inertia's scale; one short by
    1e-10 of C (within what the builder allows for rounding) is taken as given."""
    half = largest / 2
    assert differing_links(plate_model(np.diag([half, half, largest * (1 + 5e-7)]))) == \
        ['plate']
    assert differing_links(plate_model(np.diag([half, half, largest * (1 + 1e-10)]))) == []
    # just past the builder's bound of 1e-9 of C: no longer rounding
    assert differing_links(plate_model(np.diag([half, half, largest * (1 + 1.5e-9)]))) == \
        ['plate']


@pytest.mark.corpus
def test_the_quadcopters_propellers_keep_their_spin_inertia():
    # Each propeller is a flat plate (2e-6 + 1.5e-4 = 1.52e-4 kg m^2); balanced, its spin
    # inertia would be the mean of the three, a third too low.
    model = load_model(shared_model('choreonoid/share/model/multicopter/quadcopter.body'))
    simulated = simulated_inertias(model)
    for name in ('PROP0', 'PROP1', 'PROP2', 'PROP3'):
        moments = np.linalg.eigvalsh(simulated[name][2])
        np.testing.assert_allclose(moments, (2e-6, 1.5e-4, 1.52e-4), rtol=1e-6)
        assert not [w for w in model.warnings if f"'{name}'" in w]
