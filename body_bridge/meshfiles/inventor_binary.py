"""Open Inventor V2.1 binary files, read into the nodes the ASCII reader traverses.

The binary form carries no field types: each value is read by the type the node's class
gives its field, so every node class met must be known here (an unknown one fails with its
name). Layout (big-endian, 4-byte aligned): a string is a uint32 length and its bytes padded
to 4; a node is its class name (or ``DEF`` name class, ``USE`` name, ``NULL``), a uint32 of
flags (2: a group), a uint32 field count, each field as its name, its value and a uint32 of
field flags, then for a group a uint32 child count and the children. Multiple-value fields
are a uint32 count and the values.
"""

from __future__ import annotations

import struct

import numpy as np

from ..errors import ModelError, UnsupportedError
from . import _common
from ._common import Include, Warnings
from ._scenetext import Node, Word
from .inventor import read_nodes

# Field types: f float, i int32, b bool, s string, e enum/bit mask, n node, v2/v3/v4 vectors,
# r rotation, c colour, m matrix; an M prefix is a multiple-value field; M u is uint32.
_COMMON_SHAPE = {'vertexProperty': 'n', 'startIndex': 'i', 'numVertices': 'Mi'}
_INDEXED = {'vertexProperty': 'n', 'coordIndex': 'Mi', 'materialIndex': 'Mi',
            'normalIndex': 'Mi', 'textureCoordIndex': 'Mi'}
_LIGHT = {'on': 'b', 'intensity': 'f', 'color': 'c'}
_CAMERA = {'viewportMapping': 'e', 'position': 'v3', 'orientation': 'r', 'aspectRatio': 'f',
           'nearDistance': 'f', 'farDistance': 'f', 'focalDistance': 'f'}
_SCHEMA: dict[str, dict[str, str]] = {
    'Separator': {'renderCaching': 'e', 'boundingBoxCaching': 'e', 'renderCulling': 'e',
                  'pickCulling': 'e'},
    'Group': {}, 'TransformSeparator': {}, 'Switch': {'whichChild': 'i'},
    'LOD': {'range': 'Mf', 'center': 'v3'}, 'LevelOfDetail': {'screenArea': 'Mf'},
    'Selection': {'renderCaching': 'e', 'boundingBoxCaching': 'e', 'renderCulling': 'e',
                  'pickCulling': 'e', 'policy': 'e'},
    'Transform': {'translation': 'v3', 'rotation': 'r', 'scaleFactor': 'v3',
                  'scaleOrientation': 'r', 'center': 'v3'},
    'Translation': {'translation': 'v3'}, 'Rotation': {'rotation': 'r'},
    'RotationXYZ': {'axis': 'e', 'angle': 'f'}, 'Scale': {'scaleFactor': 'v3'},
    'MatrixTransform': {'matrix': 'm'}, 'ResetTransform': {'whatToReset': 'e'},
    'Units': {'units': 'e'},
    'Coordinate3': {'point': 'Mv3'}, 'Normal': {'vector': 'Mv3'},
    'NormalBinding': {'value': 'e'}, 'MaterialBinding': {'value': 'e'},
    'TextureCoordinate2': {'point': 'Mv2'}, 'TextureCoordinateBinding': {'value': 'e'},
    'Material': {'ambientColor': 'Mc', 'diffuseColor': 'Mc', 'specularColor': 'Mc',
                 'emissiveColor': 'Mc', 'shininess': 'Mf', 'transparency': 'Mf'},
    'BaseColor': {'rgb': 'Mc'}, 'PackedColor': {'orderedRGBA': 'Mu'},
    'ShapeHints': {'vertexOrdering': 'e', 'shapeType': 'e', 'faceType': 'e',
                   'creaseAngle': 'f'},
    'Texture2': {'filename': 's', 'wrapS': 'e', 'wrapT': 'e', 'model': 'e', 'blendColor': 'c'},
    'Complexity': {'type': 'e', 'value': 'f', 'textureQuality': 'f'},
    'DrawStyle': {'style': 'e', 'pointSize': 'f', 'lineWidth': 'f', 'linePattern': 'i'},
    'LightModel': {'model': 'e'}, 'Info': {'string': 's'}, 'Label': {'label': 's'},
    'VertexProperty': {'vertex': 'Mv3', 'normal': 'Mv3', 'texCoord': 'Mv2',
                       'texCoord3': 'Mv3', 'orderedRGBA': 'Mu', 'materialBinding': 'e',
                       'normalBinding': 'e', 'textureCoordBinding': 'e'},
    'FaceSet': _COMMON_SHAPE, 'TriangleStripSet': _COMMON_SHAPE, 'LineSet': _COMMON_SHAPE,
    'PointSet': {'vertexProperty': 'n', 'startIndex': 'i', 'numPoints': 'i'},
    'IndexedFaceSet': _INDEXED, 'IndexedTriangleStripSet': _INDEXED, 'IndexedLineSet': _INDEXED,
    'QuadMesh': {'vertexProperty': 'n', 'startIndex': 'i', 'verticesPerColumn': 'i',
                 'verticesPerRow': 'i'},
    'Cube': {'width': 'f', 'height': 'f', 'depth': 'f'}, 'Sphere': {'radius': 'f'},
    'Cylinder': {'parts': 'e', 'radius': 'f', 'height': 'f'},
    'Cone': {'parts': 'e', 'bottomRadius': 'f', 'height': 'f'},
    'DirectionalLight': {**_LIGHT, 'direction': 'v3'},
    'PointLight': {**_LIGHT, 'location': 'v3'},
    'SpotLight': {**_LIGHT, 'location': 'v3', 'direction': 'v3', 'dropOffRate': 'f',
                  'cutOffAngle': 'f'},
    'PerspectiveCamera': {**_CAMERA, 'heightAngle': 'f'},
    'OrthographicCamera': {**_CAMERA, 'height': 'f'},
    'File': {'name': 's'},
}
_SIZES = {'f': 1, 'i': 1, 'b': 1, 'u': 1, 'v2': 2, 'v3': 3, 'v4': 4, 'r': 4, 'c': 3, 'm': 16}
_IS_GROUP = 0x2


