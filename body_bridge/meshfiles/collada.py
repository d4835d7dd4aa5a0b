"""COLLADA (``.dae``) through pycollada, behind a hardened XML check.

The XML is first parsed by lxml with entity resolution, DTD loading and network access off;
a document type declaration is refused (COLLADA never needs one, and it is how entity
expansion attacks begin). pycollada then reads the document from memory (never from disk,
never as a zip archive). Read: the default visual scene's nodes with their transforms,
``instance_node``, ``instance_geometry`` (triangles, polylist, polygons; lines skipped),
``instance_controller`` (the skin's mesh in its bind pose, with a warning), bound materials
(diffuse colour or texture image path with the first TEXCOORD set, transparency, emission
and specular colours, shininess as the specular exponent) and ``<unit meter>`` (results are in
metres). ``<up_axis>`` is not applied: the numbers keep their axes, as rviz, MuJoCo and
Choreonoid read COLLADA through assimp with the up direction ignored (a warning names a
stated Y_UP or X_UP).
"""

from __future__ import annotations

import io
import math
import os

import numpy as np

from ..errors import ModelError, UnsupportedError
from ..model import Material
from . import _common
from ._common import Budget, Parts, Warnings
from ._polygons import triangulate


def load(path: str, data: bytes, node: str | None, warn: Warnings) -> list[_common.MeshPart]:
    """Read a COLLADA file (``node``: a node id or name)."""
    unit = _check_xml(path, data)
    doc = _open(path, data, warn)
    budget = Budget(path)
    parts = Parts(path, node, budget)
    _warn_up_axis(path, data, warn)
    root = np.diag([unit, unit, unit, 1.0])
    scene = doc.scene
    if scene is None:
        raise ModelError(path, None, 'COLLADA file has no scene')
    walker = _Walker(path, warn, budget, parts, os.path.dirname(path))
    if node is None:
        for child in scene.nodes:
            walker.node(child, root, 0)
        return parts.result()
    found = walker.find(scene.nodes, node, root, 0)
    if found is None:
        listed = ', '.join(repr(n) for n in walker.names[:12]) or 'none'
        raise ModelError(path, None, f'no COLLADA node with id or name {node!r} (nodes: {listed})')
    target, matrix = found
    matrix = matrix @ _matrix(target)
    matrix[:3, 3] = 0.0  # placed without its translation, as Choreonoid places a Resource node
    walker.children(target, matrix, 1)
    return parts.result()


def _warn_up_axis(path: str, data: bytes, warn: Warnings) -> None:
    head = data[:16384]
    start = head.find(b'<up_axis>')
    if start >= 0:
        end = data.find(b'<', start + 9)  # the value may run past the bytes searched
        value = data[start + 9:end if end >= 0 else start + 9].strip().decode('latin-1')
        if value != 'Z_UP':
            warn(path, head[:start].count(b'\n') + 1, f'<up_axis>{value[:10]}</up_axis> is not '
                 'applied (as rviz and MuJoCo do not); the numbers keep their axes')


def _check_xml(path: str, data: bytes) -> float:
    """Parse the XML safely; return the document's unit [m] (1 when it states none)."""
    from lxml import etree
    head = data[:4096].lstrip(b'\xef\xbb\xbf \t\r\n')
    if not head.startswith(b'<'):
        raise ModelError(path, 1, 'not an XML file (COLLADA is XML)')
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                             huge_tree=False, remove_comments=True, remove_pis=True)
    try:
        tree = etree.parse(io.BytesIO(data), parser)
    except etree.XMLSyntaxError as err:
        line = err.lineno if getattr(err, 'lineno', None) else None
        raise ModelError(path, line, f'XML: {err.msg}') from None
    if tree.docinfo.doctype:
        raise ModelError(path, 1, 'a document type declaration (<!DOCTYPE>) is not allowed '
                         'in a COLLADA file')
    root = tree.getroot()
    if etree.QName(root).localname != 'COLLADA':
        name = etree.QName(root).localname
        raise ModelError(path, root.sourceline, f'the root element is <{name}>, '
                         'not <COLLADA>')
    return _unit(path, root)


def _unit(path: str, root) -> float:
    for asset in root:
        if not isinstance(asset.tag, str) or not asset.tag.endswith('asset'):
            continue
        for unit in asset:
            if isinstance(unit.tag, str) and unit.tag.endswith('unit'):
                text = unit.get('meter', '1')
                try:
                    value = float(text)
                except ValueError:
                    value = math.nan
                if not math.isfinite(value) or value <= 0:
                    raise ModelError(path, unit.sourceline, f'<unit meter="{text[:20]}"> must be '
                                     'a positive number')
                return value
    return 1.0


