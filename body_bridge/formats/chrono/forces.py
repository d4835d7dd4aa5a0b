"""Chrono YAML force elements: TSDA and RSDA spring-dampers, body loads, load controllers.

Facts from Chrono (``ChParserMbsYAML::ReadTSDAFunctor``/``ReadRSDAFunctor``,
``ChForceFunctors``, ``ChLinkTSDA``, ``ChLinkRSDA``, ``ChLoadBodyForce``) this relies on:

* The keys present choose the force law, in this order of precedence: ``map_data`` (with
  ``deformation``; its deformation is the length itself, ``free_length`` is not read), then
  ``spring_curve_data`` with or without ``damping_curve_data``, then ``damping_curve_data``,
  then ``spring_coefficient`` with or without ``damping_coefficient``, then
  ``damping_coefficient`` (degressive with ``degressivity_compression`` and
  ``degressivity_expansion``). Keys the chosen law does not use are reported.
* ``preload`` is added to spring laws (not to pure dampers); ``minimum_length`` and
  ``maximum_length`` (both) add Chrono's bump stops to TSDA spring laws (not to the map).
* RSDA ``free_angle`` is in the model's angle unit; curves are in radians.
* Body loads act in the body's centroidal frame when local; a non-local point is fixed in
  space. 10.x defaults ``local_load`` and ``local_point`` to true and ``point`` to the origin.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...model import Function, LoadKind, SpringKind
from .bodies import rotation_to_z
from .node import Node, read_function

__all__ = ['SpringSpec', 'LoadSpec', 'read_tsda', 'read_rsda', 'read_load']


@dataclass
class SpringSpec:
    """A TSDA or RSDA with its points (or location and axis) in the model frame."""

    name: str
    kind: SpringKind
    body1: str
    body2: str
    point1: np.ndarray
    point2: np.ndarray
    rotation: np.ndarray  # RSDA frame (z = axis) in the model frame
    source: str
    law: dict = field(default_factory=dict)


@dataclass
class LoadSpec:
    name: str
    kind: LoadKind
    body: str
    vector: np.ndarray
    local_vector: bool
    point: np.ndarray
    local_point: bool
    function: Function | None
    controller: bool
    source: str


def _bodies(node: Node) -> tuple[str, str]:
    body1 = node.string('body1', required=True)
    body2 = node.string('body2', required=True)
    if body1 == body2:
        raise node.error(f'body1 and body2 are the same body {body1!r}')
    return body1, body2


def _law(node: Node, translational: bool) -> dict:
    """The force law's parameters (``Spring`` field names), chosen as Chrono chooses."""
    has = {key: node.has(key) for key in (
        'spring_coefficient', 'damping_coefficient', 'spring_curve_data', 'damping_curve_data',
        'map_data', 'degressivity_compression', 'degressivity_expansion')}
    rest_key = 'free_length' if translational else 'free_angle'
    if translational and has['map_data']:
        used = {'map_data', 'deformation', 'preload'}  # Chrono's map law has no bump stops
    elif has['spring_curve_data']:
        used = {'spring_curve_data', rest_key, 'preload', 'stops'}
        if has['damping_curve_data']:
            used.add('damping_curve_data')
    elif has['damping_curve_data']:
        used = {'damping_curve_data'}
    elif has['spring_coefficient']:
        used = {'spring_coefficient', rest_key, 'preload', 'stops'}
        if has['damping_coefficient']:
            used.add('damping_coefficient')
    elif has['damping_coefficient']:
        used = {'damping_coefficient'}
        if translational and has['degressivity_compression'] and has['degressivity_expansion']:
            used |= {'degressivity_compression', 'degressivity_expansion'}
    else:
        raise node.error('no force law: give spring_coefficient, damping_coefficient, '
                         'spring_curve_data, damping_curve_data' +
                         (' or map_data' if translational else ''))
    law = {}
    if rest_key in used:
        rest = node.number(rest_key, required=True)
        law['rest'] = rest if translational else rest * node.ctx.angle_scale
    if 'spring_coefficient' in used:
        law['stiffness'] = node.number('spring_coefficient', required=True)
    if 'damping_coefficient' in used:
        law['damping'] = node.number('damping_coefficient', required=True)
    if 'preload' in used:
        law['preload'] = node.number('preload', default=0.0)
    for key, name in (('spring_curve_data', 'spring_curve'), ('damping_curve_data',
                                                             'damping_curve')):
        if key in used:
            law[name] = _curve(node, key)
    if 'map_data' in used:
        defs = node.vector('deformation', size=None, required=True)
        data = node.table('map_data', columns=len(defs) + 1, required=True, min_rows=2)
        if len(defs) < 2 or np.any(np.diff(defs) <= 0) or np.any(np.diff(data[:, 0]) <= 0):
            raise node.error('"deformation" and the velocities of "map_data" must each have '
                             'at least two increasing values')
        law['map_deformations'], law['map_data'] = defs, data
    if 'degressivity_compression' in used:
        law['degressivity'] = (node.number('degressivity_compression', required=True),
                               node.number('degressivity_expansion', required=True))
    if translational and 'stops' in used:
        if node.has('minimum_length') and node.has('maximum_length'):
            law['stops'] = (node.number('minimum_length'), node.number('maximum_length'))
        elif node.has('minimum_length') or node.has('maximum_length'):
            node.ignore('minimum_length', 'maximum_length')
            node.warn('bump stops need both "minimum_length" and "maximum_length"; ignored')
    others = ('minimum_length', 'maximum_length') if translational else ()
    for key in ('spring_coefficient', 'damping_coefficient', 'spring_curve_data',
                'damping_curve_data', 'map_data', 'deformation', 'preload', rest_key,
                'degressivity_compression', 'degressivity_expansion', *others):
        if key in ('minimum_length', 'maximum_length') and 'stops' in used:
            continue
        if node.has(key) and key not in used:
            node.ignore(key)
            node.warn(f'"{key}" is not used by the force law the other keys select '
                      '(as in Chrono)')
    return law


