"""A COLLADA 1.5 document as OpenRAVE writes it: the file (``.dae``, or zipped ``.zae``), its
elements by id, SID references, transforms, units.

* A ``.zae`` is a zip archive holding the document and a ``manifest.xml`` whose ``<dae_root>``
  names it (COLLADA 1.5, section 8 "ZAE"); without a manifest, the archive's one ``.dae`` is
  read. Reading is bounded: at most ``MAX_ENTRIES`` members, the document at most
  ``xmlfile.MAX_BYTES`` bytes however large the archive says it is, and at most
  ``MAX_RATIO`` times its compressed size (a zip bomb is refused with one line).
* The XML is parsed by :mod:`.xmlfile` (defusedxml, no entities, line numbers kept).
* A SID reference ``a/b/c`` starts at the element with id ``a`` (or ``.``, the element the
  reference is in) and steps to descendants with scoped ids (``sid``) ``b``, then ``c``; a step
  goes through an ``instance_*`` element into the element its ``url`` names, as COLLADA's
  instantiation does.
* Transforms: ``translate`` [m after the unit], ``rotate`` (axis, angle [deg]), ``matrix``
  (row-major 4x4) and ``scale``, composed in document order. Lengths are multiplied by the
  document's ``<unit meter>``.
"""

from __future__ import annotations

import math
import os
import zipfile

import numpy as np

from ...errors import ModelError
from ...fileaccess import read_regular
from ...model import axis_angle_matrix
from .xmlfile import MAX_BYTES, Element, parse_bytes

__all__ = ['Document', 'read_document', 'MAX_ENTRIES', 'MAX_RATIO', 'TRANSFORM_TAGS']

#: Most members a ``.zae`` archive may list.
MAX_ENTRIES = 10_000
#: Largest expansion of the document over its compressed size (real files: about 7).
MAX_RATIO = 200
#: Elements that place a node, a link or an attachment.
TRANSFORM_TAGS = frozenset({'translate', 'rotate', 'matrix', 'scale'})


def _zae_member(path: str, archive: zipfile.ZipFile) -> zipfile.ZipInfo:
    """The member holding the document: the manifest's ``dae_root``, or the one ``.dae``."""
    infos = archive.infolist()
    if len(infos) > MAX_ENTRIES:
        raise ModelError(path, None, f'the archive lists {len(infos)} members (at most '
                                     f'{MAX_ENTRIES} are read)')
    by_name = {info.filename.lstrip('./'): info for info in infos}
    manifest = by_name.get('manifest.xml')
    if manifest is not None and manifest.file_size < 65536:
        root = parse_bytes(archive.read(manifest), os.path.join(path, 'manifest.xml'))
        named = [c.text.strip() for c in root.children if c.tag == 'dae_root']
        if root.tag == 'dae_root':
            named = [root.text.strip()]
        for name in named:
            member = by_name.get(name.split('#')[0].lstrip('./'))
            if member is not None:
                return member
    found = [info for info in infos if info.filename.lower().endswith('.dae')
             and '/' not in info.filename.strip('/')]
    if len(found) != 1:
        raise ModelError(path, None, 'not a COLLADA archive: no manifest.xml naming the '
                                     'document and not exactly one .dae at its top')
    return found[0]


def _read_zae(path: str) -> tuple[bytes, str]:
    data = read_regular(path, MAX_BYTES, 'file', 'cannot read the file: no such file')
    import io
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError) as err:
        raise ModelError(path, None, f'not a zip archive (.zae): {err}') from None
    with archive:
        member = _zae_member(path, archive)
        limit = min(MAX_BYTES, max(member.compress_size, 1) * MAX_RATIO)
        if member.file_size > limit:
            raise ModelError(path, None, f'refused: {member.filename} would expand to '
                                         f'{member.file_size} bytes (at most {limit})')
        try:
            with archive.open(member) as stream:
                text = stream.read(limit + 1)
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError,
                EOFError) as err:  # encrypted, unknown compression, corrupt
            raise ModelError(path, None, f'cannot read {member.filename} from the archive: '
                                         f'{err}') from None
        if len(text) > limit:
            raise ModelError(path, None, f'refused: {member.filename} expands beyond '
                                         f'{limit} bytes')
    return text, os.path.join(path, member.filename)