def _open(path: str, data: bytes, warn: Warnings):
    import collada
    from collada.common import DaeBrokenRefError, DaeError, DaeUnsupportedError
    try:
        doc = collada.Collada(io.BytesIO(data), ignore=[DaeUnsupportedError, DaeBrokenRefError])
    except DaeError as err:
        raise ModelError(path, None, f'COLLADA: {_one_line(err)}') from None
    except (ValueError, IndexError, KeyError, TypeError, AttributeError) as err:
        raise ModelError(path, None, f'COLLADA content is broken ({type(err).__name__}: '
                         f'{_one_line(err)})') from None
    for err in doc.errors:
        warn(path, None, f'COLLADA: {_one_line(err)}; ignored')
    return doc


def _one_line(err: BaseException) -> str:
    return ' '.join(str(err).split())[:200]


def _matrix(node) -> np.ndarray:
    m = np.asarray(getattr(node, 'matrix', np.eye(4)), dtype=float)
    return m if m.shape == (4, 4) else np.eye(4)


def _name(node) -> str | None:
    xml = getattr(node, 'xmlnode', None)
    return xml.get('name') if xml is not None else None


class _Walker:
    def __init__(self, path: str, warn: Warnings, budget: Budget, parts: Parts, base: str):
        self.path = path
        self.warn = warn
        self.budget = budget
        self.parts = parts
        self.base = base
        self.names: list[str] = []

    def node(self, node, matrix: np.ndarray, depth: int) -> None:
        import collada.scene as cs
        self.budget.visit()
        if depth > _common.MAX_DEPTH:
            raise ModelError(self.path, None,
                             f'COLLADA nodes nested deeper than {_common.MAX_DEPTH}')
        if isinstance(node, cs.NodeNode):
            self.node(node.node, matrix, depth + 1)
        elif isinstance(node, cs.Node):
            self.children(node, matrix @ _matrix(node), depth)
        elif isinstance(node, cs.GeometryNode):
            self.geometry(node.geometry, node.materials, matrix)
        elif isinstance(node, cs.ControllerNode):
            controller = node.controller
            geometry = getattr(controller, 'geometry', None)
            if geometry is None:
                return
            self.warn(self.path, None, f'COLLADA controller {controller.id!r}: its mesh is used '
                      'in the bind pose (skinning is not applied)')
            bind = np.asarray(getattr(controller, 'bind_shape_matrix', np.eye(4)), float)
            self.geometry(geometry, node.materials, matrix @ bind.reshape(4, 4))

    def children(self, node, matrix: np.ndarray, depth: int) -> None:
        for child in getattr(node, 'children', []):
            self.node(child, matrix, depth + 1)

    def find(self, nodes, name: str, matrix: np.ndarray, depth: int):
        """The first node (document order) with id or name ``name``, and its parent's matrix."""
        import collada.scene as cs
        if depth > _common.MAX_DEPTH:
            return None
        for node in nodes:
            self.budget.visit()
            if isinstance(node, cs.NodeNode):
                node = node.node
            if not isinstance(node, cs.Node):
                continue
            ids = [n for n in (node.id, _name(node)) if n]
            self.names.extend(n for n in ids if n not in self.names)
            if name in ids:
                return node, matrix
            found = self.find(node.children, name, matrix @ _matrix(node), depth + 1)
            if found is not None:
                return found
        return None

    def geometry(self, geometry, bindings, matrix: np.ndarray) -> None:
        import collada.lineset
        import collada.polylist
        import collada.triangleset
        materials = {b.symbol: b.target for b in bindings or []}
        linear, offset = matrix[:3, :3], matrix[:3, 3]
        for prim in geometry.primitives:
            if isinstance(prim, collada.lineset.LineSet):
                continue
            vertex = np.asarray(prim.vertex, dtype=float).reshape(-1, 3) \
                if prim.vertex is not None else np.zeros((0, 3))
            if isinstance(prim, collada.triangleset.TriangleSet):
                index = np.asarray(prim.vertex_index, dtype=np.int64).reshape(-1, 3)
                counts = np.full(len(index), 3)
            elif isinstance(prim, collada.polylist.Polylist):
                index = np.asarray(prim.vertex_index, dtype=np.int64).reshape(-1)
                counts = np.asarray(prim.vcounts, dtype=np.int64).reshape(-1)
                if counts.sum() != len(index) or (counts < 0).any():
                    raise ModelError(self.path, None, f'COLLADA geometry {geometry.id!r}: polygon '
                                     'sizes do not match the indices')
            else:
                raise UnsupportedError(self.path, None, f'COLLADA primitive '
                                       f'{type(prim).__name__} is not supported')
            if not len(index):
                continue
            _common.check_indices(self.path, None, f'COLLADA geometry {geometry.id!r}',
                                  index.reshape(-1), len(vertex))
            material = self.material(materials.get(prim.material))
            corners, uv = index.reshape(-1), None
            if material is not None and material.texture is not None:
                vertex, corners, uv = self.texcoords(geometry, prim, vertex, corners)
            faces, _ = triangulate(vertex, corners, counts)
            used, inverse = np.unique(faces.reshape(-1), return_inverse=True)
            v = vertex[used] @ linear.T + offset
            f = inverse.reshape(-1, 3)
            if np.linalg.det(linear) < 0:
                f = f[:, ::-1]
            self.parts.add(v, f, material, None, None if uv is None else uv[used])

    def texcoords(self, geometry, prim, vertex: np.ndarray, corners: np.ndarray):
        """(vertices, corner indices, texture coordinates) from the primitive's first
        TEXCOORD set: one vertex per (position, texture coordinate) pair; without one the
        positions and None."""
        sets = getattr(prim, 'texcoordset', None) or ()
        index_sets = getattr(prim, 'texcoord_indexset', None) or ()
        if not len(sets) or not len(index_sets):
            return vertex, corners, None
        uv = np.asarray(sets[0], dtype=float)
        uv = uv[:, :2] if uv.ndim == 2 and uv.shape[1] >= 2 else uv.reshape(-1, 2)
        tex = np.asarray(index_sets[0], dtype=np.int64).reshape(-1)
        if len(tex) != len(corners):
            raise ModelError(self.path, None, f'COLLADA geometry {geometry.id!r}: texture '
                             'coordinate indices do not match the vertex indices')
        _common.check_indices(self.path, None, f'COLLADA geometry {geometry.id!r} TEXCOORD',
                              tex, len(uv))
        _common.check_finite(self.path, None, 'COLLADA texture coordinates', uv)
        return _common.unweld(vertex, corners, uv, tex)

    def material(self, material) -> Material | None:
        effect = getattr(material, 'effect', None)
        if effect is None:
            return None
        diffuse = effect.diffuse
        texture = None
        rgb, alpha = (0.8, 0.8, 0.8), 1.0
        if isinstance(diffuse, tuple) and len(diffuse) >= 3:
            rgb = diffuse[:3]
            alpha = float(diffuse[3]) if len(diffuse) > 3 else 1.0
        elif diffuse is not None and hasattr(diffuse, 'sampler'):
            image = getattr(getattr(getattr(diffuse, 'sampler', None), 'surface', None),
                            'image', None)
            if image is not None and getattr(image, 'path', None):
                texture = _common.texture_path(self.base, image.path)
            rgb = (1.0, 1.0, 1.0)
        alpha *= _opacity(effect)
        name = getattr(material, 'name', None) or getattr(material, 'id', None)
        extras = {}
        for attribute, key in (('emission', 'emission'), ('specular', 'specular')):
            value = getattr(effect, attribute, None)
            if isinstance(value, tuple) and len(value) >= 3:
                extras[key] = _common.colour(value[:3])
        shininess = getattr(effect, 'shininess', None)
        if isinstance(shininess, (int, float)):  # the specular exponent
            extras['shininess'] = _common.shininess_of_exponent(float(shininess))
        return Material(_common.rgba(rgb, 1.0 - alpha), name, texture, **extras)


def _opacity(effect) -> float:
    """Opacity from ``transparent``/``transparency`` (COLLADA 1.4.1, A_ONE or RGB_ZERO)."""
    transparency = effect.transparency
    transparent = effect.transparent
    if transparency is None or not isinstance(transparent, tuple):
        return 1.0
    mode = str(getattr(effect, 'opaque_mode', 'A_ONE') or 'A_ONE')
    if mode.endswith('RGB_ZERO'):
        value = 1.0 - float(np.mean(transparent[:3])) * float(transparency)
    else:
        value = float(transparent[3] if len(transparent) > 3 else 1.0) * float(transparency)
    # Many exporters write transparency 0 for opaque surfaces with A_ONE; a fully
    # transparent surface is never what a robot model means.
    return 1.0 if value <= 0.0 else float(np.clip(value, 0.0, 1.0))
