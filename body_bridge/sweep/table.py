"""The table of a sweep: one row per run, from the runs' ``result.json`` files.

``results.csv`` (always), ``results.parquet`` (where pyarrow is installed) and
``results.png`` (where matplotlib is installed: sweep/picture.py). Columns: ``index``,
``status`` (``done``, ``failed``: it could not run, ``lost``: its process died every time,
``missing``: not run yet), ``passed``, each varied value by its name, each check's verdict
by its name and its metrics as ``check.metric``, ``sim_time`` and ``wall_time`` [s], ``bag``
(relative to the output folder) and ``bag_bytes``, ``error``.
"""

from __future__ import annotations

import csv
import json
import math
import os

from .run import RESULT
from .spec import Sweep

__all__ = ['collect', 'write_table', 'summary_line']


def _row(sweep: Sweep, out_dir: str, index: int, lost: set) -> dict:
    folder = os.path.join(out_dir, 'runs', f'{index:05d}')
    row = {'index': index, 'status': 'lost' if index in lost else 'missing', 'passed': False}
    row.update(sweep.values(index))
    path = os.path.join(folder, RESULT)
    if not os.path.exists(path):
        return row
    with open(path, encoding='utf-8') as f:
        result = json.load(f)
    row.update(status=result['status'], passed=bool(result['passed']))
    for name, outcome in result.get('checks', {}).items():
        row[name] = 'pass' if outcome['passed'] else 'fail'
        for key, value in outcome.items():
            if key != 'passed':
                row[f'{name}.{key}'] = math.nan if value is None else value
    row.update(sim_time=result.get('sim_time', 0.0), wall_time=result.get('wall_total', 0.0),
               bag=os.path.relpath(os.path.join(folder, 'bag'), out_dir)
               if os.path.isdir(os.path.join(folder, 'bag')) else '',
               bag_bytes=result.get('bytes', 0), error=result.get('error', ''))
    return row


def collect(sweep: Sweep, out_dir: str, lost=()) -> list[dict]:
    """One row per run of the sweep, in index order."""
    return [_row(sweep, out_dir, index, set(lost)) for index in range(sweep.runs)]


def _columns(sweep: Sweep, rows: list[dict]) -> list[str]:
    head = ['index', 'status', 'passed', *(v.name for v in sweep.variables)]
    checks = [c.name for c in sweep.checks] + (['nodes'] if sweep.nodes else [])
    for name in checks:
        head.append(name)
        metrics = sorted({k for row in rows for k in row if k.startswith(f'{name}.')})
        head += metrics
    return head + ['sim_time', 'wall_time', 'bag', 'bag_bytes', 'error']


def write_table(sweep: Sweep, out_dir: str, rows: list[dict]) -> list[str]:
    """Write the table's files into ``out_dir``; the paths written."""
    columns = _columns(sweep, rows)
    written = [os.path.join(out_dir, 'results.csv')]
    tmp = written[0] + '.part'
    with open(tmp, 'w', newline='', encoding='utf-8') as f:
        writer = csv.DictWriter(f, columns, extrasaction='ignore')
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _cell(row.get(k, '')) for k in columns})
    os.replace(tmp, written[0])
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        pass
    else:
        data = {k: [_cell(row.get(k)) if row.get(k) is not None else None for row in rows]
                for k in columns}
        pq.write_table(pa.table({k: [None if v == '' else v for v in vs]
                                 for k, vs in data.items()}),
                       os.path.join(out_dir, 'results.parquet'))
        written.append(os.path.join(out_dir, 'results.parquet'))
    from .picture import draw
    picture = draw(sweep, rows, os.path.join(out_dir, 'results.png'))
    if picture:
        written.append(picture)
    return written


def _cell(value):
    if isinstance(value, float) and math.isnan(value):
        return ''
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return value


def summary_line(rows: list[dict]) -> str:
    """``N of M runs passed`` and what the others were."""
    passed = sum(1 for r in rows if r['passed'])
    kinds = {}
    for r in rows:
        if not r['passed']:
            key = 'failed a check' if r['status'] == 'done' else r['status']
            kinds[key] = kinds.get(key, 0) + 1
    rest = ', '.join(f'{n} {k}' for k, n in kinds.items())
    return f'{passed} of {len(rows)} runs passed' + (f' ({rest})' if rest else '')
