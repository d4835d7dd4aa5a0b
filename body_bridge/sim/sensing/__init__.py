"""Sensing: what a model's devices read from the MuJoCo state, and the pictures it renders.

``sensors`` (the SensorSuite of a model's devices), ``samplers`` (one per inertial, force
and joint device), ``optical`` (range sensors and cameras), ``fisheye``, ``render`` (offscreen
EGL rendering), ``noise`` (seeded noise models), ``appearance`` (how shapes look to the
cameras) and ``snapshot`` (``python -m body_bridge snapshot``).

Imports: ``sim/names.py`` and the layers below ``sim/`` (the model, ``urdf``,
``device_overlay``); nothing else of ``sim/``.
"""
