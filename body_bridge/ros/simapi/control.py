"""The simulator API's control of time: features, simulation state, stepping, reset.

``GetSimulatorFeatures``, ``GetSimulationState``, ``SetSimulationState``, ``StepSimulation``,
``ResetSimulation`` and the ``SimulateSteps`` action. One *step* is one control period of
the world (``1 / control_rate``: every model's commands applied, the physics stepped, the
state published). *Stopped* is paused at the initial state: stopping resets the world (what
was spawned stays) and pauses it; playing or stepping leaves the stopped state.
"""

from __future__ import annotations

import threading

from rclpy.action import CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from simulation_interfaces.action import SimulateSteps
from simulation_interfaces.msg import Result, SimulationState, SimulatorFeatures
from simulation_interfaces.srv import (GetSimulationState, GetSimulatorFeatures,
                                       ResetSimulation, SetSimulationState, StepSimulation)

from ..console import action_server

__all__ = ['TimeServices', 'FEATURES', 'result']

S = SimulatorFeatures
#: What this simulator supports (docs/simulator-api.md says what each means here).
FEATURES = (S.SPAWNING, S.DELETING, S.ENTITY_BOUNDS, S.ENTITY_BOUNDS_BOX, S.ENTITY_CATEGORIES,
            S.ENTITY_TAGS, S.SPAWNING_RESOURCE_STRING, S.ENTITY_STATE_GETTING,
            S.ENTITY_STATE_SETTING, S.ENTITY_INFO_GETTING, S.ENTITY_INFO_SETTING, S.SPAWNABLES,
            S.SIMULATION_RESET, S.SIMULATION_RESET_TIME, S.SIMULATION_RESET_STATE,
            S.SIMULATION_RESET_SPAWNED, S.SIMULATION_STATE_GETTING, S.SIMULATION_STATE_SETTING,
            S.SIMULATION_STATE_PAUSE, S.STEP_SIMULATION_SINGLE, S.STEP_SIMULATION_MULTIPLE,
            S.STEP_SIMULATION_ACTION, S.SPAWNING_ENTITIES, S.NAMED_POSES, S.POSE_BOUNDS,
            S.WORLD_LOADING, S.WORLD_RESOURCE_STRING, S.WORLD_TAGS, S.WORLD_UNLOADING,
            S.WORLD_INFO_GETTING, S.AVAILABLE_WORLDS)


def result(code: int = Result.RESULT_OK, message: str = '') -> Result:
    return Result(result=code, error_message=message)


