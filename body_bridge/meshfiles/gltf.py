"""glTF 2.0: ``.gltf`` (JSON with external or ``data:`` buffers) and ``.glb`` (binary).

Every accessor and buffer view is checked against the bytes that back it before it is read.
Read: the default scene's node tree (``matrix`` or translation, rotation ``[x, y, z, w]``,
scale), mesh primitives in modes TRIANGLES, TRIANGLE_STRIP and TRIANGLE_FAN (points and
lines skipped), ``indices``, materials (``baseColorFactor``, alpha unless ``OPAQUE``, the
base colour texture's image ``uri`` as texture path, with ``TEXCOORD_0``). Numbers are kept as they are (glTF's
unit is the metre; its +Y up is not turned). Sparse accessors are not supported.
"""

from __future__ import annotations

import base64
import json
import os
import struct

import numpy as np

from ..errors import ModelError, UnsupportedError
from ..model import Material, quat_matrix
from . import _common
from ._common import Budget, Parts, Warnings

_COMPONENTS = {5120: 'i1', 5121: 'u1', 5122: '<i2', 5123: '<u2', 5125: '<u4', 5126: '<f4'}
_NORMALIZE = {5120: 127.0, 5121: 255.0, 5122: 32767.0, 5123: 65535.0}
_WIDTH = {'SCALAR': 1, 'VEC2': 2, 'VEC3': 3, 'VEC4': 4, 'MAT2': 4, 'MAT3': 9, 'MAT4': 16}
_GLB_MAGIC = 0x46546C67
_JSON_CHUNK = 0x4E4F534A
_BIN_CHUNK = 0x004E4942


def load(path: str, data: bytes, node: str | None, warn: Warnings) -> list[_common.MeshPart]:
    """Read a glTF or GLB file (``node``: a node name)."""
    if data[:4] == b'glTF':
        doc, binary = _glb(path, data)
    else:
        doc, binary = _json(path, data), None
    reader = _Reader(path, doc, binary, warn)
    budget = Budget(path)
    parts = Parts(path, node, budget)
    reader.read(parts, budget, node)
    return parts.result()


def _glb(path: str, data: bytes) -> tuple[dict, bytes | None]:
    if len(data) < 20:
        raise ModelError(path, None, f'GLB file of {len(data)} bytes is shorter than its header')
    magic, version, length = struct.unpack_from('<III', data, 0)
    if magic != _GLB_MAGIC or version != 2:
        raise UnsupportedError(path, None, f'GLB version {version} is not supported (only 2)')
    if length != len(data):
        raise ModelError(path, None,
                         f'GLB header states {length} bytes but the file has {len(data)}')
    pos, doc, binary = 12, None, None
    while pos + 8 <= len(data):
        size, kind = struct.unpack_from('<II', data, pos)
        if pos + 8 + size > len(data):
            raise ModelError(path, None, f'GLB chunk at byte {pos} states {size} bytes, more than '
                             'the file holds')
        chunk = data[pos + 8:pos + 8 + size]
        if kind == _JSON_CHUNK and doc is None:
            doc = _json(path, chunk)
        elif kind == _BIN_CHUNK and binary is None:
            binary = chunk
        pos += 8 + ((size + 3) & ~3)
    if doc is None:
        raise ModelError(path, None, 'GLB file without a JSON chunk')
    return doc, binary


def _json(path: str, data: bytes) -> dict:
    try:
        doc = json.loads(data.decode('utf-8-sig'))
    except (UnicodeDecodeError, RecursionError) as err:
        raise ModelError(path, None, f'glTF JSON cannot be read: {type(err).__name__}') from None
    except json.JSONDecodeError as err:
        raise ModelError(path, err.lineno, f'glTF JSON: {err.msg}') from None
    if not isinstance(doc, dict):
        raise ModelError(path, None, 'glTF JSON is not an object')
    version = str(doc.get('asset', {}).get('version', '')) if isinstance(doc.get('asset'), dict) \
        else ''
    if not version.startswith('2'):
        raise UnsupportedError(path, None, f'glTF version {version or "(none)"!r} is not '
                               'supported (only 2.x)')
    return doc


