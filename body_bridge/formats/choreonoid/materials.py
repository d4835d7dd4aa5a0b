"""Choreonoid's contact material table: friction and restitution for pairs of link materials.

A link's ``material`` names a material of the table (``Default`` when a link names none). The
table is Choreonoid's own ``default/materials.yaml``, read where the model is (the nearest
folder above the Body file holding ``default/materials.yaml`` or
``share/default/materials.yaml``, as in Choreonoid's source tree and installation), or the
file the caller names (``load_model(path, material_table)``, the node's ``material_table``
parameter). Its
``contact_materials`` entries give each pair (``materials: [A, B]``) a ``friction`` and a
``restitution``; a pair the table does not list gets the integrator's combination of the two
surfaces' values, which are the table's ``[Default, Default]`` values. The ground plane is
material ``Ground``. Without a table the model says so in one warning and every contact uses
the integrator's default values.
"""

from __future__ import annotations

import os

from ...errors import ModelError
from ...model import ContactMaterial, ContactPair, ShapeContact
from ..yamlsource import kind_of, line_of, load_yaml

__all__ = ['DEFAULT_MATERIAL', 'GROUND_MATERIAL', 'find_table', 'read_table',
           'link_contacts']

DEFAULT_MATERIAL = 'Default'
GROUND_MATERIAL = 'Ground'
_PLACES = (('default', 'materials.yaml'), ('share', 'default', 'materials.yaml'))


def find_table(body_path: str) -> str | None:
    """The material table above a Body file, or None when there is none."""
    folder = os.path.dirname(os.path.abspath(body_path))
    while True:
        for place in _PLACES:
            candidate = os.path.join(folder, *place)
            if os.path.isfile(candidate):
                return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def read_table(path: str, warn) -> tuple[ContactPair, ...]:
    """The contact pairs of a material table file.

    Args:
        path: the table (YAML).
        warn: receives one ``path:line: message`` line per entry that is ignored.

    Raises:
        ModelError: the file is missing, unreadable or not YAML.
    """
    document = load_yaml(path)
    entries = document.get('contact_materials') if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise ModelError(path, None, 'a material table needs a contact_materials list')
    pairs = []
    for entry in entries:
        line = line_of(entry)
        names = entry.get('materials') if isinstance(entry, dict) else None
        try:
            if not (isinstance(names, list) and len(names) == 2 and
                    all(isinstance(n, str) for n in names)):
                raise ValueError('materials must name two materials')
            friction = _number(entry, 'friction', 0.5)
            restitution = _number(entry, 'restitution', 0.0)
            if not (0.0 <= friction < 1e6 and 0.0 <= restitution <= 1.0):
                raise ValueError(f'friction {friction:g} or restitution {restitution:g} out of '
                                 'range')
        except (TypeError, ValueError) as err:
            warn(f'{path}:{line}: contact material ignored: {err}')
            continue
        pairs.append(ContactPair(names[0], names[1], friction, restitution))
    return tuple(pairs)


def _number(entry: dict, key: str, default: float) -> float:
    """An entry's number (a YAML scalar, quoted or not, as Choreonoid reads it)."""
    value = entry.get(key, default)
    if not isinstance(value, bool) and isinstance(value, (int, float, str)):
        try:
            return float(value)
        except ValueError:
            pass
    raise ValueError(f'{key} must be a number, not {kind_of(value)}')


def link_contacts(links, materials: dict[str, str], pairs) -> tuple[ShapeContact, ...]:
    """A contact material for every collision shape: the link's material with the values of
    the table's pair of it with ``Default`` (or ``Default`` with itself)."""
    def values(name):
        for first, second in ((name, DEFAULT_MATERIAL), (DEFAULT_MATERIAL, DEFAULT_MATERIAL)):
            for pair in pairs:
                if {pair.first, pair.second} == {first, second}:
                    return pair.friction, pair.restitution
        return 1.0, 0.0

    out = []
    for link in links:
        name = materials.get(link.name, DEFAULT_MATERIAL)
        friction, restitution = values(name)
        material = ContactMaterial(name, friction, restitution)
        out += [ShapeContact(link.name, index, material) for index in range(len(link.collisions))]
    return tuple(out)
