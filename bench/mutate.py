"""Mutation testing of one module: does the suite notice a small wrong change?

    nice -n 15 .venv/bin/python bench/mutate.py body_bridge/formula.py \\
        test/test_formula_oracle.py test/test_chrono_functions.py [--sample 60 --seed S]

Each mutant is one change to the module's syntax tree: an arithmetic operator swapped
(``+``/``-``, ``*``/``/``, ``**``/``*``, ...), a comparison bent (``<``/``<=``, ``==``/``!=``,
``in``/``not in``, ``is``/``is not``), ``and``/``or`` swapped, a unary ``-`` or ``not``
dropped, a number changed (0 -> 1, 1 -> 0, n -> n + 1, x -> 2 x), ``True``/``False``
swapped, the two indices of ``a[i, j]`` swapped, a statement dropped (``pass`` in its
place). Docstrings, strings and annotations are left alone. The repository is copied
to a temporary directory (beside a link to ``../shared``, which the tests read) so the working
tree is never touched; each mutant is written there and the given tests run on it (``pytest
-x``, with a timeout): a failing or timed-out run kills the mutant, a passing one lets it
survive. The report lists the survivors with their line; ``--json`` writes every result.

``--sample N`` draws N mutants with ``--seed S``; without ``--seed`` a new seed is drawn (from
the operating system's randomness), printed before the run and recorded in the report line and
the ``--json`` output, so that each measurement is made on a sample drawn for it and can be
drawn again. A rate counts when measured on a sample nobody tuned the tests to.

The tests of each mutant run in a child forked from this process, which imported numpy,
MuJoCo, rclpy, pytest, ... once (``_forkrun.py``): a mutant costs its tests and the import of
the package, not a Python start. ``--isolated`` runs each in a new Python process instead.

``bench/equivalent.txt`` lists the mutants judged equivalent (they cannot change any result),
each with the reason, by the text of its line and its description (line numbers move); they
are left out of the count.

``--changed-since REV`` measures every module of ``body_bridge/`` changed since the git
revision REV, each with the fast tests coverage finds executing it (``coverage_map.py``), and
prints one table. A baseline where no test ran (all skipped or deselected) is refused in one
line: it would count every mutant as a survivor.

Not part of the test suite: a module takes minutes to tens of minutes of CPU.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import _forkrun

REPO = Path(__file__).resolve().parents[1]

_BINOPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
           ast.Pow: ast.Mult, ast.FloorDiv: ast.Div, ast.Mod: ast.FloorDiv,
           ast.MatMult: ast.Mult}
_CMPOPS = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
           ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In,
           ast.Is: ast.IsNot, ast.IsNot: ast.Is}
_SYMBOL = {ast.Add: '+', ast.Sub: '-', ast.Mult: '*', ast.Div: '/', ast.Pow: '**',
           ast.FloorDiv: '//', ast.Mod: '%', ast.MatMult: '@', ast.Lt: '<', ast.LtE: '<=',
           ast.Gt: '>', ast.GtE: '>=', ast.Eq: '==', ast.NotEq: '!=', ast.In: 'in',
           ast.NotIn: 'not in', ast.Is: 'is', ast.IsNot: 'is not', ast.And: 'and',
           ast.Or: 'or'}
_DROPPABLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return, ast.Raise,
              ast.If, ast.For, ast.While, ast.With, ast.Try, ast.Delete)


@dataclass
class Mutant:
    index: int      # the node's position in ast.walk order
    kind: str       # what is changed
    line: int
    col: int
    description: str
    code: str = ''  # the text of its line, stripped
    outcome: str = ''
    seconds: float = 0.0
    scope: str = ''  # the function or class it is in (``Class.method``), '' at module level

    @property
    def key(self) -> tuple[str, str]:
        return self.code, self.description


def _skipped_nodes(tree: ast.AST) -> set[int]:
    """ids of nodes that are never mutated: docstrings, annotations, f-strings, __all__."""
    skip: set[int] = set()

    def drop(node):
        if node is not None:
            skip.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        body = getattr(node, 'body', None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            drop(body[0])
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            drop(node.returns)
            for arg in (*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs,
                        node.args.vararg, node.args.kwarg):
                if arg is not None:
                    drop(arg.annotation)
        elif isinstance(node, ast.AnnAssign):
            drop(node.annotation)
        elif isinstance(node, ast.JoinedStr):
            drop(node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            drop(node)
        elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == '__all__' for t in node.targets):
            drop(node)
    return skip


def _number_change(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return 1 if value == 0 else 0 if value == 1 else value + 1
    if isinstance(value, float):
        return 1.0 if value == 0.0 else 2.0 * value
    return None


def _changes(node: ast.AST) -> list[tuple[str, str]]:
    """(kind, description) of every mutation of this node."""
    out = []
    if isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in _BINOPS:
        new = _BINOPS[type(node.op)]
        out.append(('binop', f'{_SYMBOL[type(node.op)]} -> {_SYMBOL[new]}'))
    elif isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in _CMPOPS:
                out.append((f'cmp{i}', f'{_SYMBOL[type(op)]} -> {_SYMBOL[_CMPOPS[type(op)]]}'))
    elif isinstance(node, ast.BoolOp):
        new = 'or' if isinstance(node.op, ast.And) else 'and'
        out.append(('boolop', f'{_SYMBOL[type(node.op)]} -> {new}'))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not)):
        out.append(('unary', f'drop {"-" if isinstance(node.op, ast.USub) else "not"}'))
    elif isinstance(node, ast.Constant):
        new = _number_change(node.value)
        if new is not None:
            out.append(('const', f'{node.value!r} -> {new!r}'))
    elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple) \
            and len(node.slice.elts) == 2:
        a, b = (ast.unparse(e) for e in node.slice.elts)
        if a != b:
            out.append(('swap', f'[{a}, {b}] -> [{b}, {a}]'))
    if isinstance(node, _DROPPABLE):
        out.append(('drop', f'drop `{ast.unparse(node).splitlines()[0][:50]}`'))
    return out


def _scopes(tree: ast.AST) -> dict[int, str]:
    """id of every node -> the qualified name of the function or class it is in."""
    out: dict[int, str] = {}
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

    def visit(node, scope):
        for child in ast.iter_child_nodes(node):
            out[id(child)] = scope
            if isinstance(child, defs):
                visit(child, f'{scope}.{child.name}' if scope else child.name)
            else:
                visit(child, scope)
    visit(tree, '')
    return out


def mutants(source: str) -> list[Mutant]:
    tree = ast.parse(source)
    skip = _skipped_nodes(tree)
    scopes = _scopes(tree)
    lines = source.splitlines()
    out = []
    for index, node in enumerate(ast.walk(tree)):
        if id(node) in skip:
            continue
        for kind, description in _changes(node):
            out.append(Mutant(index, kind, node.lineno, node.col_offset, description,
                              lines[node.lineno - 1].split('  #', 1)[0].strip(),
                              scope=scopes.get(id(node), '')))
    return out


EQUIVALENT = Path(__file__).with_name('equivalent.txt')


#: An entry's optional third field: where in the module (``in Class.method``, ``col N``, both),
#: or ``all`` (every place the line text and mutation are found is equivalent).
_WHERE = re.compile(r'(?:in (?P<scope>[\w.]+))?\s*(?:col (?P<col>\d+))?|(?P<all>all)')


def equivalent_keys(module: str, path: Path = EQUIVALENT) -> dict[tuple, str]:
    """(line text, description, scope or None, column or None, all) -> reason of the module's
    equivalent mutants.

    The file: ``# module: PATH`` starts a module's entries; each entry is
    ``LINE TEXT || DESCRIPTION || REASON``, or ``LINE TEXT || DESCRIPTION || WHERE || REASON``
    where the line text and mutation are not enough (the same text on several lines, or alike
    operators on one): WHERE is ``in FUNCTION`` (its qualified name, ``Class.method``),
    ``col N`` (the column of the mutated node), both, as ``--list`` prints them, or ``all``
    (each place is equivalent); other lines starting with ``#`` are comments.
    """
    out, current = {}, None
    if not path.exists():
        return out
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith('# module:'):
            current = line.split(':', 1)[1].strip()
        elif line.strip() and not line.startswith('#') and current == module:
            parts = [p.strip() for p in line.split('||')]
            where = _WHERE.fullmatch(parts[2]) if len(parts) == 4 else None
            if len(parts) == 3:
                out[(parts[0], parts[1], None, None, False)] = parts[2]
            elif where is not None and parts[2]:
                col = where.group('col')
                out[(parts[0], parts[1], where.group('scope'), col and int(col),
                     bool(where.group('all')))] = parts[3]
            else:
                raise SystemExit(f'{path}:{number}: expected CODE || MUTATION || REASON or '
                                 'CODE || MUTATION || WHERE || REASON (WHERE: in FUNCTION, '
                                 'col N, or all)')
    return out


def equivalent_rows(equivalent: list[Mutant], excluded: dict) -> list[dict]:
    """The equivalent mutants as a run's JSON keeps them, each with its entry's reason."""
    return [dict(asdict(m), reason=excluded[_excluded(m, excluded)]) for m in equivalent]


def _excluded(mutant: Mutant, excluded: dict) -> tuple | None:
    """The entry of ``excluded`` that lists ``mutant`` as equivalent, or None."""
    code, description = mutant.key
    for scope in (mutant.scope, None):
        for col in (mutant.col, None):
            for every in (False, True):
                key = (code, description, scope, col, every)
                if key in excluded:
                    return key
    return None


class _Pass(ast.NodeTransformer):
    """Replaces one statement by ``pass``."""

    def __init__(self, target):
        self.target = target

    def generic_visit(self, node):
        if node is self.target:
            return ast.copy_location(ast.Pass(), node)
        return super().generic_visit(node)


def apply(source: str, mutant: Mutant) -> str:
    tree = ast.parse(source)
    node = list(ast.walk(tree))[mutant.index]
    kind = mutant.kind
    if kind == 'binop':
        node.op = _BINOPS[type(node.op)]()
    elif kind.startswith('cmp'):
        i = int(kind[3:])
        node.ops[i] = _CMPOPS[type(node.ops[i])]()
    elif kind == 'boolop':
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif kind == 'unary':
        _replace(tree, node, node.operand)
    elif kind == 'const':
        node.value = _number_change(node.value)
    elif kind == 'swap':
        node.slice.elts.reverse()
    elif kind == 'drop':
        tree = _Pass(node).visit(tree)
    return ast.unparse(ast.fix_missing_locations(tree))


def _replace(tree, old, new) -> None:
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if item is old:
                        value[i] = new
                        return


def _copy_repo(into: Path) -> Path:
    """The repository's tracked and new files under ``into/<name>``, ``../shared`` linked."""
    dest = into / REPO.name
    shutil.copytree(REPO, dest, ignore=shutil.ignore_patterns(
        '.venv', '.venv-*', '.git', '__pycache__', '*.egg-info', '.pytest_cache', 'build',
        'install', 'log', 'results', 'node_modules'))
    shared = REPO.parent / 'shared'
    if shared.exists():
        (into / 'shared').symlink_to(shared)
    return dest


