"""The simulator API's worlds and named poses: ``LoadWorld``, ``UnloadWorld``,
``GetCurrentWorld``, ``GetAvailableWorlds``, ``GetNamedPoses``, ``GetNamedPoseBounds``.

A world is a world file (``*.world.yaml``, :mod:`body_bridge.sim.building.worldfile`): its models,
their poses, the world's settings and its named poses. The world the bridge started with is
the current one (a world file given as its model, or the models of the command line). Loading
a world replaces every model of the running world (spawned ones too) between two control
periods, without restarting the process: simulated time goes on from where it was (``/clock``
never goes back), and the simulation is left stopped (paused at the new world's initial
state), as the standard asks. Unloading leaves no world: nothing steps, no ``/clock``, the
simulation's state is STATE_NO_WORLD until a world is loaded.
"""

from __future__ import annotations

import os

from geometry_msgs.msg import Vector3
from rclpy.parameter import Parameter
from simulation_interfaces.msg import (Bounds, EntityCategory, NamedPose, Resource, Result,
                                       TagsFilter, WorldResource)
from simulation_interfaces.srv import (GetAvailableWorlds, GetCurrentWorld, GetNamedPoseBounds,
                                       GetNamedPoses, LoadWorld, UnloadWorld)

from ...errors import BodyBridgeError, ModelError
from ...formats import LOADERS
from ...paths import bundled_worlds, files_under
from ...sim.building.worldfile import (WORLD_SETTINGS, WORLD_SUFFIX, is_world_file,
                                       read_named_poses, read_world)
from .control import result
from .world_control import Entity, load_error_code

__all__ = ['WorldServices', 'WorldRefused', 'world_path', 'usable_models', 'tags_match',
           'bounds_message', 'available_worlds']

_PARAMETER_TYPES = {str: Parameter.Type.STRING, float: Parameter.Type.DOUBLE}


