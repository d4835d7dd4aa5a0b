"""A Body file's link groups and collision detection rules (for the SRDF writer).

The Model does not hold them: they say how tools should treat the links, not what the
robot is. Read from the file as it is::

    link_group:                      # a tree: a name is a link, a mapping a named group
      - name: UPPER-BODY
        links: [ WAIST_P, CHEST, { name: ARMS, links: [ ... ] } ]
    collision_detection_rules:
      - disabled_link_chain_level: 3           # links at most 3 joints apart
      - disabled_link_group: [ BASE, SHOULDER ] # every pair among them
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import ModelError
from ..yamlsource import line_of, load_yaml

__all__ = ['LinkGroup', 'BodyRules', 'read_groups']


@dataclass(frozen=True)
class LinkGroup:
    """A named group of links: its own links and its subgroups."""

    name: str
    links: tuple[str, ...]
    groups: tuple[LinkGroup, ...]

    def all_links(self) -> list[str]:
        """Its links and its subgroups' links, in file order."""
        out = list(self.links)
        for group in self.groups:
            out += group.all_links()
        return out


@dataclass(frozen=True)
class BodyRules:
    """Link groups and collision rules of a Body file.

    Attributes:
        groups: the top-level named link groups.
        chain_level: links at most this many joints apart never collide (0: none).
        disabled_groups: sets of links none of which collides with another of the set.
    """

    groups: tuple[LinkGroup, ...] = ()
    chain_level: int = 0
    disabled_groups: tuple[tuple[str, ...], ...] = ()


def _group(path: str, item, links: set[str]) -> LinkGroup:
    name = item.get('name')
    members = item.get('links', [])
    if not isinstance(name, str) or not isinstance(members, list):
        raise ModelError(path, line_of(item), 'a link group needs a name and a list of links')
    own, subgroups = [], []
    for member in members:
        if isinstance(member, dict):
            subgroups.append(_group(path, member, links))
        elif isinstance(member, str) and member in links:
            own.append(member)
        else:
            raise ModelError(path, line_of(members), f'link group {name!r}: {member!r} is not '
                             'a link of this body')
    return LinkGroup(name, tuple(own), tuple(subgroups))


def read_groups(path, links) -> BodyRules:
    """The link groups and collision rules of the Body file at ``path``.

    Args:
        path: the file.
        links: the body's link names (members must be among them).

    Raises:
        ModelError: a group or rule that names no link of the body, or is malformed.
    """
    path = str(path)
    top = load_yaml(path)
    links = set(links)
    groups = tuple(_group(path, item, links) for item in top.get('link_group') or []
                   if isinstance(item, dict))
    level, disabled = 0, []
    for rule in top.get('collision_detection_rules') or []:
        if not isinstance(rule, dict):
            raise ModelError(path, line_of(rule), 'a collision detection rule is a mapping')
        if 'disabled_link_chain_level' in rule:
            value = rule['disabled_link_chain_level']
            if not isinstance(value, int) or value < 0:
                raise ModelError(path, line_of(rule), 'disabled_link_chain_level must be an '
                                 'integer >= 0')
            level = max(level, value)
        if 'disabled_link_group' in rule:
            members = rule['disabled_link_group']
            unknown = [m for m in members if m not in links] if isinstance(members, list) \
                else [members]
            if unknown:
                raise ModelError(path, line_of(rule), f'disabled_link_group: {unknown[0]!r} '
                                 'is not a link of this body')
            disabled.append(tuple(members))
    return BodyRules(groups, level, tuple(disabled))
