"""The integrator (MuJoCo): the only package that imports mujoco.

Its rooms, from the bottom: ``names.py`` (the names several rooms share); ``sensing/`` (what
devices read, the renderer), ``mechanics/`` (forces, contacts, closures, tracks) and
``control/`` (servos, trajectories, the watchdog), which import only ``names``;
``building/`` (Model -> MjSpec, the world, world files), which imports those three; and the
facade ``simulation.py`` (a model running: commands in, state out) on top.
``test/test_architecture.py`` holds these edges.
"""
