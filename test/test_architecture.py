"""The package's shape: imports run one way, no circles, modules of a few hundred lines.

The layers, from the bottom: the neutral model (with errors and the small shared helpers), the
format loaders and mesh readers, the URDF writer, the integrator (``sim/``), the ROS side
(``ros/``), the command line. A module imports only from its own layer or below; ``formats/``,
``model/``, ``geometry/``, ``meshfiles/`` and ``urdf.py`` import neither rclpy nor mujoco;
only ``ros/`` imports rclpy and only ``sim/`` imports mujoco. Inside ``ros/`` and ``sim/``,
each room imports only the rooms :data:`ROOMS` allows it (written down once, here).
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
    'urdf': 5, 'summary': 5, 'sim': 6, 'check': 7, 'rviz': 7, 'srdf': 7, 'ros': 8, 'sweep': 9,
    'cli': 10, 'arguments': 10, '__init__': 10, '__main__': 11,
}
#: What must never be imported below the integrator.
PURE = ('model', 'formats', 'geometry', 'meshfiles', 'urdf', 'errors', 'precedence', 'formula',
        'functions', 'fparser', 'corpus')


#: The rooms inside ``sim/`` and ``ros/`` (a subpackage or a facade module) and the rooms of
#: the same package each may import; every room may also import the layers below its package.
ROOMS: dict[str, set[str]] = {
    'sim.names': set(),
    'sim.sensing': {'sim.names'},
    'sim.mechanics': {'sim.names'},
    'sim.control': {'sim.names'},
    'sim.building': {'sim.names', 'sim.sensing', 'sim.mechanics', 'sim.control'},
    'sim.simulation': {'sim.names', 'sim.mechanics', 'sim.control', 'sim.building'},
    'ros.console': set(),
    'ros.stream': {'ros.console'},
    'ros.devices': {'ros.console', 'ros.stream'},
    'ros.control': {'ros.console', 'ros.stream'},
    'ros.node': {'ros.console', 'ros.stream', 'ros.devices', 'ros.control'},
    'ros.simapi': {'ros.console', 'ros.stream', 'ros.devices', 'ros.control', 'ros.node'},
    'ros.process': {'ros.console', 'ros.stream', 'ros.devices', 'ros.control', 'ros.node',
                    'ros.simapi'},
}
#: The most entries (subpackages and facade modules) the top of ``ros/`` and ``sim/`` holds.
MAX_ENTRIES = 8
#: Third-party packages only one room of the package may import.
OWNERS = {'rclpy': 'ros', 'mujoco': 'sim'}


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


def _inner_room(name: str) -> str | None:
    """The room of ``ros/`` or ``sim/`` a module is in (None: the package's own ``__init__``,
    or a module outside both)."""
    parts = name.split('.')
    if len(parts) < 3 or parts[1] not in ('ros', 'sim'):
        return None
    return f'{parts[1]}.{parts[2]}'


def violations(graph: dict[str, set[str]], imports=None) -> list[str]:
    """Every import that breaks a rule, one line each naming the rule it broke."""
    found = []
    for name in sorted(graph):
        room = _room(name)
        inner = _inner_room(name)
        for target in sorted(graph[name]):
            other = _room(target)
            if other != room and LAYERS[other] > LAYERS[room]:
                found.append(f'{name} imports {target}: imports run downward '
                             f'({room} is layer {LAYERS[room]}, {other} is {LAYERS[other]})')
                continue
            there = _inner_room(target)
            if (inner and there and there != inner and room == _room(target)
                    and there not in ROOMS[inner]):
                allowed = ', '.join(sorted(ROOMS[inner])) or 'no other room'
                found.append(f'{name} imports {target}: {inner} may import only {allowed} '
                             f'of {room}/')
    for name, tops in (imports or {}).items():
        for top in sorted(tops):
            if top in OWNERS and _room(name) != OWNERS[top]:
                found.append(f'{name} imports {top}: only {OWNERS[top]}/ imports {top}')
    return found


def _third_party() -> dict[str, set[str]]:
    return {name: {m.split('.')[0] for m in _imports(name, path)} for name, path in MODULES.items()}


def test_every_room_of_ros_and_sim_is_named_with_its_edges():
    rooms = {_inner_room(name) for name in MODULES} - {None}
    assert rooms == set(ROOMS)
    for room, allowed in ROOMS.items():
        assert allowed <= set(ROOMS) and room not in allowed


def test_the_rooms_import_as_the_table_allows():
    assert violations(GRAPH, _third_party()) == []


def test_ros_and_sim_hold_a_few_entries_at_their_top():
    for room in ('ros', 'sim'):
        entries = [p.name for p in (PACKAGE / room).iterdir() if p.name != '__pycache__']
        assert len(entries) <= MAX_ENTRIES, (room, sorted(entries))


def test_a_wrong_import_is_named_with_the_rule_it_breaks():
    graph = {name: set(deps) for name, deps in GRAPH.items()}
    graph['body_bridge.sim.sensing.render'].add('body_bridge.sim.building.world')
    graph['body_bridge.ros.stream.outlets'].add('body_bridge.ros.node.node')
    graph['body_bridge.sim.names'].add('body_bridge.ros.console')
    found = violations(graph, {'body_bridge.check': {'mujoco'}, 'body_bridge.cli': {'rclpy'},
                               'body_bridge.sim.simulation': {'mujoco'}})
    assert found == [
        'body_bridge.ros.stream.outlets imports body_bridge.ros.node.node: ros.stream may import '
        'only ros.console of ros/',
        'body_bridge.sim.names imports body_bridge.ros.console: imports run downward '
        '(sim is layer 6, ros is 8)',
        'body_bridge.sim.sensing.render imports body_bridge.sim.building.world: sim.sensing '
        'may import only sim.names of sim/',
        'body_bridge.check imports mujoco: only sim/ imports mujoco',
        'body_bridge.cli imports rclpy: only ros/ imports rclpy',
    ]
