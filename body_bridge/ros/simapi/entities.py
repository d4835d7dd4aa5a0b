"""The simulator API's view of the entities: find them, read and set their state and info.

``GetEntities`` (filters: a regular expression on the name, categories, tags, bounds),
``GetEntityState``, ``GetEntitiesStates``, ``SetEntityState``, ``GetEntityInfo``,
``SetEntityInfo``, ``GetEntityBounds``. Poses are those of a model's root link; a state is
given in the frame its header names: ``world`` (or empty), or ``<entity>`` / ``<entity>/<link>``
for a frame of an entity.
"""

from __future__ import annotations

import math
import re

import numpy as np
from geometry_msgs.msg import Vector3
from simulation_interfaces.msg import Bounds, EntityState, Result, TagsFilter
from simulation_interfaces.srv import (GetEntities, GetEntitiesStates, GetEntityBounds,
                                       GetEntityInfo, GetEntityState, SetEntityInfo,
                                       SetEntityState)

from ...model import Pose
from ...sim.building.entities import StateRefused, entity_bounds, entity_state, set_entity_state
from .control import result

__all__ = ['EntityServices', 'pose_of', 'frame_pose']

WORLD_FRAMES = ('', 'world')


def pose_of(msg) -> Pose:
    """A geometry_msgs/Pose as a Pose.

    Raises:
        ValueError: a coordinate that is not finite, or a quaternion that is not one.
    """
    p, q = msg.position, msg.orientation
    pos = (p.x, p.y, p.z)
    quat = (q.w, q.x, q.y, q.z)
    if not all(math.isfinite(v) for v in pos + quat):
        raise ValueError('the pose has a value that is not finite')
    norm = math.sqrt(sum(v * v for v in quat))
    if abs(norm - 1.0) > 1e-3:
        raise ValueError(f'the orientation is not a unit quaternion (its norm is {norm:.6g})')
    return Pose.from_quat(quat, pos)


def frame_pose(control, frame: str) -> Pose:
    """The pose in the world of a frame named in a header.

    Raises:
        KeyError: no such entity or link.
    """
    if frame in WORLD_FRAMES:
        return Pose()
    name, _, link = frame.partition('/')
    entity = control.entity(name)
    sim = entity.sim
    link = link or sim.model.root
    try:
        pos, quat = sim.body_pose(link)
    except (KeyError, ValueError):
        raise KeyError(f'{name} has no link {link!r}') from None
    return Pose.from_quat(quat, pos)


def _set_pose(msg, pose: Pose) -> None:
    msg.position.x, msg.position.y, msg.position.z = (float(v) for v in pose.pos)
    w, x, y, z = (float(v) for v in pose.quat())
    msg.orientation.w, msg.orientation.x, msg.orientation.y, msg.orientation.z = w, x, y, z


def _set_vector(msg, values) -> None:
    msg.x, msg.y, msg.z = (float(v) for v in values)


