"""Reloading the model while the bridge runs (``~/reload``, or setting the ``model``
parameter): a model that fails is refused with one line and the running model goes on; a
good one restarts the bridge with it. End to end, from another process."""

from __future__ import annotations

import time

import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
from rcl_interfaces.srv import SetParameters
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger

from body_bridge.ros.stream import qos

from test_end_to_end import STARTUP, Probe, stamp

ARM = '''\
format: ChoreonoidBody
format_version: 2.0
links:
  - name: base
    joint_type: fixed
    elements: [ { type: Shape, geometry: { type: Box, size: [0.2, 0.2, 0.1] } } ]
  - name: {link}
    parent: base
    joint_type: revolute
    joint_axis: Z
    joint_range: [-90, 90]
    translation: [0, 0, 0.1]
    mass: 1.0
    inertia: [0.01, 0, 0, 0.01, 0, 0.01]
    elements: [ { type: Shape, geometry: { type: Box, size: [0.3, 0.05, 0.05] } } ]
'''


def arm(link: str) -> str:
    return ARM.replace('{link}', link)


@pytest.fixture
def probe(ros):
    p = Probe(ros, 'reload_probe')
    p.subscribe_description()
    yield p
    p.close()


def call(probe, proc, client, request, what: str):
    assert client.wait_for_service(timeout_sec=20.0), what
    future = client.call_async(request)
    probe.spin_until(future.done, 30.0, what, proc)
    return future.result()


def set_model(probe, proc, value: str):
    client = probe.node.create_client(SetParameters, 'body_bridge/set_parameters')
    request = SetParameters.Request(parameters=[Parameter(
        name='model', value=ParameterValue(type=ParameterType.PARAMETER_STRING,
                                           string_value=value))])
    return call(probe, proc, client, request, f'set model {value}').results[0]


def joints_now(probe, proc) -> list[str]:
    """The joint names of a joint_states message published after this call."""
    count = len(probe.states)
    probe.spin_until(lambda: len(probe.states) > count + 2, 30.0, 'fresh joint_states', proc)
    return list(probe.states[-1].name)


def still_running(probe, proc, joint: str) -> None:
    """The running model goes on: time advances and it takes a command."""
    pub = probe.node.create_publisher(JointState, 'joint_commands', qos.COMMANDS)
    probe.spin_until(lambda: pub.get_subscription_count() > 0, 20.0, 'command match', proc)
    start = stamp(probe.states[-1])
    pub.publish(JointState(name=[joint], position=[0.4]))
    probe.spin_until(lambda: stamp(probe.states[-1]) > start + 1.5, 30.0, '1.5 s of sim', proc)
    index = list(probe.states[-1].name).index(joint)
    assert probe.states[-1].position[index] == pytest.approx(0.4, abs=0.02)
    probe.node.destroy_publisher(pub)


