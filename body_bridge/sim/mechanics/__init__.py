"""Forces and contacts: the mechanics a model adds to MuJoCo's rigid bodies.

``forces`` (springs, motors, loads and world settings into the MjSpec), ``forces_laws`` and
``forces_runtime`` (their per-step part), ``contacts`` (contact materials), ``closures`` (loop
closures), ``tracks`` (continuous tracks), ``mimic`` (mimic joints), ``planar`` (the kinematic
planar drive) and ``drive`` (a mobile base's wheels or tracks).

Imports: ``sim/names.py`` and the layers below ``sim/``; nothing else of ``sim/``.
"""