class TimeServices:
    """The services and the action that run, pause, step and reset the world.

    Args:
        node: the world's node (services at the process namespace's root).
        control: the :class:`~body_bridge.ros.simapi.world_control.WorldControl`.
        spawn_formats: the file endings the loaders take.
    """

    def __init__(self, node, control, spawn_formats: list[str]):
        self.node, self.control, self.runner = node, control, control.runner
        self.spawn_formats = list(spawn_formats)
        self.stopped = False
        self._stepping = threading.Lock()
        group = ReentrantCallbackGroup()
        self.services = [
            node.create_service(GetSimulatorFeatures, 'get_simulator_features', self._features),
            node.create_service(GetSimulationState, 'get_simulation_state', self._get_state),
            node.create_service(SetSimulationState, 'set_simulation_state', self._set_state),
            node.create_service(StepSimulation, 'step_simulation', self._step),
            node.create_service(ResetSimulation, 'reset_simulation', self._reset),
        ]
        self.action = action_server(node, SimulateSteps, 'simulate_steps',
                                    execute_callback=self._simulate, goal_callback=self._accept,
                                    cancel_callback=lambda _: CancelResponse.ACCEPT,
                                    callback_group=group)

    def _features(self, request, response):
        response.features.features = list(FEATURES)
        response.features.spawn_formats = self.spawn_formats
        response.features.custom_info = (
            f'body_bridge: one step is one control period ({self.runner.period:g} s); '
            'entities are the models of the world')
        return response

    def state(self) -> int:
        if self.runner.world is None:  # unload_world
            return SimulationState.STATE_NO_WORLD
        if self.stopped:
            return SimulationState.STATE_STOPPED
        return SimulationState.STATE_PAUSED if self.runner.paused else \
            SimulationState.STATE_PLAYING

    def _get_state(self, request, response):
        response.state.state = self.state()
        response.result = result()
        return response

    def _set_state(self, request, response):
        target, now = request.state.state, self.state()
        St = SimulationState
        if now == St.STATE_NO_WORLD and target != St.STATE_QUITTING:
            response.result = result(response.INCORRECT_TRANSITION,
                                     'no world is loaded (load_world)')
        elif target == now:
            response.result = result(response.ALREADY_IN_TARGET_STATE,
                                     f'the simulation is already in state {target}')
        elif target == St.STATE_PLAYING:
            self.stopped = False
            self.runner.set_paused(False)
            response.result = result()
        elif target == St.STATE_PAUSED:
            if now == St.STATE_STOPPED:
                response.result = result(response.INCORRECT_TRANSITION,
                                         'stopped: play or step it; it is paused already')
            else:
                self.runner.set_paused(True)
                response.result = result()
        elif target == St.STATE_STOPPED:
            self.runner.set_paused(True)
            self.runner.reset()
            self.stopped = True
            response.result = result()
        elif target == St.STATE_QUITTING:
            self.runner.set_paused(True)
            self.node.get_logger().info('set_simulation_state: quitting, as asked')
            threading.Timer(0.5, self._quit).start()  # the answer goes out first
            response.result = result()
        else:
            response.result = result(response.INCORRECT_TRANSITION,
                                     f'state {target} cannot be set here (no world loading)')
        return response

    def _quit(self) -> None:
        import rclpy
        context = self.node.context
        if context.ok():
            rclpy.shutdown(context=context)

    def _steps_refused(self, steps: int) -> str | None:
        if self.runner.world is None:
            return 'no world is loaded (load_world)'
        if not self.runner.paused:
            return 'the simulation is playing: pause it first (set_simulation_state)'
        if steps < 1:
            return 'steps must be at least 1'
        return None

    def _step(self, request, response):
        refused = self._steps_refused(request.steps)
        if refused is not None:
            response.result = result(Result.RESULT_OPERATION_FAILED, refused)
            return response
        with self._stepping:
            self.stopped = False
            for done in range(request.steps):
                if not self.runner.step_once():
                    response.result = result(Result.RESULT_OPERATION_FAILED,
                                             f'the simulation started playing after {done} '
                                             'steps')
                    return response
        response.result = result()
        return response

    def _reset(self, request, response):
        scope = request.scope or ResetSimulation.Request.SCOPE_ALL
        what = []
        if self.runner.world is None:
            response.result = result(Result.RESULT_OPERATION_FAILED,
                                     'no world is loaded (load_world)')
            return response
        if scope & ResetSimulation.Request.SCOPE_SPAWNED:
            gone = self.control.delete_spawned()
            what.append(f'deleted {", ".join(gone) or "nothing spawned"}')
        if scope & (ResetSimulation.Request.SCOPE_STATE | ResetSimulation.Request.SCOPE_TIME):
            # Time and state go back together: a state at the initial time.
            self.runner.reset()
            what.append('state and time back to the start')
        response.result = result(Result.RESULT_OK, '; '.join(what))
        return response

    # --- SimulateSteps --------------------------------------------------------------------

    def _accept(self, goal):
        return GoalResponse.ACCEPT

    def _simulate(self, handle):
        steps = int(handle.request.steps)
        out = SimulateSteps.Result()
        refused = self._steps_refused(steps)
        if refused is not None:
            out.result = result(Result.RESULT_OPERATION_FAILED, refused)
            handle.abort()
            return out
        feedback = SimulateSteps.Feedback()
        with self._stepping:
            self.stopped = False
            for done in range(1, steps + 1):
                if handle.is_cancel_requested:
                    handle.canceled()
                    out.result = result(Result.RESULT_OPERATION_FAILED,
                                        f'canceled after {done - 1} of {steps} steps')
                    return out
                if not self.runner.step_once():
                    handle.abort()
                    out.result = result(Result.RESULT_OPERATION_FAILED,
                                        f'the simulation started playing after {done - 1} '
                                        'steps')
                    return out
                feedback.completed_steps, feedback.remaining_steps = done, steps - done
                handle.publish_feedback(feedback)
        handle.succeed()
        out.result = result()
        return out
