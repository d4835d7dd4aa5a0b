"""OpenRAVE's own parts of a COLLADA robot: ``<extra>`` elements with technique profile
``OpenRAVE`` and the kinematics model's ``<formula>`` (MathML).

* ``<extra type="manipulator" name=...>`` on an articulated system: ``frame_origin link``
  (the base), ``frame_tip link`` (the effector) with the tool transform and ``direction``,
  ``gripper_joint joint`` with ``closing_direction``/``chucking_direction`` values,
  ``iksolver type``.
* ``<extra type="attach_sensor" name=...>``: ``frame_origin link`` with the sensor's transform,
  ``instance_sensor url`` naming a ``<sensor type=...>`` of the document's
  ``library_sensors`` extra. Its parameters are OpenRAVE's sensor geometry: ``intrinsic``
  (fx 0 cx 0 fy cy), ``image_dimensions`` (width height channels), ``measurement_time`` [s].
* ``<extra type="collision">`` on a kinematics model: ``ignore_link_pair link0 link1`` (the
  pair never collides: adjacent), ``link_collision_state link`` with a bool (false: the link
  collides with nothing), ``link_visible_state`` (false: the link is not drawn);
  ``bind_instance_geometry`` is warned about, as OpenRAVE's reader does.
* ``<formula>``: the target joint follows a MathML expression of other joints (OpenRAVE's
  ``equation type="position"`` when present); it becomes a mimic formula.
"""

from __future__ import annotations

import numpy as np

from .collada_doc import Document
from .raw import RawManipulator, RawSensor, scaled
from .xmlfile import Element

__all__ = ['openrave_extras', 'read_manipulator', 'read_attached_sensor', 'read_collision',
           'mathml_text', 'formula_target']


def openrave_extras(doc: Document, element: Element, kind: str) -> list[tuple[Element,
                                                                                Element]]:
    """(extra, its OpenRAVE technique) of ``element``'s extras of ``kind``."""
    out = []
    for extra in doc.children(element, 'extra'):
        if extra.attrs.get('type') != kind:
            continue
        for technique in doc.children(extra, 'technique'):
            if technique.attrs.get('profile') == 'OpenRAVE':
                out.append((extra, technique))
    return out


def read_manipulator(doc: Document, extra: Element, technique: Element, links: dict,
                     joints: dict, warn) -> RawManipulator:
    """A manipulator extra; ``links``/``joints`` map SID references to raw names."""
    manip = RawManipulator(extra.attrs.get('name') or 'manipulator', extra)
    origin = doc.child(technique, 'frame_origin')
    tip = doc.child(technique, 'frame_tip')
    if origin is not None:
        manip.base = links.get(origin.attrs.get('link', ''))
    if tip is not None:
        manip.effector = links.get(tip.attrs.get('link', ''))
        manip.tool = doc.transform(tip)
        direction = doc.child(tip, 'direction')
        if direction is not None:
            v = scaled(direction.numbers(3))
            if v is not None:
                manip.direction = v / np.linalg.norm(v)
    for item in doc.children(technique, 'gripper_joint'):
        name = joints.get(item.attrs.get('joint', ''))
        if name is None:
            warn(item, f'manipulator {manip.name!r}: gripper joint '
                       f'{item.attrs.get("joint")!r} does not exist; ignored')
            continue
        manip.gripper_joints.append(name)
        closing = doc.child(item, 'closing_direction') or doc.child(item, 'chucking_direction')
        value = doc.number(closing) if closing is not None else None
        manip.closing_direction.append(float(np.sign(value)) if value else 0.0)
    solver = doc.child(technique, 'iksolver')
    if solver is not None:
        manip.ik_solver = solver.attrs.get('type')
    for child in technique.children:
        if child.tag not in ('frame_origin', 'frame_tip', 'gripper_joint', 'iksolver'):
            warn(child, f'<{child.tag}> in a manipulator is not supported and was ignored')
    return manip


def _sensor_params(doc: Document, sensor: Element) -> list[Element]:
    """OpenRAVE's COLLADA sensor geometry as the XML sensor parameters the devices read."""
    out = []

    def made(tag, values):
        out.append(Element(tag, {}, sensor.path, sensor.line,
                           text=' '.join(repr(float(v)) for v in values)))
    for child in sensor.children:
        if child.tag == 'intrinsic':
            v = child.numbers(at_least=6)
            made('kk', (v[0], v[4], v[2], v[5]))
        elif child.tag == 'image_dimensions':
            v = child.numbers(at_least=2)
            made('width', v[:1])
            made('height', v[1:2])
        elif child.tag == 'measurement_time':
            t = child.number()
            if t > 0:
                made('framerate', (1.0 / t,))
        elif child.tag in ('focal_length', 'color', 'power', 'min_angle', 'max_angle',
                           'min_range', 'max_range', 'resolution', 'time_scan',
                           'time_increment'):
            out.append(child)
        elif child.tag not in ('distortion_model', 'distortion_coeffs', 'format',
                               'target_region'):
            out.append(child)   # the device reader names what it does not know
    return out


_SENSOR_TYPES = {'base_pinhole_camera': 'BaseCamera', 'base_laser2d': 'BaseLaser2D',
                 'base_laser3d': 'BaseFlashLidar3D', 'base_force6d': 'BaseForce6D',
                 'base_imu': 'BaseIMU'}


