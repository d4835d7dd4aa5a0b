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

from body_bridge.errors import ModelError, UnsupportedError
from body_bridge.formats import load_model

pytestmark = pytest.mark.corpus  # every test here reads the real model corpus

OPENRAVE = CORPUS / 'openrave'
FILES = sorted(p for p in OPENRAVE.rglob('*.xml')
               if p.name.endswith(('.robot.xml', '.kinbody.xml', '.env.xml')))

#: Files that refer to COLLADA robots (.zae), which are out of scope: file -> the .zae named.
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
    assert len(FILES) == 62  # 55 entry models and the kinbodies they include
    assert set(COLLADA) <= {_id(p) for p in FILES}


@pytest.mark.parametrize('path', [p for p in FILES if _id(p) not in COLLADA], ids=_id)
def test_openrave_model_loads_and_passes_checks(path, tmp_path, check_urdf):
    model = load_model(path)
    assert model.links and model.total_mass > 0
    check_all(model, tmp_path, check_urdf)


@pytest.mark.parametrize('path', [p for p in FILES if _id(p) in COLLADA], ids=_id)
def test_collada_robots_fail_with_one_line(path):
    with pytest.raises(UnsupportedError) as info:
        load_model(path)
    message = str(info.value)
    assert '\n' not in message
    assert COLLADA[_id(path)] in message and 'COLLADA' in message
    assert isinstance(info.value, ModelError) and info.value.line is not None
