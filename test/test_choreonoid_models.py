"""Every Choreonoid Body file of the shared real-model set: loaded, converted, simulated.

For each file: ``check_urdf`` accepts the URDF, URDF and MuJoCo agree on every link's world
pose at random joint positions (1e-6), MuJoCo's masses are the model's, one second of
stepping raises no MuJoCo warning. Masses are also compared with a second, independent
reading of the YAML (plain PyYAML, summing every link and RigidBody ``mass``).
"""

from pathlib import Path

import pytest
import yaml

from body_bridge.formats import load_model

from conftest import CORPUS
from model_checks import check_all

pytestmark = pytest.mark.corpus  # every test here reads the real model corpus

CHOREONOID = CORPUS / 'choreonoid'
BODY_FILES = sorted(CHOREONOID.rglob('*.body'))


def test_the_shared_set_is_there():
    assert len(BODY_FILES) >= 50, f'expected the shared Choreonoid models in {CHOREONOID}'


@pytest.mark.parametrize('path', BODY_FILES, ids=lambda p: str(p.relative_to(CHOREONOID)))
def test_real_body_file(path, tmp_path, check_urdf):
    model = load_model(path)
    assert model.links
    check_all(model, tmp_path, check_urdf)
    for warning in model.warnings:
        assert '\n' not in warning and ':' in warning


def _file_masses(path: Path, seen=()) -> dict[str, float]:
    """Link name -> mass summed from the file's raw YAML (Links, RigidBody nodes, SubBody)."""
    data = yaml.safe_load(path.read_text())
    links = data['links']
    out = {}
    for item in links if isinstance(links, list) else links.values():
        if item.get('type') == 'SubBody':
            sub = _file_masses(path.parent / item['uri'], seen + (path,))
            prefix, suffix = item.get('prefix', ''), str(item.get('suffix', ''))
            out.update({f'{prefix}{k}{suffix}': v for k, v in sub.items()})
            continue
        if item.get('type') == 'Skip':
            continue
        total = float(item.get('mass', 0.0)) + _rigid_body_mass(item.get('elements'))
        if item.get('type') == 'ContinuousTrack':  # one link for the chain of shoes
            out[str(item['name'])] = total * item['numJoints']
        else:
            out[str(item['name'])] = total
    return out


def _rigid_body_mass(elements, node_type=None) -> float:
    if elements is None:
        return 0.0
    if isinstance(elements, list):
        return sum(_rigid_body_mass(e) for e in elements)
    if 'type' not in elements and node_type is None:
        return sum(_rigid_body_mass(v, k) for k, v in elements.items() if isinstance(v, dict))
    kind = elements.get('type', node_type)
    own = float(elements.get('mass', 0.0)) if kind == 'RigidBody' else 0.0
    return own + _rigid_body_mass(elements.get('elements'))


# Files whose masses sit in YAML resource files (read through anchors, checked elsewhere).
_RESOURCE_MASSES = ('AizuSpider', 'AizuWheel')


@pytest.mark.parametrize('path', [p for p in BODY_FILES
                                  if not any(r in str(p) for r in _RESOURCE_MASSES)],
                         ids=lambda p: str(p.relative_to(CHOREONOID)))
def test_link_masses_match_the_file(path):
    expected = _file_masses(path)
    model = load_model(path)
    got = {link.name: 0.0 if link.inertial is None else link.inertial.mass
           for link in model.links}
    assert got.keys() == expected.keys()
    for name, mass in expected.items():
        assert got[name] == pytest.approx(mass, rel=1e-12, abs=1e-12), name
    assert model.total_mass == pytest.approx(sum(expected.values()))


def test_aizu_spider_masses_come_from_its_resource_file():
    # CHASSIS of AizuSpiderNS, summed by hand from AizuSpiderCommon.yaml: the CHASSIS anchor
    # (chassis body, laser range finder, four cameras, light, two arm frames), plus the
    # anchors the link places 4 TRACK_WHEEL_VISUAL, 2 x 10 TRACK_BOTTOM_ROLLER_VISUAL,
    # 2 TRACK_TOP_ROLLER_VISUAL and 4 SUB_TRACK_WHEEL1_VISUAL.
    model = load_model(CHOREONOID / 'share/model/AizuSpider/AizuSpiderNS.body')
    chassis = 47.91109 + 5.29071 + 4 * 0.02199 + 0.00448 + 0.42880 + 1.13632
    expected = chassis + 4 * 2.23528 + 20 * 0.08293 + 2 * 0.08514 + 4 * 2.23528
    assert model.link('CHASSIS').inertial.mass == pytest.approx(expected, rel=1e-12)