def read_document(path: str) -> Document:
    """Read and parse a ``.dae`` or ``.zae`` file.

    Raises:
        ModelError: unreadable, not a zip archive, a zip bomb, not XML, not COLLADA.
    """
    if path.lower().endswith('.zae'):
        data, name = _read_zae(path)
    else:
        data = read_regular(path, MAX_BYTES, 'file', 'cannot read the file: no such file')
        name = path
    root = parse_bytes(data, name)
    if root.tag != 'collada':
        raise root.error(f'not a COLLADA document: the root element is <{root.tag}>')
    return Document(root, path)


class Document:
    """Elements by id, SID lookups and transforms of one COLLADA document."""

    def __init__(self, root: Element, path: str):
        self.root = root
        self.path = path
        self.ids: dict[str, Element] = {}
        self.parent: dict[int, Element] = {}
        self.sids: dict[str, list[Element]] = {}   # in document order
        self._all: list[Element] = []
        self._instanced: dict[int, list[Element]] | None = None
        self.level: dict[int, int] = {id(root): 0}   # depth of each element in the tree
        stack = [root]
        while stack:
            element = stack.pop()
            self._all.append(element)
            key = element.attrs.get('id')
            if key is not None:
                self.ids.setdefault(key, element)
            sid = element.attrs.get('sid')
            if sid is not None:
                self.sids.setdefault(sid, []).append(element)
            for child in element.children:
                self.parent[id(child)] = element
                self.level[id(child)] = self.level[id(element)] + 1
            stack.extend(reversed(element.children))
        self.meter = self._unit()
        tools = [t.text.strip() for c in self.children(self.child(root, 'asset'), 'contributor')
                 for t in self.children(c, 'authoring_tool')]
        #: Old OpenRAVE and URDF writers (no version) wrote speeds and joint values in
        #: radians; OpenRAVE's reader reads those files so.
        self.radians = any(t in ('OpenRAVE Collada Writer', 'URDF Collada Writer')
                           for t in tools)

    def _unit(self) -> float:
        asset = self.child(self.root, 'asset')
        unit = self.child(asset, 'unit') if asset is not None else None
        if unit is None or unit.attrs.get('meter') is None:
            return 1.0
        try:
            value = float(unit.attrs['meter'])
        except ValueError:
            raise unit.error(f'<unit meter={unit.attrs["meter"]!r}> is not a number') \
                from None
        if not (math.isfinite(value) and value > 0):
            raise unit.error('<unit meter> must be a positive number')
        return value

    def up_axis(self) -> str:
        asset = self.child(self.root, 'asset')
        up = self.child(asset, 'up_axis') if asset is not None else None
        return up.text.strip().upper() if up is not None else 'Y_UP'

    # --- navigation ---------------------------------------------------------------------

    @staticmethod
    def child(element: Element | None, tag: str) -> Element | None:
        if element is None:
            return None
        for child in element.children:
            if child.tag == tag:
                return child
        return None

    @staticmethod
    def children(element: Element | None, tag: str) -> list[Element]:
        return [] if element is None else [c for c in element.children if c.tag == tag]

    def up(self, element: Element) -> Element | None:
        return self.parent.get(id(element))

    def url(self, element: Element, attr: str = 'url') -> Element | None:
        """The element a ``#id`` URL attribute names (None if absent or external)."""
        value = (element.attrs.get(attr) or '').strip()
        if not value.startswith('#'):
            return None
        return self.ids.get(value[1:])

    def _instances_of(self, target: Element) -> list[Element]:
        """The ``instance_*`` elements whose ``url`` names ``target``."""
        if self._instanced is None:
            self._instanced = {}
            for element in self._all:
                if element.tag.startswith('instance_'):
                    found = self.url(element)
                    if found is not None:
                        self._instanced.setdefault(id(found), []).append(element)
        return self._instanced.get(id(target), [])

    def _depth_below(self, element: Element, start: Element) -> int | None:
        """How many levels ``element`` is below ``start``, going up through parents and, at an
        instantiated element, through the ``instance_*`` elements naming it; or None, also
        beyond 399 levels (a bound on hostile chains of instances)."""
        frontier, seen, depth = [element], set(), 0
        while frontier and depth < 400:
            step = []
            for current in frontier:
                if current is start:
                    return depth
                if id(current) in seen:
                    continue
                seen.add(id(current))
                parent = self.parent.get(id(current))
                if parent is not None:
                    step.append(parent)
                step.extend(self._instances_of(current))
            frontier, depth = step, depth + 1
        return None

    def _find_sid(self, start: Element, sid: str) -> Element | None:
        """The nearest element with ``sid`` below ``start``, counting what ``instance_*``
        elements below it instantiate (COLLADA's scoped ids)."""
        candidates = [c for c in self.sids.get(sid, ()) if c is not start]
        for below in (self._plainly_below, self._depth_below):   # the cheap test first
            best = None
            for candidate in candidates:
                depth = below(candidate, start)
                if depth is not None and (best is None or depth < best[0]):
                    best = (depth, candidate)
            if best is not None:
                return best[1]
        return None

    def _plainly_below(self, element: Element, start: Element) -> int | None:
        """How many levels ``element`` is below ``start`` through parents only, or None."""
        depth = self.level[id(element)] - self.level[id(start)]
        current = element
        for _ in range(depth):
            current = self.parent[id(current)]
        return depth if current is start and depth > 0 else None

    def sidref(self, ref: str, context: Element | None = None) -> Element | None:
        """The element a SID reference names (see the module docstring), or None."""
        parts = [p for p in ref.strip().split('/') if p]
        if not parts:
            return None
        first = parts[0]
        if first == '.' and context is not None:
            element = context
        elif first in self.ids:
            element = self.ids[first]
        elif context is not None:
            element = None
            scope = context
            while scope is not None and element is None:   # nearest enclosing scope
                element = self._find_sid(scope, first)
                scope = self.up(scope)
            if element is None:
                return None
        else:
            return None
        for sid in parts[1:]:
            element = self._find_sid(element, sid)
            if element is None:
                return None
        if element.tag == 'instance_node':   # an instantiated node stands for the node
            return self.url(element) or element
        return element

    # --- values -------------------------------------------------------------------------

    def transform(self, element: Element, skip=frozenset()) -> np.ndarray:
        """The 4x4 transform of an element's transform children, in order [m].

        ``skip``: children (by identity) left out, e.g. the rotations joints drive.
        """
        m = np.eye(4)
        for child in element.children:
            if child.tag not in TRANSFORM_TAGS or id(child) in skip:
                continue
            m = m @ self.matrix_of(child)
        return m

    def matrix_of(self, element: Element) -> np.ndarray:
        tag = element.tag
        m = np.eye(4)
        if tag == 'translate':
            m[:3, 3] = element.numbers(3) * self.meter
        elif tag == 'rotate':
            x, y, z, deg = element.numbers(4)
            norm = math.sqrt(x * x + y * y + z * z)
            if norm > 0 and deg != 0:
                m[:3, :3] = axis_angle_matrix((x / norm, y / norm, z / norm), math.radians(deg))
            elif norm == 0 and deg != 0:
                raise element.error('<rotate> has a zero axis')
        elif tag == 'matrix':
            m = element.numbers(16).reshape(4, 4).copy()
            m[:3, 3] *= self.meter
            if not np.allclose(m[3], (0, 0, 0, 1)):
                raise element.error('<matrix> is not an affine transform')
        elif tag == 'scale':
            s = element.numbers(3)
            if np.any(s == 0):
                raise element.error('<scale> has a zero factor')
            m[:3, :3] = np.diag(s)
        return m

    def number(self, element: Element | None, params: dict | None = None) -> float | None:
        """A ``<float>``/``<int>``/``<bool>`` child's value, a ``<param>`` looked up in
        ``params`` (sid -> element), or the element's own text."""
        if element is None:
            return None
        for child in element.children:
            if child.tag in ('float', 'int', 'bool'):
                return _scalar(child)
            if child.tag == 'param' and params is not None:
                return self.number(params.get(child.text.strip()))
        if not element.children and element.text.strip():
            return _scalar(element)
        return None


def _scalar(element: Element) -> float:
    text = element.text.strip().lower()
    if text in ('true', 'false'):
        return 1.0 if text == 'true' else 0.0
    return float(element.numbers(1)[0])
