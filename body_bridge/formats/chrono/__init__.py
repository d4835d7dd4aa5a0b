"""Project Chrono YAML (``.yaml``, ``.yml``): multibody models and MBS specifications.

The modules, each named for what it reads:

* ``specification``: the file's kind and version, MBS specifications, the model mapping;
* ``node``: YAML nodes with Chrono's units and functions;
* ``bodies``: bodies, their shapes and contact materials;
* ``joints``: joints, constraints and motors; ``forces``: springs (TSDA, RSDA) and loads;
* ``tree``: the graph of bodies made into a tree with loop closures.
"""

from .specification import DEFAULT_GRAVITY, EXTENSIONS, load

__all__ = ['load', 'EXTENSIONS', 'DEFAULT_GRAVITY']