def read_attached_sensor(doc: Document, extra: Element, technique: Element,
                         links: dict) -> RawSensor:
    sensor = RawSensor(extra.attrs.get('name') or 'sensor', extra)
    origin = doc.child(technique, 'frame_origin')
    if origin is not None:
        sensor.link = links.get(origin.attrs.get('link', ''), origin.attrs.get('link'))
        sensor.transform = doc.transform(origin)
    instance = doc.child(technique, 'instance_sensor')
    target = doc.url(instance) if instance is not None else None
    if target is not None:
        kind = target.attrs.get('type', '')
        sensor.type = _SENSOR_TYPES.get(kind.lower(), kind)
        sensor.params = _sensor_params(doc, target)
        sensor.sensor_element = target
    return sensor


def read_collision(doc: Document, kmodel: Element, links: dict, warn):
    """(ignored link pairs, links that collide with nothing, links not drawn) of a kinematics
    model."""
    pairs, off, hidden = [], [], []
    for _, technique in openrave_extras(doc, kmodel, 'collision'):
        for item in technique.children:
            if item.tag == 'ignore_link_pair':
                a = links.get(item.attrs.get('link0', ''))
                b = links.get(item.attrs.get('link1', ''))
                if a is None or b is None:
                    warn(item, 'ignore_link_pair names a link that does not exist; ignored')
                else:
                    pairs.append((a, b, item))
            elif item.tag in ('link_collision_state', 'link_visible_state'):
                name = links.get(item.attrs.get('link', ''))
                if name is not None and doc.number(item) == 0.0:
                    (off if item.tag == 'link_collision_state' else hidden).append(name)
            else:
                warn(item, f'<{item.tag}> in a collision extra is not supported and was '
                           'ignored')
    return pairs, off, hidden


# --- MathML -----------------------------------------------------------------------------

_OPERATORS = {'plus': '+', 'minus': '-', 'times': '*', 'divide': '/', 'power': '^'}
_FUNCTIONS = {'sin', 'cos', 'tan', 'arcsin', 'arccos', 'arctan', 'sinh', 'cosh', 'tanh',
              'exp', 'ln', 'log', 'abs', 'root', 'floor', 'ceiling', 'min', 'max', 'arctan2',
              'atan2', 'sec', 'csc', 'cot'}
_RENAMED = {'arcsin': 'asin', 'arccos': 'acos', 'arctan': 'atan', 'ln': 'log',
            'ceiling': 'ceil', 'arctan2': 'atan2', 'log': 'log10'}


def mathml_text(element: Element, joints: dict, depth: int = 0) -> str:
    """A MathML expression as formula text; ``csymbol``/``ci`` name joints (SID refs).

    Raises:
        ModelError: an element or operator that is not arithmetic over joints.
    """
    if depth > 100:
        raise element.error('the formula nests deeper than 100 levels')
    tag = element.tag
    if tag == 'math':
        kids = [c for c in element.children]
        if len(kids) != 1:
            raise element.error('<math> must hold one expression')
        return mathml_text(kids[0], joints, depth + 1)
    if tag == 'cn':
        return repr(float(element.numbers(1)[0]))
    if tag in ('csymbol', 'ci'):
        ref = element.text.strip()
        name = joints.get(ref)
        if name is None:
            raise element.error(f'the formula names {ref!r}, which is not a joint')
        return '"' + name + '"'
    if tag == 'pi':
        return 'pi'
    if tag != 'apply' or not element.children:
        raise element.error(f'<{tag}> is not supported in a joint formula')
    op, args = element.children[0].tag, element.children[1:]
    texts = [mathml_text(a, joints, depth + 1) for a in args]
    if op in _OPERATORS:
        if op == 'minus' and len(texts) == 1:
            return f'(-{texts[0]})'
        if not texts:
            raise element.error(f'<{op}/> needs arguments')
        return '(' + f' {_OPERATORS[op]} '.join(texts) + ')'
    if op in _FUNCTIONS:
        if op == 'root':
            return f'sqrt({texts[-1]})' if len(texts) == 1 else f'({texts[-1]})^(1/{texts[0]})'
        if op in ('sec', 'csc', 'cot'):
            inner = {'sec': 'cos', 'csc': 'sin', 'cot': 'tan'}[op]
            return f'(1 / {inner}({texts[0]}))'
        return f'{_RENAMED.get(op, op)}({", ".join(texts)})'
    raise element.error(f'MathML operator <{op}/> is not supported in a joint formula')


def formula_target(doc: Document, formula: Element, joints: dict) -> tuple[str | None,
                                                                              Element | None]:
    """(joint name, MathML expression) of a ``<formula>``: OpenRAVE's position equation,
    else the common technique's."""
    target = doc.child(doc.child(formula, 'target'), 'param')
    name = joints.get(target.text.strip()) if target is not None else None
    for technique in doc.children(formula, 'technique'):
        if technique.attrs.get('profile') == 'OpenRAVE':
            for equation in doc.children(technique, 'equation'):
                if equation.attrs.get('type') == 'position':
                    return name, doc.child(equation, 'math')
    return name, doc.child(doc.child(formula, 'technique_common'), 'math')
