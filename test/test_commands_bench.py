"""bench/latency.py runs from a fresh process and prints ``name value unit`` lines."""

import re
import subprocess
import sys

import pytest

from conftest import REPO


@pytest.mark.ros  # the latency benchmark runs the node
def test_latency_benchmark_prints_median_and_p99():
    proc = subprocess.run([sys.executable, str(REPO / 'bench' / 'latency.py'), '--samples', '30'],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    values = {}
    for line in proc.stdout.strip().splitlines():
        name, value, unit = line.split()
        assert re.fullmatch(r'[a-z0-9_]+', name), line
        values[name] = (float(value), unit)
    median, p99 = values['command_to_state_latency_median'], values['command_to_state_latency_p99']
    assert median[1] == p99[1] == 'ms'
    assert values['command_to_state_latency_samples'] == (30.0, 'count')
    # how long is the benchmark's to say (a loaded machine stretches it): here, only that
    # every command was answered and the figures are ordered
    assert 0.0 < median[0] <= p99[0] < float('inf')
