"""Commands and controllers: the topics and actions that move a model.

``commands`` (joint_commands and ros2_control style controller groups), ``goals`` (trajectory
goals judged as joint_trajectory_controller does), ``actions`` and ``action_servers``
(FollowJointTrajectory), ``grippers`` (GripperCommand), ``mobile`` and ``planar_base``
(``cmd_vel`` and ``odom``), ``chrono_controllers`` (Chrono's external controllers) and
``command_file`` (commands for a recorded run, from a file).

Imports: ``ros/stream``, ``ros/console.py``, ``sim/`` and the layers below it.
"""
