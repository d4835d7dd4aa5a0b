"""One OpenRAVE load's file search and include checks (body_bridge.formats.openrave.context):
OpenRAVE's search order, names as written, the include depth bound, cycles and special files,
each refused with one ``path:line: message`` line."""

from __future__ import annotations

import os

import pytest

from body_bridge.errors import ModelError
from body_bridge.formats.openrave.context import Context
from body_bridge.formats.openrave.xmlfile import parse_bytes


def element_in(folder, line_text: str = '<KinBody file="x"/>'):
    return parse_bytes(line_text.encode(), str(folder / 'top.kinbody.xml'))


def test_search_order_beside_then_data_dirs_then_above(tmp_path, monkeypatch):
    data = tmp_path / 'data'
    (tmp_path / 'robots' / 'arm').mkdir(parents=True)
    data.mkdir()
    (tmp_path / 'robots' / 'x.xml').write_text('<Robot/>')
    (data / 'x.xml').write_text('<Robot/>')
    (data / 'only.xml').write_text('<Robot/>')
    monkeypatch.setenv('OPENRAVE_DATA', os.pathsep + str(data))
    ctx = Context(str(tmp_path / 'robots' / 'arm' / 'top.robot.xml'))
    arm = str(tmp_path / 'robots' / 'arm')
    assert ctx.data_dirs[0] == str(data)
    assert ctx.find('x.xml', arm) == str(data / 'x.xml')          # before the folders above
    assert ctx.find('robots/x.xml', arm) == str(tmp_path / 'robots' / 'x.xml')
    assert ctx.find(' only.xml\n', arm) == str(data / 'only.xml')
    assert ctx.find('arm', str(tmp_path / 'robots')) is None      # a folder is passed over
    assert ctx.find('missing.xml', arm) is None


def test_a_relative_folder_is_searched_up_to_the_root(tmp_path, monkeypatch):
    (tmp_path / 'a' / 'b').mkdir(parents=True)
    (tmp_path / 'models').mkdir()
    (tmp_path / 'models' / 'm.xml').write_text('<KinBody/>')
    monkeypatch.chdir(tmp_path / 'a')
    monkeypatch.delenv('OPENRAVE_DATA', raising=False)
    ctx = Context(os.devnull)
    assert ctx.find('models/m.xml', 'b') == str(tmp_path / 'models' / 'm.xml')


def test_home_and_absolute_names_are_kept_as_written(tmp_path, monkeypatch):
    monkeypatch.setenv('HOME', str(tmp_path))
    (tmp_path / 'real').mkdir()
    (tmp_path / 'm.xml').write_text('<KinBody/>')
    (tmp_path / 'real' / 'm.xml').write_text('<KinBody/>')
    os.symlink(tmp_path / 'real', tmp_path / 'link')
    (tmp_path / 'other').mkdir()
    os.symlink(tmp_path / 'real', tmp_path / 'other' / 'in')
    ctx = Context(str(tmp_path / 'top.xml'))
    assert ctx.find(' ~/m.xml ', '/') == str(tmp_path / 'm.xml')
    # `in/..` is the link's target's parent for the file system: the name is not folded
    name = str(tmp_path / 'other' / 'in' / '..' / 'real' / 'm.xml')
    assert ctx.find(name, '/') == name
    assert ctx.find(str(tmp_path / 'nothing.xml'), str(tmp_path)) is None


@pytest.mark.parametrize('name', ['', '  ', 'a\0b.xml'])
def test_an_empty_name_or_one_with_nul_is_not_found(tmp_path, name, monkeypatch):
    # not even when OPENRAVE_DATA lists a file instead of a folder: an empty name joined to
    # it would be that file
    listed = tmp_path / 'listed.xml'
    listed.write_text('<KinBody/>')
    monkeypatch.setenv('OPENRAVE_DATA', str(listed))
    assert Context(str(tmp_path / 'top.xml')).find(name, str(tmp_path)) is None


def test_includes_are_bounded_at_32_levels(tmp_path):
    (tmp_path / 'x').write_text('<KinBody/>')
    ctx = Context(str(tmp_path / 'top.kinbody.xml'))
    ctx.chain = [f'/level{i}' for i in range(32)]
    assert ctx.locate(element_in(tmp_path), 'x') == str(tmp_path / 'x')
    ctx.chain.append('/level32')
    with pytest.raises(ModelError) as info:
        ctx.locate(element_in(tmp_path), 'x')
    assert str(info.value) == f'{tmp_path / "top.kinbody.xml"}:1: files are included deeper ' \
                              'than 32 levels'


def test_cycles_special_files_and_roots_are_one_line(tmp_path):
    top = tmp_path / 'top.kinbody.xml'
    ctx = Context(str(top))
    (tmp_path / 'x').write_text('<Robot/>')
    ctx.chain = [str(tmp_path / 'x')]
    with pytest.raises(ModelError, match=r":1: file 'x' includes itself \(through x\)$"):
        ctx.locate(element_in(tmp_path), 'x')
    ctx.chain = []
    os.mkfifo(tmp_path / 'pipe.xml')
    with pytest.raises(ModelError) as info:
        ctx.locate(element_in(tmp_path), 'pipe.xml')
    assert str(info.value) == (f"{top}:1: file 'pipe.xml' ({tmp_path / 'pipe.xml'}) is a FIFO "
                               '(named pipe), not a regular file')
    with pytest.raises(ModelError) as info:
        ctx.include(element_in(tmp_path), 'x', ('kinbody',))
    assert str(info.value) == (f'{tmp_path / "x"}:1: expected <kinbody> as the root element of '
                               'an included file, found <robot>')
    with pytest.raises(ModelError, match=r":1: file 'nope' not found \(looked beside"):
        ctx.locate(element_in(tmp_path), ' nope ')


def test_warnings_carry_their_place(tmp_path):
    ctx = Context(str(tmp_path / 'top.xml'))
    ctx.warn(None, 'whole file')
    ctx.warn(element_in(tmp_path), 'one element')
    assert ctx.warnings == [f'{tmp_path / "top.xml"}: whole file',
                            f'{tmp_path / "top.kinbody.xml"}:1: one element']
