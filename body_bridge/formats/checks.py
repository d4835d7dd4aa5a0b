"""The numbers of a loaded model, checked before anything downstream (URDF, MuJoCo) sees them.

Every loader rejects what it can see wrong where it reads it, with the line; this is the net
under them, run by :func:`body_bridge.formats.load_model` on every model: a number that is
not finite, a derived value that overflowed, a mass or size out of range. Each case is either
rejected (``ModelError`` naming the element's ``path:line``) or repaired with a warning in
``Model.warnings``; nothing reaches the integrator silently. The policy, per case:

============================================  =========================================
case                                          outcome
============================================  =========================================
NaN or infinite number anywhere               rejected
magnitude above ``MAX_MAGNITUDE``             rejected (sizes, positions, masses, ...)
negative mass                                 rejected
inertia not symmetric                         repaired: symmetric part, warning
inertia with a negative principal moment      rejected (beyond rounding: ``INERTIA_TOL``)
  ... within rounding                         repaired: clamped to 0, warning
inertia breaking A + B >= C                   kept (URDF as written), warning; the
                                              integrator balances it
zero-length joint axis                        rejected
joint limits reversed (lower > upper)         rejected
negative velocity or effort limit             rejected
mimic formulas that depend on each other in   rejected (the joints of the cycle named)
  a cycle
negative damping, friction or armature        rejected
negative shape size                           rejected
zero shape size                               repaired: 1 um, warning
mesh with an index out of range               rejected
mesh without area (< ``MIN_AREA``)            visual: dropped, warning; collision: as below
collision mesh flat, straight or a point      repaired: the thinnest box around it (at
                                              least 1 um), warning (a convex hull needs
                                              volume)
collision mesh whose triangles cover no area  repaired: the box around its vertices,
  but whose vertices span a volume            warning
rotation matrix not a rotation                rejected
time step not positive or above 1 s           rejected
two loop closures (springs, ...) of one name  rejected
============================================  =========================================
"""

from __future__ import annotations

import dataclasses
import re
import sys

import numpy as np

from ..errors import ModelError
from ..fparser import mimic_order
from ..formula import FormulaError
from ..geometry import principal_box
from ..model import (Box, Capsule, Cone, Cylinder, Inertial, Mesh, Model, Pose, Shape, Sphere,
                     is_rotation)

__all__ = ['check_model', 'MAX_MAGNITUDE', 'INERTIA_TOL', 'MIN_SIZE', 'MIN_AREA', 'FLAT']

#: Largest magnitude of any number of a model (beyond it, squares and products of the
#: kinematics and inertia overflow or lose every digit) [SI units].
MAX_MAGNITUDE = 1e12
#: A negative principal moment smaller than this fraction of the largest is rounding.
INERTIA_TOL = 1e-9
#: A zero shape size becomes this [m].
MIN_SIZE = 1e-6
#: A mesh whose triangles cover less than this shows nothing [m^2].
MIN_AREA = 1e-12
#: A collision mesh thinner than this fraction of its size (or than MIN_SIZE) is flat.
FLAT = 1e-6
#: Arrays up to this size are checked with plain floats (numpy's cost per call is larger).
_FEW = 16
_LARGEST = sys.float_info.max

_LOCATION = re.compile(r'^(?P<path>.*):(?P<line>\d+)$')


def _where(source: str | None, model: Model) -> tuple[str | None, int | None]:
    """(path, line) of an element's ``source`` (``path:line`` or ``path``)."""
    if not source:
        return model.source, None
    match = _LOCATION.match(source)
    if match:
        return match.group('path'), int(match.group('line'))
    return source, None