def _curve(node: Node, key: str) -> np.ndarray:
    curve = node.table(key, 2, required=True)
    order = np.argsort(curve[:, 0], kind='stable')
    curve = curve[order]
    if np.any(np.diff(curve[:, 0]) == 0):
        raise node.error(f'"{key}" has two points with the same abscissa')
    return curve


def read_tsda(node: Node) -> SpringSpec:
    """One entry of ``tsdas``."""
    name = node.string('name', required=True)
    node.what = f'TSDA {name!r}'
    body1, body2 = _bodies(node)
    spec = SpringSpec(name, SpringKind.TRANSLATIONAL, body1, body2,
                      node.vector('point1', required=True), node.vector('point2', required=True),
                      np.eye(3), f'{node.ctx.path}:{node.line}', _law(node, True))
    node.choice('type', ('TSDA',))  # some files name the element's type; nothing else fits
    if node.has('visualization'):
        node.ignore('visualization')
        node.warn('"visualization" is not shown (URDF has no element for a spring)')
    node.warn_unused()
    return spec


def read_rsda(node: Node) -> SpringSpec:
    """One entry of ``rsdas``."""
    name = node.string('name', required=True)
    node.what = f'RSDA {name!r}'
    body1, body2 = _bodies(node)
    location = node.vector('location', default=(0, 0, 0))
    rotation = rotation_to_z(node.direction('axis', required=True))
    spec = SpringSpec(name, SpringKind.ROTATIONAL, body1, body2, location, location, rotation,
                      f'{node.ctx.path}:{node.line}', _law(node, False))
    node.warn_unused()
    return spec


def read_load(node: Node, controller: bool) -> LoadSpec:
    """One entry of ``body_loads`` or (``controller``) of ``load_controllers``."""
    name = node.string('name', required=True)
    node.what = f'{"load controller" if controller else "body load"} {name!r}'
    kind = LoadKind(node.choice('type', ('FORCE', 'TORQUE'), required=True).lower())
    body = node.string('body', required=True)
    nine = node.ctx.version[0] < 10
    if controller:
        vector = np.zeros(3)
        if node.has('load'):
            node.ignore('load')
            node.warn('"load" is not used: a load controller\'s value comes from its topic')
    else:
        vector = node.vector('load', required=True)
    local_vector = node.boolean('local_load', required=nine, default=True)
    point, local_point = np.zeros(3), True
    if kind == LoadKind.FORCE:
        point = node.vector('point', required=nine, default=(0, 0, 0))
        local_point = node.boolean('local_point', required=nine, default=True)
    else:
        for key in ('point', 'local_point'):
            if node.has(key):
                node.ignore(key)
                node.warn(f'"{key}" does not apply to a TORQUE load; ignored')
    function = None
    if not controller and not nine:
        fnode = node.child('modulation_function', f'{node.what} modulation_function')
        if fnode is not None:
            function = read_function(fnode)
    node.warn_unused()
    return LoadSpec(name, kind, body, vector, local_vector, point, local_point, function,
                    controller, f'{node.ctx.path}:{node.line}')
