"""Open Inventor (``#Inventor V1.0/V2.x ascii``; binary files via ``inventor_binary``) and
VRML 1.0, which is Inventor's syntax with a few node names of its own.

Inventor is a state machine: property nodes (coordinates, material, transforms, shape hints)
change the state that later shapes use; ``Separator`` saves and restores it. Read: Separator,
Group, TransformSeparator, Switch (``whichChild``), LOD/LevelOfDetail (first child),
WWWAnchor, File and WWWInline (the named file is read in place), Transform, Translation,
Rotation, RotationXYZ, Scale, MatrixTransform, ResetTransform, Units (geometry after it is
in metres), Coordinate3, VertexProperty, Material and BaseColor (diffuse colours; ambient
when a material gives no diffuse colour), MaterialBinding, ShapeHints (vertex ordering),
Texture2 (file name), FaceSet, IndexedFaceSet, TriangleStripSet, IndexedTriangleStripSet,
QuadMesh, Cube, Sphere, Cylinder, Cone (``parts``). Lines, points, normals, texture
coordinates, lights, cameras and other nodes without surface are skipped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

import numpy as np

from ..errors import ModelError
from ..model import Material, axis_angle_matrix
from . import _common
from . import _fields as fields
from . import _inventor_shapes as shapes
from ._common import Budget, Include, Parts, Warnings
from ._scenetext import Node, Word, parse

_SEPARATORS = frozenset({'Separator', 'WWWAnchor', 'Selection', 'SoSeparator', 'Annotation'})
_GROUPS = frozenset({'Group', 'SoGroup'})
_NO_SURFACE = frozenset({
    'Normal', 'NormalBinding', 'TextureCoordinate2', 'TextureCoordinateBinding',
    'TextureCoordinateDefault', 'TextureCoordinatePlane', 'Texture2Transform', 'Complexity',
    'DrawStyle', 'LightModel', 'Environment', 'Info', 'Label', 'DirectionalLight',
    'PointLight', 'SpotLight', 'PerspectiveCamera', 'OrthographicCamera', 'Font', 'PickStyle',
    'IndexedLineSet', 'LineSet', 'PointSet', 'Callback', 'EventCallback', 'Clip', 'ClipPlane',
    'Coordinate4', 'ProfileCoordinate2', 'ProfileCoordinate3', 'LinearProfile',
    'NurbsProfile', 'PolygonOffset', 'TextureCoordinateFunction', 'ShapeHintsV1'})
_UNITS = {
    'METERS': 1.0, 'CENTIMETERS': 0.01, 'MILLIMETERS': 0.001, 'MICROMETERS': 1e-6,
    'MICRONS': 1e-6, 'NANOMETERS': 1e-9, 'ANGSTROMS': 1e-10, 'KILOMETERS': 1000.0,
    'FEET': 0.3048, 'INCHES': 0.0254, 'POINTS': 0.0254 / 72, 'YARDS': 0.9144,
    'MILES': 1609.344, 'NAUTICAL_MILES': 1852.0}


@dataclass(frozen=True)
class _State:
    """What property nodes have set for the shapes that follow."""

    matrix: np.ndarray
    units: float = 1.0
    coords: np.ndarray | None = None
    colors: np.ndarray | None = None
    transparency: float = 0.0
    material_name: str | None = None
    binding: str = 'OVERALL'
    clockwise: bool = False
    texture: str | None = None
    active: bool = True


def load(path: str, data: bytes, node: str | None, warn: Warnings, include: Include,
         stack: tuple[str, ...] = ()) -> list[_common.MeshPart]:
    """Read an ASCII Inventor or VRML 1.0 file (``node``: a DEF name; ``include`` reads the
    files it names)."""
    text = _common.decode_text(data, path)
    start = text.find('\n') + 1 or len(text)
    roots = parse(path, text, start)
    return read_nodes(path, roots, node, warn, include, stack)


def read_nodes(path: str, roots: list[Node], node: str | None, warn: Warnings,
               include: Include, stack: tuple[str, ...]) -> list[_common.MeshPart]:
    """Parts of parsed Inventor nodes (shared with the binary reader)."""
    budget = Budget(path)
    parts = Parts(path, node, budget)
    scene = _Scene(path, warn, budget, parts, stack, node)
    scene.load_parts = include
    scene.group(roots, _State(np.eye(4), active=node is None), 0)
    if node is not None and not scene.found:
        names = sorted({n for n in scene.names if n})[:12]
        listed = ', '.join(repr(n) for n in names) or 'none'
        raise ModelError(path, None, f'no node DEFined as {node!r} (DEF names: {listed})')
    return parts.result()


class _Scene:
    def __init__(self, path: str, warn: Warnings, budget: Budget, parts: Parts,
                 stack: tuple[str, ...], target: str | None):
        self.path = path
        self.warn = warn
        self.budget = budget
        self.parts = parts
        self.stack = stack + (os.path.realpath(path),)
        self.base = os.path.dirname(path)
        self.target = target
        self.found = False
        self.names: list[str] = []
        self.offset = np.zeros(3)

    def group(self, nodes: list[Node], state: _State, depth: int) -> _State:
        """Traverse nodes in order, each seeing the state the previous ones left."""
        for node in nodes:
            if node is not None:
                state = self.visit(node, state, depth)
        return state

    def visit(self, node: Node, state: _State, depth: int) -> _State:
        self.budget.visit(node.line)
        if depth > _common.MAX_DEPTH:
            raise ModelError(self.path, node.line, f'nodes nested deeper than {_common.MAX_DEPTH}')
        if node.name:
            self.names.append(node.name)
        if self.target is not None and node.name == self.target and not self.found:
            self.found = True
            # The named node is placed without the translation it has in the file.
            self.offset = state.matrix[:3, 3].copy()
            after = self.dispatch(node, replace(state, active=True), depth)
            return replace(after, active=False)
        return self.dispatch(node, state, depth)

    def dispatch(self, node: Node, state: _State, depth: int) -> _State:
        kind = node.type
        if kind in _SEPARATORS:
            self.group(node.children, state, depth + 1)
            return state
        if kind in _GROUPS:
            return self.group(node.children, state, depth + 1)
        if kind == 'TransformSeparator':
            after = self.group(node.children, state, depth + 1)
            return replace(after, matrix=state.matrix, units=state.units)
        if kind == 'Switch':
            return self.switch(node, state, depth)
        if kind in ('LOD', 'LevelOfDetail'):
            if node.children:
                self.group(node.children[:1], state, depth + 1)
            return state
        if kind in ('File', 'WWWInline'):
            return self.include(node, state, depth)
        handler = _PROPERTIES.get(kind)
        if handler is not None:
            return handler(self, node, state)
        shape = shapes.SHAPES.get(kind)
        if shape is not None:
            if state.active:
                own = state
                prop = node.fields.get('vertexProperty')
                if isinstance(prop, Node):  # its values replace the inherited ones, here only
                    own = shapes.vertex_property(self, prop, state)
                self.shape(node, own, shape(self, node, own))
            return state
        if kind not in _NO_SURFACE:
            self.warn(self.path, node.line, f'{kind} node is not supported; skipped')
        return state

    def switch(self, node: Node, state: _State, depth: int) -> _State:
        which = int(fields.number(self.path, node, 'whichChild', -1))
        if which == -3:  # SO_SWITCH_ALL
            return self.group(node.children, state, depth + 1)
        if 0 <= which < len(node.children):
            return self.group(node.children[which:which + 1], state, depth + 1)
        return state

    def include(self, node: Node, state: _State, depth: int) -> _State:
        names = node.fields.get('name')
        if not isinstance(names, list) or not names:
            raise ModelError(self.path, node.line, f'{node.type} without a file name')
        target = _common.texture_path(self.base, str(names[0]))
        if os.path.realpath(target) in self.stack:
            raise ModelError(self.path, node.line, f'{node.type} {names[0]!r} includes itself')
        if len(self.stack) > _common.MAX_INCLUDE_DEPTH:
            raise ModelError(self.path, node.line, f'included files nested deeper than '
                             f'{_common.MAX_INCLUDE_DEPTH}')
        if not state.active:
            return state
        for part in self.load_parts(target, None, self.warn, self.stack):
            self.add(part.mesh.vertices, part.mesh.faces, part.material, state, node.line)
        return state

    # --- shapes -------------------------------------------------------------------------

    def shape(self, node: Node, state: _State, result) -> None:
        if result is None:
            return
        vertices, faces, owner = result
        if state.clockwise:
            faces = faces[:, ::-1]
        colors = state.colors
        texture = state.texture
        if colors is None or len(colors) <= 1 or state.binding in ('OVERALL', 'DEFAULT') \
                or owner is None:
            rgb = colors[0] if colors is not None and len(colors) else (0.8, 0.8, 0.8)
            explicit = colors is not None or texture is not None
            material = Material(_common.rgba(rgb, state.transparency), state.material_name,
                                texture) if explicit else None
            self.add(vertices, faces, material, state, node.line)
            return
        per_face = self.face_colors(node, state, colors, owner)
        keys = np.round(per_face, 4)
        unique, which = np.unique(keys, axis=0, return_inverse=True)
        which = which.reshape(-1)
        for k, rgb in enumerate(unique):
            v, f = _common.drop_unused(vertices, faces[which == k])
            self.add(v, f, Material(_common.rgba(rgb, state.transparency), None, texture),
                     state, node.line)

    def face_colors(self, node: Node, state: _State, colors: np.ndarray, owner: np.ndarray
                    ) -> np.ndarray:
        """The colour of each triangle under a per-face or per-vertex material binding."""
        binding = state.binding
        if binding.startswith('PER_VERTEX'):
            self.warn(self.path, node.line, f'MaterialBinding {binding}: vertex colours '
                      'averaged into one colour')
            return np.repeat(colors.mean(axis=0, keepdims=True), len(owner), axis=0)
        which = owner
        index = node.fields.get('materialIndex')
        if binding.endswith('_INDEXED') and isinstance(index, np.ndarray) and len(index):
            index = index.astype(np.int64)
            which = index[np.minimum(owner, len(index) - 1)]
        _common.check_indices(self.path, node.line, 'material index',
                              np.minimum(which, len(colors) - 1) if not binding.endswith(
                                  '_INDEXED') else which, len(colors))
        return colors[np.minimum(which, len(colors) - 1)]

    def add(self, vertices, faces, material, state: _State, line: int) -> None:
        m = state.matrix
        placed = vertices @ m[:3, :3].T + (m[:3, 3] - self.offset)
        if np.linalg.det(m[:3, :3]) < 0:
            faces = faces[:, ::-1]
        self.parts.add(placed, faces, material, line)


# --- property nodes ---------------------------------------------------------------------------


def _then(state: _State, local: np.ndarray) -> _State:
    return replace(state, matrix=state.matrix @ local)


def _transform(scene: _Scene, node: Node, state: _State) -> _State:
    return _then(state, fields.transform(scene.path, node, 'scaleFactor'))


def _translation(scene: _Scene, node: Node, state: _State) -> _State:
    m = np.eye(4)
    m[:3, 3] = fields.vector(scene.path, node, 'translation', (0, 0, 0), 3)
    return _then(state, m)


def _rotation_node(scene: _Scene, node: Node, state: _State) -> _State:
    m = np.eye(4)
    m[:3, :3] = fields.rotation(scene.path, node, 'rotation')
    return _then(state, m)


def _rotation_xyz(scene: _Scene, node: Node, state: _State) -> _State:
    axis = str(node.fields.get('axis', 'X')).upper()
    if axis not in ('X', 'Y', 'Z'):
        raise ModelError(scene.path, node.line,
                         f'RotationXYZ axis must be X, Y or Z, found {axis}')
    m = np.eye(4)
    m[:3, :3] = axis_angle_matrix(np.eye(3)['XYZ'.index(axis)],
                                  fields.number(scene.path, node, 'angle', 0.0))
    return _then(state, m)


def _scale(scene: _Scene, node: Node, state: _State) -> _State:
    m = np.diag(np.append(fields.vector(scene.path, node, 'scaleFactor', (1, 1, 1), 3), 1.0))
    return _then(state, m)


def _matrix(scene: _Scene, node: Node, state: _State) -> _State:
    values = fields.vector(scene.path, node, 'matrix', np.eye(4).ravel(), 16)
    # Inventor multiplies row vectors (p' = p M): the file's matrix is the transpose.
    return _then(state, values.reshape(4, 4).T)


def _reset(scene: _Scene, node: Node, state: _State) -> _State:
    return replace(state, matrix=np.eye(4))


def _units(scene: _Scene, node: Node, state: _State) -> _State:
    unit = str(node.fields.get('units', 'METERS')).upper()
    if unit not in _UNITS:
        raise ModelError(scene.path, node.line, f'Units {unit!r} is not a known unit')
    factor = _UNITS[unit] / state.units
    return replace(_then(state, np.diag([factor, factor, factor, 1.0])), units=_UNITS[unit])


def _coordinate3(scene: _Scene, node: Node, state: _State) -> _State:
    return replace(state, coords=fields.points(scene.path, node, 'point'))


def _material(scene: _Scene, node: Node, state: _State) -> _State:
    diffuse = fields.array(scene.path, node, 'diffuseColor')
    if not len(diffuse):
        diffuse = fields.array(scene.path, node, 'ambientColor')
    if len(diffuse) % 3:
        raise ModelError(scene.path, node.line, 'Material colours must be triples of numbers')
    transparency = fields.array(scene.path, node, 'transparency')
    return replace(state, colors=diffuse.reshape(-1, 3) if len(diffuse) else state.colors,
                   transparency=float(transparency[0]) if len(transparency) else 0.0,
                   material_name=node.name)


def _base_color(scene: _Scene, node: Node, state: _State) -> _State:
    rgb = fields.array(scene.path, node, 'rgb')
    if len(rgb) % 3:
        raise ModelError(scene.path, node.line, 'BaseColor rgb must be triples of numbers')
    return replace(state, colors=rgb.reshape(-1, 3)) if len(rgb) else state


def _material_binding(scene: _Scene, node: Node, state: _State) -> _State:
    return replace(state, binding=str(node.fields.get('value', 'OVERALL')).upper())


def _shape_hints(scene: _Scene, node: Node, state: _State) -> _State:
    ordering = node.fields.get('vertexOrdering')
    if isinstance(ordering, Word):
        return replace(state, clockwise=ordering.upper() == 'CLOCKWISE')
    hints = node.fields.get('hints')  # Inventor 1.0 / VRML 1.0: ORDERED is counter-clockwise
    if isinstance(hints, Word):
        return replace(state, clockwise=False)
    return state


def _texture2(scene: _Scene, node: Node, state: _State) -> _State:
    names = node.fields.get('filename')
    if isinstance(names, list) and names and names[0]:
        texture = _common.texture_path(scene.base, names[0])
        if not os.path.exists(texture):
            scene.warn(scene.path, node.line, f'texture {names[0]!r} not found')
        return replace(state, texture=texture)
    return replace(state, texture=None)


_PROPERTIES = {
    'Transform': _transform, 'Translation': _translation, 'Rotation': _rotation_node,
    'RotationXYZ': _rotation_xyz, 'Scale': _scale, 'MatrixTransform': _matrix,
    'ResetTransform': _reset, 'Units': _units, 'Coordinate3': _coordinate3,
    'VertexProperty': shapes.vertex_property, 'Material': _material, 'BaseColor': _base_color,
    'MaterialBinding': _material_binding, 'ShapeHints': _shape_hints, 'Texture2': _texture2,
}


