"""Side by side with another revision: ``bench/run.py --against REV``.

REV (a commit, branch or tag: ``main``, ``HEAD~3``) is exported with ``git archive`` into a
temporary folder beside a link to ``../shared`` (where the real model corpus is found, as from
the working tree). Then, group after group, each repetition runs ``bench/run.py --only GROUP``
once in REV's tree and once in the working tree, alternately (neither side always first), each
in a fresh process with the same Python, so that a burst of load from other processes hits
both alike. Each side's figure is the median over the repetitions.

Prints, per figure: REV's value, the working tree's, their ratio (working tree / REV), the
figure's goal (``goals.py``) and a verdict. The comparison fails (exit status 1) when a figure
that met its goal in REV misses it in the working tree, or is no longer reported.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from figures import REPO
from goals import GOALS, meets

__all__ = ['export', 'measure', 'compare', 'report', 'run']

#: Figures about the run itself, not the code: shown, never judged.
_CONTEXT = ('machine_load_average_start', 'machine_load_average_end', 'bench_wall_time')


class AgainstError(RuntimeError):
    """REV cannot be exported or its benchmarks cannot run (the message says which)."""


def export(rev: str, into: Path) -> Path:
    """REV's files under ``into/<repository's name>`` (beside a link to ``../shared``)."""
    tree = into / REPO.name
    tree.mkdir(parents=True)
    archive = into / 'rev.tar'
    with open(archive, 'wb') as out:
        proc = subprocess.run(['git', '-C', str(REPO), 'archive', '--format=tar', rev],
                              stdout=out, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise AgainstError(f'--against {rev}: {proc.stderr.strip() or "git archive failed"}')
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter='tar')
    archive.unlink()
    if not (tree / 'bench' / 'run.py').exists():
        raise AgainstError(f'--against {rev}: that revision has no bench/run.py')
    shared = REPO.parent / 'shared'
    if shared.exists():
        (into / 'shared').symlink_to(shared.resolve())
    return tree


def groups_of(tree: Path) -> tuple[str, ...]:
    """The groups ``tree``'s ``bench/run.py`` knows (its ``GROUPS``, read without running it)."""
    import ast
    for node in ast.parse((tree / 'bench' / 'run.py').read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, 'id', None) == 'GROUPS'
                                                for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    return ()


def measure(tree: Path, group: str, quick: bool, out: Path) -> dict[str, float]:
    """The figures of one group, measured by ``tree``'s own ``bench/run.py`` in a new process.

    Raises:
        AgainstError: the run failed (its last lines of standard error are in the message).
    """
    cmd = [sys.executable, str(tree / 'bench' / 'run.py'), '--only', group, '--json', str(out)]
    if quick:
        cmd.append('--quick')
    # Each tree imports its own body_bridge: its run.py puts its folder first on sys.path
    # (PYTHONPATH stays: a ROS installation's Python packages are found through it).
    proc = subprocess.run(cmd, cwd=tree, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        tail = '\n'.join(proc.stderr.strip().splitlines()[-5:])
        raise AgainstError(f'{tree}: bench/run.py --only {group} failed: {tail}')
    rows = json.loads(out.read_text())['figures']
    # JSON has no infinity: run.py writes null for it.
    return {row['name']: float('inf') if row['value'] is None else row['value'] for row in rows}


def compare(theirs: dict[str, list], ours: dict[str, list]) -> list[dict]:
    """One row per figure: REV's median, ours, the ratio, the goal, the verdict.

    Verdicts: ``holds`` / ``misses`` (the goal, on both sides alike), ``lost`` (met its goal
    in REV, misses it here), ``gained`` (the other way), ``gone`` (no longer reported), ``new``
    (not reported by REV), or empty (no goal).
    """
    rows = []
    for name in list(theirs) + [n for n in ours if n not in theirs]:
        before = statistics.median(theirs[name]) if name in theirs else None
        after = statistics.median(ours[name]) if name in ours else None
        ratio = after / before if before and after is not None else None
        was, now = meets(name, before), meets(name, after)
        if name not in ours:
            verdict = 'gone' if was else ''
        elif name not in theirs:
            verdict = 'new'
        elif was is None or now is None:
            verdict = ''
        elif was and not now:
            verdict = 'lost'
        elif now and not was:
            verdict = 'gained'
        else:
            verdict = 'holds' if now else 'misses'
        goal = GOALS[name].describe() if name in GOALS else ''
        rows.append({'name': name, 'rev': before, 'ours': after, 'ratio': ratio,
                     'goal': goal, 'verdict': verdict})
    return rows


def failed(rows: list[dict]) -> list[str]:
    """The figures that make the comparison fail."""
    return [row['name'] for row in rows if row['verdict'] in ('lost', 'gone')]


def report(rows: list[dict], rev: str, out=sys.stdout) -> None:
    """A table: figure, REV, working tree, ratio, goal, verdict."""
    def shown(value):
        return '-' if value is None else f'{value:.4g}'
    print(f'{"figure":48} {rev[:12]:>12} {"working":>12} {"ratio":>8}  goal', file=out)
    for row in rows:
        line = (f'{row["name"]:48} {shown(row["rev"]):>12} {shown(row["ours"]):>12} '
                f'{shown(row["ratio"]):>8}  {row["goal"]} {row["verdict"]}')
        print(line.rstrip(), file=out, flush=True)


def run(rev: str, groups: list[str], quick: bool, repeats: int, json_path: Path | None) -> int:
    """Measure both trees side by side; print the comparison; 1 if a goal was lost."""
    theirs: dict[str, list] = {}
    ours: dict[str, list] = {}
    with tempfile.TemporaryDirectory(prefix='body_bridge_against_') as tmp:
        tmp = Path(tmp)
        try:
            other = export(rev, tmp / 'rev')
            known = groups_of(other)
            for group in groups:
                for k in range(repeats):
                    sides = [('rev', other, theirs), ('ours', REPO, ours)]
                    if group not in known:  # a group REV does not have: its figures are new
                        sides = sides[1:]
                    if k % 2:
                        sides.reverse()
                    for side, tree, into in sides:
                        out = tmp / f'{side}-{group}-{k}.json'
                        for name, value in measure(tree, group, quick, out).items():
                            into.setdefault(name if name not in _CONTEXT
                                            else f'{name}_{group}', []).append(value)
                    print(f'against: {group} {k + 1}/{repeats} done (load average '
                          f'{os.getloadavg()[0]:.2f})', file=sys.stderr, flush=True)
        except AgainstError as err:
            print(f'bench: {err}', file=sys.stderr)
            return 2
    rows = compare(theirs, ours)
    report(rows, rev)
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps({'against': rev, 'groups': groups, 'quick': quick,
                                         'repeats': repeats, 'rows': rows}, indent=1) + '\n')
    lost = failed(rows)
    if lost:
        print(f'bench: past its goal against {rev}: {", ".join(lost)}', file=sys.stderr)
        return 1
    return 0
