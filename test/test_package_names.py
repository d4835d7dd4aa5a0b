"""The names body_bridge/__init__.py offers: each is the object of the module it comes from,
reached on first use; an unknown name is an AttributeError naming it; importing the package
alone imports neither numpy nor a loader."""

import subprocess
import sys

import pytest

import body_bridge


@pytest.mark.parametrize('name', ['BodyBridgeError', 'CommandError', 'ModelError',
                                  'UnsupportedError'])
def test_the_errors_are_those_of_errors_py(name):
    from body_bridge import errors
    assert getattr(body_bridge, name) is getattr(errors, name)
    assert issubclass(getattr(body_bridge, name), Exception)


def test_load_model_and_model_are_the_loader_s_and_the_model_s():
    from body_bridge.formats import load_model
    from body_bridge.model import Model
    assert body_bridge.load_model is load_model
    assert body_bridge.Model is Model


def test_every_listed_name_is_reached():
    assert sorted(body_bridge.__all__) == ['BodyBridgeError', 'CommandError', 'Model',
                                           'ModelError', 'UnsupportedError', 'load_model']
    for name in body_bridge.__all__:
        assert getattr(body_bridge, name) is not None


@pytest.mark.parametrize('name', ['Mesh', 'load', 'errors_', 'model_'])
def test_an_unknown_name_is_an_attribute_error_that_names_it(name):
    with pytest.raises(AttributeError, match=f"module 'body_bridge' has no attribute '{name}'"):
        getattr(body_bridge, name)
    assert not hasattr(body_bridge, name)


def test_the_package_alone_imports_neither_numpy_nor_a_loader():
    code = ('import sys, body_bridge; '
            'print(sorted(m for m in sys.modules if m == "numpy" or m.startswith("body_bridge")))')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True, cwd=str(__import__('pathlib').Path(body_bridge.__file__)
                                             .parents[1])).stdout
    assert out.strip() == "['body_bridge']"
