"""Which fast tests execute which module: the map ``mutate.py --changed-since`` runs from.

The modules a change touched are the ``body_bridge/*.py`` files ``git diff REV`` names (and new,
untracked ones). Their tests are found in three steps:

1. the test files that import them, directly or through other modules (read from the source:
   ``import`` statements anywhere in a file, relative ones resolved) are the candidates;
2. those files run once under coverage.py with one dynamic context per test (its pytest node
   id), recording only the changed modules; tests that use the ``bridge`` fixture are not run;
3. a test executes a module when its context covers a line of it (lines run at import belong
   to no test). End-to-end tests are left out: a test that starts another process
   (``subprocess.Popen``, a bridge) or takes longer than ``slow`` seconds.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = 'body_bridge'


def changed_modules(rev: str, repo: Path = REPO) -> list[str]:
    """The package's modules (paths relative to the repository) changed since ``rev``."""
    def git(*args):
        out = subprocess.run(['git', '-C', str(repo), *args], capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f'git {" ".join(args)}: {out.stderr.strip().splitlines()[-1]}')
        return out.stdout.split()
    names = git('diff', '--name-only', rev, '--', PACKAGE) + \
        git('ls-files', '--others', '--exclude-standard', '--', PACKAGE)
    return sorted({n for n in names if n.endswith('.py') and (repo / n).is_file()})


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix('').parts)
    if parts[-1] == '__init__':
        parts.pop()
    return '.'.join(parts)


def _imports(path: Path, name: str) -> set[str]:
    """Every module name ``path`` (module ``name``) imports, relative imports resolved; for
    ``from a import b`` both ``a`` and ``a.b`` (b may be a module)."""
    package = name if path.name == '__init__.py' else name.rpartition('.')[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                parts = package.split('.')
                parts = parts[:len(parts) - node.level + 1] if node.level > 1 else parts
                base = '.'.join(parts + ([base] if base else []))
            out.add(base)
            out.update(f'{base}.{alias.name}' for alias in node.names)
    return out


def importers(modules: list[str], repo: Path = REPO) -> dict[str, list[str]]:
    """module path -> the test files (``test/...``) that import it, directly or not."""
    files = {_module_name(p, repo): p for p in (repo / PACKAGE).rglob('*.py')}
    test_dir = repo / 'test'
    helpers = {_module_name(p, test_dir): p for p in test_dir.glob('*.py')}
    graph = {name: _imports(path, name) for name, path in files.items()}
    graph.update({f'test:{name}': {helpers.get(i) and f'test:{i}' or i
                                    for i in _imports(path, name)}
                  for name, path in helpers.items()})
    for name in files:  # a package imports its parent packages' __init__ too
        parts = name.split('.')
        graph[name].update('.'.join(parts[:k]) for k in range(1, len(parts)))
    reach: dict[str, set[str]] = {}

    def reachable(node: str) -> set[str]:
        if node not in reach:
            reach[node] = set()
            seen, todo = set(), [node]
            while todo:
                current = todo.pop()
                for nxt in graph.get(current, ()):
                    if nxt in graph and nxt not in seen:
                        seen.add(nxt)
                        todo.append(nxt)
            reach[node] = seen
        return reach[node]

    tests = sorted(n for n in helpers if n.startswith('test_'))
    out = {}
    for module in modules:
        name = _module_name(repo / module, repo)
        out[module] = [f'test/{t}.py' for t in tests if name in reachable(f'test:{t}')]
    return out


def tests_executing(modules: list[str], python: str = sys.executable, slow: float = 10.0,
                    repo: Path = REPO, extra: list[str] = ()) -> dict[str, list[str]]:
    """module path -> the node ids of the fast tests that execute a line of it."""
    candidates = importers(modules, repo)
    files = sorted({f for fs in candidates.values() for f in fs})
    out = {m: [] for m in modules}
    if not files:
        return out
    with tempfile.TemporaryDirectory(prefix='covmap-') as tmp:
        report = Path(tmp) / 'tests.json'
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).parent),
                                                           str(repo)]),
                   COVMAP_DATA=str(Path(tmp) / 'coverage'), COVMAP_REPORT=str(report),
                   COVMAP_INCLUDE=os.pathsep.join(str(repo / m) for m in modules))
        cmd = [python, '-m', 'pytest', '-q', '-p', '_coverage_plugin', '-p',
               'no:cacheprovider', '--no-header', '-W', 'ignore', *extra, *files]
        print(f'coverage run: {len(files)} test files import the changed modules',
              file=sys.stderr, flush=True)
        subprocess.run(cmd, cwd=repo, env=env, stdout=subprocess.DEVNULL)
        if not report.exists():
            raise SystemExit('the coverage run wrote no report (did pytest start?)')
        tests = json.loads(report.read_text())
        import coverage
        data = coverage.CoverageData(basename=str(Path(tmp) / 'coverage'))
        data.read()
        for module in modules:
            contexts = set()
            for lines in (data.contexts_by_lineno(str(repo / module)) or {}).values():
                contexts.update(lines)
            out[module] = sorted(c for c in contexts if c in tests
                                 and tests[c]['passed'] and not tests[c]['process']
                                 and tests[c]['seconds'] <= slow)
    return out
