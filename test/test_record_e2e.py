"""``python -m body_bridge record`` and the running bridge's ``record`` parameter, end to end: the
bags are read back with ``rosbags`` (test/test_recording.py's ``read_bag``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.ros
pytest.importorskip('rosbags', reason='rosbags (tools/requirements.txt) is missing')

from bag_reading import read_bag  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

def _record(tmp_path, *args, timeout=240):
    env_cache = {'XDG_CACHE_HOME': str(tmp_path / 'cache')}
    return subprocess.run([sys.executable, '-m', 'body_bridge', 'record', *args],
                          cwd=REPO, env={**os.environ, **env_cache}, capture_output=True,
                          text=True, timeout=timeout)


def test_record_keeps_every_topic_in_simulated_time(tmp_path):
    (tmp_path / 'moves.csv').write_text('time,shoulder_yaw,elbow_pitch\n'
                                        '0.5,0.4,0.6\n1.0,0.4,0.6\n')
    done = _record(tmp_path, 'sample_arm', '-o', str(tmp_path / 'bag'), '--duration', '1.5',
                   '--commands', str(tmp_path / 'moves.csv'))
    assert done.returncode == 0, done.stderr
    assert 'messages' in done.stdout and 'MB' in done.stdout
    topics = read_bag(tmp_path / 'bag')
    expected = {
        '/robot_description': 'std_msgs/msg/String', '/tf_static': 'tf2_msgs/msg/TFMessage',
        '/tf': 'tf2_msgs/msg/TFMessage', '/clock': 'rosgraph_msgs/msg/Clock',
        '/joint_states': 'sensor_msgs/msg/JointState', '/base_imu': 'sensor_msgs/msg/Imu',
        '/forearm_accel': 'sensor_msgs/msg/Imu', '/forearm_gyro': 'sensor_msgs/msg/Imu',
        '/wrist_force': 'geometry_msgs/msg/WrenchStamped',
        '/base_scan/scan': 'sensor_msgs/msg/LaserScan',
        '/hand_camera/image_raw': 'sensor_msgs/msg/Image',
        '/hand_camera/camera_info': 'sensor_msgs/msg/CameraInfo',
        '/hand_camera/image_raw/compressed': 'sensor_msgs/msg/CompressedImage',
    }
    for topic, kind in expected.items():
        assert topics[topic][0] == kind, topic
        assert topics[topic][1], f'{topic}: no messages'
    # one per control period (100 Hz) from t = 0 to 1.5 s
    assert len(topics['/joint_states'][1]) == 151
    assert len(topics['/robot_description'][1]) == 1 and len(topics['/tf_static'][1]) == 1
    for topic in ('/robot_description', '/tf_static'):
        assert topics[topic][2][0].durability.name == 'TRANSIENT_LOCAL', topic
    assert topics['/joint_states'][2][0].durability.name == 'VOLATILE'
    for topic, (_, messages, _) in topics.items():
        times = [t for t, _ in messages]
        assert times == sorted(times), topic
        assert times[-1] <= 1_500_000_000, topic
        header = getattr(messages[-1][1], 'header', None)
        if header is None:
            continue
        stamp = header.stamp.sec * 1_000_000_000 + header.stamp.nanosec
        # stamped in simulated time, as the bag's time (compressed images too: compressed in
        # a worker thread, ros/stream/encoder.py, they are logged at their frame's time)
        assert stamp == times[-1], topic
    last = topics['/joint_states'][1][-1][1]
    position = dict(zip(last.name, last.position))
    assert position['shoulder_yaw'] == pytest.approx(0.4, abs=0.05)
    assert position['elbow_pitch'] == pytest.approx(0.6, abs=0.05)
    assert topics['/clock'][1][-1][1].clock.sec == 1
    images = topics['/hand_camera/image_raw'][1]
    assert images[0][1].encoding == 'rgb8' and len(images[0][1].data) == \
        images[0][1].height * images[0][1].step


def test_record_only_the_topics_asked_for(tmp_path):
    done = _record(tmp_path, 'sample_arm', '-o', str(tmp_path / 'bag'), '--duration', '0.2',
                   '--topics', '/joint_states', 'tf*')
    assert done.returncode == 0, done.stderr
    assert set(read_bag(tmp_path / 'bag')) == {'/joint_states', '/tf', '/tf_static'}


def test_record_refuses_bad_input_in_one_line(tmp_path):
    (tmp_path / 'taken').mkdir()
    done = _record(tmp_path, 'sample_arm', '-o', str(tmp_path / 'taken'), '--duration', '0.1')
    assert done.returncode == 2 and 'taken: already exists' in done.stderr
    assert 'Traceback' not in done.stderr
    (tmp_path / 'bad.csv').write_text('time,a\n1,x\n')
    done = _record(tmp_path, 'sample_arm', '-o', str(tmp_path / 'b2'), '--commands',
                   str(tmp_path / 'bad.csv'))
    assert done.returncode == 2 and 'bad.csv: line 2: a value is not a number' in done.stderr
    assert 'Traceback' not in done.stderr
    done = _record(tmp_path, 'sample_arm', '-o', str(tmp_path / 'b3'), '--duration', '-1')
    assert done.returncode == 2 and "--duration: '-1' is not a number from 0.001" in done.stderr
    (tmp_path / 'broken.body').write_text('format: ChoreonoidBody\nlinks: [\n')
    done = _record(tmp_path, str(tmp_path / 'broken.body'), '-o', str(tmp_path / 'b4'))
    assert done.returncode == 2 and 'broken.body' in done.stderr and 'Traceback' not in done.stderr
    assert not (tmp_path / 'b4').exists() and not (tmp_path / 'b2').exists()


def test_the_running_bridge_records_by_parameter(bridge, tmp_path):
    proc = bridge('sample_arm', '-p', f'record:={tmp_path / "live"}',
                  '-p', 'real_time_factor:=2.0')
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:  # the status line says how far the run got
        times = [float(t) for t in re.findall(r'sim time ([\d.]+) s', proc.output())]
        if times and times[-1] >= 2.0:
            break
        time.sleep(0.5)
    assert proc.stop() == 0, Path(proc.log).read_text()
    topics = read_bag(tmp_path / 'live')
    assert topics['/robot_description'][2][0].durability.name == 'TRANSIENT_LOCAL'
    assert len(topics['/robot_description'][1]) == 1
    states = topics['/joint_states'][1]
    assert len(states) > 100, len(states)
    periods = {b - a for (a, _), (b, _) in zip(states, states[1:])}
    assert periods == {10_000_000}  # every control period, none dropped
    assert topics['/hand_camera/image_raw'][1]  # recording watches every device
    assert 'messages dropped' not in Path(proc.log).read_text()


def _raw_messages(bag: Path) -> dict:
    """topic -> [(log time [ns], the message's bytes)], as rosbags reads them."""
    from rosbags.highlevel import AnyReader
    out: dict = {}
    with AnyReader([bag]) as reader:
        for conn, stamp, raw in reader.messages():
            out.setdefault(conn.topic, []).append((stamp, bytes(raw)))
    return out


def test_identical_seeded_runs_record_identical_bytes(tmp_path):
    """Two runs of the same model with the same noise seed, one as fast as it goes and one
    paced (other thread timings): every message the same, byte for byte, at the same time,
    the compressed images too (every frame compressed, none replaced)."""
    runs = []
    for name, pace in (('fast', []), ('paced', ['--real-time-factor', '3'])):
        done = _record(tmp_path, 'sample_arm', '-o', str(tmp_path / name), '--duration', '1.0',
                       *pace, '--ros-args', '-p', 'noise_seed:=3')
        assert done.returncode == 0, done.stderr
        runs.append(_raw_messages(tmp_path / name))
    fast, paced = runs
    assert sorted(fast) == sorted(paced)
    for topic in fast:
        assert len(fast[topic]) == len(paced[topic]), topic
        for k, (a, b) in enumerate(zip(fast[topic], paced[topic])):
            assert a == b, f'{topic}: message {k} differs'
    images = len(fast['/hand_camera/image_raw'])
    assert images >= 10
    for topic in ('/hand_camera/image_raw/compressed',
                  '/hand_camera/depth/image/compressedDepth'):
        # one compressed frame per camera frame, at the frame's own time
        assert [t for t, _ in fast[topic]] == [t for t, _ in fast['/hand_camera/image_raw']]
    # the noise is on: the seed, not a noiseless sensor, makes the runs agree
    imu = [data for _, data in fast['/base_imu']]
    assert len(set(imu)) == len(imu)


def test_record_takes_a_world_file_and_parameters_as_sim_does(tmp_path):
    """A world file's models, each in its namespace at its pose; --params-file sections reach
    every model (/**) or one (/<name>/body_bridge); a model file missing is one line."""
    world = tmp_path / 'pair.world.yaml'
    world.write_text('world: pair\nsettings: {control_rate: 50.0}\nmodels:\n'
                     '  - {name: a, file: sample_arm, pose: [0.3, 0.0, 0.0]}\n'
                     '  - {name: b, file: sample_arm, pose: [-0.3, 0.2, 0.0, 0.0, 0.0, 3.14]}\n'
                     '  - {name: c, file: sample_arm, pose: [0.3, 0.0, 0.0]}\n')  # on a
    params = tmp_path / 'params.yaml'
    params.write_text('/**:\n  ros__parameters:\n    noise_seed: 3\n'
                      '/b/body_bridge:\n  ros__parameters:\n    joint_states_topic: states\n')
    done = _record(tmp_path, str(world), '-o', str(tmp_path / 'bag'), '--duration', '0.2',
                   '--topics', '/a/joint_states', '/b/states', '/tf_static', '/clock',
                   '--ros-args', '--params-file', str(params))
    assert done.returncode == 0, done.stderr
    topics = read_bag(tmp_path / 'bag')
    assert set(topics) == {'/a/joint_states', '/b/states', '/tf_static', '/clock'}
    # the world's control rate: 50 Hz, from t = 0 to 0.2 s
    assert len(topics['/a/joint_states'][1]) == len(topics['/b/states'][1]) == 11
    roots = {t.child_frame_id: t.transform.translation for _, m in topics['/tf_static'][1]
             for t in m.transforms if t.header.frame_id == 'world'}
    assert (roots['a/base'].x, roots['a/base'].y) == pytest.approx((0.3, 0.0))
    assert (roots['b/base'].x, roots['b/base'].y) == pytest.approx((-0.3, 0.2))
    # c stands where a stands: the advice names the world file's key, not a parameter
    told = [line for line in done.stderr.splitlines() if 'start inside each other' in line]
    assert len(told) == 1 and 'sample_arm in /a and sample_arm in /c' in told[0], done.stderr
    assert told[0].endswith(f'place them apart with their pose in {world}')
    world.write_text('world: pair\nmodels:\n  - {name: a, file: nowhere.body}\n')
    done = _record(tmp_path, str(world), '-o', str(tmp_path / 'b2'), '--duration', '0.1')
    assert done.returncode == 2 and 'Traceback' not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(f'{world}:3: model a: ')
    assert not (tmp_path / 'b2').exists()