class _Reader:
    def __init__(self, path: str, data: bytes, start: int):
        self.path = path
        self.data = data
        self.pos = start
        self.defs: dict[str, Node] = {}
        self.count = 0

    def error(self, message: str) -> ModelError:
        return ModelError(self.path, None, f'binary Inventor at byte {self.pos}: {message}')

    def need(self, n: int, what: str) -> None:
        if n < 0 or self.pos + n > len(self.data):
            raise self.error(f'the file ends inside {what} ({n} bytes needed, '
                             f'{len(self.data) - self.pos} left)')

    def u32(self, what: str) -> int:
        self.need(4, what)
        value = struct.unpack_from('>I', self.data, self.pos)[0]
        self.pos += 4
        return value

    def string(self, what: str) -> str:
        n = self.u32(what)
        self.need(n, what)
        raw = self.data[self.pos:self.pos + n]
        self.pos += (n + 3) & ~3
        if self.pos > len(self.data):
            raise self.error(f'the file ends inside {what}')
        return raw.decode('latin-1')

    def array(self, kind: str, count: int, what: str) -> np.ndarray:
        self.need(4 * count, what)
        dtype = {'i': '>i4', 'u': '>u4', 'b': '>i4'}.get(kind, '>f4')
        values = np.frombuffer(self.data, dtype=dtype, count=count, offset=self.pos)
        self.pos += 4 * count
        return values.astype(float)

    # --- nodes ------------------------------------------------------------------------

    def node(self, depth: int) -> Node | None:
        if depth > _common.MAX_DEPTH:
            raise self.error(f'nodes nested deeper than {_common.MAX_DEPTH} levels')
        kind = self.string('a node name')
        if kind == 'NULL':
            return None
        if kind == 'USE':
            name = self.string('a USE name')
            if name not in self.defs:
                raise self.error(f'USE {name}: no node was DEFined with that name')
            return self.defs[name]
        name = None
        if kind == 'DEF':
            name = self.string('a DEF name')
            kind = self.string('a node name')
        self.count += 1
        if self.count > _common.MAX_NODE_VISITS:
            raise self.error(f'more than {_common.MAX_NODE_VISITS} nodes')
        schema = _SCHEMA.get(kind)
        if schema is None:
            raise UnsupportedError(self.path, None, f'binary Inventor node {kind[:40]!r} is '
                                   'not supported (its field types are unknown)')
        node = Node(kind, None, name)  # a binary file has no lines to name
        flags = self.u32(f'the flags of {kind}')
        fields_word = self.u32(f'the field count of {kind}')
        if fields_word >> 8:
            raise UnsupportedError(self.path, None, f'binary Inventor {kind} with field '
                                   'descriptions is not supported')
        for _ in range(fields_word & 0xFF):
            field = self.string(f'a field name of {kind}')
            ftype = schema.get(field)
            if ftype is None:
                raise UnsupportedError(self.path, None, f'binary Inventor {kind}.{field[:40]} '
                                       'is not a known field')
            node.fields[field] = self.value(ftype, f'{kind}.{field}', depth)
            self.u32(f'the flags of {kind}.{field}')
        if flags & _IS_GROUP:
            children = self.u32(f'the child count of {kind}')
            if children > (len(self.data) - self.pos) // 8:
                raise self.error(f'{kind} states {children} children, more than the file holds')
            for _ in range(children):
                child = self.node(depth + 1)
                if child is not None:
                    node.children.append(child)
        if name is not None:
            self.defs[name] = node
        return node

    def value(self, ftype: str, what: str, depth: int):
        if ftype == 'n':
            return self.node(depth + 1)
        if ftype == 's':
            return [self.string(what)]
        if ftype == 'e':
            return Word(self.string(what).strip('()').replace(' ', ''))
        if ftype.startswith('M'):
            kind = ftype[1:]
            count = self.u32(f'the value count of {what}')
            size = _SIZES[kind]
            if count > (len(self.data) - self.pos) // (4 * size):
                raise self.error(f'{what} states {count} values, more than the file holds')
            return self.array(kind, count * size, what)
        return self.array(ftype[0] if ftype in ('i', 'b', 'u') else 'f', _SIZES[ftype], what)


def parse(path: str, data: bytes) -> list[Node]:
    """The top-level nodes of a binary Inventor file."""
    header_end = data.find(b'\n')
    if header_end < 0:
        raise ModelError(path, 1, 'binary Inventor file without a header line')
    header = data[:header_end].decode('latin-1')
    if 'V2.1' not in header:
        raise UnsupportedError(path, 1, f'{header.strip()[:40]!r}: only Inventor V2.1 binary '
                               'files are supported')
    reader = _Reader(path, data, header_end + 1)
    nodes = []
    while len(data) - reader.pos >= 4:
        if not data[reader.pos:].strip(b'\x00'):
            break
        node = reader.node(0)
        if node is not None:
            nodes.append(node)
    return nodes


def load(path: str, data: bytes, node: str | None, warn: Warnings,
         include: Include) -> list[_common.MeshPart]:
    """Read a binary Inventor file (``node``: a DEF name; ``include`` reads the files it
    names)."""
    return read_nodes(path, parse(path, data), node, warn, include, ())
