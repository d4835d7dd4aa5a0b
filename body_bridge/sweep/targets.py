"""What a sweep's names mean in its world: entities, links, joints, devices, parameters.

A varied or fixed quantity is one of::

    real_time_factor                      the world's pace (0: as fast as it can)
    ENTITY.x .y .z .roll .pitch .yaw      where a model (or a named pose) starts [m, rad]
    ENTITY.friction, ENTITY/LINK.friction the sliding friction of its collision surfaces
    MODEL.PARAMETER                       a node parameter of that model: noise_seed,
                                          initial_positions.JOINT, devices.DEVICE.noise.KEY,
                                          joint_states.noise.KEY, servo_damping, ...

A check names ENTITY (its root link), ENTITY/LINK, MODEL/JOINT or a topic. Every name is
looked up in the world before any run starts; a name the world does not have is refused with
the sweep file's line (:func:`resolve`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from ..device_overlay import JOINT_NOISE_KEYS, NOISE_KEYS
from ..errors import BodyBridgeError, ModelError
from ..model import Model, Pose
from ..sim.building.worldfile import WorldFile, WorldModel, read_world
from .spec import Sweep, Variable

__all__ = ['Plan', 'resolve', 'POSE_AXES', 'apply_poses']

#: The pose coordinates a sweep may vary.
POSE_AXES = ('x', 'y', 'z', 'roll', 'pitch', 'yaw')
#: Node parameters a sweep may set on a model (world-wide ones: the first model's).
_PARAMETERS = ('noise_seed', 'servo_frequency', 'servo_damping', 'gravity_compensation',
               'default_velocity_limit', 'self_collision', 'kinematic', 'timestep',
               'control_rate', 'ground_plane', 'on_divergence', 'root', 'devices_file',
               'material_table', 'track_lateral_friction', 'passive_joints')


@dataclass
class Plan:
    """A sweep resolved against its world: what every name of it means.

    Attributes:
        world: the world of every run (before a run's poses are applied).
        models: entity name -> the loaded Model.
        topics: every topic the world's nodes can publish (absolute names).
    """

    sweep: Sweep
    world: WorldFile
    models: dict[str, Model]
    topics: set[str]

    def entity_link(self, target: str, line: int | None) -> tuple[str, str]:
        """(entity, link) of ``ENTITY`` (its root link) or ``ENTITY/LINK``."""
        entity, _, link = target.partition('/')
        model = self.models.get(entity)
        if model is None:
            raise self.fail(line, f'{target!r}: the world has no entity {entity!r} (it has '
                            f'{", ".join(self.models)})')
        if not link:
            return entity, model.root
        if link not in {l.name for l in model.links}:
            raise self.fail(line, f'{target!r}: entity {entity!r} has no link {link!r}')
        return entity, link

    def entity_joint(self, target: str, line: int | None) -> tuple[str, str]:
        entity, _, joint = target.partition('/')
        model = self.models.get(entity)
        if model is None or not joint:
            raise self.fail(line, f'{target!r}: a joint is named MODEL/JOINT, with MODEL one '
                            f'of {", ".join(self.models)}')
        if joint not in {j.name for j in model.movable_joints}:
            raise self.fail(line, f'{target!r}: model {entity!r} has no moving joint '
                            f'{joint!r}')
        return entity, joint

    def fail(self, line: int | None, message: str) -> ModelError:
        return ModelError(self.sweep.path, line, message)


def _world(sweep: Sweep) -> WorldFile:
    if sweep.world is not None:
        world = read_world(sweep.world)
        for model in world.models:
            if not os.path.exists(model.path):
                raise ModelError(world.path, model.line,
                                 f'model {model.name}: {model.path}: no such file')
        return world
    from ..paths import resolve_model
    from ..ros.process.launcher import model_names
    models = []
    for name, spec in model_names(list(sweep.models)):
        try:
            models.append(WorldModel(name, resolve_model(spec)))
        except BodyBridgeError as err:
            raise ModelError(sweep.path, sweep.lines.get('models'), str(err)) from None
    return WorldFile(sweep.name, sweep.path, models=tuple(models))


def _topics(world: WorldFile, models: dict[str, Model]) -> set[str]:
    from ..ros.devices.graph import device_topics
    out = {'/tf', '/tf_static', '/clock'}
    for entry in world.models:
        ns = f'/{entry.name}'
        out |= {f'{ns}/joint_states', f'{ns}/robot_description', f'{ns}/odom'}
        for group in device_topics(models[entry.name]):
            out |= {t.name if t.name.startswith('/') else f'{ns}/{t.name}' for t in group.topics}
    return out


def _check_quantity(plan: Plan, var: Variable, where: str) -> None:
    name, line = var.name, var.line
    if name == 'real_time_factor':
        value = var.distribution.args
        if any(not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0 for v in value
               if var.distribution.kind in ('list', 'choice', 'constant')) or \
                (var.distribution.kind in ('uniform', 'normal', 'integers') and value[0] < 0):
            raise plan.fail(line, f'{where}.{name}: a real-time factor is a number >= 0')
        return
    head, _, quantity = name.partition('.')
    if not quantity:
        raise plan.fail(line, f'{where}.{name}: name ENTITY.QUANTITY (crate.x, arm.noise_seed) '
                        'or real_time_factor')
    entity = head.partition('/')[0]
    poses = {p.name for p in plan.world.named_poses}
    if quantity in POSE_AXES and '/' not in head and (entity in plan.models or entity in poses):
        return
    if quantity == 'friction':
        if entity not in plan.models:
            raise plan.fail(line, f'{where}.{name}: the world has no entity {entity!r}')
        plan.entity_link(head, line)
        return
    if entity not in plan.models:
        known = ', '.join([*plan.models, *sorted(poses)])
        raise plan.fail(line, f'{where}.{name}: the world has no entity {entity!r} (it has '
                        f'{known})')
    if '/' in head:
        raise plan.fail(line, f'{where}.{name}: only friction is varied per link')
    _check_parameter(plan, entity, quantity, line, f'{where}.{name}')


def _check_parameter(plan: Plan, entity: str, parameter: str, line, what: str) -> None:
    from ..ros.devices.sensors import topic_name
    model = plan.models[entity]
    parts = parameter.split('.')
    if parameter in _PARAMETERS:
        return
    if parts[0] == 'initial_positions' and len(parts) == 2:
        if parts[1] not in {j.name for j in model.movable_joints}:
            raise plan.fail(line, f'{what}: model {entity!r} has no moving joint '
                            f'{parts[1]!r}')
        return
    if parts[:2] == ['joint_states', 'noise'] and len(parts) == 3 and \
            parts[2] in JOINT_NOISE_KEYS:
        return
    if parts[0] == 'devices' and len(parts) >= 3:
        devices = {topic_name(d.name).replace('/', '.'): d for d in model.devices}
        key = parts[-1]
        base = '.'.join(parts[1:-2] if parts[-2] == 'noise' else parts[1:-1])
        device = devices.get(base)
        if device is None:
            raise plan.fail(line, f'{what}: model {entity!r} has no device {base!r} (it '
                            f'has {", ".join(devices) or "none"})')
        if parts[-2] == 'noise' and key in NOISE_KEYS.get(device.kind, {}):
            return
        if len(parts) == 3 and key in ('on', 'rate'):
            return
        raise plan.fail(line, f'{what}: device {base!r} has no setting {".".join(parts[2:])!r} '
                        f'(noise keys: {", ".join(NOISE_KEYS.get(device.kind, {})) or "none"}; '
                        'on, rate)')
    raise plan.fail(line, f'{what}: {parameter!r} is not a parameter a sweep sets (known: '
                    f'{", ".join(_PARAMETERS)}, initial_positions.JOINT, '
                    'devices.DEVICE.noise.KEY, devices.DEVICE.on/rate, joint_states.noise.KEY)')


def resolve(sweep: Sweep) -> Plan:
    """The sweep's world loaded and every name of the sweep looked up in it.

    Raises:
        BodyBridgeError: the world or a model does not load, or the sweep names something
            the world does not have (``path:line: message``).
    """
    from ..formats import load_model
    world = _world(sweep)
    models = {entry.name: load_model(entry.path) for entry in world.models}
    plan = Plan(sweep, world, models, set())
    plan.topics = _topics(world, models)
    for var in sweep.parameters:
        _check_quantity(plan, var, 'parameters')
    for var in sweep.variables:
        _check_quantity(plan, var, 'vary')
    from .checks import make_check
    for spec in sweep.checks:
        make_check(plan, spec)  # refused here, with its line, if it names what is not there
    return plan


def apply_poses(world: WorldFile, values: dict) -> WorldFile:
    """The world with the varied start poses of ``values`` (``ENTITY.x``, ...) applied."""
    moved = {}
    for name, value in values.items():
        head, _, axis = name.partition('.')
        if axis in POSE_AXES and '/' not in head:
            moved.setdefault(head, {})[axis] = float(value)
    if not moved:
        return world

    def placed(pose: Pose, axes: dict) -> Pose:
        pos, rpy = list(pose.pos), list(pose.rpy())
        for i, axis in enumerate(POSE_AXES):
            if axis in axes:
                (pos if i < 3 else rpy)[i % 3] = axes[axis]
        return Pose.from_rpy(rpy, pos=pos)

    models = tuple(replace(m, pose=placed(m.pose, moved[m.name])) if m.name in moved else m
                   for m in world.models)
    poses = tuple(replace(p, pose=placed(p.pose, moved[p.name])) if p.name in moved else p
                  for p in world.named_poses)
    return replace(world, models=models, named_poses=poses)
