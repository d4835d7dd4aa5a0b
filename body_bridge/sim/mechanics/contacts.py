"""Contact materials into the integrator: per-surface values, combination rules, pair tables.

MuJoCo gives a contact the larger friction of its two geoms (or the values of the geom of
higher ``priority``). The model's rules map onto that:

* a shape's :class:`~body_bridge.model.ContactMaterial` sets its geom's sliding friction and
  its restitution as the contact's damping ratio (``solref = [0.02, ratio]``, the ratio of a
  linear spring-damper that only pushes and rebounds that much: ``forces.restitution_damping``);
* rule 'min' (Chrono): geoms with a smaller friction get a higher priority, so the contact
  takes the smaller friction (and that geom's restitution) of the two (equal frictions: MuJoCo
  averages the two damping ratios);
* a material table (Choreonoid's ``contact_materials``): every pair of geoms that can touch
  and whose materials the table lists becomes an explicit MuJoCo pair with the table's
  friction and restitution (an explicit pair replaces MuJoCo's own combination for those
  two geoms);
* Chrono SMC material properties (Young's modulus E [Pa] and Poisson ratio nu): Chrono's
  YAML parser builds SMC systems with its default Hertz contact from them (its explicit
  stiffness and damping coefficients stay unused), force ``4/3 E* sqrt(R) d^(3/2)`` at depth
  d (``E*`` the two materials' combined modulus, R Chrono's default curvature radius 0.2 m)
  with the damping that gives the coefficient of restitution. Every pair of geoms that can
  touch, of which one gives them, becomes an explicit pair: the linear spring-damper whose
  bounce lasts as long as Hertz's at Chrono's characteristic impact speed (1 m/s), for the
  two bodies' effective mass, with the smaller restitution and friction (:func:`hertz_solref`).
"""

from __future__ import annotations

import functools
import math
import sys

import mujoco

from ...model import ContactPair, JointType, Model
from .forces import collision_geoms, contact_bounce, restitution_damping
from ..names import MIN_MASS

__all__ = ['apply_contacts', 'add_material_pairs', 'pair_values', 'hertz_solref', 'MAX_PAIRS',
           'SMC_SOLIMP', 'HERTZ_RADIUS', 'HERTZ_SPEED']

#: Most explicit contact pairs one world gets from material tables (beyond: a warning).
MAX_PAIRS = 20_000
#: MuJoCo's default torsional and rolling friction (pairs state all five values).
_SPIN, _ROLL = 0.005, 0.0001
#: Impedance of contacts with SMC material properties: MuJoCo's default dmax at every depth,
#: so that the stiffness does not change with the depth.
SMC_SOLIMP = [0.95, 0.95, 0.001, 0.5, 2.0]
#: Damping ratio floor of SMC contacts (MuJoCo's solref needs a positive one).
_MIN_RATIO = 1e-6
#: Chrono's contact curvature radius where the shapes give none, as its YAML parser sets it
#: [m], and its characteristic impact speed [m/s] (ChSystemSMC's default).
HERTZ_RADIUS, HERTZ_SPEED = 0.2, 1.0
#: The smallest restitution Chrono's Hertz contact takes the logarithm of (its ChContactSMC
#: raises smaller ones to the machine epsilon).
_SMALLEST_RESTITUTION = sys.float_info.epsilon


def apply_contacts(spec: mujoco.MjSpec, model: Model) -> None:
    """Set each contact shape's geom: friction, restitution, margin, priority, and a name
    (``<link>:<index>``) when a material table may pair it."""
    ranks = _min_rule_priorities(model)
    named = bool(model.contact_pairs) or _has_smc(model)
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


