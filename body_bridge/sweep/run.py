"""One run of a sweep, in the process that calls it: its values drawn, its world stepped and
recorded, its checks evaluated, its result written beside its bag.

A run's folder (``DIR/runs/NNNNN/``) holds ``values.yaml`` (the drawn values, written first),
``bag/`` (the rosbag2 MCAP bag), ``run.log`` (what the bridge printed), ``nodes.log`` (the
nodes alongside, if any) and last ``result.json``, written whole (a temporary file renamed):
a folder without it is a run that did not finish, and is run again.
"""

from __future__ import annotations

import json
import math
import os
import shlex
import signal
import subprocess
import time

import yaml

from .checks import RunView, TopicCounter, make_check
from .targets import POSE_AXES, Plan, apply_poses

__all__ = ['run_one', 'isolate', 'write_whole', 'RESULT', 'VALUES', 'NODES_PID']

#: The file that says a run finished, and how.
RESULT = 'result.json'
#: The file of a run's drawn values.
VALUES = 'values.yaml'
#: The file of the nodes alongside's process (group) id, for the pool to end them should the
#: run's process be killed.
NODES_PID = 'nodes.pid'
#: Longest wait (wall time) for the nodes alongside to appear in the run's graph [s].
NODES_START = 20.0


def write_whole(path: str, text: str | bytes) -> None:
    """Write ``text`` (or bytes) to ``path`` so that a reader sees all of it or nothing."""
    tmp = f'{path}.part'
    with open(tmp, 'wb') as f:
        f.write(text.encode('utf-8') if isinstance(text, str) else text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def isolate(domain: int, alongside: bool) -> None:
    """This process's ROS traffic kept to itself: its own domain, and no discovery beyond
    this process (beyond this machine's loopback when the user's nodes run alongside)."""
    os.environ['ROS_DOMAIN_ID'] = str(domain)
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST' if alongside else 'OFF'
    os.environ.pop('ROS_LOCALHOST_ONLY', None)
    os.environ.pop('ROS_STATIC_PEERS', None)


def _split(plan: Plan, values: dict) -> tuple[dict, list, float]:
    """(entity -> {parameter: value}, [(entity, link or None, friction)], real-time factor)
    of the fixed parameters and the drawn values."""
    sweep = plan.sweep
    parameters: dict = {}
    frictions = []
    rtf = sweep.real_time_factor
    fixed = {v.name: v.distribution.args[0] for v in sweep.parameters}
    for name, value in {**fixed, **values}.items():
        head, _, quantity = name.partition('.')
        if name == 'real_time_factor':
            rtf = float(value)
        elif quantity == 'friction':
            entity, _, link = head.partition('/')
            frictions.append((entity, link or None, float(value)))
        elif quantity in POSE_AXES and '/' not in head:
            continue  # applied to the world (apply_poses)
        else:
            parameters.setdefault(head, {})[quantity] = value
    return parameters, frictions, rtf


class _Watch:
    """Told of the run's start and of every period: applies the frictions, starts the nodes
    alongside, runs the checks."""

    def __init__(self, plan: Plan, checks, counter, frictions, duration, nodes, run_dir,
                 index: int):
        self.plan, self.checks, self.counter, self.index = plan, checks, counter, index
        self.frictions, self.duration, self.command, self.run_dir = \
            frictions, duration, nodes, run_dir
        self.view = None
        self.process = None
        self.node_problem: str | None = None

    def start(self, runner) -> None:
        sims = {node.get_namespace().strip('/'): node.sim for node in runner.nodes}
        self.view = RunView(sims, runner.world, self.counter.counts, self.duration)
        mj = runner.world.mj
        for entity, link, value in self.frictions:
            model = self.plan.models[entity]
            links = [link] if link else [l.name for l in model.links]
            bodies = {sims[entity].body_id(name) for name in links}
            for g in range(mj.ngeom):
                if mj.geom_bodyid[g] in bodies and (mj.geom_contype[g] or mj.geom_conaffinity[g]):
                    mj.geom_friction[g, 0] = value
        if self.command:
            self._start_nodes()
            self._wait_for_nodes(runner.nodes)
        for check in self.checks:
            check.start(self.view)

    def _start_nodes(self) -> None:
        args = shlex.split(self.command)
        if 'use_sim_time' not in self.command:
            args += ['--ros-args', '-p', 'use_sim_time:=true']
        log = open(os.path.join(self.run_dir, 'nodes.log'), 'wb')
        try:
            env = {**os.environ, 'BODY_BRIDGE_RUN_DIR': self.run_dir,
                   'BODY_BRIDGE_RUN_INDEX': str(self.index)}
            self.process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True,
                                            cwd=os.path.dirname(self.plan.sweep.path), env=env)
            write_whole(os.path.join(self.run_dir, NODES_PID), str(self.process.pid))
        except OSError as err:
            self.node_problem = f'the nodes alongside did not start: {err.strerror}: {args[0]}'
        finally:
            log.close()

    def _wait_for_nodes(self, bridge_nodes, limit: float = NODES_START) -> None:
        """Wait (wall time) until a node of the user's command is in the run's ROS graph, so
        that it hears the run from its first period; a command that makes no node is waited
        for ``limit`` seconds."""
        own = {(n.get_name(), n.get_namespace()) for n in bridge_nodes}
        end = time.monotonic() + limit
        while self.process is not None and self.process.poll() is None and \
                time.monotonic() < end:
            seen = set(bridge_nodes[0].get_node_names_and_namespaces())
            if seen - own:
                time.sleep(0.5)  # its subscriptions matched, too
                return
            time.sleep(0.05)

    def period(self, runner) -> None:
        for check in self.checks:
            check.period(self.view)
        if self.process is not None and self.node_problem is None and \
                self.process.poll() not in (None, 0):
            self.node_problem = (f'the nodes alongside ended with status '
                                 f'{self.process.returncode} at {self.view.time:.3f} s')

    def stop_nodes(self) -> None:
        process = self.process
        if process is None or process.poll() is not None:
            return
        for sig, wait in ((signal.SIGINT, 5.0), (signal.SIGTERM, 2.0), (signal.SIGKILL, 2.0)):
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                return
            try:
                process.wait(timeout=wait)
                return
            except subprocess.TimeoutExpired:
                continue


