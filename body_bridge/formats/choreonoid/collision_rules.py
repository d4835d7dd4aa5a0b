"""Which links of a body may touch each other when self-collision is on.

Choreonoid's ``collision_detection_rules`` is a list of rules applied in order:

* ``disabled_link_chain_level: n``: links at most ``n`` joints apart along the link tree do
  not touch (1: a link and its parent);
* ``disabled_links: [names]`` or ``all``: those links touch no other link of the body;
* ``enabled_links: [names]`` or ``all``: those links take part again;
* ``disabled_link_group: [names]``: no two links of the group touch;
* ``enabled_link_group: [names]``: any two links of the group touch again.

The older ``collisionDetection`` mapping says the same with ``excludeTreeDepth``,
``excludeLinks``, ``excludeSelfCollisionLinks`` (both: those links touch no other link of the
body) and ``excludeLinkGroups`` (each ``{name, links}``). The result is the set of link pairs
that never touch (``Model.adjacent``); MuJoCo never lets a link touch its parent, so a chain
level of 0 is read as 1 with a warning. Its AGX keys: ``excludeLinksDynamic`` names links
that touch nothing but AGX's wires (AizuSpider's wire guards): with no wires simulated, they
touch nothing (:func:`wire_only_links`); ``excludeLinksWireCollision`` (which links a wire
passes through) has nothing to act on.
"""

from __future__ import annotations

from collections import deque
from itertools import combinations

from .nodes import Node

__all__ = ['excluded_pairs', 'wire_only_links']


def excluded_pairs(top: Node, parents: dict[str, str | None]) -> tuple[tuple[str, str], ...]:
    """The link pairs the body's rules keep apart (sorted pairs, sorted), or ().

    Args:
        top: the body's top-level node.
        parents: link name -> parent link name (None for the root).
    """
    rules = []
    raw = top.raw('collision_detection_rules')
    if raw is not None:
        if not isinstance(raw, list):
            raise top.error('collision_detection_rules must be a list of rules')
        for item in raw:
            rule = Node(item if isinstance(item, dict) else {}, top.ctx, top.line)
            rules.append(_rule(rule, parents))
    old = top.raw('collision_detection')
    if old is not None and raw is None:
        rules.extend(_old_rules(Node(old if isinstance(old, dict) else {}, top.ctx, top.line),
                             parents))
    elif old is not None:
        top.use('collision_detection')  # the same rules for other simulators (AGX)
    if not rules:
        return ()
    return _apply(rules, list(parents), parents)


def wire_only_links(top: Node, parents: dict[str, str | None]) -> list[str]:
    """The links ``collisionDetection.excludeLinksDynamic`` names (they touch only wires)."""
    old = top.raw('collision_detection')
    if not isinstance(old, dict):
        return []
    node = Node(old, top.ctx, top.line)
    names = _names(node, 'exclude_links_dynamic', parents) \
        if node.has('exclude_links_dynamic') else []
    if names:
        node.ctx.warn(node.line, f'links {", ".join(names)} touch only wires in AGX '
                      '(excludeLinksDynamic); no wire is simulated, so they touch nothing')
    return names


def _names(node: Node, key: str, parents) -> list[str]:
    value = node.raw(key)
    if value == 'all':
        return list(parents)
    if not isinstance(value, list):
        raise node.error(f'{key} must be a list of link names or "all"')
    unknown = [v for v in value if v not in parents]
    if unknown:
        node.ctx.warn(node.line, f'{key}: {", ".join(map(str, unknown))} are not links of the '
                      'body; ignored')
    return [v for v in value if v in parents]


def _chain_level(node: Node, key: str) -> int:
    level = node.number(key)
    if level is None or level < 0 or level != int(level):
        raise node.error(f'{key} must be a whole number of joints, 0 or more')
    if level == 0:
        node.ctx.warn(node.line, f'{key} 0 is read as 1: the integrator never lets a link '
                      'touch its parent')
    return max(1, int(level))


def _rule(node: Node, parents):
    for key in ('disabled_link_chain_level', 'disabled_links', 'enabled_links',
                'disabled_link_group', 'enabled_link_group'):
        if node.has(key):
            value = _chain_level(node, key) if key == 'disabled_link_chain_level' else \
                _names(node, key, parents)
            node.warn_unused('collision_detection_rules rule')
            return key, value
    node.warn_unused('collision_detection_rules rule')
    return 'none', None


def _old_rules(node: Node, parents):
    rules = []
    if node.has('exclude_tree_depth'):
        rules.append(('disabled_link_chain_level', _chain_level(node, 'exclude_tree_depth')))
    for key in ('exclude_links', 'exclude_self_collision_links'):
        if node.has(key):
            rules.append(('disabled_links', _names(node, key, parents)))
    node.use('exclude_links_dynamic', 'exclude_links_wire_collision')  # AGX's wires
    groups = node.raw('exclude_link_groups') or []
    for group in groups if isinstance(groups, list) else []:
        gnode = Node(group if isinstance(group, dict) else {}, node.ctx, node.line)
        if gnode.has('links'):
            rules.append(('disabled_link_group', _names(gnode, 'links', parents)))
        gnode.use('name')
        gnode.warn_unused('excludeLinkGroups entry')
    node.warn_unused('collisionDetection')
    return rules


def _apply(rules, links: list[str], parents) -> tuple[tuple[str, str], ...]:
    """Apply the rules in order to every pair of links; the pairs left apart."""
    off: set[str] = set()
    apart: dict[frozenset, bool] = {}
    pairs = [frozenset(p) for p in combinations(links, 2)]
    for kind, value in rules:
        names = set(value) if isinstance(value, list) else set()
        if kind == 'disabled_link_chain_level':
            apart.update(dict.fromkeys(_within(value, links, parents), True))
        elif kind == 'disabled_links':
            off |= names
            apart.update({p: True for p in pairs if p & names})
        elif kind == 'enabled_links':
            off -= names
            apart.update({p: False for p in pairs if p & names and not p & off})
        elif kind in ('disabled_link_group', 'enabled_link_group'):
            group = {frozenset(p) for p in combinations(sorted(names), 2)}
            apart.update(dict.fromkeys(group, kind == 'disabled_link_group'))
    return tuple(sorted(tuple(sorted(p)) for p, kept in apart.items() if kept))


def _within(level: int, links: list[str], parents) -> set[frozenset]:
    """Pairs of links at most ``level`` joints apart along the tree."""
    neighbours: dict[str, list[str]] = {name: [] for name in links}
    for child, parent in parents.items():
        if parent is not None and parent in neighbours:
            neighbours[child].append(parent)
            neighbours[parent].append(child)
    out = set()
    for start in links:
        seen = {start: 0}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            if seen[here] == level:
                continue
            for nxt in neighbours[here]:
                if nxt not in seen:
                    seen[nxt] = seen[here] + 1
                    queue.append(nxt)
                    out.add(frozenset((start, nxt)))
    return out
