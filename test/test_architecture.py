"""The package's shape: imports run one way, no circles, modules of a few hundred lines.

The layers, from the bottom: the neutral model (with errors and the small shared helpers), the
format loaders and mesh readers, the URDF writer, the integrator (``sim/``), the ROS side
(``ros/``), the command line. A module imports only from its own layer or below; ``formats/``,
``model/``, ``geometry/``, ``meshfiles/`` and ``urdf.py`` import neither rclpy nor mujoco.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / 'body_bridge'

#: Modules allowed over MAX_LINES, each one indivisible idea (its docstring says so).
MAX_LINES = 420
LONG_MODULES: dict[str, str] = {}

#: Layer of each top-level module or subpackage: a module may import from its layer or below.
LAYERS = {
    'errors': 0, 'fileaccess': 0, 'precedence': 0, 'formula': 0, 'fparser': 0, 'corpus': 0,
    'model': 1,
    'functions': 2, 'geometry': 2, 'kinematics': 2, 'meshfiles': 3, 'textures': 3, 'formats': 4,
    'device_overlay': 4, 'paths': 5,
    'urdf': 5, 'summary': 5, 'sim': 6, 'check': 7, 'rviz': 7, 'srdf': 7, 'ros': 8, 'cli': 9,
    'arguments': 9,
    '__init__': 9, '__main__': 10,
}
#: What must never be imported below the integrator.
PURE = ('model', 'formats', 'geometry', 'meshfiles', 'urdf', 'errors', 'precedence', 'formula',
        'functions', 'fparser', 'corpus')


def _modules() -> dict[str, Path]:
    mods = {}
    for path in PACKAGE.rglob('*.py'):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix('').parts)
        if parts[-1] == '__init__':
            parts = parts[:-1]
        mods['.'.join(parts)] = path
    return mods


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """Modules of the package that ``name`` imports (lazily or not), and other top names."""
    package = name if path.name == '__init__.py' else name.rsplit('.', 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split('.')[:len(package.split('.')) - node.level + 1]
                module = '.'.join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ''
            subs = [f'{module}.{alias.name}' for alias in node.names]
            inside = [s for s in subs if s in MODULES]
            found.update(inside)
            if len(inside) < len(subs):
                found.add(module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    found.discard(name)
    return found


GRAPH = {name: {m for m in _imports(name, path) if m in MODULES} for name, path in MODULES.items()}


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return found


def _room(name: str) -> str:
    parts = name.split('.')
    return parts[1] if len(parts) > 1 else '__init__'


def test_no_import_circles():
    assert _cycles() == []


def test_the_cycle_finder_finds_a_circle():
    GRAPH['body_bridge.model'].add('body_bridge.urdf')
    try:
        assert any('body_bridge.model' in c and 'body_bridge.urdf' in c for c in _cycles())
    finally:
        GRAPH['body_bridge.model'].discard('body_bridge.urdf')


def test_every_room_has_a_layer():
    assert {_room(name) for name in MODULES} <= set(LAYERS)


def test_imports_run_downward():
    upward = {name: sorted(m for m in GRAPH[name]
                           if _room(m) != _room(name) and LAYERS[_room(m)] > LAYERS[_room(name)])
              for name in MODULES}
    assert {name: ups for name, ups in upward.items() if ups} == {}


def test_model_side_imports_neither_ros_nor_the_integrator():
    banned = {'rclpy', 'mujoco'}
    found = {name: sorted({m.split('.')[0] for m in _imports(name, path)} & banned)
             for name, path in MODULES.items() if _room(name) in PURE}
    assert {name: tops for name, tops in found.items() if tops} == {}


def test_modules_are_a_few_hundred_lines():
    long = {name: path.read_text().count('\n') for name, path in MODULES.items()
            if name not in LONG_MODULES}
    assert {name: n for name, n in long.items() if n > MAX_LINES} == {}


def test_every_module_says_what_it_holds():
    silent = []
    for name, path in MODULES.items():
        doc = ast.get_docstring(ast.parse(path.read_text()))
        if path.name != '__main__.py' and not (doc and len(doc.split()) >= 4):
            silent.append(name)
    assert silent == []


def test_each_format_is_a_package_with_load_and_its_file_endings():
    from body_bridge.formats import chrono, choreonoid, openrave
    for fmt in (choreonoid, openrave, chrono):
        assert callable(fmt.load) and fmt.EXTENSIONS
        assert Path(fmt.__file__).name == '__init__.py'