class WorldRefused(Exception):
    """A world that cannot be loaded: ``code`` (a LoadWorld result code name) and a line."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def world_path(resource) -> tuple[str, str | None]:
    """(path, text) of the world a Resource names: a world file (``file://`` allowed) or a
    bundled world's name; or ``resource_string``, its text (reported as ``resource_string``).

    Raises:
        WorldRefused: NO_RESOURCE, UNSUPPORTED_FORMAT, or RESULT_NOT_FOUND.
    """
    if resource.resource_string:
        return 'resource_string', resource.resource_string
    uri = resource.uri.removeprefix('file://')
    if not uri:
        raise WorldRefused('NO_RESOURCE', 'neither uri nor resource_string is given')
    worlds = bundled_worlds()
    if not os.path.exists(uri) and uri in worlds:
        return worlds[uri], None
    if not is_world_file(uri):
        raise WorldRefused('UNSUPPORTED_FORMAT', f'{uri}: not a world file (*{WORLD_SUFFIX}); '
                           f'bundled worlds: {", ".join(worlds) or "none"}')
    if not os.path.isfile(uri):
        raise WorldRefused('RESULT_NOT_FOUND', f'{uri}: no such file')
    return uri, None


def usable_models(world, ignore_assets: bool) -> tuple[list, list[str]]:
    """The models of ``world`` whose files are there and of a format read here, and one line
    per model left out (only with ``ignore_assets``).

    Raises:
        WorldRefused: MISSING_ASSETS or UNSUPPORTED_ASSETS (without ``ignore_assets``).
    """
    kept, notes = [], []
    for model in world.models:
        where = f'{world.path}:{model.line}' if model.line else world.path
        if not os.path.isfile(model.path):
            code, problem = 'MISSING_ASSETS', f'{model.path}: no such file'
        elif not model.path.lower().endswith(tuple(LOADERS)):
            code, problem = 'UNSUPPORTED_ASSETS', f'{model.path}: not a model format read here'
        else:
            kept.append(model)
            continue
        if not ignore_assets:
            raise WorldRefused(code, f'{where}: model {model.name}: {problem}')
        notes.append(f'{where}: model {model.name} left out: {problem}')
    return kept, notes


def tags_match(tags, tags_filter) -> bool:
    """Whether ``tags`` pass a TagsFilter (no tags asked: everything passes)."""
    wanted = set(tags_filter.tags)
    have = wanted & set(tags)
    if tags_filter.filter_mode == TagsFilter.FILTER_MODE_ALL:
        return have == wanted
    return not wanted or bool(have)


def bounds_message(bounds) -> Bounds:
    """A named pose's bounds (None, ``('box', lower, upper)``, ``('sphere', centre, r)``) as
    a Bounds message (empty: unbounded)."""
    out = Bounds()
    if bounds is None:
        return out  # TYPE_EMPTY, no points
    kind, first, second = bounds
    points = [first, second] if kind == 'box' else [first, (second, 0.0, 0.0)]
    out.type = Bounds.TYPE_BOX if kind == 'box' else Bounds.TYPE_SPHERE
    out.points = [Vector3(x=float(a), y=float(b), z=float(c)) for a, b, c in points]
    return out


def _world_message(world, given: bool = False) -> WorldResource:
    """A WorldFile as a WorldResource (``given``: as text, no uri)."""
    return WorldResource(name=world.name,
                         world_resource=Resource(uri='' if given else world.path),
                         description=world.description, tags=list(world.tags))


def available_worlds(default_sources, additional, tags_filter,
                     continue_on_error: bool) -> tuple[int, str, list]:
    """(result code, message, WorldResources) of GetAvailableWorlds: the bundled worlds and
    the world files under ``default_sources`` (the ``world_sources`` parameter) and
    ``additional`` (the request's), those whose tags pass ``tags_filter``. A folder that is
    not there or a file that does not read fails the request (a default source:
    DEFAULT_SOURCES_FAILED), or with ``continue_on_error`` is left out (the message says so)
    and the request succeeds if any world was found."""
    files = list(bundled_worlds().values())
    failed = []
    code = Result.RESULT_OK
    for default, folders in ((True, default_sources), (False, additional)):
        for folder in folders:
            try:
                files += files_under(folder.removeprefix('file://'), (WORLD_SUFFIX,))
            except FileNotFoundError as err:
                failed.append(str(err))
                code = GetAvailableWorlds.Response.DEFAULT_SOURCES_FAILED if default \
                    else Result.RESULT_NOT_FOUND
    worlds = []
    for path in files:
        try:
            world = read_world(path)
        except ModelError as err:
            failed.append(str(err))
            code = Result.RESULT_OPERATION_FAILED if code == Result.RESULT_OK else code
            continue
        if tags_match(world.tags, tags_filter):
            worlds.append(_world_message(world))
    if failed and continue_on_error and worlds:
        return Result.RESULT_OK, f'left out: {"; ".join(failed)}', worlds
    if failed:
        return code, '; '.join(failed), []
    return Result.RESULT_OK, '', worlds


class WorldServices:
    """The world services and the named poses of one running world.

    Args:
        node, control, time: the world's node, its WorldControl, its TimeServices.
        make_node: (model path, namespace, frame prefix, parameter overrides) -> a bridge
            node, not yet simulating.
        retire: takes a node out of the process's executor and destroys it.
        world: the WorldFile the bridge started with, or None (the command line's models,
            ``started``).
    """

    def __init__(self, node, control, time, make_node, retire, world=None, started=''):
        self.node, self.control, self.time = node, control, time
        self.runner = control.runner
        self.make_node, self.retire = make_node, retire
        first = self.runner.nodes[0]
        self.settings = {key: first.params[key] for key in WORLD_SETTINGS}
        #: The ``named_poses`` parameter's (ModelError ``parameter named_poses:line: ...``).
        self.own_poses = read_named_poses(first.params['named_poses'])
        self.sources = [s.strip() for s in first.params['world_sources'].split(',') if s.strip()]
        self.current = world
        if world is None:
            self.info = WorldResource(name='command_line', description='the models the bridge '
                                      f'was started with: {started}')
        else:
            self.info = _world_message(world)
        #: Simulated time [s] when the world was unloaded (a load goes on from it).
        self._time = None
        self.services = [
            node.create_service(LoadWorld, 'load_world', self._load),
            node.create_service(UnloadWorld, 'unload_world', self._unload),
            node.create_service(GetCurrentWorld, 'get_current_world', self._get_current),
            node.create_service(GetAvailableWorlds, 'get_available_worlds', self._available),
            node.create_service(GetNamedPoses, 'get_named_poses', self._named_poses),
            node.create_service(GetNamedPoseBounds, 'get_named_pose_bounds', self._pose_bounds),
        ]

    @property
    def loaded(self) -> bool:
        return self.runner.world is not None

    def named_poses(self) -> dict:
        """Name -> NamedPose: the current world's, then the parameter's (over them)."""
        poses = {p.name: p for p in (self.current.named_poses if self.current else ())}
        poses.update((p.name, p) for p in self.own_poses)
        return poses

    # --- loading and unloading ------------------------------------------------------------

    def load(self, request) -> tuple[int, str]:
        """(result code, message) of loading the world a LoadWorld request names."""
        try:
            path, text = world_path(request.world_resource)
            try:
                world = read_world(path, text, os.getcwd())
            except ModelError as err:
                raise WorldRefused('RESOURCE_PARSE_ERROR', str(err)) from None
            if world.unsupported and request.fail_on_unsupported_element:
                raise WorldRefused('UNSUPPORTED_ELEMENTS', world.unsupported[0])
            models, notes = usable_models(world, request.ignore_missing_or_unsupported_assets)
            made = self._nodes(world, models, request.ignore_missing_or_unsupported_assets,
                               notes)
        except WorldRefused as refused:
            code = getattr(LoadWorld.Response, refused.code, None)
            return (getattr(Result, refused.code) if code is None else code), str(refused)
        try:
            self._replace(made, world, text is not None)
        except (BodyBridgeError, TimeoutError) as err:
            for _, node in made:
                node.destroy_node()
            code = Result.RESULT_OPERATION_FAILED if isinstance(err, TimeoutError) else \
                LoadWorld.Response.RESOURCE_PARSE_ERROR
            return code, str(err)
        for line in world.unsupported + tuple(notes):
            self.node.get_logger().warning(f'load_world: {line}')
        self.node.get_logger().info(f'load_world: {world.name} loaded: '
                                    f'{", ".join(m.name for m, _ in made)}')
        return Result.RESULT_OK, '; '.join(notes)

    def _nodes(self, world, models, ignore_assets: bool, notes: list[str]) -> list:
        """(model, bridge node) per model (the node not yet simulating).

        Raises:
            WorldRefused: a model that does not load (the nodes made are destroyed).
        """
        settings = {**self.settings, **world.settings}
        made = []
        for model in models:
            overrides = [Parameter(key, _PARAMETER_TYPES[type(value)], value)
                         for key, value in settings.items()]
            overrides.append(Parameter('initial_pose', Parameter.Type.DOUBLE_ARRAY,
                                       [float(v) for v in (*model.pose.pos, *model.pose.rpy())]))
            try:
                made.append((model, self.make_node(
                    model.path, f'{self.control.namespace}/{model.name}', f'{model.name}/',
                    overrides)))
            except BodyBridgeError as err:
                code = load_error_code(err)
                if ignore_assets and code == 'MISSING_ASSETS':
                    notes.append(f'model {model.name} left out: {err}')
                    continue
                for _, node in made:
                    node.destroy_node()
                raise WorldRefused(code, f'model {model.name}: {err}') from None
        if not made:
            raise WorldRefused('MISSING_ASSETS', f'{world.path}: no model of the world loads')
        return made

    def _replace(self, made: list, world, given: bool) -> None:
        """The running world's models all replaced by ``made``'s (model, node) (or by
        nothing); ``given``: the world came as text."""
        from ...sim.simulation import simulate_together
        runner, nodes = self.runner, [node for _, node in made]

        def swap():
            now = runner.world.time if runner.world is not None else self._time
            sims = []
            if nodes:
                entries = [(n.model, n.sim_options()) for n in nodes]
                sims = simulate_together(entries, [''] + [f'{m.name}/' for m, _ in made[1:]])
                sims[0].world.data.time = now
            self._time = now
            runner.set_paused(True)
            old = runner.replace_world(nodes, sims)
            for node in nodes:
                node.publish_period()
            return old
        old = runner.call(swap)
        if world is not None and 'real_time_factor' in world.settings:
            runner.real_time_factor = world.settings['real_time_factor']
        robot = EntityCategory.CATEGORY_ROBOT
        with self.control.lock:
            self.control.entities = {
                m.name: Entity(m.name, node, False, robot if node.model.movable_joints else 0,
                               m.description, list(m.tags), source=m.path)
                for m, node in made}
        self.current = world
        self.info = _world_message(world, given) if world is not None else None
        self.time.stopped = world is not None
        for node in nodes:
            self.control._add_node(node)
        for node in old:
            node.release_runner()
            self.retire(node)

    def _load(self, request, response):
        code, message = self.load(request)
        response.result = result(code, message)
        if code == Result.RESULT_OK:
            response.world = self.info
        else:
            self.node.get_logger().warning(f'load_world: {message}')
        return response

    def _unload(self, request, response):
        if not self.loaded:
            response.result = result(response.NO_WORLD_LOADED, 'no world is loaded')
            return response
        try:
            self._replace([], None, False)
        except TimeoutError as err:
            response.result = result(Result.RESULT_OPERATION_FAILED, str(err))
            return response
        response.result = result()
        return response

    def _get_current(self, request, response):
        if not self.loaded:
            response.result = result(response.NO_WORLD_LOADED, 'no world is loaded')
            return response
        response.world = self.info
        response.result = result()
        return response

    def _available(self, request, response):
        code, message, worlds = available_worlds(
            self.sources, request.additional_sources, request.filter,
            request.continue_on_error)
        response.result = result(code, message)
        response.worlds = worlds
        return response

    # --- named poses ----------------------------------------------------------------------

    def _named_poses(self, request, response):
        for pose in self.named_poses().values():
            if not tags_match(pose.tags, request.tags):
                continue
            msg = NamedPose(name=pose.name, description=pose.description, tags=list(pose.tags))
            p, q = msg.pose.position, msg.pose.orientation
            p.x, p.y, p.z = (float(v) for v in pose.pose.pos)
            q.w, q.x, q.y, q.z = (float(v) for v in pose.pose.quat())
            response.poses.append(msg)
        response.result = result()
        return response

    def _pose_bounds(self, request, response):
        pose = self.named_poses().get(request.name)
        if pose is None:
            response.result = result(Result.RESULT_NOT_FOUND, f'no named pose {request.name!r} '
                                     f'(named poses: {", ".join(self.named_poses()) or "none"})')
            return response
        response.bounds = bounds_message(pose.bounds)
        response.result = result()
        return response
