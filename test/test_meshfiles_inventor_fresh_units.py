"""The ASCII Open Inventor reader's state on small files written here: Inventor's default grey
under a texture, vertex colours averaged into one, ResetTransform's identity, Material colours
that are not triples, and a version 1 ShapeHints' ``hints`` restoring counter-clockwise order."""

from __future__ import annotations

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.meshfiles import load_mesh_file

import mesh_files
from mesh_files import bounds, load

HEADER = '#Inventor V2.1 ascii\n'
TWO_TRIANGLES = ('Coordinate3 { point [ 0 0 0, 1 0 0, 0 1 0, 5 0 0, 6 0 0, 5 1 0 ] }\n'
                 'FaceSet { numVertices [ 3, 3 ] }\n')


def write(tmp_path, text: str, name: str = 'm.iv'):
    return mesh_files.write(tmp_path, name, HEADER + text)


def normals(parts) -> np.ndarray:
    """The unit normal of every triangle (right-handed from its corners' order)."""
    out = []
    for part in parts:
        v, f = part.mesh.vertices, part.mesh.faces
        n = np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]])
        out.append(n / np.linalg.norm(n, axis=1, keepdims=True))
    return np.concatenate(out)


def test_a_texture_without_a_colour_keeps_inventors_default_grey(tmp_path):
    (tmp_path / 't.png').write_bytes(b'\x89PNG\r\n\x1a\n')
    parts, messages = load(write(tmp_path, 'Texture2 { filename "t.png" } Cube { }\n'))
    assert messages == []
    # Inventor's default diffuse colour is 0.8 grey; the texture is named beside it.
    assert [(p.material.rgba, p.material.texture) for p in parts] == [
        ((0.8, 0.8, 0.8, 1.0), str(tmp_path / 't.png'))]


def test_vertex_colours_are_averaged_into_one_colour_with_a_warning(tmp_path):
    path = write(tmp_path, 'Material { diffuseColor [ 1 0 0, 0 0 1 ] }\n'
                 'MaterialBinding { value PER_VERTEX }\n' + TWO_TRIANGLES)
    parts, messages = load(path)
    assert messages == [f'{path}:5: MaterialBinding PER_VERTEX: vertex colours averaged '
                        'into one colour']
    # Said at the face set (line 5); one part for both triangles, in the mean of the colours.
    assert len(parts) == 1 and len(parts[0].mesh.faces) == 2
    assert parts[0].material.rgba == (0.5, 0.0, 0.5, 1.0)
    np.testing.assert_allclose(bounds(parts), ((0, 0, 0), (6, 1, 0)))


def test_reset_transform_returns_to_the_files_frame(tmp_path):
    # Everything before ResetTransform is forgotten; the translation after it still applies.
    text = ('Translation { translation 10 0 0 } Scale { scaleFactor 3 3 3 } '
            'ResetTransform { } Translation { translation 0 5 0 } Cube { }\n')
    parts, messages = load(write(tmp_path, text))
    assert messages == []
    np.testing.assert_allclose(bounds(parts), ((-1, 4, -1), (1, 6, 1)), atol=1e-12)


def test_material_colours_that_are_not_triples_get_one_line(tmp_path):
    path = write(tmp_path, 'Separator {\n Material { diffuseColor [ 1 0 0, 0 1 ] } Cube { } }\n')
    with pytest.raises(ModelError, match=r'm\.iv:3: Material colours must be triples of '
                                         r'numbers$'):
        load_mesh_file(path)
    path = write(tmp_path, 'Separator {\n Material { ambientColor [ 1 0 ] } Cube { } }\n')
    with pytest.raises(ModelError, match=r'm\.iv:3: Material colours must be triples of '
                                         r'numbers$'):
        load_mesh_file(path)


def test_version_one_shape_hints_make_the_order_counter_clockwise_again(tmp_path):
    triangle = 'Coordinate3 { point [ 0 0 0, 1 0 0, 0 1 0 ] } FaceSet { numVertices 3 }\n'
    # Clockwise as seen from +z: the outside faces -z.
    parts, _ = load(write(tmp_path, 'ShapeHints { vertexOrdering CLOCKWISE }\n' + triangle))
    np.testing.assert_allclose(normals(parts), [(0, 0, -1)], atol=1e-12)
    # Inventor 1.0's hints field (ORDERED is counter-clockwise) replaces that ordering.
    parts, _ = load(write(tmp_path, 'ShapeHints { vertexOrdering CLOCKWISE }\n'
                          'ShapeHints { hints SOLID }\n' + triangle))
    np.testing.assert_allclose(normals(parts), [(0, 0, 1)], atol=1e-12)
