"""Contact materials into the integrator: per-surface values, combination rules, pair tables.

MuJoCo gives a contact the larger friction of its two geoms (or the values of the geom of
higher ``priority``). The model's rules map onto that:

* a shape's :class:`~body_bridge.model.ContactMaterial` sets its geom's sliding friction and
  its restitution as the contact's damping ratio (``solref = [0.02, ratio]``, the ratio of a
  linear spring-damper whose bounce has that coefficient of restitution);
* rule 'min' (Chrono): geoms with a smaller friction get a higher priority, so the contact
  takes the smaller friction (and that geom's restitution) of the two;
* a material table (Choreonoid's ``contact_materials``): every pair of geoms that can touch
  and whose materials the table lists becomes an explicit MuJoCo pair with the table's
  friction and restitution (an explicit pair replaces MuJoCo's own combination for those
  two geoms).
"""

from __future__ import annotations

import mujoco

from ..model import ContactPair, Model
from .forces import collision_geoms, restitution_damping

__all__ = ['apply_contacts', 'add_material_pairs', 'pair_values', 'MAX_PAIRS']

#: Most explicit contact pairs one world gets from material tables (beyond: a warning).
MAX_PAIRS = 20_000
#: MuJoCo's default torsional and rolling friction (pairs state all five values).
_SPIN, _ROLL = 0.005, 0.0001


def apply_contacts(spec: mujoco.MjSpec, model: Model) -> None:
    """Set each contact shape's geom: friction, restitution, margin, priority, and a name
    (``<link>:<index>``) when a material table may pair it."""
    ranks = _min_rule_priorities(model)
    named = bool(model.contact_pairs)
    for contact in model.contacts:
        geom = collision_geoms(spec, contact.link)[contact.index]
        friction = list(geom.friction)
        friction[0] = float(contact.material.friction)
        geom.friction = friction
        geom.solref = [0.02, restitution_damping(contact.material.restitution)]
        if contact.radius > 0:
            geom.margin = float(contact.radius)  # contacts hold dist - margin at zero
        if contact.material.rule == 'min':
            geom.priority = ranks[float(contact.material.friction)]
        if named:
            geom.name = f'{contact.link}:{contact.index}'


def _min_rule_priorities(model: Model) -> dict[float, int]:
    """Priority per friction value of the 'min' rule: the smallest friction ranks highest,
    every one above the ground plane's 0."""
    values = sorted({float(c.material.friction) for c in model.contacts
                     if c.material.rule == 'min'}, reverse=True)
    return {value: rank + 1 for rank, value in enumerate(values)}


def pair_values(pairs, first: str, second: str) -> ContactPair | None:
    """The table's entry for two materials (either order), or None."""
    for pair in pairs:
        if {pair.first, pair.second} == {first, second}:
            return pair
    return None


def add_material_pairs(spec: mujoco.MjSpec, members, ground: bool) -> list[str]:
    """Explicit pairs for the material table entries of geoms that can touch.

    Args:
        spec: the world's spec, every model attached.
        members: (model, name prefix, self_collision) per model of the world.
        ground: whether the spec has the ground plane (named ``ground_plane``).

    Returns:
        Warnings (one line each): pairs left out beyond ``MAX_PAIRS``.
    """
    table: list[ContactPair] = []
    surfaces = []  # (geom, material name, model index, link)
    ground_material = None
    for index, (model, prefix, _) in enumerate(members):
        table += model.contact_pairs
        ground_material = ground_material or model.contact_ground
        for contact in model.contacts:
            geom = spec.geom(f'{prefix}{contact.link}:{contact.index}')
            if geom is not None and model.contact_pairs:
                surfaces.append((geom, contact.material.name, index, contact.link))
    if not table:
        return []
    plane = spec.geom('ground_plane') if ground else None
    candidates = []
    if plane is not None and ground_material is not None:
        candidates += [(plane, ground_material, geom, name) for geom, name, _, _ in surfaces
                       if _touch(plane, geom)]
    for i, (g1, m1, k1, l1) in enumerate(surfaces):
        for g2, m2, k2, l2 in surfaces[i + 1:]:
            if k1 == k2 and (l1 == l2 or not members[k1][2] or
                             _adjacent(members[k1][0], l1, l2)):
                continue
            if _touch(g1, g2):
                candidates.append((g1, m1, g2, m2))
    count = 0
    for g1, m1, g2, m2 in candidates:
        values = pair_values(table, m1, m2)
        if values is None:
            continue
        if count == MAX_PAIRS:
            return [f'more than {MAX_PAIRS} contact pairs from the material table; the others '
                    'use the integrator\'s combination of their surfaces\' values']
        _add_pair(spec, g1, g2, values)
        count += 1
    return []


def _touch(g1, g2) -> bool:
    """Whether MuJoCo's collision bits let two geoms touch."""
    return bool((g1.contype & g2.conaffinity) or (g2.contype & g1.conaffinity))


def _adjacent(model: Model, first: str, second: str) -> bool:
    """Links joined by a joint (MuJoCo never lets a body touch its parent) or listed as
    never colliding."""
    for joint in model.joints:
        if {joint.parent, joint.child} == {first, second}:
            return True
    return any({a, b} == {first, second} for a, b in model.adjacent)


def _add_pair(spec: mujoco.MjSpec, g1, g2, values: ContactPair) -> None:
    pair = spec.add_pair()
    pair.geomname1, pair.geomname2 = g1.name, g2.name
    mu = float(values.friction)
    pair.friction = [mu, mu, _SPIN, _ROLL, _ROLL]
    pair.condim = 3
    pair.solref = [0.02, restitution_damping(float(values.restitution))]
