"""OpenRAVE robots and bodies: XML (``.robot.xml``, ``.kinbody.xml``, ``.env.xml``, OpenRAVE
``.xml``).

The modules, each named for what it reads or makes:

* ``xmlfile``: safe XML parsing (defusedxml) with line numbers;
* ``reader``: OpenRAVE's reading semantics (includes, prefixes, transforms, ``offsetfrom``,
  appended bodies) into the raw bodies of ``raw``;
* ``geom`` and ``mass``: geometries into shapes, masses into inertia;
* ``assemble``: each body's tree, closures and mimic couplings;
* ``devices``: sensors into devices, manipulators into tool frames;
* ``builder``: the :class:`~body_bridge.model.Model` of a robot, a body or an environment.
"""

from .builder import EXTENSIONS, XML_EXTENSION, is_openrave, load, load_collada, load_xml

__all__ = ['load', 'load_xml', 'load_collada', 'EXTENSIONS', 'XML_EXTENSION', 'is_openrave']
