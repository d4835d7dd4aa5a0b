"""Choreonoid Resource nodes: URIs, mesh files and nodes of YAML scene files."""

import os

import numpy as np
import pytest

from body_bridge.errors import ModelError, UnsupportedError
from body_bridge.formats.choreonoid.nodes import Context, Frame, Node
from body_bridge.formats.choreonoid.resources import (is_yaml, mesh_parts, resolve_uri,
                                                      yaml_resource)

TRIANGLE = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n'


def node(tmp_path, data, line=4):
    return Node(data, Context(str(tmp_path / 'm.body')), line)


def test_plain_and_file_uris_are_relative_to_the_naming_file(tmp_path, monkeypatch):
    n = node(tmp_path, {})
    assert resolve_uri(n, 'parts/a.stl') == str(tmp_path / 'parts' / 'a.stl')
    assert resolve_uri(n, 'file://parts/../a.stl') == str(tmp_path / 'a.stl')
    assert resolve_uri(n, '/abs/a.stl') == '/abs/a.stl'
    assert resolve_uri(n, 'file:///abs/a.stl') == '/abs/a.stl'
    monkeypatch.setenv('HOME', str(tmp_path / 'home'))
    assert resolve_uri(n, '~/a.stl') == str(tmp_path / 'home' / 'a.stl')


@pytest.mark.parametrize('uri, message', [
    ('${SHARE}/a.stl', "URI '${SHARE}/a.stl' uses a Choreonoid path variable, which only "
     'Choreonoid can expand'),
    ('http://example.org/a.stl', "URI scheme of 'http://example.org/a.stl' is not supported "
     '(plain paths, file://, package://)'),
])
def test_other_uris_are_unsupported(tmp_path, uri, message):
    with pytest.raises(UnsupportedError) as caught:
        resolve_uri(node(tmp_path, {}), uri)
    assert (caught.value.path, caught.value.line, caught.value.message) == (
        str(tmp_path / 'm.body'), 4, message)


def test_package_uris_through_ros_package_path_and_the_ament_index(tmp_path, monkeypatch):
    (tmp_path / 'src' / 'robot' / 'meshes').mkdir(parents=True)
    (tmp_path / 'flat' / 'meshes').mkdir(parents=True)
    (tmp_path / 'install' / 'share' / 'robot' / 'urdf').mkdir(parents=True)
    n = node(tmp_path, {})
    monkeypatch.setenv('ROS_PACKAGE_PATH', os.pathsep.join(['', str(tmp_path / 'none'),
                                                            str(tmp_path / 'src')]))
    monkeypatch.setenv('AMENT_PREFIX_PATH', str(tmp_path / 'install'))
    assert resolve_uri(n, 'package://robot/meshes') == str(tmp_path / 'src' / 'robot' / 'meshes')
    monkeypatch.setenv('ROS_PACKAGE_PATH', str(tmp_path / 'flat'))
    assert resolve_uri(n, 'package://robot/meshes') == str(tmp_path / 'flat' / 'meshes')
    assert resolve_uri(n, 'package://robot/urdf') == str(
        tmp_path / 'install' / 'share' / 'robot' / 'urdf')
    with pytest.raises(ModelError) as caught:
        resolve_uri(n, 'package://robot/none.stl')
    assert caught.value.line == 4 and caught.value.message == (
        "'package://robot/none.stl' is not found in ROS_PACKAGE_PATH or the ament package index")
    monkeypatch.setenv('AMENT_PREFIX_PATH', '')
    with pytest.raises(ModelError):
        resolve_uri(n, 'package://robot/urdf')


def test_yaml_endings():
    assert is_yaml('a.yaml') and is_yaml('A.YML') and not is_yaml('a.stl')
    assert not is_yaml('yaml.obj')


def test_mesh_parts_are_placed_by_the_node_and_read_once(tmp_path):
    (tmp_path / 'tri.obj').write_text(TRIANGLE)
    n = node(tmp_path, {'uri': 'tri.obj', 'translation': [1, 2, 3]})
    (part,) = mesh_parts(n, Frame())
    assert part.uri == 'tri.obj' and part.source == f"{tmp_path / 'm.body'}:4"
    np.testing.assert_allclose(part.frame.translation, [1, 2, 3])
    assert part.mesh.vertices.tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    (tmp_path / 'tri.obj').write_text('v 0 0 0\n')  # no longer a mesh: never read again
    n2 = Node({'uri': 'tri.obj'}, n.ctx, 9)
    (cached,) = mesh_parts(n2, Frame())
    assert cached.mesh is part.mesh and cached.source.endswith(':9')


