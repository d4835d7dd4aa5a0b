"""Sensor topics: a model's devices as publishers, their settings and their noise.

``sensors`` (one publisher group per simulated device), ``device_settings`` (noise and
compression parameters), ``joint_noise`` (noise on ``joint_states``) and ``graph`` (what the
bridge publishes for a model, worked out from the model alone).

Imports: ``ros/stream``, ``ros/console.py``, ``sim/`` and the layers below it.
"""
