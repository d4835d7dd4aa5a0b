"""How shapes look to the integrator's cameras: colours, textures and material lighting.

A shape's :class:`~body_bridge.model.Material` becomes a MuJoCo material when it carries
more than a colour. The mapping (MuJoCo's materials hold scalars where the formats hold
colours):

==========================  ===================================================================
model                       MuJoCo
==========================  ===================================================================
``rgba``                    geom and material ``rgba`` (alpha is 1 - transparency)
``texture``                 a 2D texture (the image's rows bottom up, as OpenGL samples it) in
                            the material's RGB role; ``rgba`` becomes white with the alpha
                            kept, so the image replaces the diffuse colour (VRML's rule)
``Mesh.texcoords``          the mesh's ``usertexcoord``; shapes without them (primitives)
                            get MuJoCo's own mapping of the image
``emission`` (RGB)          ``emission``: the emissive colour's luminance over the diffuse
                            colour's (MuJoCo scales the diffuse colour by it), at most 1
``specular`` (RGB)          ``specular``: the mean of the three channels
``shininess`` 0..1          ``shininess`` 0..1 (both mean an OpenGL exponent of 128 times it)
``ambient``                 not drawn: MuJoCo lights every surface with one ambient light
==========================  ===================================================================

Texture images are decoded here (:func:`body_bridge.textures.read_texture`), once per file
and build: the loader already checked that each can be read.
"""

from __future__ import annotations

import mujoco
import numpy as np

from ...model import Material, Mesh
from ...textures import read_texture

__all__ = ['Appearance', 'emission_scale', 'LUMA']

#: Rec. 709 luminance weights of red, green and blue.
LUMA = (0.2126, 0.7152, 0.0722)


def emission_scale(emission, diffuse) -> float:
    """MuJoCo's scalar ``emission`` for an emissive RGB colour on a diffuse RGB colour."""
    e = float(np.dot(LUMA, np.clip(np.asarray(emission, dtype=float)[:3], 0.0, 1.0)))
    d = float(np.dot(LUMA, np.clip(np.asarray(diffuse, dtype=float)[:3], 0.0, 1.0)))
    if e <= 0.0:
        return 0.0
    return 1.0 if d <= 0.0 else min(1.0, e / d)


class Appearance:
    """Adds the textures and materials of one model's shapes to a spec, each once.

    Args:
        spec: the spec being built.
        prefix: prefix of the texture and material names (unique in the spec).
    """

    def __init__(self, spec: mujoco.MjSpec, prefix: str = 'bb'):
        self.spec = spec
        self.prefix = prefix
        self._textures: dict[str, str] = {}
        self._materials: dict[tuple, str] = {}

    def dress(self, geom, material: Material | None) -> None:
        """Give a visible geom the colour, texture and lighting of ``material``."""
        if material is None:
            return
        rgba = [float(c) for c in material.rgba]
        if material.texture is not None:
            rgba = [1.0, 1.0, 1.0, rgba[3]]
        geom.rgba = rgba
        if not _needs_material(material):
            return
        key = (material.texture, tuple(rgba), material.emission, material.specular,
               material.shininess, tuple(material.rgba[:3]))
        name = self._materials.get(key)
        if name is None:
            name = self._material(material, rgba)
            self._materials[key] = name
        geom.material = name

    def texcoords(self, spec_mesh, mesh: Mesh, material: Material | None) -> None:
        """Give a spec mesh its texture coordinates when its material has a texture."""
        if mesh.texcoords is None or material is None or material.texture is None:
            return
        spec_mesh.usertexcoord = mesh.texcoords.astype(np.float32).ravel().tolist()

    def _material(self, material: Material, rgba: list[float]) -> str:
        spec_material = self.spec.add_material()
        spec_material.name = f'{self.prefix}_material{len(self._materials)}'
        spec_material.rgba = rgba
        if material.texture is not None:
            spec_material.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = \
                self._texture(material.texture)
        if material.emission is not None:
            spec_material.emission = emission_scale(material.emission, material.rgba)
        if material.specular is not None:
            spec_material.specular = float(np.clip(np.mean(material.specular), 0.0, 1.0))
        if material.shininess is not None:
            spec_material.shininess = float(np.clip(material.shininess, 0.0, 1.0))
        return spec_material.name

    def _texture(self, path: str) -> str:
        name = self._textures.get(path)
        if name is not None:
            return name
        pixels = read_texture(path)
        texture = self.spec.add_texture()
        texture.name = name = f'{self.prefix}_texture{len(self._textures)}'
        texture.type = mujoco.mjtTexture.mjTEXTURE_2D
        texture.height, texture.width, texture.nchannel = pixels.shape
        # MuJoCo's texture rows go from v = 0 up; an image file's from its top down.
        texture.data = np.ascontiguousarray(pixels[::-1]).tobytes()
        self._textures[path] = name
        return name


def _needs_material(material: Material) -> bool:
    return (material.texture is not None or material.emission is not None or
            material.specular is not None or material.shininess is not None)
