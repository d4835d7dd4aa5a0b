"""The Foxglove WebSocket server, tested from another process with Foxglove's own client.

``test/foxglove_probe.js`` drives npm ``@foxglove/ws-protocol`` (with ``ws``, and
``@foxglove/rosmsg2-serialization`` decoding the ``cdr`` messages from the ``ros2msg``
schemas the server gives), installed by ``tools/setup.sh`` into
``tools/foxglove_client/node_modules``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.ros
pytest.importorskip('foxglove', reason='foxglove-sdk (tools/requirements.txt) is missing')

REPO = Path(__file__).resolve().parents[1]
MODULES = REPO / 'tools' / 'foxglove_client' / 'node_modules'
if shutil.which('node') is None or not (MODULES / '@foxglove' / 'ws-protocol').is_dir():
    pytest.skip('Node.js or the npm client (tools/setup.sh installs it) is missing',
                allow_module_level=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def probe(port: int, subprotocol: str = 'foxglove.sdk.v1', mode: str = 'full') -> dict:
    """Run the client against the server on ``port`` (waiting for it to listen)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(('127.0.0.1', port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.3)
    done = subprocess.run(['node', str(REPO / 'test' / 'foxglove_probe.js'),
                           f'ws://127.0.0.1:{port}', subprotocol, mode],
                          env={**os.environ, 'NODE_PATH': str(MODULES)}, capture_output=True,
                          text=True, timeout=90)
    assert done.stdout, done.stderr
    return json.loads(done.stdout)


def test_a_client_of_the_old_subprotocol_is_refused(bridge):
    port = free_port()
    proc = bridge('sample_arm', '-p', f'foxglove_port:={port}')
    seen = probe(port, 'foxglove.websocket.v1')
    assert seen['refused']['status'] == 400, (seen, proc.output())
    assert proc.proc.poll() is None


def test_a_foxglove_client_watches_and_drives_the_robot(bridge):
    port = free_port()
    proc = bridge('sample_arm', '-p', f'foxglove_port:={port}')
    seen = probe(port)
    assert 'error' not in seen, (seen.get('error'), proc.output())
    assert seen['subprotocol'] == 'foxglove.sdk.v1'
    assert {'clientPublish', 'parameters', 'services', 'time', 'assets'} <= \
        set(seen['capabilities'])
    channels = {c['topic']: c for c in seen['channels']}
    expected = {'/joint_states': 'sensor_msgs/msg/JointState', '/tf': 'tf2_msgs/msg/TFMessage',
                '/tf_static': 'tf2_msgs/msg/TFMessage', '/clock': 'rosgraph_msgs/msg/Clock',
                '/robot_description': 'std_msgs/msg/String', '/base_imu': 'sensor_msgs/msg/Imu',
                '/hand_camera/image_raw': 'sensor_msgs/msg/Image'}
    for topic, kind in expected.items():
        channel = channels[topic]
        assert (channel['schemaName'], channel['encoding'], channel['schemaEncoding']) == \
            (kind, 'cdr', 'ros2msg'), topic
    assert '\nMSG: std_msgs/Header\n' in channels['/joint_states']['schema']
    # /joint_states decoded; stamped, and sent, in simulated time
    state = seen['joint_state']
    assert state['name'] == ['shoulder_yaw', 'shoulder_pitch', 'elbow_pitch', 'wrist_pitch']
    stamp = state['stamp']['sec'] * 1_000_000_000 + state['stamp']['nanosec']
    assert stamp == state['timestamp'] and stamp < 120e9
    assert seen['urdf_length'] > 1000  # the latched robot_description, on subscribing
    assert 0 < seen['time'] < 300e9
    # parameters: set through the node, its checks apply
    assert seen['set_parameters'] == [{'name': '/body_bridge.real_time_factor',
                                       'type': 'float64', 'value': 2}]
    got = {p['name']: p['value'] for p in seen['get_parameters']}
    assert got == {'/body_bridge.model': 'sample_arm', '/body_bridge.real_time_factor': 2}
    assert seen['bad_parameter'][0]['value'] == 2
    assert any('real_time_factor' in s['message'] and 'rejected' in s['message']
               for s in seen['statuses'])
    # services: pause, two steps of one control period each
    names = {s['name']: s['type'] for s in seen['services']}
    assert names['/body_bridge/step'] == 'std_srvs/srv/Trigger'
    assert names['/body_bridge/set_paused'] == 'std_srvs/srv/SetBool'
    # the simulator API's services too (its node was made after the server started)
    assert names['/spawn_entity'] == 'simulation_interfaces/srv/SpawnEntity'
    assert names['/get_entities'] == 'simulation_interfaces/srv/GetEntities'
    assert seen['paused'] == {'success': True, 'message': 'paused'}
    t1 = float(seen['stepped']['message'].rsplit('= ', 1)[1].split()[0])
    t2 = float(seen['stepped_again']['message'].rsplit('= ', 1)[1].split()[0])
    assert t2 == pytest.approx(t1 + 0.01, abs=1e-6)
    assert seen['resumed']['success']
    # a joint command published by the client moves the joint
    assert seen['moved'] == pytest.approx(0.5, abs=0.05)
    # bad input: answered with status messages, the bridge goes on
    texts = [s['message'] for s in seen['bad_statuses']]
    assert any(t.startswith('/nope: the bridge does not subscribe') for t in texts), texts
    assert any("encoding 'json' is not accepted" in t for t in texts), texts
    assert any('not a sensor_msgs/msg/JointState in cdr' in t for t in texts), texts
    assert any('a message of 2097152 bytes' in t for t in texts), texts
    assert any('999999' in t for t in texts), texts
    assert all(s['level'] == 2 for s in seen['bad_statuses'])
    alive = seen['alive_stamp']
    assert alive['sec'] * 1e9 + alive['nanosec'] > stamp
    assert proc.proc.poll() is None
    assert 'Traceback' not in proc.output()


def test_meshes_the_urdf_names_are_served_and_nothing_else(bridge):
    port = free_port()
    proc = bridge(str(REPO / 'test' / 'data' / 'chrono' / 'meshes.yaml'),
                  '-p', f'foxglove_port:={port}')
    seen = probe(port, mode='assets')
    assert 'error' not in seen, (seen.get('error'), proc.output())
    uri = seen['mesh_uri']
    assert uri.startswith('file://') and uri.endswith('.stl')
    assert seen['mesh']['status'] == 0
    assert seen['mesh']['length'] == os.path.getsize(uri[len('file://'):])
    assert seen['forbidden_asset']['status'] == 1
