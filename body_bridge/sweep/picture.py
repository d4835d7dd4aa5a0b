"""The table of a sweep as a picture (``results.png``, where matplotlib is installed).

One row of plots per check whose verdict or metric differs between runs (the others say
nothing here; when none does, every check, at most :data:`MAX_ROWS`), one column per numeric
varied value: the value against the check's first metric, a dot per run, green where the
check passed and red where it failed; and, for each entity whose ``x`` and ``y`` both vary, a
column of its start positions coloured the same way. Matplotlib's Agg canvas draws it, without
pyplot (no window, no backend to choose).
"""

from __future__ import annotations

from dataclasses import dataclass

from .spec import Sweep

__all__ = ['Layout', 'layout', 'draw', 'figure', 'MAX_ROWS', 'DPI', 'CELL']

#: Most checks drawn (rows of plots).
MAX_ROWS = 6
#: Dots per inch of the picture.
DPI = 80
#: Width and height of one plot [inch]; the title takes 0.6 inch more.
CELL = (3.2, 2.4)


@dataclass(frozen=True)
class Layout:
    """What the picture shows: the checks (rows) with the metric drawn for each (None: its
    verdict), the numeric varied values and the entities whose start positions are drawn
    (columns)."""

    checks: tuple[str, ...]
    metrics: dict
    values: tuple[str, ...]
    entities: tuple[str, ...]


def layout(sweep: Sweep, rows: list[dict]) -> Layout | None:
    """What to draw of the runs that ran (None: nothing to draw)."""
    done = [r for r in rows if r['status'] == 'done']
    values = tuple(v.name for v in sweep.variables
                   if done and all(isinstance(r.get(v.name), (int, float)) and
                                   not isinstance(r.get(v.name), bool) for r in done))
    checks = [c.name for c in sweep.checks]
    if not (done and values and checks):
        return None
    metrics = {c: next((k for k in sorted(done[0]) if k.startswith(f'{c}.')), None)
               for c in checks}

    def telling(check: str) -> bool:
        if len({r.get(check) for r in done}) > 1:
            return True
        metric = metrics[check]
        return metric is not None and len({round(float(r[metric]), 9) for r in done
                                           if r.get(metric) == r.get(metric)}) > 1

    chosen = tuple(c for c in checks if telling(c)) or tuple(checks)
    entities = tuple(sorted({n[:-2] for n in values if n.endswith('.x') and
                             n[:-2] + '.y' in values}))
    return Layout(chosen[:MAX_ROWS], {c: metrics[c] for c in chosen[:MAX_ROWS]}, values,
                  entities)


def draw(sweep: Sweep, rows: list[dict], path: str) -> str | None:
    """Draw the picture into ``path``; the path (None: matplotlib is missing, or nothing to
    draw)."""
    try:
        fig = figure(sweep, rows)
    except ImportError:
        return None
    if fig is None:
        return None
    fig.savefig(path)
    return path


def figure(sweep: Sweep, rows: list[dict]):
    """The picture as a matplotlib Figure (None: nothing to draw).

    Raises:
        ImportError: matplotlib is not installed.
    """
    from matplotlib.figure import Figure
    shown = layout(sweep, rows)
    if shown is None:
        return None
    done = [r for r in rows if r['status'] == 'done']
    columns = len(shown.values) + len(shown.entities)
    width, height = CELL[0] * columns, CELL[1] * len(shown.checks) + 0.6  # [inch]
    fig = Figure(figsize=(width, height), dpi=DPI)
    axes = fig.subplots(len(shown.checks), columns, squeeze=False)
    for i, check in enumerate(shown.checks):
        colours = ['tab:green' if r.get(check) == 'pass' else 'tab:red' for r in done]
        metric = shown.metrics[check]
        ys = [r.get(metric) if metric else float(r.get(check) == 'pass') for r in done]
        for j, name in enumerate(shown.values):
            axes[i][j].scatter([r[name] for r in done], ys, c=colours, s=18)
            axes[i][j].set_xlabel(name)
            axes[i][j].set_ylabel(metric or check)
        for k, entity in enumerate(shown.entities):
            ax = axes[i][len(shown.values) + k]
            ax.scatter([r[f'{entity}.x'] for r in done], [r[f'{entity}.y'] for r in done],
                       c=colours, s=18)
            ax.set_xlabel(f'{entity}.x [m]')
            ax.set_ylabel(f'{entity}.y [m]')
            ax.set_aspect('equal', adjustable='datalim')
            ax.set_title(f'{check}: green pass, red fail', fontsize=8)
    fig.suptitle(f'{sweep.name}: {sum(r["passed"] for r in rows)} of {len(rows)} runs passed',
                 fontsize=10)
    fig.subplots_adjust(left=0.8 / width, right=0.98, bottom=0.5 / height,
                        top=1 - 0.55 / height, wspace=0.45, hspace=0.6)
    return fig
