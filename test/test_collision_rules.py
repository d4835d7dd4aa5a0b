"""Choreonoid's collision_detection_rules decide which links touch with self-collision on."""

import textwrap

import mujoco
import pytest

from body_bridge.formats import load_model
from body_bridge.sim.building.build import BuildOptions, build_spec

LINKS = """
links:
  - {name: base, joint_type: fixed, mass: 1, inertia: [0.01, 0, 0, 0.01, 0, 0.01],
     elements: [{type: Shape, geometry: {type: Box, size: [0.2, 0.2, 0.2]}}]}
  - {name: upper, parent: base, joint_type: revolute, joint_axis: Z, translation: [0, 0, 0.5],
     mass: 1, inertia: [0.01, 0, 0, 0.01, 0, 0.01],
     elements: [{type: Shape, geometry: {type: Box, size: [0.1, 0.1, 0.1]}}]}
  - {name: lower, parent: upper, joint_type: revolute, joint_axis: Z, translation: [0, 0, -0.45],
     mass: 1, inertia: [0.01, 0, 0, 0.01, 0, 0.01],
     elements: [{type: Shape, geometry: {type: Box, size: [0.1, 0.1, 0.1]}}]}
  - {name: tip, parent: lower, joint_type: revolute, joint_axis: Z, translation: [0, 0, 0.9],
     mass: 1, inertia: [0.01, 0, 0, 0.01, 0, 0.01],
     elements: [{type: Shape, geometry: {type: Box, size: [0.1, 0.1, 0.1]}}]}
"""


def chain(tmp_path, rules: str):
    path = tmp_path / 'chain.body'
    path.write_text('format: ChoreonoidBody\nformat_version: 2.0\nname: chain\n' + LINKS +
                    textwrap.dedent(rules))
    return load_model(path)


def touching(model) -> set[tuple[str, str]]:
    """Link pairs in contact at the reference pose, self-collision on."""
    mj = build_spec(model, BuildOptions(ground_plane='off', self_collision=True)).compile()
    data = mujoco.MjData(mj)
    mujoco.mj_forward(mj, data)
    out = set()
    for contact in data.contact[:data.ncon]:
        a, b = (mj.body(mj.geom_bodyid[g]).name for g in (contact.geom1, contact.geom2))
        out.add(tuple(sorted((a, b))))
    return out


def test_without_rules_every_non_adjacent_pair_touches(tmp_path):
    # 'lower' (at z 0.05) overlaps 'base'; 'tip' (at z 0.95) is clear of everything.
    assert touching(chain(tmp_path, '')) == {('base', 'lower')}


@pytest.mark.parametrize('rules', [
    'collision_detection_rules:\n  - disabled_link_chain_level: 2\n',
    'collision_detection_rules:\n  - disabled_link_group: [ base, lower ]\n',
    'collision_detection_rules:\n  - disabled_links: [ lower ]\n',
    'collisionDetection:\n  excludeTreeDepth: 2\n',
    'collisionDetection:\n  excludeLinkGroups:\n    - {name: g, links: [ base, lower ]}\n',
])
def test_rules_keep_pairs_apart(tmp_path, rules):
    model = chain(tmp_path, rules)
    assert ('base', 'lower') in model.adjacent
    assert touching(model) == set()
    assert not [w for w in model.warnings if 'collision' in w.lower()]


def test_rules_apply_in_order(tmp_path):
    model = chain(tmp_path, """
        collision_detection_rules:
          - disabled_links: all
          - enabled_links: [ base, lower ]
    """)
    assert touching(model) == {('base', 'lower')}
    assert ('base', 'tip') in model.adjacent
    model = chain(tmp_path, """
        collision_detection_rules:
          - disabled_link_chain_level: 2
          - enabled_link_group: [ base, lower ]
    """)
    assert touching(model) == {('base', 'lower')}


def test_a_chain_level_below_one_is_read_as_one_with_a_warning(tmp_path):
    model = chain(tmp_path, 'collision_detection_rules:\n  - disabled_link_chain_level: 0\n')
    assert any('read as 1' in w for w in model.warnings)
    assert touching(model) == {('base', 'lower')}