def test_a_failed_reload_keeps_the_old_model_and_a_good_one_replaces_it(bridge, probe,
                                                                        tmp_path):
    path = tmp_path / 'robot.body'
    path.write_text(arm('link_a'))
    proc = bridge(path)
    probe.spin_until(lambda: probe.states, STARTUP, 'joint_states', proc)
    assert joints_now(probe, proc) == ['link_a']
    reload = probe.node.create_client(Trigger, 'body_bridge/reload')

    # The file is broken in the editor: the reload is refused with its line; nothing changes.
    path.write_text(arm('link_a').replace('joint_axis: Z', 'joint_axis: [0, 0'))
    answer = call(probe, proc, reload, Trigger.Request(), '~/reload of a broken file')
    assert not answer.success
    assert answer.message.startswith('reload failed, the running model goes on: '
                                     f'{path}:11: invalid YAML'), answer.message
    assert joints_now(probe, proc) == ['link_a']
    still_running(probe, proc, 'link_a')

    # Numbers the integrator cannot take, a file that does not exist: refused the same way.
    path.write_text(arm('link_a').replace('mass: 1.0', 'mass: -1.0'))
    answer = call(probe, proc, reload, Trigger.Request(), '~/reload of a negative mass')
    assert not answer.success and f'{path}:13: mass must not be negative' in answer.message
    result = set_model(probe, proc, str(tmp_path / 'missing.body'))
    assert not result.successful and 'missing.body' in result.reason
    assert joints_now(probe, proc) == ['link_a']
    still_running(probe, proc, 'link_a')

    # The file is fixed and changed: the reload takes it, the bridge restarts with it.
    path.write_text(arm('link_b'))
    before = time.monotonic()
    answer = call(probe, proc, reload, Trigger.Request(), '~/reload of a good file')
    assert answer.success, answer.message
    probe.spin_until(lambda: probe.states[-1].name == ['link_b'], STARTUP,
                     'joint_states of the reloaded model', proc)
    probe.spin_until(lambda: any('link_b' in d for d in probe.description), 20.0,
                     'the new robot_description', proc)
    print(f'reload: the new model publishes {time.monotonic() - before:.1f} s after the call')
    still_running(probe, proc, 'link_b')

    # Setting the model parameter to another good file restarts with that one.
    other = tmp_path / 'other.body'
    other.write_text(arm('link_c'))
    result = set_model(probe, proc, str(other))
    assert result.successful, result.reason
    probe.spin_until(lambda: probe.states[-1].name == ['link_c'], STARTUP,
                     'joint_states of the model set by parameter', proc)

    log = proc.output()
    assert 'Traceback' not in log, log
    assert log.count('reload failed, the running model goes on') == 2, log
    assert proc.proc.poll() is None  # the same process all along


def test_a_reload_in_a_world_of_several_models_replaces_only_that_model():
    from types import SimpleNamespace

    from body_bridge.ros.process.launcher import _reloaded
    nodes = [SimpleNamespace(restart_request=None),
             SimpleNamespace(restart_request='/models/new_floor.body')]
    assert _reloaded(['arm=sample_arm', '/models/floor.body'], nodes, [1]) == [
        'arm=sample_arm', 'floor=/models/new_floor.body']  # names, namespaces and frames stay
    single = [SimpleNamespace(restart_request='/models/b.body')]
    assert _reloaded([], single, [0]) == ['/models/b.body']


def test_a_reload_right_after_setting_the_model_takes_the_model_set(bridge, probe, tmp_path):
    """``~/reload`` within 50 ms of setting ``model``: the reload uses the model that was set
    (it used to reload the old one, and both answers said success)."""
    first, second = tmp_path / 'first.body', tmp_path / 'second.body'
    first.write_text(arm('link_a'))
    second.write_text(arm('link_c'))
    proc = bridge(first)
    probe.spin_until(lambda: probe.states, STARTUP, 'joint_states', proc)
    reload = probe.node.create_client(Trigger, 'body_bridge/reload')
    assert reload.wait_for_service(timeout_sec=20.0)
    setter = probe.node.create_client(SetParameters, 'body_bridge/set_parameters')
    assert setter.wait_for_service(timeout_sec=20.0)
    request = SetParameters.Request(parameters=[Parameter(
        name='model', value=ParameterValue(type=ParameterType.PARAMETER_STRING,
                                           string_value=str(second)))])
    set_future = setter.call_async(request)
    probe.spin_until(set_future.done, 30.0, 'set model', proc)
    sent = time.monotonic()
    reload_future = reload.call_async(Trigger.Request())
    assert time.monotonic() - sent < 0.05
    probe.spin_until(reload_future.done, 30.0, '~/reload', proc)
    assert set_future.result().results[0].successful
    answer = reload_future.result()
    assert answer.success and answer.message.startswith(f'{second}: loaded'), answer.message
    probe.spin_until(lambda: probe.states[-1].name == ['link_c'], STARTUP,
                     'joint_states of the model set', proc)
    time.sleep(2.0)  # no second restart brings the old one back
    assert joints_now(probe, proc) == ['link_c']
    assert 'Traceback' not in proc.output()