def hertz_solref(modulus: float, mass: float, restitution: float) -> list[float]:
    """MuJoCo ``solref`` (time constant [s], damping ratio) of Chrono's Hertz contact.

    Args:
        modulus: the combined modulus E* [Pa] of the two materials.
        mass: the effective mass [kg] of the two bodies.
        restitution: the coefficient of restitution Chrono's damping is derived from.

    Chrono's contact at impact speed v (:data:`HERTZ_SPEED`) lasts ``s tau`` and rebounds
    ``e`` of it (:func:`_hertz_bounce`, ``tau = d / v`` with ``d = (m v^2 / K)^(2/5)``,
    ``K = 4/3 E* sqrt(R)``); the MuJoCo contact, a linear spring-damper that only pushes,
    gets the damping ratio that rebounds ``e`` and the natural frequency that makes its bounce
    as long (``sim/mechanics/forces.contact_bounce``). MuJoCo's reference dynamics with (timeconst,
    dampratio) have natural frequency ``1 / (timeconst dampratio)``.
    """
    v = HERTZ_SPEED
    stiffness = 4.0 / 3.0 * modulus * math.sqrt(HERTZ_RADIUS)
    tau = (mass * v * v / stiffness) ** 0.4 / v
    duration, rebound = _hertz_bounce(round(float(restitution), 9))
    ratio = max(restitution_damping(rebound), _MIN_RATIO)
    omega = contact_bounce(ratio)[0] / (duration * tau)
    return [1.0 / (omega * ratio), ratio]


@functools.lru_cache(maxsize=64)
def _hertz_bounce(restitution: float) -> tuple[float, float]:
    """(duration, rebound ratio) of Chrono's Hertz contact in units of ``tau`` and v.

    Chrono's force ``K d^(3/2) + 2 sqrt(5/6) |b| sqrt(3/2 K m) d^(1/4) d'`` with
    ``b = ln e / sqrt(ln^2 e + pi^2)``, never pulling, in units of ``d = (m v^2 / K)^(2/5)``
    and ``tau = d / v``: ``u'' = -(u^(3/2) + sqrt(5) |b| u^(1/4) u')`` from u = 0, u' = 1
    until the force is 0 again (RK4, 1/2000 of a unit time a step). A restitution below the
    machine epsilon is taken as that (as Chrono does), one above 1 as 1 (no damper rebounds
    more than it was hit; the loaders refuse it).
    """
    log = math.log(min(max(restitution, _SMALLEST_RESTITUTION), 1.0))
    damping = math.sqrt(5.0) * abs(log) / math.sqrt(log * log + math.pi ** 2)

    def accel(u: float, w: float) -> float:
        u = max(u, 0.0)
        return -max(u ** 1.5 + damping * u ** 0.25 * w, 0.0)

    u, w, t, h = 0.0, 1.0, 0.0, 5e-4
    while t < 100.0:
        k1u, k1w = w, accel(u, w)
        k2u, k2w = w + h / 2 * k1w, accel(u + h / 2 * k1u, w + h / 2 * k1w)
        k3u, k3w = w + h / 2 * k2w, accel(u + h / 2 * k2u, w + h / 2 * k2w)
        k4u, k4w = w + h * k3w, accel(u + h * k3u, w + h * k3w)
        u += h / 6 * (k1u + 2 * k2u + 2 * k3u + k4u)
        w += h / 6 * (k1w + 2 * k2w + 2 * k3w + k4w)
        t += h
        if w < 0 and (u <= 0 or accel(u, w) == 0.0):
            return t, -w
    return t, 0.0


def _has_smc(model: Model) -> bool:
    return any(_smc(c.material) for c in model.contacts)


def _smc(material):
    """E / (1 - nu^2) [Pa] of a material giving SMC material properties, else None."""
    smc = material.smc
    if smc.get('young_modulus', 0.0) > 0.0:
        return float(smc['young_modulus']) / (1.0 - float(smc.get('poisson_ratio', 0.3)) ** 2)
    return None


def _masses(model: Model) -> dict[str, float]:
    """Each link's mass [kg]: infinite for links fixed to the world (no joint moves them)."""
    masses = {}
    for link in model.links:  # parents before children
        joint = model.parent_joint(link.name)
        fixed = (model.root_joint == JointType.FIXED if joint is None else
                 joint.type == JointType.FIXED and masses[joint.parent] == math.inf)
        mass = link.inertial.mass if link.inertial is not None else 0.0
        masses[link.name] = math.inf if fixed else max(mass, MIN_MASS)
    return masses


