"""The simulator API's spawning and deleting: ``SpawnEntity``, ``SpawnEntities``,
``DeleteEntity``, ``GetSpawnables``.

A model is given by ``uri`` (a file any loader reads, or the name of a bundled model; a
``file://`` prefix is taken off) or by ``resource_string`` (the file's text; its format
recognised from its content). Its initial pose is in the frame its header names (``world``
or empty, or a frame of an entity: ``<entity>`` or ``<entity>/<link>``).
"""

from __future__ import annotations

import os

from simulation_interfaces.msg import Resource, Result, SpawnResult, Spawnable
from simulation_interfaces.srv import (DeleteEntity, GetSpawnables, SpawnEntities,
                                       SpawnEntity)

from ...errors import BodyBridgeError
from ...formats import LOADERS
from ...paths import bundled_models, files_under
from ...sim.building.worldfile import is_world_file
from .control import result
from .entities import frame_pose, pose_of
from .world_control import SpawnRefused, load_error_code

__all__ = ['SpawnServices', 'spawn_formats', 'format_of_text']


def spawn_formats() -> list[str]:
    """The file endings the loaders take, without their dot."""
    return sorted(ext.lstrip('.') for ext in LOADERS)


def format_of_text(text: str) -> str | None:
    """The file ending of a model given as text, recognised from its content (None: not
    recognised)."""
    head = text.lstrip()[:4000]
    if head.startswith('<'):
        if '<robot' in head and '<link' in head:  # URDF (OpenRAVE has no <link>)
            return '.urdf'
        lowered = head.lower()  # the first of these elements is the root
        found = [(lowered.find(tag), ext) for tag, ext in (
            ('<robot', '.robot.xml'), ('<kinbody', '.kinbody.xml'),
            ('<environment', '.env.xml'), ('<collada', '.dae')) if tag in lowered]
        return min(found)[1] if found else None
    if 'ChoreonoidBody' in head:
        return '.body'
    if 'model:' in head:  # a Chrono YAML model
        return '.yaml'
    return None


class SpawnServices:
    """Spawning, deleting, and what can be spawned.

    Args:
        make_node: (model path, namespace, frame prefix) -> a bridge node, not yet simulating.
        sources: folders whose model files GetSpawnables lists besides the bundled models.
    """

    def __init__(self, node, control, make_node, sources: list[str] = ()):
        self.node, self.control, self.make_node = node, control, make_node
        self.sources = list(sources)
        self.services = [
            node.create_service(SpawnEntity, 'spawn_entity', self._spawn_one),
            node.create_service(SpawnEntities, 'spawn_entities', self._spawn_many),
            node.create_service(DeleteEntity, 'delete_entity', self._delete),
            node.create_service(GetSpawnables, 'get_spawnables', self._spawnables),
        ]

    # --- spawning -------------------------------------------------------------------------

    def _path(self, resource) -> str:
        """The model file a Resource names.

        Raises:
            SpawnRefused: NO_RESOURCE, UNSUPPORTED_FORMAT.
        """
        if resource.resource_string:
            ext = format_of_text(resource.resource_string)
            if ext is None and resource.uri:
                ext = next((e for e in sorted(LOADERS, key=len, reverse=True)
                            if resource.uri.lower().endswith(e)), None)
            if ext is None:
                raise SpawnRefused('UNSUPPORTED_FORMAT', 'resource_string: the format is not '
                                   'recognised (spawn_formats lists those read here)')
            return self.control.resource_file(resource.resource_string, ext)
        uri = resource.uri
        if not uri:
            raise SpawnRefused('NO_RESOURCE', 'neither uri nor resource_string is given')
        if uri.startswith('file://'):
            uri = uri[len('file://'):]
        if os.path.exists(uri):
            name = os.path.basename(uri).lower()
            if not any(name.endswith(ext) for ext in LOADERS):
                raise SpawnRefused('UNSUPPORTED_FORMAT', f'{uri}: not a format read here '
                                   f'(spawn_formats: {", ".join(spawn_formats())})')
            return uri
        models = bundled_models()
        if uri in models:
            return models[uri]
        raise SpawnRefused('NO_RESOURCE', f'{uri}: no such file, and no bundled model of '
                           f'that name (bundled: {", ".join(models) or "none"})')

    def spawn(self, request) -> tuple[int, str, str]:
        """(result code, message, entity name) of one spawn request."""
        try:
            path = self._path(request.entity_resource)
            fallback = os.path.basename(request.entity_resource.uri or 'entity').split('.')[0]
            name = self.control.name_for(request.name, request.allow_renaming, fallback)
            namespace = request.entity_namespace
            if namespace and not all(part and part[0].isalpha() and
                                     part.replace('_', 'a').isalnum()
                                     for part in namespace.strip('/').split('/')):
                raise SpawnRefused('NAMESPACE_INVALID',
                                   f'{namespace!r} is not a valid ROS namespace')
            if namespace and not namespace.startswith('/'):
                namespace = f'{self.control.namespace}/{namespace}'
            try:
                pose = frame_pose(self.control, request.initial_pose.header.frame_id) @ \
                    pose_of(request.initial_pose.pose)
            except (ValueError, KeyError) as err:
                raise SpawnRefused('INVALID_POSE', f'initial_pose: {err.args[0]}') from None
            if self.control.runner.world is None:
                return Result.RESULT_OPERATION_FAILED, 'no world is loaded (load_world)', ''
            try:
                self.control.spawn(name, path, pose, namespace, self.make_node)
            except BodyBridgeError as err:
                raise SpawnRefused(load_error_code(err), str(err)) from None
            except TimeoutError as err:
                return Result.RESULT_OPERATION_FAILED, str(err), ''
        except SpawnRefused as refused:
            return getattr(SpawnEntity.Response, refused.code), str(refused), ''
        return Result.RESULT_OK, '', name

    def _spawn_one(self, request, response):
        code, message, name = self.spawn(request)
        response.result = result(code, message)
        response.entity_name = name
        if code != Result.RESULT_OK:
            self.node.get_logger().warning(f'spawn_entity: {message}')
        return response

    def _spawn_many(self, request, response):
        failed = False
        for one in request.spawn_requests:
            code, message, name = self.spawn(one)
            response.results.append(SpawnResult(result=result(code, message), entity_name=name))
            failed = failed or code != Result.RESULT_OK
        response.result = result(response.ENTITIES_SPAWN_FAILED,
                                 'at least one entity was not spawned (see results)') \
            if failed else result()
        return response

    # --- deleting -------------------------------------------------------------------------

    def _delete(self, request, response):
        try:
            self.control.delete(request.entity)
            response.result = result()
        except KeyError as err:
            response.result = result(Result.RESULT_NOT_FOUND, err.args[0])
        except (ValueError, TimeoutError) as err:
            response.result = result(Result.RESULT_OPERATION_FAILED, str(err))
        return response

    # --- what can be spawned --------------------------------------------------------------

    def _spawnables(self, request, response):
        found = [(path, f'bundled model {name}') for name, path in bundled_models().items()]
        endings = [ext for ext in LOADERS if ext != '.xml']
        for folder in [*self.sources, *request.sources]:
            try:
                found += [(path, 'model file') for path in files_under(folder, endings)
                          if not is_world_file(path)]
            except FileNotFoundError as err:
                response.result = result(Result.RESULT_NOT_FOUND, str(err))
                return response
        response.spawnables = [Spawnable(entity_resource=Resource(uri=path), description=text)
                               for path, text in found]
        response.result = result()
        return response
