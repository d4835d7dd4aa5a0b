#!/usr/bin/env python3
"""A test scenario written with the standard simulator services only (simulation_interfaces).

Start the bridge, then this script:

    .venv/bin/python -m body_bridge sim sample_arm          # terminal 1
    .venv/bin/python examples/scenario.py                   # terminal 2

It checks the simulator's features, pauses it, spawns a crate (a Choreonoid Body file) on the
floor in the sample arm's reach and a can (an OpenRAVE KinBody) beside it, runs 200 steps with
the SimulateSteps action, reads the crate's state, teleports it, lets the world play, and
deletes both, printing what it saw. Nothing in it is specific to body_bridge: it runs as well
against another simulator that serves the same interfaces and reads these formats. Exit
status 0 when every answer was as expected, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import rclpy
from rclpy.action import ActionClient
from simulation_interfaces.action import SimulateSteps
from simulation_interfaces.msg import Result, SimulationState, SimulatorFeatures
from simulation_interfaces.srv import (DeleteEntity, GetEntityState, GetSimulatorFeatures,
                                       SetEntityState, SetSimulationState, SpawnEntity)

HERE = Path(__file__).resolve().parent / 'scenario'
CRATE, CAN = HERE / 'crate.body', HERE / 'can.kinbody.xml'


class Scenario:
    """Service clients of the simulator, called one after the other."""

    def __init__(self, node, wait: float):
        self.node, self.wait, self.failures = node, wait, 0

    def call(self, srv, name: str, request=None, **fields):
        client = self.node.create_client(srv, name)
        if not client.wait_for_service(timeout_sec=self.wait):
            raise SystemExit(f'{name}: no simulator answers')
        future = client.call_async(request or srv.Request(**fields))
        rclpy.spin_until_future_complete(self.node, future, timeout_sec=60.0)
        self.node.destroy_client(client)
        return future.result()

    def check(self, what: str, result) -> None:
        ok = result.result == Result.RESULT_OK
        self.failures += not ok
        print(f'{what}: {"ok" if ok else "FAILED: " + result.error_message}')

    def set_state(self, state: int, what: str) -> None:
        self.check(what, self.call(SetSimulationState, 'set_simulation_state',
                                   state=SimulationState(state=state)).result)

    def spawn(self, name: str, path: Path, xyz) -> None:
        request = SpawnEntity.Request(name=name)
        request.entity_resource.uri = str(path)
        request.initial_pose.header.frame_id = 'world'
        p = request.initial_pose.pose
        p.position.x, p.position.y, p.position.z = xyz
        p.orientation.w = 1.0
        self.check(f'spawn {name} ({path.name}) at {xyz}',
                   self.call(SpawnEntity, 'spawn_entity', request).result)

    def state(self, name: str) -> None:
        answer = self.call(GetEntityState, 'get_entity_state', entity=name)
        self.check(f'state of {name}', answer.result)
        p, v = answer.state.pose.position, answer.state.twist.linear
        print(f'  {name} at ({p.x:.4f}, {p.y:.4f}, {p.z:.4f}) m, moving '
              f'({v.x:.4f}, {v.y:.4f}, {v.z:.4f}) m/s')

    def steps(self, count: int) -> None:
        action = ActionClient(self.node, SimulateSteps, 'simulate_steps')
        if not action.wait_for_server(timeout_sec=self.wait):
            raise SystemExit('simulate_steps: no simulator answers')
        seen = []
        goal = action.send_goal_async(SimulateSteps.Goal(steps=count),
                                      feedback_callback=lambda f: seen.append(f.feedback))
        rclpy.spin_until_future_complete(self.node, goal, timeout_sec=30.0)
        result = goal.result().get_result_async()
        rclpy.spin_until_future_complete(self.node, result, timeout_sec=120.0)
        self.check(f'simulate {count} steps ({len(seen)} feedback messages)',
                   result.result().result.result)
        action.destroy()


def run(node, wait: float) -> int:
    s = Scenario(node, wait)
    features = s.call(GetSimulatorFeatures, 'get_simulator_features').features
    needed = {SimulatorFeatures.SPAWNING, SimulatorFeatures.DELETING,
              SimulatorFeatures.STEP_SIMULATION_ACTION, SimulatorFeatures.ENTITY_STATE_SETTING}
    missing = needed - set(features.features)
    print(f'features: {len(features.features)}, spawn formats: '
          f'{", ".join(features.spawn_formats)}')
    if missing:
        print(f'the simulator lacks features {sorted(missing)}')
        return 1
    s.set_state(SimulationState.STATE_PAUSED, 'pause')
    s.spawn('crate', CRATE, (0.35, 0.15, 0.10))  # 5 cm above the floor
    s.spawn('can', CAN, (0.35, -0.10, 0.11))
    s.steps(200)
    s.state('crate')
    request = SetEntityState.Request(entity='crate', set_pose=True)
    request.state.header.frame_id = 'world'
    request.state.pose.position.x, request.state.pose.position.z = 0.45, 0.30
    request.state.pose.orientation.w = 1.0
    s.check('teleport crate to (0.45, 0, 0.30)',
            s.call(SetEntityState, 'set_entity_state', request).result)
    s.state('crate')
    s.set_state(SimulationState.STATE_PLAYING, 'play')
    time.sleep(1.0)
    s.state('crate')
    for name in ('crate', 'can'):
        s.check(f'delete {name}', s.call(DeleteEntity, 'delete_entity', entity=name).result)
    print('scenario done' if not s.failures else f'{s.failures} steps failed')
    return 1 if s.failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--wait', type=float, default=10.0,
                        help='seconds to wait for the simulator (default 10)')
    args, ros_args = parser.parse_known_args()
    rclpy.init(args=[sys.argv[0], *ros_args])
    node = rclpy.create_node('scenario')
    try:
        return run(node, args.wait)
    except SystemExit as stop:
        print(stop, file=sys.stderr)
        return 1
    finally:
        node.destroy_node()
        rclpy.shutdown()


if __name__ == '__main__':
    sys.exit(main())
