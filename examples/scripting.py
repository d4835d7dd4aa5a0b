#!/usr/bin/env python3
"""Scripting the bridge with rclpy alone: no ros2 command line, no launch file.

Start the bridge, then this script:

    .venv/bin/python -m body_bridge sim sample_arm          # terminal 1
    .venv/bin/python examples/scripting.py                  # terminal 2

It pauses the world, spawns a crate 5 cm above the floor in front of the arm, steps 100
control periods (1 s of simulated time), reads where the crate came to rest, moves it, sets a
parameter of the arm's node at run time (the base IMU's rate, 50 Hz) and reads it back,
deletes the crate and lets the world play again, printing each answer. Every request is a
plain service call (simulation_interfaces for the world, rcl_interfaces for the parameters):
docs/scripting.md explains the fields. Exit status 0 when every answer was as expected.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import rclpy
from rcl_interfaces.srv import GetParameters, SetParameters
from rclpy.parameter import Parameter
from simulation_interfaces.msg import Result, SimulationState
from simulation_interfaces.srv import (DeleteEntity, GetEntityState, SetEntityState,
                                       SetSimulationState, SpawnEntity, StepSimulation)

CRATE = Path(__file__).resolve().parent / 'scenario' / 'crate.body'


def call(node, srv, name: str, request, wait: float):
    """One service call, answered (or the script stops, saying which service is missing)."""
    client = node.create_client(srv, name)
    try:
        if not client.wait_for_service(timeout_sec=wait):
            raise SystemExit(f'{name}: nobody serves it: is the bridge running '
                             '(python -m body_bridge sim sample_arm)?')
        future = client.call_async(request)
        rclpy.spin_until_future_complete(node, future, timeout_sec=60.0)
        if future.result() is None:
            raise SystemExit(f'{name}: no answer within 60 s')
        return future.result()
    finally:
        node.destroy_client(client)


def set_pose(pose, x, y, z) -> None:
    """Position [m] and the identity orientation. Floats only: rclpy does not check a
    field's type by default (the ROS_PYTHON_CHECK_FIELDS environment variable), and an int
    in a float64 field is sent as garbage (``orientation.w = 1`` arrives as 5e-324)."""
    pose.position.x, pose.position.y, pose.position.z = float(x), float(y), float(z)
    pose.orientation.x = pose.orientation.y = pose.orientation.z = 0.0
    pose.orientation.w = 1.0


class Script:
    def __init__(self, node, wait: float):
        self.node, self.wait, self.failures = node, wait, 0

    def world(self, srv, name: str, request, what: str):
        """A simulator service call whose answer carries ``result`` (simulation_interfaces
        Result): printed, and counted when it is not RESULT_OK."""
        answer = call(self.node, srv, name, request, self.wait)
        ok = answer.result.result == Result.RESULT_OK
        self.failures += not ok
        print(f'{what}: {"ok" if ok else "FAILED: " + answer.result.error_message}')
        return answer

    def crate_state(self) -> None:
        answer = self.world(GetEntityState, 'get_entity_state',
                            GetEntityState.Request(entity='crate'), 'state of crate')
        p, v = answer.state.pose.position, answer.state.twist.linear
        print(f'  crate at ({p.x:.4f}, {p.y:.4f}, {p.z:.4f}) m, moving '
              f'({v.x:.4f}, {v.y:.4f}, {v.z:.4f}) m/s in {answer.state.header.frame_id}')

    def run(self) -> int:
        paused = SimulationState(state=SimulationState.STATE_PAUSED)
        self.world(SetSimulationState, 'set_simulation_state',
                   SetSimulationState.Request(state=paused), 'pause')
        spawn = SpawnEntity.Request(name='crate', allow_renaming=False)
        spawn.entity_resource.uri = str(CRATE)  # a file, or a bundled model's name
        spawn.initial_pose.header.frame_id = 'world'  # a PoseStamped
        set_pose(spawn.initial_pose.pose, 0.35, 0.15, 0.10)
        self.world(SpawnEntity, 'spawn_entity', spawn, 'spawn crate at (0.35, 0.15, 0.1)')
        self.world(StepSimulation, 'step_simulation', StepSimulation.Request(steps=100),
                   'step 100 control periods')
        self.crate_state()
        move = SetEntityState.Request(entity='crate')
        move.state.header.frame_id = 'world'
        set_pose(move.state.pose, 0.45, 0.0, 0.30)
        move.set_pose = True  # only the pose: the twist and acceleration are left alone
        self.world(SetEntityState, 'set_entity_state', move, 'move crate to (0.45, 0, 0.3)')
        self.crate_state()
        self.parameters()
        self.world(DeleteEntity, 'delete_entity', DeleteEntity.Request(entity='crate'),
                   'delete crate')
        playing = SimulationState(state=SimulationState.STATE_PLAYING)
        self.world(SetSimulationState, 'set_simulation_state',
                   SetSimulationState.Request(state=playing), 'play')
        print('script done' if not self.failures else f'{self.failures} calls failed')
        return 1 if self.failures else 0

    def parameters(self) -> None:
        """Set a parameter of the arm's node, ``body_bridge``, and read it back: the node's
        own parameter services, as ``ros2 param set`` calls them."""
        name = 'devices.base_imu.rate'
        request = SetParameters.Request(
            parameters=[Parameter(name, Parameter.Type.DOUBLE, 50.0).to_parameter_msg()])
        answer = call(self.node, SetParameters, 'body_bridge/set_parameters', request,
                      self.wait)
        outcome = answer.results[0]
        self.failures += not outcome.successful
        print(f'set {name} to 50.0: ' + ('ok' if outcome.successful else
                                         f'FAILED: {outcome.reason}'))
        answer = call(self.node, GetParameters, 'body_bridge/get_parameters',
                      GetParameters.Request(names=[name]), self.wait)
        print(f'  {name} is now {answer.values[0].double_value:g}')


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--wait', type=float, default=10.0,
                        help='seconds to wait for the bridge (default 10)')
    args, ros_args = parser.parse_known_args()
    rclpy.init(args=[sys.argv[0], *ros_args])  # --ros-args -r __ns:=/lab reaches /lab/...
    node = rclpy.create_node('scripting')
    try:
        return Script(node, args.wait).run()
    except SystemExit as stop:
        print(stop, file=sys.stderr)
        return 1
    finally:
        node.destroy_node()
        rclpy.shutdown()


if __name__ == '__main__':
    sys.exit(main())
