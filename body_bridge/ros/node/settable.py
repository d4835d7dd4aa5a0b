"""Parameters set while the node runs (``ros2 param set``): ``model`` reloads,
``real_time_factor`` paces the world; the parameter groups are refused with their reason (the
fixed parameters that cannot change are read-only by their descriptors, see params.py)."""

from __future__ import annotations

import math

from rcl_interfaces.msg import SetParametersResult

from . import params as P
from .reload import reload_problem

__all__ = ['on_set_parameters']


def on_set_parameters(node, parameters) -> SetParametersResult:
    """The node's answer to a parameter change (rclpy's on-set-parameters callback)."""
    for parameter in parameters:
        group = parameter.name.split('.')[0]
        problem = None
        if group in P.GROUP_READ_ONLY and '.' in parameter.name:
            problem = f'{parameter.name} is read-only: {P.GROUP_READ_ONLY[group]}'
        elif parameter.name == 'real_time_factor':
            problem = _set_real_time_factor(node, parameter.value)
        elif parameter.name == 'model':
            problem = _set_model(node, parameter.value)
        if problem is not None:
            return SetParametersResult(successful=False, reason=problem)
    return SetParametersResult(successful=True)


def _set_model(node, value) -> str | None:
    """Reload with model ``value`` once it is checked; or why not."""
    if not isinstance(value, str) or not value:
        return 'model must be a file or a bundled model name'
    problem = reload_problem(node, value)
    if problem is not None:
        node.warn_throttled(f'parameter model: {value} refused, the running model goes on: '
                            f'{problem}')
        return problem
    node.request_restart(value)
    return None


def _set_real_time_factor(node, value) -> str | None:
    """The world's new pace [simulated s per wall-clock s, 0: as fast as possible]; or why
    not."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not math.isfinite(value) or value < 0:
        return f'real_time_factor must be 0 or a positive number, not {value!r}'
    runner = node.runner
    if runner is None:
        return 'real_time_factor: nothing to pace, the node does not simulate'
    if runner.nodes[0] is not node:
        return (f'real_time_factor is the world\'s: set it on '
                f'{runner.nodes[0].get_fully_qualified_name()}')
    runner.real_time_factor = float(value)
    node.params['real_time_factor'] = float(value)
    return None
