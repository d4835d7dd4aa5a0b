"""``ros2 param set`` on a running bridge: real_time_factor changes the pace at once; the
parameters that cannot change are refused with the reason the parameter table gives."""

from __future__ import annotations

import time

import pytest

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
from rcl_interfaces.srv import SetParameters

from body_bridge.ros.node.params_doc import at_run_time

from conftest import SAMPLE_ARM
from test_end_to_end import STARTUP, Probe, call


@pytest.fixture
def probe(ros):
    p = Probe(ros, 'runtime_params_probe')
    yield p
    p.close()


def _value(value) -> ParameterValue:
    if isinstance(value, float):
        return ParameterValue(type=ParameterType.PARAMETER_DOUBLE, double_value=value)
    return ParameterValue(type=ParameterType.PARAMETER_STRING, string_value=value)


def set_one(probe, proc, name: str, value):
    """What ``ros2 param set /body_bridge NAME VALUE`` gets back."""
    client = probe.node.create_client(SetParameters, 'body_bridge/set_parameters')
    request = SetParameters.Request(parameters=[Parameter(name=name, value=_value(value))])
    [result] = call(probe, client, request, proc, f'set {name}').results
    probe.node.destroy_client(client)
    return result


def pace(probe, proc, seconds: float) -> float:
    """Simulated seconds per wall-clock second over the next ``seconds`` [s]."""
    count = len(probe.clock)
    probe.spin_until(lambda: len(probe.clock) > count + 5, 10.0, '/clock', proc)
    wall, sim = time.monotonic(), probe.clock[-1]
    probe.spin_until(lambda: time.monotonic() - wall > seconds, seconds + 5.0, 'wall time',
                     proc)
    return (probe.clock[-1] - sim) / (time.monotonic() - wall)


def test_real_time_factor_is_set_while_running(bridge, probe):
    proc = bridge(SAMPLE_ARM, '-p', 'real_time_factor:=0.5')
    probe.spin_until(lambda: len(probe.clock) > 20, STARTUP, '/clock', proc)
    assert pace(probe, proc, 2.0) == pytest.approx(0.5, abs=0.1)
    result = set_one(probe, proc, 'real_time_factor', 2.0)
    assert result.successful, result.reason
    assert pace(probe, proc, 2.0) == pytest.approx(2.0, abs=0.3)
    refused = set_one(probe, proc, 'real_time_factor', -1.0)
    assert not refused.successful and 'not -1.0' in refused.reason
    assert 'Traceback' not in proc.output()


def test_read_only_parameters_are_refused_with_their_reason(bridge, probe):
    proc = bridge(SAMPLE_ARM, '-p', 'gains.elbow_pitch.p:=200.0')
    probe.spin_until(lambda: len(probe.clock) > 5, STARTUP, '/clock', proc)
    refused = set_one(probe, proc, 'timestep', 0.002)
    assert not refused.successful
    assert at_run_time('timestep').startswith('read-only: ')
    refused = set_one(probe, proc, 'gains.elbow_pitch.p', 300.0)
    assert not refused.successful
    assert refused.reason == f'gains.elbow_pitch.p is {at_run_time("gains")}'
    assert 'Traceback' not in proc.output()
