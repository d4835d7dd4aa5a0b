"""Model loaders, one package per format, each exposing ``load(path) -> Model`` and its file
endings; ``checks`` checks every model, ``yamlsource`` is the YAML reader two formats share."""

from __future__ import annotations

import dataclasses
import os

from ..errors import ModelError
from ..fileaccess import file_problem
from ..model import Model
from ..textures import check_textures
from . import choreonoid, chrono, openrave, urdf
from .checks import check_model
from .repeats import fold_repeats

__all__ = ['load_model', 'LOADERS']

#: File name endings and the loader that reads them (longest ending wins).
LOADERS = {ext: choreonoid.load for ext in choreonoid.EXTENSIONS}
LOADERS.update({ext: openrave.load for ext in openrave.EXTENSIONS})
LOADERS[openrave.XML_EXTENSION] = openrave.load_xml  # OpenRAVE when its root element says so
LOADERS.update({ext: openrave.load_collada for ext in ('.zae', '.dae')})  # OpenRAVE COLLADA
LOADERS.update({ext: chrono.load for ext in chrono.EXTENSIONS})  # recognised by content
LOADERS.update({ext: urdf.load for ext in urdf.EXTENSIONS})  # what ROS users already have


def load_model(path: str | os.PathLike, material_table: str | None = None) -> Model:
    """Load a model file of any supported format, chosen by its name.

    Every model's numbers are checked (``formats/checks.py``): what cannot be simulated is
    rejected, what can be repaired is, with a warning; texture images that cannot be drawn
    are dropped with a warning (``textures.py``); a warning repeated with other names
    is said once with its count (``repeats.py``). ``material_table`` names the Choreonoid
    contact material table a Body file's link materials use (default: the one found beside
    the model, ``formats/choreonoid/materials.py``); other formats do not use it.

    Raises:
        ModelError: the file is missing, of an unknown kind, or broken (``path:line: ...``).
    """
    path = os.fspath(path)
    name = os.path.basename(path).lower()
    for ext in sorted(LOADERS, key=len, reverse=True):
        if name.endswith(ext):
            problem = file_problem(path)
            if problem is not None:
                raise ModelError(path, None, problem)
            loader = LOADERS[ext]
            model = loader(path, material_table) if material_table and \
                loader is choreonoid.load else loader(path)
            model = check_textures(check_model(model))
            return dataclasses.replace(model, warnings=fold_repeats(model.warnings))
    known = ', '.join(sorted(LOADERS))
    raise ModelError(path, None, f'unknown model format (known file endings: {known})')
