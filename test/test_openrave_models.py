"""Every OpenRAVE robot, kinbody and environment in the shared model set, end to end.

Each file either loads and passes the checks every model must pass (``check_urdf`` accepts its
URDF; URDF and MuJoCo agree on every link pose at random joint positions; masses match; one
second of stepping without MuJoCo warnings), or fails with one line naming what is not
supported. The expected failures are listed with their reason.
"""

from __future__ import annotations

import pytest

from conftest import CORPUS
from model_checks import check_all

from body_bridge.formats import load_model

pytestmark = pytest.mark.corpus  # every test here reads the real model corpus

OPENRAVE = CORPUS / 'openrave'
#: The OpenRAVE XML files (``model_files.py`` takes them, less ``COLLADA``, for the oracles).
FILES = sorted(p for p in OPENRAVE.rglob('*.xml')
               if p.name.endswith(('.robot.xml', '.kinbody.xml', '.env.xml')))
XML = FILES
#: OpenRAVE's COLLADA robots (zipped .zae and plain .dae).
ZAE = sorted(p for p in OPENRAVE.rglob('*') if p.suffix.lower() in ('.zae', '.dae'))
#: XML files that include a COLLADA robot (directly or through another file): file -> robot.
#: (The dynamics and URDF read-back oracles of ``model_files.py`` leave these and the COLLADA
#: robots out: their files hold masses and inertias below MuJoCo's minimum.)
COLLADA = {
    'src/data/hanoi.env.xml': 'pumaarm.zae',
    'src/data/hironxtable.env.xml': 'kawada-hironx.zae',
    'src/data/katanatable.env.xml': 'neuronics-katana.zae',
    'src/data/pa10calib.env.xml': 'mitsubishi-pa10.zae',
    'src/data/pa10grasp.env.xml': 'mitsubishi-pa10.zae',
    'src/data/pa10grasp2.env.xml': 'mitsubishi-pa10.zae',
    'src/data/pr2test1.env.xml': 'pr2-beta-static.zae',
    'src/data/pr2wam_test1.env.xml': 'pr2-beta-static.zae',
    'src/data/puma.env.xml': 'pumaarm.zae',
    'src/data/puma_tabletop.env.xml': 'pumaarm.zae',
    'src/data/testphysics.env.xml': 'pumaarm.zae',
    'src/robots/pa10schunk.robot.xml': 'mitsubishi-pa10.zae',
    'src/robots/pr2-beta-sim.robot.xml': 'pr2-beta-static.zae',
    'src/robots/puma.robot.xml': 'pumaarm.zae',
    'src/robots/pumabarrett.robot.xml': 'pumaarm.zae',
}


def _id(path) -> str:
    return str(path.relative_to(OPENRAVE))


def test_the_model_set_is_there():
    assert len(XML) == 62  # 55 entry models and the kinbodies they include
    assert len(ZAE) == 6
    assert set(COLLADA) <= {_id(p) for p in XML}


@pytest.mark.parametrize('path', XML + ZAE, ids=_id)
def test_openrave_model_loads_and_passes_checks(path, tmp_path, check_urdf):
    model = load_model(path)
    assert model.links and model.total_mass > 0
    check_all(model, tmp_path, check_urdf)