def run_one(plan: Plan, index: int, run_dir: str) -> dict:
    """Run ``index`` of the sweep into ``run_dir``; its result (also written as
    ``result.json``). The caller has isolated the process (:func:`isolate`)."""
    from ..ros.process.scenario import RunFailed, run_world
    sweep = plan.sweep
    os.makedirs(run_dir, exist_ok=True)
    values = sweep.values(index)
    write_whole(os.path.join(run_dir, VALUES), yaml.safe_dump(
        {'sweep': sweep.name, 'index': index, 'seed': sweep.seed, 'values': values},
        sort_keys=False))
    parameters, frictions, rtf = _split(plan, values)
    checks = [make_check(plan, spec) for spec in sweep.checks]
    counter = TopicCounter({t for c in checks for t in c.topics})
    watch = _Watch(plan, checks, counter, frictions, sweep.duration, sweep.nodes, run_dir,
                   index)
    result = {'index': index, 'values': values, 'status': 'done', 'error': '',
              'checks': {}, 'passed': False, 'domain': os.environ.get('ROS_DOMAIN_ID', '')}
    started = time.monotonic()
    try:
        outcome = run_world(apply_poses(plan.world, values), os.path.join(run_dir, 'bag'),
                            sweep.duration, topics=sweep.topics, commands_file=sweep.commands,
                            real_time_factor=rtf, parameters=parameters, sinks=(counter,),
                            watch=watch)
    except RunFailed as err:
        result.update(status='failed', error=str(err), wall=time.monotonic() - started)
    else:
        for check in checks:
            passed, metrics = check.finish(watch.view)
            result['checks'][check.name] = {'passed': bool(passed), **metrics}
        if sweep.nodes:
            result['checks']['nodes'] = {'passed': watch.node_problem is None}
            result['error'] = watch.node_problem or ''
        result.update(outcome, sim_time=round(watch.view.time, 9) if watch.view else 0.0,
                      passed=all(c['passed'] for c in result['checks'].values()))
    finally:
        watch.stop_nodes()
    result['wall_total'] = time.monotonic() - started
    write_whole(os.path.join(run_dir, RESULT), json.dumps(_plain(result), indent=1))
    return result


def _plain(value):
    """NaN as null: JSON readers elsewhere refuse NaN."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, float) and math.isnan(value):
        return None
    return value
