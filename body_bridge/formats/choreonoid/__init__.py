"""Choreonoid Body files (``.body``): YAML, links with elements.

The reference is Choreonoid's Body file manual (``../shared/specs``); where it is silent,
Choreonoid's own loader. The modules, each named for what it reads:

* ``nodes``: keys in snake_case or camelCase, translations, rotations, units;
* ``body``: the header, the ``links`` list (Link, SubBody, ContinuousTrack, Skip) and
  ``extra_joints``; ``assembly`` turns what was read into the :class:`~body_bridge.model.Model`;
* ``links``: Link nodes (placement, joint, mass, ``import``);
* ``elements``: the elements tree (Transform, Group, RigidBody, Visual, Collision, Shape,
  Resource, devices); ``shapes`` its geometry and appearance, ``resources`` mesh files and
  YAML scene resources, ``devices`` the devices.
"""

from .body import EXTENSIONS, load

__all__ = ['load', 'EXTENSIONS']
