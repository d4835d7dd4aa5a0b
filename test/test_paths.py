"""Where the package finds its own files (paths.py): the source tree as its share directory,
the bundled models by name, a model given by path or by name, and the mesh cache folder."""

import os

import pytest

from body_bridge import paths
from body_bridge.errors import ModelError

from conftest import REPO


def test_run_from_the_source_tree_its_share_directory_is_the_tree():
    assert paths.share_dir() == str(REPO)


def test_outside_an_installation_the_share_directory_is_one_line(monkeypatch, tmp_path):
    monkeypatch.setattr(paths, '_SOURCE_ROOT', str(tmp_path))
    (tmp_path / 'models').mkdir()          # a models folder alone is not the source tree
    monkeypatch.setenv('AMENT_PREFIX_PATH', str(tmp_path))
    with pytest.raises(ModelError, match=r'^<model>: cannot find the body_bridge share '
                                         r'directory \(.*\); is the package installed\?$'):
        paths.share_dir()


def test_bundled_models_by_name():
    models = paths.bundled_models()
    assert models['sample_arm'] == str(REPO / 'models' / 'sample_arm' / 'sample_arm.body')
    for name, path in models.items():
        assert os.path.isfile(path) and os.path.basename(os.path.dirname(path)) == name
        assert os.path.splitext(os.path.basename(path))[0] == name


def test_a_model_is_a_file_or_a_bundled_name(tmp_path):
    mine = tmp_path / 'mine.body'
    mine.write_text('')
    assert paths.resolve_model(str(mine)) == str(mine)
    assert paths.resolve_model('sample_arm') == paths.bundled_models()['sample_arm']
    names = ', '.join(paths.bundled_models())
    with pytest.raises(ModelError) as refused:
        paths.resolve_model('nope')
    assert str(refused.value) == (f'nope: no such file, and no bundled model of that name '
                                  f'(bundled: {names})')
    with pytest.raises(ModelError) as refused:
        paths.resolve_model('')
    assert str(refused.value) == (f'<model>: no model given (parameter "model": a file or one '
                                  f'of {names})')


def test_the_cache_folder_is_made_under_xdg_or_home(monkeypatch, tmp_path):
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'xdg'))
    made = paths.cache_dir('meshes', 'v1')
    assert made == str(tmp_path / 'xdg' / 'body_bridge' / 'meshes' / 'v1')
    assert os.path.isdir(made) and paths.cache_dir('meshes', 'v1') == made
    monkeypatch.delenv('XDG_CACHE_HOME')
    monkeypatch.setenv('HOME', str(tmp_path / 'home'))
    assert paths.cache_dir() == str(tmp_path / 'home' / '.cache' / 'body_bridge')
