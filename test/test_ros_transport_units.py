"""The Fast DDS profile the bridge chooses (ros/process/transport.py), from package files written
here: which Fast DDS the installed rmw_fastrtps_cpp is built on, and when the bundled profile
is left out. The installed one is checked in test_sensors_ros.py."""

from __future__ import annotations

import os

import pytest

from body_bridge.errors import ModelError
from body_bridge.ros.process import transport


def _rmw(prefix, version):
    folder = prefix / 'share' / 'rmw_fastrtps_cpp'
    folder.mkdir(parents=True)
    (folder / 'package.xml').write_text(f'<package><name>rmw_fastrtps_cpp</name>'
                                        f'<version>{version}</version></package>')
    return str(prefix)


@pytest.mark.parametrize('version, major', [('6.2.7', 2), ('8.4.1', 2), ('9.0.0', 3),
                                            (' 10.1.2', 3), ('x.1', None)])
def test_the_fast_dds_of_rmw_fastrtps_by_its_version(tmp_path, monkeypatch, version, major):
    monkeypatch.setattr(transport.sys, 'prefix', str(tmp_path / 'nothing'))
    environ = {'AMENT_PREFIX_PATH': os.pathsep.join([str(tmp_path / 'none'),
                                                     _rmw(tmp_path / 'ros', version), ''])}
    assert transport.fastdds_major(environ) == major


def test_the_first_prefix_with_a_version_counts_and_python_s_prefix_last(tmp_path,
                                                                         monkeypatch):
    monkeypatch.setattr(transport.sys, 'prefix', _rmw(tmp_path / 'wheels', '9.1.0'))
    assert transport.fastdds_major({}) == 3
    environ = {'AMENT_PREFIX_PATH': os.pathsep.join([_rmw(tmp_path / 'a', 'none'),
                                                     _rmw(tmp_path / 'b', '8.0.0')])}
    assert transport.fastdds_major(environ) == 2


def test_no_rmw_fastrtps_no_version(tmp_path, monkeypatch):
    monkeypatch.setattr(transport.sys, 'prefix', str(tmp_path))
    assert transport.fastdds_major({'AMENT_PREFIX_PATH': str(tmp_path)}) is None


def test_no_profile_without_a_share_directory_or_its_file(tmp_path, monkeypatch):
    def missing():
        raise ModelError(None, None, 'cannot find the body_bridge share directory')
    monkeypatch.setattr(transport, 'share_dir', missing)
    environ = {}
    assert transport.use_bundled_fastdds_profile(environ, major=3) is None and environ == {}
    monkeypatch.setattr(transport, 'share_dir', lambda: str(tmp_path))
    assert transport.use_bundled_fastdds_profile(environ, major=3) is None and environ == {}
    (tmp_path / 'config').mkdir()
    (tmp_path / 'config' / 'fastdds.xml').write_text('<profiles/>')
    path = str(tmp_path / 'config' / 'fastdds.xml')
    for rmw in ('rmw_fastrtps_cpp', 'rmw_fastrtps_dynamic_cpp'):
        environ = {'RMW_IMPLEMENTATION': rmw}
        assert transport.use_bundled_fastdds_profile(environ, major=2) == path
        assert environ == {'RMW_IMPLEMENTATION': rmw, 'FASTRTPS_DEFAULT_PROFILES_FILE': path}