def _forget_bytecode(module: Path) -> None:
    """Remove the module's cached bytecode: a mutant of the same size written within the
    same second as the last one would otherwise pass Python's mtime-and-size check. (The
    rest of the copy keeps its bytecode: compiling the package anew per mutant costs more
    than the tests.)"""
    for cached in (module.parent / '__pycache__').glob(f'{module.stem}.*.pyc'):
        cached.unlink()


PYTEST_ARGS = ['-x', '-q', '-p', 'no:cacheprovider', '--no-header', '-W', 'ignore']


def _run_tests(repo: Path, tests: list[str], timeout: float, show: bool = False,
               counts: dict | None = None, isolated: bool = False) -> tuple[str, float]:
    """The outcome of the tests on the copy (``counts``, when given, gets the numbers of
    passed, skipped, ... tests of the summary line): in a child forked from this process
    (``_forkrun``), or with ``isolated`` in a new Python process."""
    if isolated:
        env = dict(os.environ, PYTHONPATH=str(repo))
        start = time.monotonic()
        try:
            proc = subprocess.run([sys.executable, '-m', 'pytest', *PYTEST_ARGS, *tests],
                                  cwd=repo, env=env, capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return 'killed (timeout)', time.monotonic() - start
        status, output = proc.returncode, proc.stdout + proc.stderr
        seconds = time.monotonic() - start
    else:
        log = repo.parent / 'pytest.log'
        status, seconds = _forkrun.run(repo, [*PYTEST_ARGS, *tests], timeout, log)
        if status is None:
            return 'killed (timeout)', seconds
        output = log.read_text(errors='replace')
    if counts is not None:
        counts.update(summary_counts(output))
    if show and status != 0:
        print('\n'.join(output.splitlines()[-30:]), file=sys.stderr)
    return verdict(status, output), seconds


def verdict(status: int, output: str) -> str:
    """A run's outcome from pytest's exit status and output: 'survived' (the tests pass),
    'killed (import)' (pytest stopped at collection: the mutant breaks an import), or
    'killed' (a test fails, or the process died)."""
    if status == 0:
        return 'survived'
    if status in (2, 3, 4):  # pytest: interrupted, internal or usage error
        tail = ' '.join(output.strip().splitlines()[-3:]).lower()
        if 'error' in tail and 'collect' in tail:
            return 'killed (import)'
    return 'killed'


def summary_counts(output: str) -> dict[str, int]:
    """{'passed': 3, 'skipped': 2, ...} from the summary line of ``pytest -q``."""
    lines = [line for line in output.strip().splitlines() if ' in ' in line]
    if not lines:
        return {}
    found = re.findall(r'(\d+) (passed|failed|skipped|errors?|deselected|xfailed|xpassed)',
                       lines[-1])
    return {word.rstrip('s') if word.startswith('error') else word: int(n)
            for n, word in found}


def baseline_problem(outcome: str, counts: dict[str, int]) -> str | None:
    """Why the unmutated run cannot measure anything, or None: the tests fail, or none of
    them ran (every one skipped or deselected, or none selected), so every mutant would
    survive."""
    ran = counts.get('passed', 0) + counts.get('failed', 0) + counts.get('error', 0)
    if not ran and outcome != 'killed (timeout)':
        skipped = counts.get('skipped', 0)
        return (f'every selected test was skipped ({skipped}); nothing to measure' if skipped
                else 'no test ran; nothing to measure')
    if outcome != 'survived':
        return f'the tests fail on the unmutated module ({outcome}); nothing to measure'
    return None


def _match(found: list[Mutant], survivors: list[dict]) -> list[Mutant]:
    """The mutants of ``found`` that are an earlier run's survivors: same line text, mutation
    and column, on the same line if there is one (lines move when the module changes)."""
    chosen, pool = [], list(found)
    for exact in (True, False):
        for s in list(survivors):
            for m in pool:
                if (m.code, m.description, m.col) == (s['code'], s['description'], s['col']) \
                        and (not exact or m.line == s['line']):
                    chosen.append(m)
                    pool.remove(m)
                    survivors.remove(s)
                    break
    for s in survivors:
        print(f'warning: the survivor {s["description"]!r} of `{s["code"]}` (line {s["line"]}) '
              'is no longer in the module', file=sys.stderr)
    return chosen


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('module', nargs='?', help='the module, relative to the repository')
    parser.add_argument('tests', nargs='*', help='pytest arguments selecting the tests')
    parser.add_argument('--changed-since', metavar='REV',
                        help='every module of body_bridge/ changed since REV (git), each with '
                        'the fast tests that execute it (found by coverage): one table')
    parser.add_argument('--slow', type=float, default=10.0,
                        help='with --changed-since: tests longer than this [s] are left out')
    parser.add_argument('--sample', type=int, help='run this many mutants, drawn at random')
    parser.add_argument('--seed', type=int,
                        help='the seed of the --sample draw (default: a new one, printed and '
                        'recorded)')
    parser.add_argument('--lines', help='only mutants on lines FIRST-LAST')
    parser.add_argument('--all', action='store_true',
                        help='run the mutants bench/equivalent.txt lists as equivalent too')
    parser.add_argument('--timeout', type=float, help='seconds per mutant (default: 5 x the '
                        'unmutated run + 10)')
    parser.add_argument('--survivors-of', metavar='JSON',
                        help='run only the mutants that survived in this earlier --json run '
                        '(after tests were added); the figure counts the earlier kills')
    parser.add_argument('--isolated', action='store_true',
                        help='run each mutant in a new Python process (slower; the default '
                        'forks a process that imported the heavy libraries once)')
    parser.add_argument('--list', action='store_true', help='list the mutants, run nothing')
    parser.add_argument('--json', help='write every result here')
    args = parser.parse_intermixed_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # the temporary copy is removed
    if args.seed is None and args.sample:
        args.seed = new_seed()
        print(f'seed {args.seed} (drawn for this run; --seed {args.seed} draws the same sample)',
              flush=True)
    if args.changed_since:
        if args.module or args.survivors_of or args.lines:
            parser.error('--changed-since takes no module, tests, --survivors-of or --lines')
        return changed_since(args)
    if not args.module or not args.tests:
        parser.error('give a module and the tests (or --changed-since REV)')
    result = measure(Path(args.module), args.tests, args)
    return 0 if result is not None else 2


def new_seed() -> int:
    """A seed drawn from the operating system's randomness (not from the clock, not from
    ``random``'s own state): 1 to 999999, short enough to write in a table."""
    return random.SystemRandom().randint(1, 999_999)


def changed_since(args) -> int:
    """Measure every module changed since ``args.changed_since`` with its fast tests."""
    import coverage_map
    modules = coverage_map.changed_modules(args.changed_since)
    if not modules:
        print(f'no module of body_bridge/ changed since {args.changed_since}')
        return 0
    tests = coverage_map.tests_executing(modules, slow=args.slow)
    rows = []
    for module in modules:
        if not tests[module]:
            rows.append((module, 0, '-', '-', 'no fast test executes it'))
            print(f'{module}: no fast test executes it', file=sys.stderr)
            continue
        files = sorted({t.split('::')[0] for t in tests[module]})
        print(f'{module}: {len(tests[module])} tests in {", ".join(files)}', flush=True)
        result = measure(Path(module), tests[module], args, quiet=True)
        if args.list:
            continue
        if result is None:
            rows.append((module, len(tests[module]), '-', '-', 'the unmutated run failed'))
        else:
            killed, run, equivalent = result
            rows.append((module, len(tests[module]), f'{killed}/{run}',
                         f'{100.0 * killed / run if run else 100.0:.1f} %',
                         f'{equivalent} equivalent excluded'))
    if args.list:
        return 0
    print(f'\nSeed {args.seed}, sample {args.sample or "all"}, {time.strftime("%Y-%m-%d")}:\n\n'
          '| module | fast tests | killed | rate | note |\n|---|---|---|---|---|')
    for row in rows:
        print('| ' + ' | '.join(str(x) for x in row) + ' |')
    return 0 if all(r[2] != '-' or r[1] == 0 for r in rows) else 2


def measure(module: Path, tests: list[str], args, quiet: bool = False
            ) -> tuple[int, int, int] | None:
    """(killed, run, equivalent excluded) of the module's mutants under the tests, or None
    when the unmutated run cannot measure (said in one line)."""
    source = (REPO / module).read_text()
    found = mutants(source)
    excluded = {} if args.all else equivalent_keys(module.as_posix())
    if args.lines:
        first, last = (int(x) for x in args.lines.split('-'))
        found = [m for m in found if first <= m.line <= last]
    equivalent = [m for m in found if _excluded(m, excluded)]
    found = [m for m in found if not _excluded(m, excluded)]
    total = len(found)
    earlier_killed = 0
    sample = args.sample
    if args.survivors_of:
        earlier = json.loads(Path(args.survivors_of).read_text())
        ran = [m for m in earlier['mutants'] if not _excluded(Mutant(
            0, '', m['line'], m['col'], m['description'], m['code'],
            scope=m.get('scope', '')), excluded)]
        survivors = [m for m in ran if m['outcome'] == 'survived']
        earlier_killed = earlier.get('earlier_killed', 0) + len(ran) - len(survivors)
        found = _match(found, survivors)
        sample = None
    if sample and sample < len(found):
        found = random.Random(args.seed).sample(found, sample)
    found.sort(key=lambda m: (m.line, m.col))
    unused = set(excluded) - {_excluded(m, excluded) for m in equivalent}
    for code, description, scope, col, _ in sorted(unused, key=str):
        where = (f' in {scope}' if scope else '') + (f' at column {col}' if col else '')
        print(f'warning: bench/equivalent.txt: no mutant {description!r} of `{code}`{where} in '
              f'{module}', file=sys.stderr)
    places: dict[tuple, list] = {}
    for m in equivalent:
        places.setdefault(_excluded(m, excluded), []).append(
            f'line {m.line} col {m.col}' + (f' in {m.scope}' if m.scope else ''))
    for key, where in sorted(places.items(), key=str):
        if len(where) > 1 and not key[4]:
            print(f'warning: bench/equivalent.txt: {key[1]!r} of `{key[0]}` lists '
                  f'{len(where)} mutants ({", ".join(where)}): name the place of those that '
                  'are equivalent (in FUNCTION, col N), or say all', file=sys.stderr)
    if args.list:
        for m in found:
            print(f'{module}:{m.line}:{m.col}: {m.description}'
                  + (f' (in {m.scope})' if m.scope else ''))
        print(f'{len(found)} mutants ({total} in all, {len(equivalent)} excluded as equivalent)')
        return 0, 0, len(equivalent)

    with tempfile.TemporaryDirectory(prefix='mutate-') as tmp:
        repo = _copy_repo(Path(tmp))
        target = repo / module
        counts: dict[str, int] = {}
        if not args.isolated:
            _forkrun.preload(repo, tests)
        outcome, base = _run_tests(repo, tests, timeout=3600, show=True, counts=counts,
                                   isolated=args.isolated)
        problem = baseline_problem(outcome, counts)
        if problem:
            print(f'{module}: {problem}', file=sys.stderr)
            return None
        if counts.get('skipped'):
            print(f'note: {counts["skipped"]} of the selected tests are skipped', file=sys.stderr)
        timeout = args.timeout or 5 * base + 10
        print(f'{len(found)} mutants of {module} ({total} in all, {len(equivalent)} excluded '
              f'as equivalent); the tests take {base:.1f} s unmutated', flush=True)
        for n, m in enumerate(found, 1):
            target.write_text(apply(source, m))
            _forget_bytecode(target)
            m.outcome, m.seconds = _run_tests(repo, tests, timeout, isolated=args.isolated)
            if m.outcome == 'survived':
                print(f'  survived {module}:{m.line}:{m.col}: {m.description} || {m.code}',
                      flush=True)
            if n % 20 == 0 and not quiet:
                print(f'  ... {n}/{len(found)}', flush=True)
        target.write_text(source)
        _forget_bytecode(target)
    killed = earlier_killed + sum(m.outcome.startswith('killed') for m in found)
    run = earlier_killed + len(found)
    rate = 100.0 * killed / run if run else 100.0
    drawn = f'seed {args.seed}, sample {args.sample}' if args.sample else 'all'
    print(f'{module}: {killed}/{run} killed ({rate:.1f} %), {drawn}, '
          f'{len(equivalent)} equivalent excluded, {time.strftime("%Y-%m-%d")}')
    if args.json:
        out = Path(args.json)
        if args.changed_since:  # one file per module
            out = out.with_name(f'{out.stem}-{"-".join(module.with_suffix("").parts[1:])}'
                                f'{out.suffix}')
        out.write_text(json.dumps({
            'module': str(module), 'tests': tests, 'killed': killed, 'run': run,
            'earlier_killed': earlier_killed, 'seed': args.seed, 'sample': args.sample,
            'total': total, 'equivalent': equivalent_rows(equivalent, excluded),
            'mutants': [asdict(m) for m in found]}, indent=1))
    return killed, run, len(equivalent)


if __name__ == '__main__':
    sys.exit(main())
