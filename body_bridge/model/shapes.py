"""Shapes and materials: primitive geometries, triangle meshes, colours, contact materials.

Sizes [m] (box sizes are full edge lengths; cylinders, capsules and cones along +z, centred;
a cone's apex at +z), colours RGBA in [0, 1], friction coefficients without unit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ._values import EMPTY
from .transforms import Pose

__all__ = [
    'Box', 'Sphere', 'Cylinder', 'Capsule', 'Cone', 'Mesh', 'Geometry', 'Material', 'Shape',
    'ContactMaterial', 'ContactPair', 'ShapeContact'
]


@dataclass(frozen=True, slots=True)
class Box:
    """A box centred at the origin; ``size`` holds the full edge lengths [m]."""

    size: tuple[float, float, float]


@dataclass(frozen=True, slots=True)
class Sphere:
    radius: float


@dataclass(frozen=True, slots=True)
class Cylinder:
    """A cylinder along +z, centred at the origin."""

    radius: float
    length: float


@dataclass(frozen=True, slots=True)
class Capsule:
    """A capsule along +z: a cylinder of ``length`` with a hemisphere at each end."""

    radius: float
    length: float


@dataclass(frozen=True, slots=True)
class Cone:
    """A cone along +z, centred at half height, base at -length/2, apex at +length/2."""

    radius: float
    length: float


@dataclass(frozen=True, slots=True, eq=False)
class Mesh:
    """A triangle mesh.

    Attributes:
        vertices: (N, 3) float [m], already scaled.
        faces: (M, 3) int, counter-clockwise seen from outside.
        name: a stable name (used for the files written beside a URDF).
        source: the file the mesh came from, if any (kept for reference and textures).
        texcoords: (N, 2) float texture coordinates (u, v) of each vertex, or None. OpenGL's
            convention: (0, 0) is the lower left corner of the image, (1, 1) the upper right;
            values outside 0..1 repeat the image.
    """

    vertices: np.ndarray
    faces: np.ndarray
    name: str = 'mesh'
    source: str | None = None
    texcoords: np.ndarray | None = None

    def __post_init__(self):
        v = np.array(self.vertices, dtype=float).reshape(-1, 3)
        f = np.array(self.faces, dtype=np.int64).reshape(-1, 3)
        v.setflags(write=False)
        f.setflags(write=False)
        object.__setattr__(self, 'vertices', v)
        object.__setattr__(self, 'faces', f)
        if self.texcoords is not None:
            t = np.array(self.texcoords, dtype=float).reshape(-1, 2)
            if len(t) != len(v):
                raise ValueError(f'mesh {self.name!r}: {len(t)} texture coordinates for '
                                 f'{len(v)} vertices')
            t.setflags(write=False)
            object.__setattr__(self, 'texcoords', t)


Geometry = Box | Sphere | Cylinder | Capsule | Cone | Mesh


@dataclass(frozen=True, slots=True)
class Material:
    """Surface appearance.

    Attributes:
        rgba: diffuse colour and opacity (1 - transparency), 0..1.
        name: the file's name for the material, if any.
        texture: an image file (PNG, JPEG, ...) drawn on the surface by its texture
            coordinates, or None. Its colour replaces the diffuse colour (VRML's rule for RGB
            textures); the alpha above still applies.
        emission: emissive colour (light the surface gives off), 0..1 per channel, or None.
        specular: specular colour, 0..1 per channel, or None.
        shininess: 0 (dull, wide highlights) .. 1 (sharp highlights), or None.
        ambient: the fraction of ambient light the surface reflects, 0..1, or None.
        Unset values (None) leave the renderer's defaults.
    """

    rgba: tuple[float, float, float, float] = (0.7, 0.7, 0.7, 1.0)
    name: str | None = None
    texture: str | None = None
    emission: tuple[float, float, float] | None = None
    specular: tuple[float, float, float] | None = None
    shininess: float | None = None
    ambient: float | None = None


@dataclass(frozen=True, slots=True)
class Shape:
    """A geometry placed in a link frame."""

    geometry: Geometry
    pose: Pose = field(default_factory=Pose)
    material: Material | None = None
    source: str | None = None


@dataclass(frozen=True, slots=True)
class ContactMaterial:
    """Contact properties of a surface. The ``smc`` values are kept as given (Chrono's
    penalty model): Young's modulus [Pa], Poisson ratio, normal and tangential stiffness
    [N/m] and damping [N s/m], by name.

    ``rule`` says how two surfaces' values combine where no pair says otherwise: 'min' (the
    smaller friction and restitution, Chrono's rule) or 'max' (the integrator's own).
    """

    name: str
    friction: float = 0.8
    restitution: float = 0.01
    smc: Mapping = field(default_factory=lambda: EMPTY)
    rule: str = 'max'


@dataclass(frozen=True, slots=True)
class ContactPair:
    """The contact values of two named contact materials touching (either order), as a
    material table gives them: friction coefficient and coefficient of restitution."""

    first: str
    second: str
    friction: float
    restitution: float = 0.0


@dataclass(frozen=True, slots=True)
class ShapeContact:
    """The contact material of ``Link.collisions[index]`` of ``link``, and the radius [m] of
    a sphere swept over its surface (contacts keep the surfaces that far apart)."""

    link: str
    index: int
    material: ContactMaterial
    radius: float = 0.0
