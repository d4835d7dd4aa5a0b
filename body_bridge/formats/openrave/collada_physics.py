"""The visual scene and the physics of a COLLADA robot: node frames, meshes with their colours,
rigid bodies (mass, inertia, mass frame).

Facts followed (OpenRAVE ``colladareader.cpp``):

* A link's geometry is the ``instance_geometry`` of its visual node and of the node's children
  that belong to no other link, placed by the node's transform relative to the link's frame
  (the visual scene at the joints' zero: the ``<rotate>``/``<translate>`` a joint drives is
  left out).
* A rigid body's ``mass_frame`` is in the frame of the ``instance_physics_model``'s
  ``parent`` node (the body's first link when there is none); ``inertia`` holds the principal
  moments [kg m^2] along the mass frame's axes; ``dynamic`` false makes the link static.
* Colours: the ``phong``/``lambert``/``blinn`` diffuse colour; COLLADA's ``transparency``
  float is an opacity as OpenRAVE writes it (1 opaque).
"""

from __future__ import annotations

import warnings

import numpy as np

from ...errors import ModelError
from ...model import Inertial
from .collada_doc import Document
from .raw import RawGeom, inverse
from .xmlfile import Element

__all__ = ['VisualScene', 'read_meshes', 'rigid_bodies', 'link_inertial', 'MAX_TRIANGLES',
           'MAX_NODE_DEPTH']

#: Most triangles read from one document (the PR2 has about 150 000).
MAX_TRIANGLES = 5_000_000
#: Deepest visual scene node read, the scene's top nodes at level 0.
MAX_NODE_DEPTH = 200
_PRIMITIVES = ('triangles', 'polylist', 'polygons', 'trifans', 'tristrips')


class VisualScene:
    """World transforms of the visual scene's nodes, joint motions left out.

    A node reached again (an ``instance_node`` cycle, or a node instantiated twice) keeps the
    frame of its first visit; nodes nested deeper than ``MAX_NODE_DEPTH`` levels (through
    ``instance_node`` chains: the XML itself nests at most 100) are refused with one line.
    """

    def __init__(self, doc: Document, scene: Element | None, skip: set[int]):
        self.doc = doc
        self.skip = skip
        self.world: dict[int, np.ndarray] = {}
        self.children: dict[int, list[Element]] = {}
        if scene is not None:
            for node in doc.children(scene, 'node'):
                self._walk(node, np.eye(4), 0)

    def _walk(self, node: Element, parent: np.ndarray, depth: int) -> None:
        if id(node) in self.world:
            return
        if depth > MAX_NODE_DEPTH:
            raise node.error(f'visual scene nodes are nested deeper than {MAX_NODE_DEPTH} '
                             'levels')
        world = parent @ self.doc.transform(node, self.skip)
        self.world[id(node)] = world
        kids = []
        for child in node.children:
            target = child if child.tag == 'node' else \
                self.doc.url(child) if child.tag == 'instance_node' else None
            if target is not None and target.tag == 'node':
                kids.append(target)
                self._walk(target, world, depth + 1)
        self.children[id(node)] = kids

    def frame(self, node: Element | None) -> np.ndarray | None:
        return None if node is None else self.world.get(id(node))

    def geometry_nodes(self, node: Element, link_nodes: set[int]) -> list[Element]:
        """``node`` and its descendants that are not another link's node."""
        out, stack = [], [node]
        while stack:
            current = stack.pop()
            out.append(current)
            stack.extend(k for k in self.children.get(id(current), ())
                         if id(k) not in link_nodes)
        return out


def _parse(text: str, dtype) -> np.ndarray | None:
    """Numbers separated by white space, fast (numpy's text reader); None if one is not."""
    with warnings.catch_warnings():
        warnings.simplefilter('error')   # numpy warns, and stops, at what is not a number
        try:
            return np.fromstring(text, dtype=dtype, sep=' ')
        except (ValueError, DeprecationWarning):
            return None