def add_material_pairs(spec: mujoco.MjSpec, members, ground: bool) -> list[str]:
    """Explicit pairs for the material table entries, and for SMC material properties, of
    geoms that can touch.

    Args:
        spec: the world's spec, every model attached.
        members: (model, name prefix, self_collision) per model of the world.
        ground: whether the spec has the ground plane (named ``ground_plane``).

    Returns:
        Warnings (one line each): pairs left out beyond ``MAX_PAIRS``.
    """
    table: list[ContactPair] = []
    surfaces = []  # (geom, material, model index, link, mass)
    ground_material = None
    for index, (model, prefix, _) in enumerate(members):
        table += model.contact_pairs
        ground_material = ground_material or model.contact_ground
        if not (model.contact_pairs or _has_smc(model)):
            continue
        masses = _masses(model)
        for contact in model.contacts:
            geom = spec.geom(f'{prefix}{contact.link}:{contact.index}')
            if geom is not None:
                surfaces.append((geom, contact.material, index, contact.link,
                                 masses[contact.link]))
    if not surfaces:
        return []
    plane = spec.geom('ground_plane') if ground else None
    candidates = []
    if plane is not None:
        candidates += [((plane, ground_material), (geom, material, mass))
                       for geom, material, _, _, mass in surfaces if _touch(plane, geom)]
    for i, (g1, m1, k1, l1, w1) in enumerate(surfaces):
        for g2, m2, k2, l2, w2 in surfaces[i + 1:]:
            if k1 == k2 and (l1 == l2 or not members[k1][2] or
                             _adjacent(members[k1][0], l1, l2)):
                continue
            if _touch(g1, g2):
                candidates.append(((g1, m1, w1), (g2, m2, w2)))
    count = 0
    for first, second in candidates:
        values = _values(table, first, second)
        if values is None:
            continue
        if count == MAX_PAIRS:
            return [f'more than {MAX_PAIRS} contact pairs from the material table; the others '
                    'use the integrator\'s combination of their surfaces\' values']
        _add_pair(spec, first[0], second[0], *values)
        count += 1
    return []


def _values(table, first, second):
    """(friction, solref[, solimp]) of an explicit pair of two surfaces, or None for none.

    ``first`` is (plane, ground material name) or (geom, material, mass), ``second`` the
    latter; the table's entry comes first, then SMC material properties.
    """
    plane = len(first) == 2
    name1 = first[1] if plane else first[1].name
    if table and name1 is not None:
        entry = pair_values(table, name1, second[1].name)
        if entry is not None:
            return (float(entry.friction),
                    [0.02, restitution_damping(float(entry.restitution))])
    soft2 = _smc(second[1])
    soft1 = None if plane else _smc(first[1])
    if soft1 is None and soft2 is None:
        return None
    # 1 / E* = (1 - nu1^2) / E1 + (1 - nu2^2) / E2: a side without properties is rigid.
    modulus = 1.0 / sum(1.0 / m for m in (soft1, soft2) if m is not None)
    mass1, mass2 = (math.inf if plane else first[2]), second[2]
    mass = mass2 if mass1 == math.inf else mass1 if mass2 == math.inf else \
        mass1 * mass2 / (mass1 + mass2)
    if mass == math.inf:
        return None  # two fixed bodies never move against each other
    if plane:
        friction, restitution = float(second[1].friction), float(second[1].restitution)
    else:
        friction = _combined_friction(first[1], second[1])
        restitution = min(float(first[1].restitution), float(second[1].restitution))
    return friction, hertz_solref(modulus, mass, restitution), SMC_SOLIMP


def _combined_friction(a, b) -> float:
    if 'min' in (a.rule, b.rule):
        return float(min(a.friction, b.friction))
    return float(max(a.friction, b.friction))


def _touch(g1, g2) -> bool:
    """Whether MuJoCo's collision bits let two geoms touch."""
    return bool((g1.contype & g2.conaffinity) or (g2.contype & g1.conaffinity))


def _adjacent(model: Model, first: str, second: str) -> bool:
    """Links joined by a joint other than a free one (MuJoCo never lets a body touch its
    parent) or listed as never colliding."""
    for joint in model.joints:  # a free joint's link hangs from the world body instead
        if joint.type != JointType.FREE and {joint.parent, joint.child} == {first, second}:
            return True
    return any({a, b} == {first, second} for a, b in model.adjacent)


def _add_pair(spec: mujoco.MjSpec, g1, g2, friction: float, solref, solimp=None) -> None:
    pair = spec.add_pair()
    pair.geomname1, pair.geomname2 = g1.name, g2.name
    pair.friction = [friction, friction, _SPIN, _ROLL, _ROLL]
    pair.condim = 3
    pair.solref = solref
    pair.margin = max(float(g1.margin), float(g2.margin))  # as MuJoCo combines two geoms'
    pair.gap = max(float(g1.gap), float(g2.gap))
    if solimp is not None:
        pair.solimp = solimp
