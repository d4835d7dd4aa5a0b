"""Sweeps: one scenario run many times, each run a seeded variant with a bag and a verdict.

A sweep file (``*.sweep.yaml``, docs/sweeps.md) names a world, a simulated duration, the
commands, the topics to record, how many runs, what varies from run to run (each value drawn
from a seeded distribution or a list, by the run's index alone) and the checks that give each
run its verdict. ``python -m body_bridge sweep FILE -o DIR`` runs them, several at once, each
in its own process and its own ROS domain, and writes one table.

``spec`` (the sweep file read and checked), ``draw`` (the values of run ``i``), ``checks``
(verdicts evaluated while the run steps), ``run`` (one run, in the process that calls it),
``pool`` (the runs over local processes: resumable, safe to interrupt), ``cluster`` (the
runs over a Dask cluster) and ``table`` (``results.csv``, Parquet and the picture).

Imports: ``sim/``, ``ros/`` (only in the module of one run, lazily: reading and checking a
sweep file needs no ROS) and the layers below them. Nothing here imports rclpy itself.
"""
