"""Which reader a scene text file goes to, and the headers refused (meshfiles/__init__.py)."""

import pytest

from body_bridge.errors import ModelError, UnsupportedError
from body_bridge.meshfiles import load_mesh_file

from mesh_files import refusal, write


@pytest.mark.parametrize('name, text, cls, message', [
    ('a.wrl', '#X3D V3.0 utf8\nShape {}\n', UnsupportedError, 'X3D files are not supported'),
    ('a.wrl', '  <?xml version="1.0"?>\n<X3D/>\n', UnsupportedError,
     'X3D files are not supported'),
    ('a.wrl', '#VRML V3.0 utf8\nShape {}\n', UnsupportedError,
     "'#VRML V3.0 utf8': only VRML V2.0 (VRML97) and V1.0 are supported"),
    ('a.iv', '#VRML V2.0 utf8\nShape {}\n', ModelError,
     'not an Open Inventor file (no "#Inventor" header)'),
    ('a.IV', 'Separator {}\n', ModelError, 'not an Open Inventor file (no "#Inventor" header)'),
], ids=['x3d', 'xml', 'vrml3', 'iv_vrml', 'iv_bare'])
def test_refused_headers_say_so_on_line_one(tmp_path, name, text, cls, message):
    path = write(tmp_path, name, text)
    assert refusal(path, cls) == f'{path}:1: {message}'


def test_a_vrml97_file_without_the_usual_spacing_is_read(tmp_path):
    path = tmp_path / 'a.wrl'
    path.write_text('#VRML V2.0 utf8\nShape { geometry IndexedFaceSet { coord Coordinate { '
                    'point [0 0 0, 1 0 0, 0 1 0] } coordIndex [0 1 2 -1] } }\n')
    (part,) = load_mesh_file(path)
    assert part.mesh.faces.tolist() == [[0, 1, 2]]
