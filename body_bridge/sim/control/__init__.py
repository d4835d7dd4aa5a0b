"""Commanding: how a Simulation's joints are driven, and watched.

``commanding`` (commands from any thread), ``servo`` (one actuator per commanded joint),
``trajectory`` (joint trajectories followed as joint_trajectory_controller does), ``grip`` (a
gripper goal judged each period) and ``watchdog`` (divergence detected after each period).

Imports: ``sim/names.py`` and the layers below ``sim/``; nothing else of ``sim/``.
"""