class _Checker:
    def __init__(self, model: Model):
        self.model = model
        self.warnings: list[str] = []
        self.repaired: dict[int, Shape] = {}  # a shape both visual and collision: one repair
        self.areas: dict[int, tuple] = {}  # id -> (mesh, checked vertices, area)

    # --- reporting ------------------------------------------------------------------------

    def fail(self, source: str | None, message: str) -> ModelError:
        path, line = _where(source, self.model)
        return ModelError(path, line, message)

    def warn(self, source: str | None, message: str) -> None:
        path, line = _where(source, self.model)
        location = path if line is None else f'{path}:{line}'
        self.warnings.append(f'{location or "<model>"}: {message}')

    def numbers(self, source, what: str, values, bound: bool = True) -> np.ndarray:
        """``values`` as a float array, all finite (and within ``MAX_MAGNITUDE``)."""
        try:
            arr = np.asarray(values, dtype=float)
        except (TypeError, ValueError):
            raise self.fail(source, f'{what}: not numbers') from None
        if arr.size <= _FEW:  # most values are poses and vectors: plain floats are cheaper
            limit = MAX_MAGNITUDE if bound else _LARGEST
            if all(-limit <= v <= limit for v in arr.ravel().tolist()):  # NaN is not
                return arr
        if not np.all(np.isfinite(arr)):
            raise self.fail(source, f'{what} is not finite ({_show(arr)})')
        if bound and arr.size and float(np.max(np.abs(arr))) > MAX_MAGNITUDE:
            raise self.fail(source, f'{what} is too large ({_show(arr)}; the limit is '
                            f'{MAX_MAGNITUDE:g} in SI units)')
        return arr

    def pose(self, source, what: str, pose: Pose) -> None:
        self.numbers(source, f'{what} position', pose.pos)
        rot = self.numbers(source, f'{what} rotation', pose.rot)
        if not is_rotation(rot, 1e-6):
            raise self.fail(source, f'{what} rotation is not a rotation matrix')

    # --- the model ------------------------------------------------------------------------

    def run(self) -> Model:
        model = self.model
        if model.timestep is not None:
            dt = float(self.numbers(model.source, 'time step', model.timestep))
            if not 0 < dt <= 1.0:
                raise self.fail(model.source, f'time step {dt:g} s is not in (0, 1] s')
        if model.gravity is not None:
            self.numbers(model.source, 'gravity', model.gravity)
        links = tuple(self.link(link) for link in model.links)
        joints = tuple(self.joint(joint) for joint in model.joints)
        try:
            mimic_order(joints)
        except FormulaError as err:
            raise self.fail(model.source, str(err)) from None
        self.extras()
        if not self.warnings and all(a is b for a, b in zip(links, model.links, strict=True)):
            return model
        return dataclasses.replace(model, links=links, joints=joints,
                                   warnings=tuple(model.warnings) + tuple(self.warnings))

    def link(self, link):
        src = link.source
        self.pose(src, f'link {link.name!r} pose', link.pose)
        inertial = self.inertial(link) if link.inertial is not None else None
        visuals = tuple(s for s in (self.shape(link, s, 'visual') for s in link.visuals)
                        if s is not None)
        collisions = tuple(self.shape(link, s, 'collision') for s in link.collisions)
        if (inertial is link.inertial and len(visuals) == len(link.visuals)
                and all(a is b for a, b in zip(visuals, link.visuals, strict=True))
                and all(a is b for a, b in zip(collisions, link.collisions, strict=True))):
            return link
        return dataclasses.replace(link, inertial=inertial, visuals=visuals,
                                   collisions=collisions)

    def inertial(self, link) -> Inertial:
        src, name, inertial = link.source, link.name, link.inertial
        mass = float(self.numbers(src, f'link {name!r} mass', inertial.mass))
        if mass < 0:
            raise self.fail(src, f'link {name!r}: mass {mass:g} kg is negative')
        self.numbers(src, f'link {name!r} centre of mass', inertial.com)
        tensor = self.numbers(src, f'link {name!r} inertia', inertial.inertia)
        repaired = None
        if np.abs(tensor - tensor.T).max() > 1e-9 * max(1.0, float(np.abs(tensor).max())):
            repaired = 0.5 * (tensor + tensor.T)
            self.warn(src, f'link {name!r}: the inertia matrix is not symmetric; its '
                      'symmetric part is used')
            tensor = repaired
        moments, axes = np.linalg.eigh(tensor)
        scale = float(np.abs(moments).max())  # 0 only when every moment is 0: none below
        if moments[0] < -INERTIA_TOL * scale:
            raise self.fail(src, f'link {name!r}: the inertia is not positive semi-definite '
                            f'(principal moments {_show(moments)} kg m^2); no rigid body has a '
                            'negative moment')
        if moments[0] < 0:
            moments = np.maximum(moments, 0.0)
            repaired = axes @ np.diag(moments) @ axes.T
            self.warn(src, f'link {name!r}: a principal moment of inertia is negative by '
                      'rounding; set to 0 (the integrator bounds it)')
        if repaired is None:
            return inertial
        return Inertial(mass, inertial.com, repaired)

    def shape(self, link, shape: Shape, kind: str) -> Shape | None:
        """The shape, repaired when the policy allows; None: a visual that shows nothing."""
        src = shape.source or link.source
        what = f'link {link.name!r} {kind} {type(shape.geometry).__name__.lower()}'
        self.pose(src, what, shape.pose)
        if shape.material is not None:
            self.numbers(src, f'{what} colour', shape.material.rgba)
        if isinstance(shape.geometry, Mesh):
            return self.mesh(src, what, shape, kind)
        if id(shape) not in self.repaired:
            self.repaired[id(shape)] = self.primitive(src, what, shape)
        return self.repaired[id(shape)]

    def primitive(self, src, what: str, shape: Shape) -> Shape:
        g = shape.geometry
        names = {Box: ('size',), Sphere: ('radius',), Cylinder: ('radius', 'length'),
                 Capsule: ('radius', 'length'), Cone: ('radius', 'length')}[type(g)]
        changes = {}
        for field in names:
            values = self.numbers(src, f'{what} {field}', getattr(g, field))
            flat = values.ravel().tolist()
            if min(flat) < 0:
                raise self.fail(src, f'{what}: {field} {_show(values)} is negative')
            if 0.0 in flat and not (isinstance(g, Capsule) and field == 'length'):
                fixed = np.where(values == 0, MIN_SIZE, values)
                changes[field] = tuple(float(v) for v in fixed) if fixed.ndim else float(fixed)
                self.warn(src, f'{what}: {field} {_show(values)} has a zero; made {MIN_SIZE:g} m')
        if not changes:
            return shape
        return dataclasses.replace(shape, geometry=dataclasses.replace(g, **changes))

    def mesh_area(self, src, what: str, g: Mesh) -> tuple[np.ndarray, float]:
        """The vertices (checked) and the area of a mesh; once per mesh (visual and collision
        shapes often share one)."""
        known = self.areas.get(id(g))
        if known is not None and known[0] is g:
            return known[1], known[2]
        vertices = self.numbers(src, f'{what} vertices', g.vertices)
        if g.texcoords is not None:
            self.numbers(src, f'{what} texture coordinates', g.texcoords)
        if g.faces.size and (g.faces.min() < 0 or g.faces.max() >= len(vertices)):
            raise self.fail(src, f'{what}: a face index is out of range')
        corners = vertices[g.faces] if g.faces.size else np.zeros((0, 3, 3))
        area = 0.5 * float(np.linalg.norm(np.cross(corners[:, 1] - corners[:, 0],
                                                   corners[:, 2] - corners[:, 0]),
                                          axis=1).sum()) if len(corners) else 0.0
        self.areas[id(g)] = (g, vertices, area)
        return vertices, area

    def mesh(self, src, what: str, shape: Shape, kind: str) -> Shape | None:
        g = shape.geometry
        vertices, area = self.mesh_area(src, what, g)
        if kind == 'visual':
            if area >= MIN_AREA:
                return shape
            self.warn(src, f'{what} {g.name!r}: its triangles cover no area; not shown')
            return None
        if g.faces.size:
            in_faces = np.zeros(len(vertices), dtype=bool)
            in_faces[g.faces.ravel()] = True
            used = vertices[in_faces]
        else:
            used = vertices
        if len(used) == 0:
            used = np.zeros((1, 3))
        frame, extent = principal_box(used)
        solid = extent.min() > max(FLAT * extent.max(), MIN_SIZE)
        if area >= MIN_AREA and solid:
            return shape
        size = tuple(float(max(e, MIN_SIZE)) for e in extent)
        if solid:  # the vertices span a volume; the triangles (none, or degenerate) do not
            self.warn(src, f'{what} {g.name!r}: its {len(g.faces)} triangles cover no area, '
                      f'though its vertices span {_show(extent)} m: the box around its '
                      'vertices is its collision shape')
        else:
            self.warn(src, f'{what} {g.name!r} is flat, straight or a point (its extents are '
                      f'{_show(extent)} m): a convex hull needs volume, so the thinnest box '
                      'around it (at least 1 um thick) is its collision shape')
        return Shape(Box(size), shape.pose @ frame, shape.material, shape.source)

    def joint(self, joint):
        src, name = joint.source, joint.name
        if joint.type.dof == 1:
            axis = self.numbers(src, f'joint {name!r} axis', joint.axis)
            if float(np.linalg.norm(axis)) < 1e-9:
                raise self.fail(src, f'joint {name!r}: the axis has zero length')
        lim = joint.limits
        for field in ('lower', 'upper', 'velocity', 'effort'):
            value = getattr(lim, field)
            if value is not None:
                self.numbers(src, f'joint {name!r} {field} limit', value, bound=False)
        if lim.lower is not None and lim.upper is not None and lim.lower > lim.upper:
            raise self.fail(src, f'joint {name!r}: the lower limit {lim.lower:g} is above the '
                            f'upper limit {lim.upper:g}')
        for field in ('velocity', 'effort'):
            value = getattr(lim, field)
            if value is not None and value < 0:
                raise self.fail(src, f'joint {name!r}: the {field} limit {value:g} is negative')
        self.numbers(src, f'joint {name!r} initial position', joint.initial)
        for field in ('damping', 'friction', 'armature'):
            value = float(self.numbers(src, f'joint {name!r} {field}', getattr(joint, field)))
            if value < 0:
                raise self.fail(src, f'joint {name!r}: {field} {value:g} is negative')
        if joint.mimic is not None:
            self.numbers(src, f'joint {name!r} mimic factors',
                         (joint.mimic.multiplier, joint.mimic.offset))
        return joint

    def extras(self) -> None:
        """Devices, frames, closures and the dynamics records: finite numbers."""
        model = self.model
        for device in model.devices:
            self.pose(device.source, f'device {device.name!r}', device.pose)
            for key, value in device.params.items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    self.numbers(device.source, f'device {device.name!r} {key}', value,
                                 bound=False)
        for frame in model.frames:
            self.pose(frame.source, f'frame {frame.name!r}', frame.pose)
        self.unique('loop closure', model.closures)
        self.unique('spring', model.springs)
        self.unique('bushing', model.bushings)
        self.unique('motor', model.motors)
        self.unique('load', model.loads)
        for closure in model.closures:
            what = f'loop closure {closure.name!r}'
            self.pose(closure.source, what, closure.pose1)
            self.pose(closure.source, what, closure.pose2)
            axis = self.numbers(closure.source, f'{what} axis', closure.axis)
            if float(np.linalg.norm(axis)) < 1e-9:
                raise self.fail(closure.source, f'{what}: the axis has zero length')
            self.numbers(closure.source, f'{what} length', closure.length)
        for spring in model.springs:
            what = f'spring {spring.name!r}'
            self.pose(spring.source, what, spring.pose1)
            self.pose(spring.source, what, spring.pose2)
            for field in ('rest', 'stiffness', 'damping', 'preload', 'spring_curve',
                          'damping_curve', 'map_deformations', 'map_data', 'degressivity',
                          'stops'):
                value = getattr(spring, field)
                if value is not None:
                    self.numbers(spring.source, f'{what} {field}', value)
        for bushing in model.bushings:
            what = f'bushing {bushing.name!r}'
            self.pose(bushing.source, what, bushing.pose1)
            self.pose(bushing.source, what, bushing.pose2)
            self.numbers(bushing.source, f'{what} stiffness', bushing.stiffness)
            self.numbers(bushing.source, f'{what} damping', bushing.damping)
        for motor in model.motors:
            self.function(motor.source, f'motor {motor.name!r}', motor.function)
        for load in model.loads:
            what = f'load {load.name!r}'
            self.numbers(load.source, f'{what} vector', load.vector)
            self.numbers(load.source, f'{what} point', load.point)
            if load.function is not None:
                self.function(load.source, what, load.function)
        for velocity in model.initial_velocities:
            what = f'initial velocity of {velocity.link!r}'
            self.numbers(velocity.source, what, velocity.linear)
            self.numbers(velocity.source, what, velocity.angular)
        for contact in model.contacts:
            material = contact.material
            what = f'contact material of {contact.link!r}'
            values = self.numbers(None, what, (material.friction, material.restitution,
                                               contact.radius))
            if np.any(values < 0):
                raise self.fail(None, f'{what}: friction, restitution and radius must not be '
                                'negative')

    def unique(self, kind: str, items) -> None:
        """Names the integrator gives its elements: each once."""
        seen: set[str] = set()
        for item in items:
            if item.name in seen:
                raise self.fail(item.source, f'{kind} {item.name!r} is defined twice')
            seen.add(item.name)

    def function(self, source, what: str, function) -> None:
        self.numbers(source, f'{what} function', function.params)
        if function.points is not None:
            self.numbers(source, f'{what} function points', function.points)
        if function.repeat is not None:
            r = function.repeat
            self.numbers(source, f'{what} function repeat', (r.start, r.width, r.shift))


def _show(values) -> str:
    arr = np.atleast_1d(np.asarray(values, dtype=float)).ravel()
    text = ', '.join(f'{v:.4g}' for v in arr[:9])
    return text + (', ...' if arr.size > 9 else '')


def check_model(model: Model) -> Model:
    """The model, with the repairs the policy above allows (and their warnings).

    Raises:
        ModelError: a number the policy rejects, naming the element's ``path:line``.
    """
    return _Checker(model).run()