class EntityServices:
    """Finding entities, their state, info and bounds."""

    def __init__(self, node, control):
        self.node, self.control, self.runner = node, control, control.runner
        self.services = [
            node.create_service(GetEntities, 'get_entities', self._get_entities),
            node.create_service(GetEntitiesStates, 'get_entities_states', self._get_states),
            node.create_service(GetEntityState, 'get_entity_state', self._get_state),
            node.create_service(SetEntityState, 'set_entity_state', self._set_state),
            node.create_service(GetEntityInfo, 'get_entity_info', self._get_info),
            node.create_service(SetEntityInfo, 'set_entity_info', self._set_info),
            node.create_service(GetEntityBounds, 'get_entity_bounds', self._get_bounds),
        ]

    # --- finding --------------------------------------------------------------------------

    def _matching(self, filters) -> list[str]:
        """Names of the entities that pass every filter given.

        Raises:
            ValueError: a regular expression that does not compile, bounds not understood.
        """
        try:
            pattern = re.compile(filters.filter) if filters.filter else None
        except re.error as err:
            raise ValueError(f'filter {filters.filter!r}: {err}') from None
        categories = {c.category for c in filters.categories}
        wanted = set(filters.tags.tags)
        box = self._bounds_filter(filters.bounds)
        out = []
        for name, entity in list(self.control.entities.items()):
            if pattern is not None and not pattern.search(name):
                continue
            if categories and entity.category not in categories:
                continue
            if wanted:
                have = wanted & set(entity.tags)
                if not have or (filters.tags.filter_mode == TagsFilter.FILTER_MODE_ALL and
                                have != wanted):
                    continue
            if box is not None and not self._overlaps(entity, box):
                continue
            out.append(name)
        return out

    @staticmethod
    def _bounds_filter(bounds):
        if bounds.type == Bounds.TYPE_EMPTY:
            return None
        points = np.array([(p.x, p.y, p.z) for p in bounds.points])
        if bounds.type == Bounds.TYPE_BOX and len(points) == 2:
            return 'box', np.minimum(points[0], points[1]), np.maximum(points[0], points[1])
        if bounds.type == Bounds.TYPE_SPHERE and len(points) == 2:
            return 'sphere', points[0], float(points[1][0])
        raise ValueError('bounds filter: a box (two corners) or a sphere (centre, then '
                         'radius as x) is understood here')

    def _overlaps(self, entity, box) -> bool:
        with self.runner.lock:
            lower, upper = entity_bounds(entity.sim, local=False)
        if box[0] == 'box':
            return bool(np.all(lower <= box[2]) and np.all(upper >= box[1]))
        nearest = np.minimum(np.maximum(box[1], lower), upper)
        return float(np.linalg.norm(nearest - box[1])) <= box[2]

    def _get_entities(self, request, response):
        try:
            response.entities = self._matching(request.filters)
            response.result = result()
        except ValueError as err:
            response.result = result(Result.RESULT_OPERATION_FAILED, str(err))
        return response

    # --- state ----------------------------------------------------------------------------

    def _state(self, name: str, frame: str = 'world') -> EntityState:
        entity = self.control.entity(name)
        with self.runner.lock:
            reference = frame_pose(self.control, frame)
            s = entity_state(entity.sim)
            stamp = entity.sim.time
        out = EntityState()
        out.header.frame_id = frame or 'world'
        out.header.stamp.sec = int(stamp)
        out.header.stamp.nanosec = int(round((stamp - int(stamp)) * 1e9)) % 1_000_000_000
        inverse = reference.inverse()
        _set_pose(out.pose, inverse @ Pose.from_quat(s.quat, s.pos))
        rot = inverse.rot
        _set_vector(out.twist.linear, rot @ s.linear)
        _set_vector(out.twist.angular, rot @ s.angular)
        _set_vector(out.acceleration.linear, rot @ s.linear_acc)
        _set_vector(out.acceleration.angular, rot @ s.angular_acc)
        return out

    def _get_state(self, request, response):
        try:
            response.state = self._state(request.entity)
            response.result = result()
        except KeyError as err:
            response.result = result(Result.RESULT_NOT_FOUND, err.args[0])
        return response

    def _get_states(self, request, response):
        try:
            names = self._matching(request.filters)
            response.states = [self._state(name) for name in names]
            response.entities = names
            response.result = result()
        except ValueError as err:
            response.result = result(Result.RESULT_OPERATION_FAILED, str(err))
        except KeyError as err:  # deleted meanwhile
            response.result = result(Result.RESULT_NOT_FOUND, err.args[0])
        return response

    def _set_state(self, request, response):
        state = request.state
        try:
            entity = self.control.entity(request.entity)
            reference = frame_pose(self.control, state.header.frame_id)
        except KeyError as err:
            response.result = result(Result.RESULT_NOT_FOUND, err.args[0])
            return response
        try:
            pose = reference @ pose_of(state.pose) if request.set_pose else None
            twist = state.twist
            linear = angular = None
            if request.set_twist:
                values = [twist.linear.x, twist.linear.y, twist.linear.z,
                          twist.angular.x, twist.angular.y, twist.angular.z]
                if not all(math.isfinite(v) for v in values):
                    raise ValueError('the twist has a value that is not finite')
                linear = reference.rot @ np.array(values[:3])
                angular = reference.rot @ np.array(values[3:])
        except ValueError as err:
            response.result = result(response.INVALID_POSE, f'{request.entity}: {err}')
            return response
        if request.set_acceleration:
            response.result = result(Result.RESULT_FEATURE_UNSUPPORTED,
                                     'setting an acceleration is not supported')
            return response
        sim = entity.sim
        try:
            self.runner.call(lambda: set_entity_state(sim, pose, linear, angular))
        except StateRefused as err:
            response.result = result(Result.RESULT_OPERATION_FAILED, str(err))
            return response
        response.result = result()
        return response

    # --- info and bounds ------------------------------------------------------------------

    def _get_info(self, request, response):
        try:
            entity = self.control.entity(request.entity)
        except KeyError as err:
            response.result = result(Result.RESULT_NOT_FOUND, err.args[0])
            return response
        response.info.category.category = entity.category
        response.info.description = entity.description or \
            f'{entity.sim.model.name} from {entity.source}'
        response.info.tags = list(entity.tags)
        response.result = result()
        return response

    def _set_info(self, request, response):
        try:
            entity = self.control.entity(request.entity)
        except KeyError as err:
            response.result = result(Result.RESULT_NOT_FOUND, err.args[0])
            return response
        entity.category = request.info.category.category
        entity.description = request.info.description
        entity.tags = list(request.info.tags)
        response.result = result()
        return response

    def _get_bounds(self, request, response):
        try:
            entity = self.control.entity(request.entity)
        except KeyError as err:
            response.result = result(Result.RESULT_NOT_FOUND, err.args[0])
            return response
        with self.runner.lock:
            lower, upper = entity_bounds(entity.sim)
        response.bounds.type = Bounds.TYPE_BOX
        response.bounds.points = [Vector3(x=float(a), y=float(b), z=float(c))
                                  for a, b, c in (lower, upper)]
        response.result = result()
        return response