def _floats(doc: Document, source: Element) -> np.ndarray:
    array = doc.child(source, 'float_array')
    if array is None:
        raise source.error('a mesh source without <float_array>')
    values = _parse(array.text, float)
    if values is None:
        raise array.error('<float_array> holds something that is not a number')
    if not np.all(np.isfinite(values)):
        raise array.error('<float_array> holds a number that is not finite')
    return values


def _positions(doc: Document, mesh: Element, prim: Element) -> tuple[np.ndarray, int, int]:
    """The positions a primitive indexes [m], its VERTEX offset and its index stride."""
    offset, stride, source = None, 1, None
    for item in doc.children(prim, 'input'):
        off = int(item.attrs.get('offset', '0'))
        stride = max(stride, off + 1)
        if item.attrs.get('semantic') == 'VERTEX':
            offset = off
            vertices = doc.child(mesh, 'vertices')   # a mesh has exactly one
            for inner in doc.children(vertices, 'input'):
                if inner.attrs.get('semantic') == 'POSITION':
                    source = doc.url(inner, 'source')
    if offset is None or source is None:
        raise prim.error(f'<{prim.tag}> has no VERTEX input with POSITION')
    values = _floats(doc, source)
    accessor = doc.child(doc.child(source, 'technique_common'), 'accessor')
    step = int(accessor.attrs.get('stride', '3')) if accessor is not None else 3
    if step < 3:
        raise source.error('positions need three coordinates each')
    points = values[:len(values) // step * step].reshape(-1, step)[:, :3] * doc.meter
    return points, offset, stride


def _indices(element: Element) -> np.ndarray:
    values = _parse(element.text, np.int64)
    if values is None:
        raise element.error(f'<{element.tag}> holds something that is not an index')
    return values


def _faces(doc: Document, prim: Element, offset: int, stride: int) -> np.ndarray:
    """Triangles (rows of three position indices) of one primitive element."""
    tag = prim.tag
    if tag in ('triangles', 'polylist'):
        p = doc.child(prim, 'p')
        idx = _indices(p)[offset::stride] if p is not None else np.zeros(0, np.int64)
        if tag == 'triangles':
            return idx[:len(idx) // 3 * 3].reshape(-1, 3)
        counts = _indices(doc.child(prim, 'vcount')) if doc.child(prim, 'vcount') is not None \
            else np.zeros(0, np.int64)
        polys, start = [], 0
        for n in counts:
            polys.append(idx[start:start + n])
            start += n
    else:
        polys = [_indices(p)[offset::stride] for p in doc.children(prim, 'p')]
    out = []
    for poly in polys:
        if len(poly) < 3:
            continue
        if tag == 'tristrips':
            tris = [poly[i:i + 3] if i % 2 == 0 else poly[[i + 1, i, i + 2]]
                    for i in range(len(poly) - 2)]
        else:   # fans, polygons (convex, as OpenRAVE triangulates them)
            tris = [(poly[0], poly[i], poly[i + 1]) for i in range(1, len(poly) - 1)]
        out.extend(tris)
    return np.array(out, dtype=np.int64).reshape(-1, 3)


def _color(doc: Document, effect: Element | None) -> tuple[tuple | None, float | None]:
    """(diffuse rgb, transparency 0..1) of an effect's common profile."""
    if effect is None:
        return None, None
    technique = doc.child(doc.child(effect, 'profile_common'), 'technique')
    shading = None
    for tag in ('phong', 'lambert', 'blinn', 'constant'):
        shading = shading or doc.child(technique, tag)
    diffuse = doc.child(doc.child(shading, 'diffuse'), 'color')
    rgb = tuple(float(c) for c in np.clip(diffuse.numbers(at_least=3)[:3], 0, 1)) \
        if diffuse is not None else None
    opacity = doc.child(doc.child(shading, 'transparency'), 'float')
    transparency = None
    if opacity is not None:
        transparency = float(np.clip(1.0 - opacity.number(), 0.0, 1.0))
        if transparency >= 1.0:   # OpenRAVE: surely a mistake, drawn opaque
            transparency = 0.0
    return rgb, transparency


def read_meshes(doc: Document, node: Element, pose: np.ndarray, budget: list[int],
                warn) -> list[RawGeom]:
    """The triangle meshes a node instances, one geometry per material, in a link's frame.

    ``pose``: the node's frame in the link frame; ``budget``: triangles left (shared).
    """
    out = []
    for instance in doc.children(node, 'instance_geometry'):
        geometry = doc.url(instance)
        mesh = doc.child(geometry, 'mesh')
        if mesh is None:
            warn(instance, f'geometry {instance.attrs.get("url")!r} is not a <mesh>; ignored')
            continue
        materials = {}
        for bound in doc.children(doc.child(doc.child(instance, 'bind_material'),
                                            'technique_common'), 'instance_material'):
            material = doc.url(bound, 'target')
            effect = doc.url(doc.child(material, 'instance_effect')) \
                if material is not None and doc.child(material, 'instance_effect') is not None \
                else None
            materials[bound.attrs.get('symbol')] = _color(doc, effect)
        info = doc.child(doc.child(geometry, 'extra'), 'technique')
        visible = doc.number(doc.child(info, 'visible'))
        for prim in mesh.children:
            if prim.tag not in _PRIMITIVES:
                if prim.tag in ('lines', 'linestrips'):
                    warn(prim, f'<{prim.tag}> in a mesh are not surfaces; ignored')
                continue
            points, offset, stride = _positions(doc, mesh, prim)
            faces = _faces(doc, prim, offset, stride)
            if len(faces) == 0:
                continue
            if faces.min() < 0 or faces.max() >= len(points):
                raise prim.error(f'<{prim.tag}> indexes a position that does not exist')
            budget[0] -= len(faces)
            if budget[0] < 0:
                raise ModelError(doc.path, prim.line, f'more than {MAX_TRIANGLES} triangles')
            used, faces = np.unique(faces, return_inverse=True)
            geom = RawGeom('trimesh', pose.copy(), instance, visible=visible != 0.0)
            geom.vertices = points[used]
            geom.faces = faces.reshape(-1, 3)
            geom.diffuse, geom.transparency = materials.get(prim.attrs.get('material'),
                                                            (None, None))
            out.append(geom)
    return out


def rigid_bodies(doc: Document, pscene: Element | None) -> list[tuple[Element, Element,
                                                                      Element | None]]:
    """(rigid body, target node, parent node) of each ``instance_rigid_body`` of a physics
    scene."""
    out = []
    for instance in doc.children(pscene, 'instance_physics_model'):
        model = doc.url(instance)
        parent = doc.url(instance, 'parent')
        for irb in doc.children(instance, 'instance_rigid_body'):
            body = doc.sidref(irb.attrs.get('body', ''), model) if model is not None else None
            target = doc.url(irb, 'target')
            if body is not None and target is not None:
                out.append((body, target, parent))
    return out


def link_inertial(doc: Document, body: Element, offset: np.ndarray,
                  link_world: np.ndarray) -> tuple[Inertial | None, bool | None]:
    """A rigid body's mass properties in its link's frame, and whether it is dynamic.

    ``offset``: world frame the mass frame is given in; ``link_world``: the link's frame.
    """
    common = doc.child(body, 'technique_common')
    if common is None:
        return None, None
    mass = doc.number(doc.child(common, 'mass'))
    frame = doc.child(common, 'mass_frame')
    local = inverse(link_world) @ offset @ (doc.transform(frame) if frame is not None
                                            else np.eye(4))
    inertia_el = doc.child(common, 'inertia')
    moments = inertia_el.numbers(3) if inertia_el is not None else np.zeros(3)
    dynamic = doc.number(doc.child(common, 'dynamic'))
    if mass is None:
        return None, None if dynamic is None else bool(dynamic)
    if mass < 0 or np.any(moments < 0):
        raise body.error(f'rigid body {body.attrs.get("name", "")!r}: a negative mass or '
                         'inertia')
    rot = local[:3, :3]
    inertia = rot @ np.diag(moments) @ rot.T
    return Inertial(mass, local[:3, 3], inertia), None if dynamic is None else bool(dynamic)
