"""bench/run.py --quick runs every figure of the benchmark suite from a fresh process, prints
one ``name value unit`` line per figure and writes the same figures as JSON. Without the real
model corpus the figures of real models are left out, and it says why."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys

import pytest
from conftest import HAVE_CORPUS, REPO

from body_bridge.corpus import REASON

REAL = ('sr1', 'barrettwam', 'slider_crank') if HAVE_CORPUS else ()
RUNNING = REAL[:1] + ('chain30', 'sample_arm')
LOADED = (*REAL, 'pr2') if HAVE_CORPUS else ()
EXPECTED = (
    [f'load_{m}_{f}' for m in LOADED for f in (
        'time', 'floor', 'ratio', 'model_files', 'mesh_time', 'ratio_without_meshes')] +
    [f'throughput_{m}_{f}' for m in RUNNING for f in (
        'raw_period', 'bridge_period', 'ratio', 'ratio_wall', 'bridge_rtf_wall',
        'bridge_period_unsubscribed', 'ratio_unsubscribed', 'messages_received')] +
    [f'scale_chain{n}_{f}' for n in (1, 10, 30, 100)
     for f in ('bridge_period', 'raw_period', 'ratio', 'bridge_rtf')] +
    ['scale_realtime_lost_joints', 'scale_realtime_lost_joints_raw'] +
    [f'scale_devices{n}_{f}' for n in (0, 10, 30, 100) for f in ('bridge_period', 'ratio')] +
    ['scale_cost_per_device', 'scale_realtime_lost_devices_estimate'] +
    [f'realtime_camera_{f}' for f in ('max_rtf', 'rtf', 'image_rate', 'depth_rate',
                                      'bridge_cpu')] +
    [f'camera_{f}' for f in ('raw_mujoco_render', 'bridge_render_and_publish',
                             'bridge_render_only', 'bridge_cost_ratio',
                             'publish_overhead_ratio', 'image_difference', 'images_lost')] +
    ['command_to_state_latency_median', 'command_to_state_latency_p99',
     'command_to_state_latency_samples', 'control_period'] +
    ['memory_python_baseline', 'memory_run_time'] +
    [f'tracks_{f}' for f in ('tank_period', 'tank_fixed_period', 'cost_per_period', 'ratio',
                             'tank_kinect_rtf', 'tank_kinect_image_rate',
                             'tank_kinect_depth_rate', 'tank_kinect_bridge_cpu',
                             'tank_kinect_max_rtf') if HAVE_CORPUS] +
    [f'world_{f}' for f in ('spawn_sr1_ms', 'spawn_sr1_add_ms', 'delete_sr1_ms')
     if HAVE_CORPUS] +
    ['world_period_after_ratio', 'world_edit_check_ns'] +
    [f'memory_{m}_{f}' for m in (*REAL, 'chain30', 'sample_arm')
     for f in ('loaded', 'after_run', 'growth')] +
    ['machine_load_average_start', 'machine_load_average_end', 'bench_wall_time'])


@pytest.mark.ros  # the benchmarks run the node
def test_quick_run_prints_and_writes_every_figure(tmp_path):
    out = tmp_path / 'figures.json'
    proc = subprocess.run([sys.executable, str(REPO / 'bench' / 'run.py'), '--quick',
                           '--json', str(out)], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    printed = {}
    for line in proc.stdout.strip().splitlines():
        name, value, unit = line.split()
        assert re.fullmatch(r'[a-z0-9_]+', name), line
        assert name not in printed, f'{name} printed twice'
        printed[name] = (float(value), unit)
    missing = [name for name in EXPECTED if name not in printed]
    assert not missing, f'figures not printed: {missing}'
    if not HAVE_CORPUS:
        assert REASON in proc.stderr
        assert not any(name.startswith('load_') for name in printed)
    rows = json.loads(out.read_text())['figures']
    assert [r['name'] for r in rows] == list(printed)
    for row in rows:
        value, unit = printed[row['name']]
        assert row['unit'] == unit
        assert row['value'] == value or (row['value'] is None and math.isinf(value))
    # What the figures say is plausible, if rough in a quick run on a shared machine.
    for model in RUNNING:
        assert printed[f'throughput_{model}_messages_received'][0] > 0  # a subscriber heard
        assert 0.0 < printed[f'throughput_{model}_ratio'][0] < 1.5
    assert printed['realtime_camera_image_rate'][0] > 10.0  # Hz, of 30
    assert printed['command_to_state_latency_samples'] == (20.0, 'count')
    if HAVE_CORPUS:
        assert printed['load_barrettwam_model_files'][0] == 3.0  # robot, arm and hand XML files
        assert printed['load_barrettwam_mesh_time'][0] > 0.0
        assert printed['load_pr2_model_files'][0] == 1.0  # one .zae, its meshes inside
        assert printed['tracks_tank_kinect_image_rate'][0] > 0.0  # the Tank's Kinect was heard
    for model in (*REAL, 'chain30', 'sample_arm'):
        assert printed[f'memory_{model}_loaded'][0] > printed['memory_python_baseline'][0]
