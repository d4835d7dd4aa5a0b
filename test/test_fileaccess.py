"""Reading a file a model names (fileaccess.py): the default limit reads a mesh of megabytes
whole; a file over the caller's limit, whether its size says so or only its content (as in
/proc), is refused in one line."""

import os

import pytest

from body_bridge.errors import ModelError
from body_bridge.fileaccess import DEFAULT_LIMIT, read_regular


def test_a_file_of_megabytes_is_read_whole_within_the_default_limit(tmp_path):
    path = tmp_path / 'big.stl'
    data = os.urandom(3 * 1024 * 1024)
    path.write_bytes(data)
    assert DEFAULT_LIMIT > len(data) and read_regular(path) == data


def test_a_file_over_the_limit_is_one_line(tmp_path):
    path = tmp_path / 'mesh.obj'
    path.write_bytes(b'v 0 0 0\n' * 100)
    assert read_regular(path, limit=800) == b'v 0 0 0\n' * 100
    with pytest.raises(ModelError) as refused:
        read_regular(path, limit=799, what='mesh file')
    assert str(refused.value) == f'{path}: mesh file is 800 bytes, more than the limit of 799 bytes'


def test_a_file_whose_size_says_nothing_is_cut_at_the_limit():
    status = '/proc/self/status'
    if not os.path.exists(status) or os.stat(status).st_size:
        pytest.skip('needs a Linux /proc file that states a size of 0')
    with pytest.raises(ModelError, match='^/proc/self/status: file is larger than the limit of '
                                         '10 bytes$'):
        read_regular(status, limit=10)


def test_a_name_with_a_nul_or_missing_is_one_line(tmp_path):
    with pytest.raises(ModelError) as refused:
        read_regular(f'{tmp_path}/a\0b.stl', what='mesh file')
    assert str(refused.value) == f'{tmp_path}/a\\0b.stl: mesh file not found'
    with pytest.raises(ModelError) as refused:
        read_regular(tmp_path / 'none.stl', missing='no such mesh')
    assert str(refused.value) == f'{tmp_path / "none.stl"}: no such mesh'


def test_a_file_that_cannot_be_opened_or_read_is_one_line(tmp_path):
    loop = tmp_path / 'loop.stl'
    os.symlink(loop, loop)
    with pytest.raises(ModelError) as refused:
        read_regular(loop, what='mesh file')
    assert str(refused.value) == (f'{loop}: mesh file cannot be read (Too many levels of '
                                  'symbolic links)')
    if not os.path.exists('/proc/self/mem'):
        pytest.skip('needs Linux /proc/self/mem (a regular file whose first byte cannot be read)')
    with pytest.raises(ModelError, match=r'^/proc/self/mem: cannot read the file: '
                                         r'Input/output error$'):
        read_regular('/proc/self/mem')
