"""OpenRAVE ``<mass>``: link masses and inertia [kg, m, kg m^2].

Facts from OpenRAVE's reader: ``custom`` (``total``, ``com``, ``inertia`` about the centre of
mass), ``box`` (``extents``), ``sphere`` (``radius``), each with ``density`` or ``total``;
``mimicgeom`` sums the box, sphere and cylinder geometries of the link at a ``density``, or
shares a ``total`` among them by volume. A link without ``<mass>`` weighs 1 kg with the inertia
of a sphere of radius 1 m (OpenRAVE's default), unless its KinBody gives a default ``<mass>``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...model import Inertial
from .raw import RawGeom
from .xmlfile import Element

__all__ = ['MassSpec', 'read_mass', 'link_inertial']


@dataclass
class MassSpec:
    """A ``<mass>`` element: its type and the numbers it gives (None when not given)."""

    type: str
    element: Element
    density: float | None = None
    total: float | None = None
    radius: float = 1.0
    extents: np.ndarray | None = None
    com: np.ndarray | None = None
    inertia: np.ndarray | None = None


def read_mass(element: Element, warn, allow_custom: bool = True) -> MassSpec:
    kind = (element.attr('type') or 'sphere').strip().lower()
    allowed = ('mimicgeom', 'box', 'sphere') + (('custom',) if allow_custom else ())
    if kind not in allowed:
        raise element.error(f'mass type {kind!r} is not one of {", ".join(allowed)}')
    spec = MassSpec(kind, element)
    for child in element.children:
        tag = child.tag
        element.used.add(tag)
        if tag == 'density':
            spec.density, spec.total = child.number(), None
        elif tag == 'total':
            spec.total, spec.density = child.number(), None
        elif tag == 'radius':
            spec.radius = child.number()
        elif tag == 'extents' and kind == 'box':
            spec.extents = child.numbers(3)
        elif tag == 'com' and kind == 'custom':
            spec.com = child.numbers(3)
        elif tag == 'inertia' and kind == 'custom':
            spec.inertia = child.numbers(9).reshape(3, 3)
            if np.abs(spec.inertia - spec.inertia.T).max() > \
                    1e-9 * max(1.0, float(np.abs(spec.inertia).max())):
                warn(child, '<inertia> is not symmetric; its symmetric part is used')
        else:
            element.used.discard(tag)
            warn(child, f'<{tag}> is not used by a {kind} mass and was ignored')
    for value, name in ((spec.density, 'density'), (spec.total, 'total')):
        if value is not None and value < 0:
            raise element.error(f'<{name}> must not be negative')
    return spec


def _box_inertia(mass: float, half) -> np.ndarray:
    x, y, z = (float(h) for h in half)
    return mass / 3.0 * np.diag([y * y + z * z, x * x + z * z, x * x + y * y])


def _sphere_inertia(mass: float, radius: float) -> np.ndarray:
    return 0.4 * mass * radius * radius * np.eye(3)


def _cylinder_inertia(mass: float, radius: float, height: float) -> np.ndarray:
    side = mass * (0.25 * radius * radius + height * height / 12.0)
    return np.diag([side, side, 0.5 * mass * radius * radius])


def _primitive_volume(geom: RawGeom) -> float:
    if geom.kind == 'box':
        return 8.0 * float(np.prod(geom.extents))
    if geom.kind == 'sphere':
        return 4.0 / 3.0 * math.pi * geom.radius ** 3
    if geom.kind == 'cylinder':
        return math.pi * geom.radius ** 2 * geom.height
    return 0.0


def _primitive_inertial(geom: RawGeom, density: float) -> tuple[float, np.ndarray, np.ndarray]:
    """Mass, centre and inertia about the centre, in the link frame, of one primitive."""
    mass = density * _primitive_volume(geom)
    if geom.kind == 'box':
        local = _box_inertia(mass, geom.extents)
    elif geom.kind == 'sphere':
        local = _sphere_inertia(mass, geom.radius)
    else:
        local = _cylinder_inertia(mass, geom.radius, geom.height)
    rot = geom.pose[:3, :3]
    return mass, geom.pose[:3, 3].copy(), rot @ local @ rot.T


def _combine(parts) -> Inertial:
    total = sum(m for m, _, _ in parts)
    if total <= 0.0:
        return Inertial(0.0)
    com = sum(m * c for m, c, _ in parts) / total
    inertia = np.zeros((3, 3))
    for m, c, i in parts:
        d = c - com
        inertia += i + m * (float(d @ d) * np.eye(3) - np.outer(d, d))
    return Inertial(total, com, 0.5 * (inertia + inertia.T))


def link_inertial(spec: MassSpec | None, geoms: list[RawGeom]) -> Inertial:
    """The link's mass [kg], centre [m] and inertia [kg m^2] about it, in the link frame.

    Raises:
        ModelError: a ``mimicgeom`` total with no box, sphere or cylinder to share it.
    """
    if spec is None:
        return Inertial(1.0, np.zeros(3), _sphere_inertia(1.0, 1.0))
    if spec.type == 'custom':
        mass = 1.0 if spec.total is None else spec.total
        # Without <inertia> OpenRAVE keeps the inertia of its default (1 kg, radius 1 m).
        inertia = _sphere_inertia(1.0, 1.0) if spec.inertia is None else spec.inertia
        com = np.zeros(3) if spec.com is None else spec.com
        return Inertial(mass, com, 0.5 * (inertia + inertia.T))
    if spec.type == 'mimicgeom':
        solids = [g for g in geoms if g.kind in ('box', 'sphere', 'cylinder')]
        if spec.total is not None:
            volume = sum(_primitive_volume(g) for g in solids)
            if volume <= 0.0:
                raise spec.element.error('a mimicgeom <total> mass needs box, sphere or '
                                         'cylinder geometries to share it')
            density = spec.total / volume
        else:
            density = 1.0 if spec.density is None else spec.density
        return _combine([_primitive_inertial(g, density) for g in solids])
    if spec.type == 'box':
        half = np.ones(3) if spec.extents is None else spec.extents
        mass = spec.total if spec.total is not None else \
            8.0 * float(np.prod(half)) * (1.0 if spec.density is None else spec.density)
        return Inertial(mass, np.zeros(3), _box_inertia(mass, half))
    r = spec.radius
    mass = spec.total if spec.total is not None else \
        4.0 / 3.0 * math.pi * r ** 3 * (1.0 if spec.density is None else spec.density)
    return Inertial(mass, np.zeros(3), _sphere_inertia(mass, r))
