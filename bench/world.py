"""A world that changes while it runs: the time to spawn a model into it and to delete it,
and what a control period costs before, during and after.

    world_spawn_sr1_ms          SR1 spawned into a running sample-arm world: load_model, then
                                World.add and its Simulation (the world compiled again, every
                                member's state carried); the pause the stepping thread sees is
                                the add part (``world_spawn_sr1_add_ms``)
    world_delete_sr1_ms         SR1 taken out again (World.remove)
    world_period_after_ratio    a control period of the sample arm's world after SR1 came and
                                went, over one before any change (CPU time, medians of
                                alternating repetitions): 1 when a change leaves no cost behind
    world_edit_check_ns         what the stepping thread does every period for the simulator
                                API when nobody uses it (the look at its empty edit queue)
"""

from __future__ import annotations

import statistics
import time
import timeit

from body_bridge.formats import load_model
from body_bridge.model import Pose
from body_bridge.sim.simulation import Simulation, SimOptions
from chains import model_path, real_models


def _period_cost(sim, periods: int) -> float:
    start = time.thread_time()
    for _ in range(periods):
        sim.step_period()
    return (time.thread_time() - start) / periods


def run(figures, quick: bool) -> None:
    arm_model = load_model(model_path('sample_arm'))
    before = Simulation(arm_model)
    after = Simulation(load_model(model_path('sample_arm')))
    periods = 50 if quick else 400
    if 'sr1' in real_models():
        path = model_path('sr1')
        t0 = time.perf_counter()
        sr1 = load_model(path)
        t1 = time.perf_counter()
        options = SimOptions(initial_pose=Pose((1.5, 0.0, 0.0)))
        after.world.add(sr1, options, 'sr1/')
        Simulation(sr1, options, world=after.world)
        t2 = time.perf_counter()
        figures.add('world_spawn_sr1_ms', (t2 - t0) * 1e3, 'ms')
        figures.add('world_spawn_sr1_add_ms', (t2 - t1) * 1e3, 'ms')
        _period_cost(after, 10)
        t3 = time.perf_counter()
        after.world.remove('sr1/')
        figures.add('world_delete_sr1_ms', (time.perf_counter() - t3) * 1e3, 'ms')
    else:  # without the corpus: the sample arm comes and goes
        other = load_model(model_path('sample_arm'))
        after.world.add(other, SimOptions(initial_pose=Pose((1.5, 0.0, 0.0))), 'other/')
        Simulation(other, SimOptions(initial_pose=Pose((1.5, 0.0, 0.0))), world=after.world)
        after.world.remove('other/')
    costs = {'before': [], 'after': []}
    for _ in range(3 if quick else 9):
        costs['before'].append(_period_cost(before, periods))
        costs['after'].append(_period_cost(after, periods))
    figures.add('world_period_after_ratio', statistics.median(costs['after']) /
                statistics.median(costs['before']), 'x')
    edits: list = []

    def check():
        while edits:
            edits.pop(0)
    figures.add('world_edit_check_ns', min(timeit.repeat(check, number=100000, repeat=5)) /
                100000 * 1e9, 'ns')
