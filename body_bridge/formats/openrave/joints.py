"""OpenRAVE ``<Joint>`` elements: type, links, limits, axes, anchor and mimic attributes.

Facts followed (OpenRAVE ``xmlreaders.cpp``): a joint's ``anchor``/``axis`` are in its
``offsetfrom`` link's frame (the KinBody's frame by default); ``limitsdeg`` is degrees for
hinges, metres for sliders; a joint records its two links' relative transform when it ends.
Angles [rad], lengths [m].
"""

from __future__ import annotations

import numpy as np

from ...errors import UnsupportedError
from .context import Context
from .raw import RawBody, RawJoint, RawLink, inverse, scaled
from .xmlfile import Element

__all__ = ['read_joint', 'find_link', 'mimic_attrs', 'check_attributes', 'JOINT_TYPES',
           'JOINT_ATTRIBUTES']

JOINT_TYPES = ('hinge', 'slider', 'universal', 'hinge2', 'spherical')
#: Attributes a ``<Joint>`` may have (besides ``mimic*``).
JOINT_ATTRIBUTES = frozenset({'name', 'type', 'enable', 'circular'})


def check_attributes(ctx: Context, element: Element, known, also=lambda key: False) -> None:
    """Warn about each attribute of ``element`` that OpenRAVE's reader does not know."""
    for key in element.attrs:
        if key not in known and not also(key) and not key.startswith('xmlns'):
            ctx.warn(element, f'<{element.tag}> attribute {key!r} is not known and was '
                              'ignored')


def read_joint(ctx: Context, element: Element, body: RawBody, offset_of) -> RawJoint | None:
    """A ``<Joint>``: its type, links, limits, axes and anchor in the first link's frame.

    ``offset_of(link)`` is where a link was when the KinBody placed it (``offsetfrom``).
    """
    kind = (element.attr('type') or 'hinge').strip().lower()
    if kind not in JOINT_TYPES:
        raise element.error(f'joint type {kind!r} is not one of {", ".join(JOINT_TYPES)}')
    name = element.attr('name') or ''
    active = element.flag('enable', True)
    circular = element.flag('circular', False)
    mimic = mimic_attrs(element)
    dof = {'universal': 2, 'hinge2': 2, 'spherical': 3}.get(kind, 1)
    angular = kind != 'slider'
    deg = np.pi / 180.0 if angular else 1.0
    default = np.pi if kind in ('hinge', 'universal', 'hinge2') else \
        (10.0 if kind == 'slider' else 100.0)
    joint_data: dict = {'lower': [-default] * dof, 'upper': [default] * dof,
                        'given': False, 'meta': {}, 'initial': []}
    bodies: list[RawLink] = []
    anchor = np.zeros(3)
    # OpenRAVE's JointInfo starts every axis as (0 0 1); a spherical joint turns about x, y, z
    axes = [np.array([0.0, 0.0, 1.0]) for _ in range(dof)]
    if kind == 'spherical':
        axes = [np.array(a, float) for a in np.eye(3)]
    offsetfrom = None
    for child in element.children:
        tag = child.tag
        element.used.add(tag)
        if tag == 'body':
            link = find_link(body, child.word())
            if link is None:
                raise child.error(f'joint {name!r}: link {child.word()!r} is not defined')
            bodies.append(link)
        elif tag == 'offsetfrom':
            offsetfrom = body.link(child.word())
            if offsetfrom is None:
                raise child.error(f'offsetfrom link {child.word()!r} is not defined')
        elif tag in ('limits', 'limitsrad', 'limitsdeg'):
            values = child.numbers(2 * dof)
            if np.any(values[0::2] > values[1::2]):
                ctx.warn(child, f'<{tag}> gives an upper limit before its lower limit; '
                                     'read as OpenRAVE reads it, the smaller value first')
            scale = deg if tag == 'limitsdeg' else 1.0
            joint_data['lower'] = [scale * min(values[2 * i], values[2 * i + 1])
                                   for i in range(dof)]
            joint_data['upper'] = [scale * max(values[2 * i], values[2 * i + 1])
                                   for i in range(dof)]
            joint_data['given'] = True
        elif tag in ('maxvel', 'maxveldeg', 'maxaccel', 'maxacceldeg', 'maxtorque',
                     'maxforce', 'hardmaxvel'):
            values = child.numbers(at_least=1)[:dof]
            if tag.endswith('deg'):
                values = values * np.pi / 180.0
            key = {'maxveldeg': 'maxvel', 'maxacceldeg': 'maxaccel',
                   'maxforce': 'maxtorque'}.get(tag, tag)
            joint_data[key] = [float(v) for v in values]
        elif tag in ('weight', 'rotorinertia', 'mode'):
            joint_data['meta'][tag] = tuple(float(v) for v in child.numbers())
        elif tag == 'resolution':
            joint_data['meta'][tag] = float(child.numbers(at_least=1)[0]) * deg
        elif tag == 'initial':
            joint_data['initial'] = [float(v) for v in child.numbers()]
        elif tag == 'anchor' and kind != 'slider':
            anchor = child.numbers(3)
        elif tag == 'axis' and kind in ('hinge', 'slider'):
            axes[0] = _unit(child)
        elif tag in ('axis1', 'axis2') and kind in ('universal', 'hinge2'):
            axes[int(tag[-1]) - 1] = _unit(child)
        elif tag in ('lostop', 'histop'):
            raise UnsupportedError(child.path, child.line, f'<{tag}> is deprecated in '
                                   'OpenRAVE and not supported; use <limitsdeg>')
        else:
            element.used.discard(tag)
            ctx.warn(child, f'<{tag}> is not used by a {kind} joint and was ignored')
    if len(bodies) != 2:
        raise element.error(f'joint {name!r} must name two bodies, found {len(bodies)}')
    check_attributes(ctx, element, JOINT_ATTRIBUTES, lambda key: key.startswith('mimic'))
    toffset = np.eye(4) if offsetfrom is None else offset_of(offsetfrom)
    toffset = inverse(bodies[0].transform) @ toffset
    axes = [None if a is None else toffset[:3, :3] @ a for a in axes]
    joint = RawJoint(name, kind, element, bodies[0], bodies[1],
                     toffset[:3, :3] @ anchor + toffset[:3, 3], axes,
                     inverse(bodies[0].transform) @ bodies[1].transform, active, circular,
                     joint_data['lower'], joint_data['upper'], joint_data['given'],
                     joint_data['initial'], joint_data.get('maxvel'),
                     joint_data.get('maxaccel'), joint_data.get('maxtorque'), mimic,
                     joint_data['meta'])
    if 'hardmaxvel' in joint_data:
        joint.meta['hardmaxvel'] = tuple(joint_data['hardmaxvel'])
    return joint

