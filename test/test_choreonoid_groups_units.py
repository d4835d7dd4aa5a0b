"""A Body file's link groups and collision detection rules, read for the SRDF writer."""

import textwrap

import pytest

from body_bridge.errors import ModelError
from body_bridge.formats.choreonoid.groups import BodyRules, LinkGroup, read_groups

LINKS = ['base', 'chest', 'arm', 'hand', 'leg']


def rules(tmp_path, text, links=LINKS):
    path = tmp_path / 'm.body'
    path.write_text('format: ChoreonoidBody\n' + textwrap.dedent(text).lstrip('\n'))
    return read_groups(path, links)


def refused(tmp_path, text) -> ModelError:
    with pytest.raises(ModelError) as caught:
        rules(tmp_path, text)
    assert caught.value.path == str(tmp_path / 'm.body') and '\n' not in str(caught.value)
    return caught.value


def test_nested_groups_in_file_order(tmp_path):
    read = rules(tmp_path, """
        link_group:
          - name: UPPER
            links: [ chest, { name: ARMS, links: [ arm, hand ] }, base ]
          - name: LOWER
            links: [ leg ]
          - not a group
        """)
    upper, lower = read.groups
    assert upper == LinkGroup('UPPER', ('chest', 'base'),
                              (LinkGroup('ARMS', ('arm', 'hand'), ()),))
    assert upper.all_links() == ['chest', 'base', 'arm', 'hand']
    assert lower.all_links() == ['leg'] and read.chain_level == 0
    assert read.disabled_groups == ()


def test_a_file_without_groups_or_rules(tmp_path):
    assert rules(tmp_path, 'links: []\n') == BodyRules()
    assert rules(tmp_path, 'link_group: ~\ncollision_detection_rules: ~\n') == BodyRules()
    assert rules(tmp_path, 'link_group:\n  - { name: EMPTY }\n').groups == (
        LinkGroup('EMPTY', (), ()),)


@pytest.mark.parametrize('text, line, message', [
    ('link_group:\n  - { links: [ arm ] }\n', 3, 'a link group needs a name and a list of links'),
    ('link_group:\n  - { name: A, links: arm }\n', 3,
     'a link group needs a name and a list of links'),
    ('link_group:\n  - name: A\n    links: [ arm, wing ]\n', 4,
     "link group 'A': 'wing' is not a link of this body"),
    ('link_group:\n  - name: A\n    links: [ arm, 3 ]\n', 4,
     "link group 'A': 3 is not a link of this body"),
    ('collision_detection_rules:\n  - 3\n', None, 'a collision detection rule is a mapping'),
    ('collision_detection_rules:\n  - { disabled_link_chain_level: -1 }\n', 3,
     'disabled_link_chain_level must be an integer >= 0'),
    ('collision_detection_rules:\n  - { disabled_link_chain_level: 1.5 }\n', 3,
     'disabled_link_chain_level must be an integer >= 0'),
    ('collision_detection_rules:\n  - { disabled_link_group: [ arm, wing ] }\n', 3,
     "disabled_link_group: 'wing' is not a link of this body"),
    ('collision_detection_rules:\n  - { disabled_link_group: arm }\n', 3,
     "disabled_link_group: 'arm' is not a link of this body"),
])
def test_bad_groups_and_rules_are_one_line(tmp_path, text, line, message):
    err = refused(tmp_path, text)
    assert (err.line, err.message) == (line, message)


def test_rules_take_the_largest_chain_level_and_every_disabled_group(tmp_path):
    read = rules(tmp_path, """
        collision_detection_rules:
          - { disabled_link_chain_level: 2 }
          - { disabled_link_chain_level: 0, disabled_link_group: [ arm, hand ] }
          - { disabled_link_chain_level: 3 }
          - { disabled_link_group: [ base, chest, leg ] }
        """)
    assert read.chain_level == 3
    assert read.disabled_groups == (('arm', 'hand'), ('base', 'chest', 'leg'))
    assert rules(tmp_path, 'collision_detection_rules:\n'
                 '  - { disabled_link_chain_level: 0 }\n').chain_level == 0
