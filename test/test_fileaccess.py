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


def test_a_file_over_the_default_256_mib_is_refused_unread(tmp_path):
    path = tmp_path / 'huge.stl'
    with open(path, 'wb') as f:  # sparse: nothing is written
        f.truncate(256 * 1024 * 1024 + 1)
    with pytest.raises(ModelError) as refused:
        read_regular(path, what='mesh file')
    assert str(refused.value) == (f'{path}: mesh file is 268435457 bytes, more than the limit '
                                  'of 268435456 bytes')


def test_a_path_through_a_file_is_no_such_file(tmp_path):
    from body_bridge.fileaccess import file_problem
    (tmp_path / 'part.stl').write_bytes(b'solid\n')
    inside = tmp_path / 'part.stl' / 'other.stl'
    assert file_problem(inside) == 'no such file (a folder on its path is a file)'
    with pytest.raises(ModelError) as refused:
        read_regular(inside, what='mesh file')
    assert str(refused.value) == (f'{inside}: mesh file no such file (a folder on its path is '
                                  'a file)')


def test_a_path_object_with_a_nul_is_one_line_and_renames_nothing(tmp_path):
    with pytest.raises(ModelError) as refused:
        read_regular(tmp_path / 'a\0b.stl', what='mesh file')
    assert str(refused.value) == f'{tmp_path}/a\\0b.stl: mesh file not found'
    assert refused.value.path == f'{tmp_path}/a\\0b.stl'
    assert list(tmp_path.iterdir()) == []


def test_a_directory_or_a_fifo_opened_is_refused_not_read(tmp_path):
    """read_regular itself refuses what it opened when that is no regular file."""
    with pytest.raises(ModelError) as refused:
        read_regular(tmp_path, what='mesh file')
    assert str(refused.value) == (f'{tmp_path}: mesh file is a directory, not a regular file; '
                                  'not read')
    fifo = tmp_path / 'pipe.stl'
    os.mkfifo(fifo)
    with pytest.raises(ModelError) as refused:
        read_regular(fifo, what='mesh file')
    assert str(refused.value) == (f'{fifo}: mesh file is a FIFO (named pipe), not a regular '
                                  'file; not read')


def test_reading_files_leaves_no_descriptor_open(tmp_path):
    if not os.path.isdir('/proc/self/fd'):
        pytest.skip('needs Linux /proc/self/fd')
    path = tmp_path / 'part.stl'
    path.write_bytes(b'solid\n')
    before = len(os.listdir('/proc/self/fd'))
    for _ in range(50):
        read_regular(path)
        with pytest.raises(ModelError):
            read_regular(path, limit=2)
    assert len(os.listdir('/proc/self/fd')) == before