def _unit(element: Element) -> np.ndarray:
    v = scaled(element.numbers(3))
    if v is None:
        raise element.error(f'<{element.tag}> is the zero vector')
    return v / np.linalg.norm(v)

def find_link(body: RawBody, name: str) -> RawLink | None:
    link = body.link(name)
    if link is None:
        for candidate in body.links:
            if candidate.name.lower() == name.lower():
                return candidate
    return link

def mimic_attrs(element: Element) -> dict:
    """``mimic_pos``/``mimic_vel``/``mimic_accel`` (+ DOF index), and old ``mimic``."""
    out: dict[int, dict[str, tuple[str, Element]]] = {}
    for key, value in element.attrs.items():
        for kind in ('pos', 'vel', 'accel'):
            prefix = f'mimic_{kind}'
            if key.startswith(prefix):
                suffix = key[len(prefix):]
                index = int(suffix) if suffix.isdigit() else 0
                out.setdefault(index, {})[kind] = (value, element)
                element.used.add('@' + key)
    old = element.attr('mimic')
    if old is not None and 0 not in out:
        words = old.split()
        try:
            a = float(words[1]) if len(words) > 1 else 1.0
            b = float(words[2]) if len(words) > 2 else 0.0
        except ValueError:
            raise element.error(f'mimic={old!r} must be "joint [multiplier [offset]]"') \
                from None
        if not words:
            raise element.error('mimic="" names no joint')
        out[0] = {'pos': (f'"{words[0]}"*{a!r}+{b!r}', element)}
    return out
