"""What a COLLADA scene binds to each joint axis of a kinematics model.

COLLADA keeps a joint's data in four places, tied together by SID references and parameter
chains (``newparam`` -> ``SIDREF`` -> ``newparam`` ...):

* the kinematics model's ``<revolute>``/``<prismatic>`` axis (direction, hard limits);
* the kinematics articulated system's ``<axis_info>``: ``active``, ``locked``, soft
  ``limits`` (OpenRAVE prefers them), and OpenRAVE's ``circular``, ``planning_weight``,
  ``discretization_resolution`` parameters;
* the motion articulated system's ``<axis_info>``: ``speed`` and ``acceleration``;
* the scene's ``<instance_kinematics_scene>``: ``bind_joint_axis`` ties an axis to the visual
  node's ``<rotate>``/``<translate>`` that moves with it and gives the axis' value;
  ``bind_kinematics_model`` ties the model to the visual node of its root link.

Angles in these places are degrees (speeds deg/s, accelerations deg/s^2), lengths metres after
the document's unit; OpenRAVE's reader reads them so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .collada_doc import Document
from .xmlfile import Element

__all__ = ['AxisData', 'Bindings', 'read_bindings', 'articulated_chain']


@dataclass
class AxisData:
    """Everything bound to one joint axis (values as written: degrees or document lengths)."""

    active: bool = True
    locked: bool = False
    limits: tuple[float, float] | None = None
    circular: bool | None = None
    weight: float | None = None
    resolution: float | None = None
    speed: float | None = None
    acceleration: float | None = None
    value: float = 0.0
    visual: Element | None = None     # the <rotate>/<translate> in the visual scene


@dataclass
class Bindings:
    """The bindings of one articulated system in one scene."""

    axes: dict[int, AxisData] = field(default_factory=dict)   # id(axis element) -> data
    root_node: Element | None = None
    systems: list[Element] = field(default_factory=list)      # motion ... kinematics

    def axis(self, element: Element) -> AxisData:
        return self.axes.setdefault(id(element), AxisData())


def articulated_chain(doc: Document, system: Element) -> tuple[list[Element], Element | None]:
    """The articulated systems from ``system`` down its ``instance_articulated_system`` chain
    to the one with ``<kinematics>``, and the kinematics model it instantiates."""
    chain, seen = [], set()
    while system is not None and id(system) not in seen:
        seen.add(id(system))
        chain.append(system)
        motion = doc.child(system, 'motion')
        if motion is None:
            break
        inner = doc.child(motion, 'instance_articulated_system')
        system = doc.url(inner) if inner is not None else None
    kinematics = doc.child(chain[-1], 'kinematics') if chain else None
    instance = doc.child(kinematics, 'instance_kinematics_model')
    return chain, doc.url(instance) if instance is not None else None


def _params(doc: Document, element: Element) -> dict[str, Element]:
    return {p.attrs['sid']: p for p in doc.children(element, 'newparam') if 'sid' in p.attrs}


def _follow(doc: Document, element: Element | None, depth: int = 0) -> Element | None:
    """A newparam's SIDREF chain followed to the element it finally names; after 32
    references (a cycle, or a chain no writer makes) the newparam reached, which is no axis."""
    while element is not None and element.tag == 'newparam' and depth < 32:
        ref = doc.child(element, 'sidref')
        if ref is None:
            return element
        element = doc.sidref(ref.text, element)
        depth += 1
    return element


def _kinematics_info(doc: Document, info: Element, data: AxisData) -> None:
    params = _params(doc, info)
    for tag in ('active', 'locked'):
        value = doc.number(doc.child(info, tag), params)
        if value is not None:
            setattr(data, tag, bool(value))
    limits = doc.child(info, 'limits')
    if limits is not None:
        low = doc.number(doc.child(limits, 'min'), params)
        high = doc.number(doc.child(limits, 'max'), params)
        if low is not None and high is not None:
            data.limits = (low, high)
    for sid, attr in (('circular', 'circular'), ('planning_weight', 'weight'),
                      ('discretization_resolution', 'resolution')):
        value = doc.number(params.get(sid))
        if value is not None:
            setattr(data, attr, bool(value) if attr == 'circular' else value)


def _motion_info(doc: Document, info: Element, data: AxisData) -> None:
    params = _params(doc, info)
    for tag, attr in (('speed', 'speed'), ('acceleration', 'acceleration')):
        value = doc.number(doc.child(info, tag), params)
        if value is not None:
            setattr(data, attr, value)


def read_bindings(doc: Document, chain: list[Element], kscene: Element | None,
                  instance: Element | None, kmodel: Element) -> Bindings:
    """The axis data of an articulated system chain (motion first), with the scene's binds.

    ``kscene``: the kinematics scene instantiating the system; ``instance``: the scene's
    ``<instance_kinematics_scene>`` holding ``bind_*`` elements (either may be None).
    """
    out = Bindings(systems=chain)
    kinematics = doc.child(chain[-1], 'kinematics') if chain else None
    for info in doc.children(doc.child(kinematics, 'technique_common'), 'axis_info'):
        axis = doc.sidref(info.attrs.get('axis', ''), info)
        if axis is not None:
            _kinematics_info(doc, info, out.axis(axis))
    for system in chain[:-1]:
        motion = doc.child(system, 'motion')
        for info in doc.children(doc.child(motion, 'technique_common'), 'axis_info'):
            kinfo = doc.sidref(info.attrs.get('axis', ''), info)
            axis = doc.sidref(kinfo.attrs.get('axis', ''), kinfo) \
                if kinfo is not None and kinfo.tag == 'axis_info' else None
            if axis is not None:
                _motion_info(doc, info, out.axis(axis))
    if kscene is None or instance is None:
        return out
    scope = {}
    for element in doc.children(kscene, 'instance_articulated_system'):
        scope.update(_params(doc, element))
    for bind in doc.children(instance, 'bind_joint_axis'):
        target = doc.sidref(bind.attrs.get('target', ''), None)
        axis_param = doc.child(doc.child(bind, 'axis'), 'param')
        axis = _follow(doc, scope.get(axis_param.text.strip())) if axis_param is not None \
            else None
        if axis is None or axis.tag not in ('revolute', 'prismatic'):
            continue
        data = out.axis(axis)
        data.visual = target
        value_param = doc.child(doc.child(bind, 'value'), 'param')
        value = _follow(doc, scope.get(value_param.text.strip())) \
            if value_param is not None else None
        number = doc.number(value) if value is not None else None
        if number is not None:
            data.value = number
    binds = doc.children(instance, 'bind_kinematics_model')
    for bind in binds:
        node = doc.sidref(bind.attrs.get('node', ''), None)
        param = doc.child(bind, 'param')
        model = _follow(doc, scope.get(param.text.strip())) if param is not None else None
        if model is not None and model.tag == 'instance_kinematics_model':
            model = doc.url(model)
        if node is not None and (model is kmodel or len(binds) == 1):
            out.root_node = node
    return out
