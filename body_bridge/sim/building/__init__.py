"""Building the MuJoCo world: a Model into an MjSpec, models into one world, world files.

``build`` (Model -> MjSpec), ``binding`` (a Simulation's joints found and their servos tuned),
``world`` (one world of one or several models, joined and left while it runs), ``carry`` (the
state carried into a recompiled world), ``entities`` (a whole model's state for the simulator
API), ``worldfile`` (``*.world.yaml``), ``rootchoice`` (how the root meets the world),
``casters`` (ball casters: found, and made to roll),
``overlap`` (models that start inside each other), ``options`` (one model's integrator
settings) and ``touching`` (links that touch, for the SRDF writer).

Imports: ``sim/names.py``, ``sim/sensing``, ``sim/mechanics``, ``sim/control`` and the layers
below ``sim/``.
"""
