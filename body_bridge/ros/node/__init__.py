"""The bridge node and what steps it: one rclpy node per model, its parameters, its runner.

``node`` (the BridgeNode), ``runner`` (the thread that steps the world for one or several
nodes), ``params`` and ``params_doc`` (the declared parameters and their reference),
``settable`` and ``reload`` (parameters set while it runs, a model reloaded) and
``model_choices`` (what the parameters change in the model first).

Imports: ``ros/devices``, ``ros/control``, ``ros/stream``, ``ros/console.py``, ``sim/`` and the
layers below it.
"""
