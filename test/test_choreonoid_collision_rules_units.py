"""Choreonoid's collision detection rules as link pairs kept apart, read from the top node."""

import pytest

from body_bridge.errors import ModelError
from body_bridge.formats.choreonoid.collision_rules import excluded_pairs, wire_only_links
from body_bridge.formats.choreonoid.nodes import Context, Node
from body_bridge.formats.yamlsource import load_yaml

#: a - b - c - d, and e on b
PARENTS = {'a': None, 'b': 'a', 'c': 'b', 'd': 'c', 'e': 'b'}


def top(text: str) -> Node:
    return Node(load_yaml('m.body', text), Context('m.body'), 1)


def pairs(text: str, parents=PARENTS):
    node = top(text)
    return set(excluded_pairs(node, parents)), [w.split(': ', 1)[1] for w in node.ctx.warnings]


def test_no_rules_keep_nothing_apart():
    assert pairs('name: x\n') == (set(), [])
    assert pairs('collision_detection_rules: []\n') == (set(), [])


@pytest.mark.parametrize('level, expected', [
    (1, {('a', 'b'), ('b', 'c'), ('c', 'd'), ('b', 'e')}),
    (2, {('a', 'b'), ('b', 'c'), ('c', 'd'), ('b', 'e'), ('a', 'c'), ('a', 'e'), ('b', 'd'),
         ('c', 'e')}),
])
def test_chain_levels_count_joints_along_the_tree(level, expected):
    assert pairs(f'collision_detection_rules:\n  - disabled_link_chain_level: {level}\n') == \
        (expected, [])
    assert pairs(f'collisionDetection: {{ excludeTreeDepth: {level} }}\n') == (expected, [])


def test_a_chain_level_of_zero_is_one_with_a_warning():
    found, said = pairs('collision_detection_rules:\n  - disabled_link_chain_level: 0\n')
    assert found == {('a', 'b'), ('b', 'c'), ('c', 'd'), ('b', 'e')}
    assert said == ['disabled_link_chain_level 0 is read as 1: the integrator never lets a link '
                    'touch its parent']


@pytest.mark.parametrize('value', ['-1', '1.5'])
def test_a_bad_chain_level_is_one_line(value):
    with pytest.raises(ModelError, match='must be a whole number of joints, 0 or more'):
        pairs(f'collision_detection_rules:\n  - disabled_link_chain_level: {value}\n')


def test_disabled_and_enabled_links_in_order():
    found, _ = pairs('collision_detection_rules:\n  - disabled_links: all\n'
                     '  - enabled_links: [a, d]\n')
    everything = {('a', 'b'), ('a', 'c'), ('a', 'd'), ('a', 'e'), ('b', 'c'), ('b', 'd'),
                  ('b', 'e'), ('c', 'd'), ('c', 'e'), ('d', 'e')}
    assert found == everything - {('a', 'd')}
    found, _ = pairs('collision_detection_rules:\n  - disabled_links: [c]\n')
    assert found == {('a', 'c'), ('b', 'c'), ('c', 'd'), ('c', 'e')}
    found, _ = pairs('collision_detection_rules:\n  - disabled_links: [c, d]\n'
                     '  - enabled_links: [c]\n')
    assert found == {('a', 'd'), ('b', 'd'), ('c', 'd'), ('d', 'e')}
    found, _ = pairs('collision_detection_rules:\n  - disabled_links: [c]\n'
                     '  - enabled_links: all\n')
    assert found == set()


def test_groups_disabled_and_enabled():
    found, _ = pairs('collision_detection_rules:\n  - disabled_link_group: [d, a, e]\n')
    assert found == {('a', 'd'), ('a', 'e'), ('d', 'e')}
    found, _ = pairs('collision_detection_rules:\n  - disabled_link_group: [d, a, e]\n'
                     '  - enabled_link_group: [a, e]\n')
    assert found == {('a', 'd'), ('d', 'e')}


def test_unknown_names_are_warned_and_a_bad_list_refused():
    found, said = pairs('collision_detection_rules:\n  - disabled_links: [c, wing, 3]\n')
    assert found == {('a', 'c'), ('b', 'c'), ('c', 'd'), ('c', 'e')}
    assert said == ['disabled_links: wing, 3 are not links of the body; ignored']
    with pytest.raises(ModelError) as caught:
        pairs('collision_detection_rules:\n  - disabled_links: c\n')
    assert caught.value.message == 'disabled_links must be a list of link names or "all"'
    with pytest.raises(ModelError) as caught:
        pairs('collision_detection_rules: { disabled_links: [c] }\n')
    assert caught.value.message == 'collision_detection_rules must be a list of rules'


def test_a_rule_without_a_known_key_does_nothing_and_is_warned():
    found, said = pairs('collision_detection_rules:\n  - { stiffness: 3 }\n  - 5\n')
    assert found == set()
    assert said == ["collision_detection_rules rule: key 'stiffness' is not supported and was "
                    'ignored']
    found, said = pairs('collision_detection_rules:\n  - { disabled_links: [c], extra: 1 }\n')
    assert found == {('a', 'c'), ('b', 'c'), ('c', 'd'), ('c', 'e')}
    assert said == ["collision_detection_rules rule: key 'extra' is not supported and was "
                    'ignored']


def test_the_older_mapping():
    found, said = pairs('collisionDetection:\n  excludeLinks: [a]\n'
                        '  excludeSelfCollisionLinks: [d]\n'
                        '  excludeLinkGroups:\n    - { name: g, links: [c, e] }\n    - 4\n'
                        '    - { name: h, color: red }\n'
                        '  excludeLinksWireCollision: [b]\n')
    assert found == {('a', 'b'), ('a', 'c'), ('a', 'd'), ('a', 'e'), ('b', 'd'), ('c', 'd'),
                     ('d', 'e'), ('c', 'e')}
    assert said == ["excludeLinkGroups entry: key 'color' is not supported and was ignored"]
    found, said = pairs('collisionDetection: { excludeLinks: [a], colour: 1 }\n')
    assert said == ["collisionDetection: key 'colour' is not supported and was ignored"]
    assert pairs('collisionDetection: 3\n') == (set(), [])


def test_the_newer_rules_win_over_the_older_mapping():
    node = top('collision_detection_rules:\n  - disabled_links: [c]\n'
               'collisionDetection: { excludeLinks: [a] }\n')
    assert set(excluded_pairs(node, PARENTS)) == {('a', 'c'), ('b', 'c'), ('c', 'd'), ('c', 'e')}
    node.warn_unused('body', frozenset({'collision_detection_rules'}))
    assert node.ctx.warnings == []


def test_links_that_touch_only_wires():
    node = top('collisionDetection: { excludeLinksDynamic: [c, e, wing] }\n')
    assert wire_only_links(node, PARENTS) == ['c', 'e']
    assert [w.split(': ', 1)[1] for w in node.ctx.warnings] == [
        'exclude_links_dynamic: wing are not links of the body; ignored',
        'links c, e touch only wires in AGX (excludeLinksDynamic); no wire is simulated, so '
        'they touch nothing']
    node = top('collisionDetection: { excludeLinks: [c] }\n')
    assert wire_only_links(node, PARENTS) == [] and node.ctx.warnings == []
    assert wire_only_links(top('collisionDetection: [1]\n'), PARENTS) == []
    assert wire_only_links(top('collisionDetection: { excludeLinksDynamic: [] }\n'),
                           PARENTS) == []