@pytest.mark.parametrize('data, error, message', [
    ({}, ModelError, 'Resource has no uri'),
    ({'uri': 'scene.yaml'}, UnsupportedError,
     "'scene.yaml' is a YAML scene; a geometry Resource must be a mesh file"),
    ({'uri': 'none.obj'}, ModelError, "resource 'none.obj' does not exist ("),
    ({'uri': 'sub'}, ModelError, "resource 'sub' ("),
    ({'uri': 'bad.obj'}, ModelError, 'cannot read resource: '),
])
def test_bad_mesh_resources_name_the_referring_line(tmp_path, data, error, message):
    (tmp_path / 'sub').mkdir()
    (tmp_path / 'bad.obj').write_text('v 0 0 0\n')
    with pytest.raises(error) as caught:
        mesh_parts(node(tmp_path, data), Frame())
    assert caught.value.line == 4 and caught.value.message.startswith(message)
    assert type(caught.value) is error


SCENE = """\
shapes:
  - &BOX { type: Shape, geometry: { type: Box, size: [1, 1, 1] } }
  - &BALL
    type: Shape
    geometry: { type: Sphere, radius: 1 }
"""


def test_a_yaml_resource_by_anchor_or_whole(tmp_path):
    (tmp_path / 'scene.yaml').write_text(SCENE)
    n = node(tmp_path, {'uri': 'scene.yaml', 'node': 'BALL', 'translation': [0, 0, 1]})
    content, ctx, frame, line = yaml_resource(n, Frame())
    assert content['geometry']['type'] == 'Sphere' and line == 3
    assert ctx.path == str(tmp_path / 'scene.yaml') and ctx.warnings is n.ctx.warnings
    np.testing.assert_allclose(frame.translation, [0, 0, 1])
    content, _, _, line = yaml_resource(Node({'uri': 'scene.yaml'}, n.ctx, 5), Frame())
    assert list(content) == ['shapes'] and line == 1
    with pytest.raises(ModelError) as caught:
        yaml_resource(Node({'uri': 'scene.yaml', 'fragment': 'CONE'}, n.ctx, 6), Frame())
    assert (caught.value.line, caught.value.message) == (
        6, "node 'CONE' is not an anchor of 'scene.yaml' (anchors: BALL, BOX)")


def test_an_empty_or_anchorless_yaml_resource(tmp_path):
    (tmp_path / 'empty.yaml').write_text('# nothing\n')
    with pytest.raises(ModelError) as caught:
        yaml_resource(node(tmp_path, {'uri': 'empty.yaml'}), Frame())
    assert caught.value.path == str(tmp_path / 'empty.yaml')
    assert caught.value.message == 'the YAML resource is empty'
    with pytest.raises(ModelError) as caught:
        yaml_resource(node(tmp_path, {'uri': 'empty.yaml', 'node': 'X'}), Frame())
    assert caught.value.message == "node 'X' is not an anchor of 'empty.yaml' (anchors: none)"
    with pytest.raises(ModelError) as caught:
        yaml_resource(node(tmp_path, {'uri': 'none.yaml'}), Frame())
    assert caught.value.line == 4 and caught.value.message.startswith(
        "resource 'none.yaml' does not exist")


def test_a_mesh_file_read_as_no_parts_is_an_error_at_the_referring_line(tmp_path, monkeypatch):
    """Every reader here refuses a file without triangles itself; should one give no parts,
    the Resource still gets one error at its line, never an invisible, massless link shape."""
    import body_bridge.formats.choreonoid.resources as resources
    (tmp_path / 'tri.obj').write_text(TRIANGLE)
    monkeypatch.setattr(resources, 'load_mesh_file', lambda path, fragment, warn: [])
    for data, tail in (({'uri': 'tri.obj'}, 'has no mesh'),
                       ({'uri': 'tri.obj', 'node': 'WHEEL'}, "has no mesh named 'WHEEL'")):
        with pytest.raises(ModelError) as caught:
            mesh_parts(node(tmp_path, data, line=7), Frame())
        assert caught.value.line == 7 and caught.value.path == str(tmp_path / 'm.body')
        assert caught.value.message == f"resource {tmp_path / 'tri.obj'} {tail}"