class _Reader:
    def __init__(self, path: str, doc: dict, binary: bytes | None, warn: Warnings):
        self.path = path
        self.doc = doc
        self.binary = binary
        self.warn = warn
        self.base = os.path.dirname(path)
        self._buffers: dict[int, bytes] = {}
        self._materials: dict[int, Material] = {}

    def error(self, message: str) -> ModelError:
        return ModelError(self.path, None, f'glTF: {message}')

    def item(self, kind: str, index) -> dict:
        items = self.doc.get(kind)
        if not isinstance(items, list) or not isinstance(index, int) or \
                isinstance(index, bool) or not 0 <= index < len(items) or \
                not isinstance(items[index], dict):
            raise self.error(f'{kind}[{index!r}] does not exist')
        return items[index]

    # --- scene ------------------------------------------------------------------------

    def read(self, parts: Parts, budget: Budget, name: str | None) -> None:
        scenes = self.doc.get('scenes')
        if isinstance(scenes, list) and scenes:
            scene = self.item('scenes', self.doc.get('scene', 0))
            roots = scene.get('nodes', [])
        else:
            children = {c for n in self.doc.get('nodes', []) if isinstance(n, dict)
                        for c in n.get('children', [])}
            roots = [i for i in range(len(self.doc.get('nodes', []))) if i not in children]
        self.parts, self.budget = parts, budget
        if name is None:
            for root in roots:
                self.node(root, np.eye(4), 0)
            return
        found = self.find(roots, name, np.eye(4), 0)
        if found is None:
            names = [n.get('name') for n in self.doc.get('nodes', []) if isinstance(n, dict)]
            listed = ', '.join(repr(n) for n in names if n)
            raise ModelError(self.path, None, f'no glTF node named {name!r} (nodes: '
                             f'{listed[:300] or "none"})')
        index, matrix = found
        matrix = matrix @ self.local(self.item('nodes', index))
        matrix[:3, 3] = 0.0  # placed without its translation, as Choreonoid places a Resource
        self.node(index, matrix, 0, local=False)

    def find(self, indices, name: str, matrix: np.ndarray, depth: int):
        if depth > _common.MAX_DEPTH:
            raise self.error(f'nodes nested deeper than {_common.MAX_DEPTH}')
        for index in indices:
            self.budget.visit()
            node = self.item('nodes', index)
            if node.get('name') == name:
                return index, matrix
            found = self.find(node.get('children', []), name, matrix @ self.local(node), depth + 1)
            if found is not None:
                return found
        return None

    def node(self, index, matrix: np.ndarray, depth: int, local: bool = True) -> None:
        self.budget.visit()
        if depth > _common.MAX_DEPTH:
            raise self.error(f'nodes nested deeper than {_common.MAX_DEPTH} (or a cycle)')
        node = self.item('nodes', index)
        if local:
            matrix = matrix @ self.local(node)
        if 'mesh' in node:
            self.mesh(self.item('meshes', node['mesh']), matrix)
        children = node.get('children', [])
        if not isinstance(children, list):
            raise self.error(f'nodes[{index}].children must be a list')
        for child in children:
            self.node(child, matrix, depth + 1)

    def local(self, node: dict) -> np.ndarray:
        try:
            if 'matrix' in node:
                m = np.array(node['matrix'], dtype=float).reshape(4, 4).T  # column-major
            else:
                m = np.eye(4)
                x, y, z, w = np.array(node.get('rotation', [0, 0, 0, 1]), dtype=float).reshape(4)
                scale = np.array(node.get('scale', [1, 1, 1]), dtype=float).reshape(3)
                m[:3, :3] = quat_matrix((w, x, y, z)) @ np.diag(scale)
                m[:3, 3] = np.array(node.get('translation', [0, 0, 0]), dtype=float).reshape(3)
        except (ValueError, TypeError):
            raise self.error(f'node {node.get("name", "")!r}: a transform is not numbers of '
                             'the right count') from None
        if not np.isfinite(m).all():
            raise self.error(f'node {node.get("name", "")!r}: a transform is not finite')
        return m

    # --- meshes -----------------------------------------------------------------------

    def mesh(self, mesh: dict, matrix: np.ndarray) -> None:
        for prim in mesh.get('primitives', []):
            if not isinstance(prim, dict):
                raise self.error('a mesh primitive is not an object')
            mode = prim.get('mode', 4)
            if mode in (0, 1, 2, 3):
                continue
            if mode not in (4, 5, 6):
                raise self.error(f'primitive mode {mode!r} is not a glTF mode')
            attributes = prim.get('attributes', {})
            if not isinstance(attributes, dict) or 'POSITION' not in attributes:
                raise self.error('a mesh primitive has no POSITION')
            vertices = self.accessor(attributes['POSITION'], 3)
            if 'indices' in prim:
                index = self.accessor(prim['indices'], 1).reshape(-1)
                if not (index == np.round(index)).all():
                    raise self.error('indices are not whole numbers')
                index = index.astype(np.int64)
            else:
                index = np.arange(len(vertices))
            if mode == 4 and len(index) % 3:
                raise self.error(f'a TRIANGLES primitive has {len(index)} indices, not a '
                                 'multiple of 3')
            faces = _faces(index, mode)
            _common.check_indices(self.path, None, 'glTF indices', faces.reshape(-1),
                                  len(vertices))
            if not len(faces):
                continue
            used, inverse = np.unique(faces.reshape(-1), return_inverse=True)
            v = vertices[used] @ matrix[:3, :3].T + matrix[:3, 3]
            f = inverse.reshape(-1, 3)
            if np.linalg.det(matrix[:3, :3]) < 0:
                f = f[:, ::-1]
            material = self.material(prim['material']) if 'material' in prim else None
            uv = None
            if material is not None and material.texture is not None:
                uv = self.texcoords(attributes, len(vertices))
            self.parts.add(v, f, material, None, None if uv is None else uv[used])

    def texcoords(self, attributes: dict, count: int) -> np.ndarray | None:
        """The TEXCOORD_0 of a primitive in OpenGL's convention (glTF's v runs down the
        image), or None."""
        if 'TEXCOORD_0' not in attributes:
            return None
        uv = self.accessor(attributes['TEXCOORD_0'], 2)
        if len(uv) != count:
            raise self.error(f'TEXCOORD_0 has {len(uv)} values for {count} vertices')
        return np.column_stack([uv[:, 0], 1.0 - uv[:, 1]])

    def accessor(self, index, width: int) -> np.ndarray:
        acc = self.item('accessors', index)
        if 'sparse' in acc:
            raise UnsupportedError(self.path, None, 'glTF sparse accessors are not supported')
        dtype = _COMPONENTS.get(acc.get('componentType'))
        kind_width = _WIDTH.get(acc.get('type'))
        count = acc.get('count')
        if dtype is None or kind_width is None or not isinstance(count, int) or count < 0:
            raise self.error(f'accessors[{index}] has a bad componentType, type or count')
        if kind_width != width:
            raise self.error(f'accessors[{index}] is {acc.get("type")}, {width} components '
                             'expected')
        item = np.dtype(dtype).itemsize * width
        if 'bufferView' not in acc:
            return np.zeros((count, width))
        view = self.item('bufferViews', acc['bufferView'])
        data = self.buffer(view.get('buffer'))
        view_offset = _int(self.path, view, 'byteOffset', 0)
        view_length = _int(self.path, view, 'byteLength', -1)
        stride = _int(self.path, view, 'byteStride', 0) or item
        offset = _int(self.path, acc, 'byteOffset', 0)
        if view_length < 0 or view_offset < 0 or view_offset + view_length > len(data):
            raise self.error(f'bufferViews[{acc["bufferView"]}] lies outside its buffer')
        needed = offset + (stride * (count - 1) + item if count else 0)
        if offset < 0 or stride < item or needed > view_length:
            raise self.error(f'accessors[{index}] needs {needed} bytes but its buffer view has '
                             f'{view_length}')
        _common.check_count(self.path, None, f'accessors[{index}] count', count,
                            _common.MAX_VERTICES * 3)
        raw = np.ndarray((count, width), dtype=dtype, buffer=data,
                         offset=view_offset + offset, strides=(stride, np.dtype(dtype).itemsize))
        values = raw.astype(float)
        scale = _NORMALIZE.get(acc.get('componentType'))
        if acc.get('normalized') and scale:
            values = np.maximum(values / scale, -1.0)
        _common.check_finite(self.path, None, f'accessors[{index}]', values)
        return values

    def buffer(self, index) -> bytes:
        if index in self._buffers:
            return self._buffers[index]
        buf = self.item('buffers', index)
        uri = buf.get('uri')
        if uri is None:
            if self.binary is None:
                raise self.error(f'buffers[{index}] has no uri and there is no GLB binary chunk')
            data = self.binary
        elif not isinstance(uri, str):
            raise self.error(f'buffers[{index}].uri is not a string')
        elif uri.startswith('data:'):
            try:
                data = base64.b64decode(uri.split(',', 1)[1], validate=False)
            except (ValueError, IndexError):
                raise self.error(f'buffers[{index}] data URI cannot be decoded') from None
        else:
            data = _common.read_bytes(_common.texture_path(self.base, uri))
        length = _int(self.path, buf, 'byteLength', len(data))
        if length > len(data):
            raise self.error(f'buffers[{index}] states {length} bytes but holds {len(data)}')
        self._buffers[index] = data
        return data

    def material(self, index) -> Material:
        if index in self._materials:
            return self._materials[index]
        mat = self.item('materials', index)
        pbr = mat.get('pbrMetallicRoughness', {}) if isinstance(mat.get('pbrMetallicRoughness'),
                                                                 dict) else {}
        try:
            color = np.array(pbr.get('baseColorFactor', [1, 1, 1, 1]), dtype=float).reshape(4)
        except (ValueError, TypeError):
            raise self.error(f'materials[{index}].baseColorFactor must be 4 numbers') from None
        alpha = 1.0 if mat.get('alphaMode', 'OPAQUE') == 'OPAQUE' else float(color[3])
        texture = None
        tex = pbr.get('baseColorTexture')
        if isinstance(tex, dict) and 'index' in tex:
            source = self.item('textures', tex['index']).get('source')
            if source is not None:
                image = self.item('images', source)
                uri = image.get('uri')
                if isinstance(uri, str) and not uri.startswith('data:'):
                    texture = _common.texture_path(self.base, uri)
                else:
                    self.warn(self.path, None, f'materials[{index}]: an embedded texture image '
                              'has no file path; not kept')
        name = mat.get('name') if isinstance(mat.get('name'), str) else None
        material = Material(_common.rgba(color[:3], 1.0 - alpha), name, texture)
        self._materials[index] = material
        return material


def _int(path: str, obj: dict, key: str, default: int) -> int:
    value = obj.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ModelError(path, None, f'glTF {key} must be an integer, found {value!r:.40}')
    return value


def _faces(index: np.ndarray, mode: int) -> np.ndarray:
    n = len(index)
    if mode == 4:
        return index[:n - n % 3].reshape(-1, 3)
    if n < 3:
        return np.zeros((0, 3), np.int64)
    k = np.arange(n - 2)
    if mode == 5:  # strip: every other triangle reversed to keep one winding
        faces = np.stack([index[k], index[k + 1], index[k + 2]], axis=1)
        odd = k % 2 == 1
        faces[odd] = faces[odd][:, [1, 0, 2]]
        return faces
    return np.stack([np.full(n - 2, index[0]), index[k + 1], index[k + 2]], axis=1)
