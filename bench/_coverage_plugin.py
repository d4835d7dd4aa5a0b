"""pytest plugin of ``coverage_map.py``: coverage of the changed modules per test.

Loaded with ``-p _coverage_plugin`` (bench/ on PYTHONPATH); the environment says what to
measure: ``COVMAP_INCLUDE`` (files, os.pathsep-separated), ``COVMAP_DATA`` (coverage data
file), ``COVMAP_REPORT`` (JSON written at the end: node id -> passed, seconds, whether it
started a process). Tests that use the ``bridge`` fixture are deselected (end-to-end).
"""

from __future__ import annotations

import json
import os
import subprocess
import time

import coverage
import pytest

_COV = coverage.Coverage(data_file=os.environ['COVMAP_DATA'],
                         include=os.environ['COVMAP_INCLUDE'].split(os.pathsep))
_COV.start()
_TESTS: dict[str, dict] = {}
_CURRENT: list[str] = []
_POPEN_INIT = subprocess.Popen.__init__


def _popen_init(self, *args, **kwargs):
    if _CURRENT:
        _TESTS[_CURRENT[0]]['process'] = True
    _POPEN_INIT(self, *args, **kwargs)


subprocess.Popen.__init__ = _popen_init


def pytest_collection_modifyitems(config, items):
    e2e = [item for item in items if 'bridge' in getattr(item, 'fixturenames', ())]
    if e2e:
        config.hook.pytest_deselected(items=e2e)
        items[:] = [item for item in items if item not in e2e]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _TESTS[item.nodeid] = {'passed': False, 'seconds': 0.0, 'process': False}
    _CURRENT[:] = [item.nodeid]
    _COV.switch_context(item.nodeid)
    start = time.monotonic()
    yield
    _TESTS[item.nodeid]['seconds'] = time.monotonic() - start
    _COV.switch_context('')
    _CURRENT.clear()


def pytest_runtest_logreport(report):
    entry = _TESTS.get(report.nodeid)
    if entry is None:
        return
    if report.when == 'call':
        entry['passed'] = report.passed
    elif report.failed:
        entry['passed'] = False


def pytest_unconfigure(config):
    _COV.stop()
    _COV.save()
    with open(os.environ['COVMAP_REPORT'], 'w') as out:
        json.dump(_TESTS, out)
