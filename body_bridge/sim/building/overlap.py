"""Models of one world that start inside each other.

Every model of a world starts where its ``initial_pose`` puts it, the origin by default: two
robots given without one start in the same place, and the integrator then pushes them apart
with whatever force it takes. :func:`start_overlaps` finds, in the world's initial state, the
collision shapes of two different models whose bounding boxes overlap and that are inside
each other by more than :data:`TOLERANCE`, as the integrator measures shapes (meshes as their
convex hulls), and says so once per pair of models. Shapes that only touch (a robot standing
on a floor model) and the ground plane are not overlaps. Unnamed shapes of several models
whose links are the world itself cannot be told apart: they count as the first model's.
"""

from __future__ import annotations

import mujoco
import numpy as np

from .world import is_world_rooted

__all__ = ['start_overlaps', 'TOLERANCE']

#: Depth [m] two models' shapes may be inside each other at the start without a warning.
TOLERANCE = 1e-3


def _owner(mj: mujoco.MjModel, geom: int, prefixes: list[str],
           world_model: int) -> tuple[int, str]:
    """(index of the model, its link's name) of a geom: by the prefix of its body's name; a
    geom of MuJoCo's world body (unnamed, as build.py makes them) belongs to the model whose
    link is the world itself (``world_model``: the one world-rooted model, or the first)."""
    body = int(mj.geom_bodyid[geom])
    name = mj.body(body).name
    for index in range(len(prefixes) - 1, 0, -1):
        if name.startswith(prefixes[index]):
            return index, name[len(prefixes[index]):]
    return (world_model if body == 0 else 0), name


def _world_boxes(mj: mujoco.MjModel, data: mujoco.MjData, geoms: np.ndarray):
    """(low, high) corners (N, 3) [m] of the world axis-aligned boxes around the geoms."""
    rot = data.geom_xmat[geoms].reshape(-1, 3, 3)
    centre = data.geom_xpos[geoms] + np.einsum('nij,nj->ni', rot, mj.geom_aabb[geoms, :3])
    half = np.einsum('nij,nj->ni', np.abs(rot), mj.geom_aabb[geoms, 3:])
    return centre - half, centre + half


def start_overlaps(world, labels: list[str] | None = None,
                   remedy: str = 'their initial_pose parameters') -> list[str]:
    """One line per pair of models whose collision shapes are inside each other in the
    world's initial state, deepest first; empty when none are (or the world holds one
    model). ``labels`` name the models (default: their names and MuJoCo prefixes);
    ``remedy`` says what places them (``their pose in lab.world.yaml`` for a world file's).

    The shapes whose bounding boxes overlap by more than :data:`TOLERANCE` are measured with
    the integrator's own distance between shapes (which two shapes welded to the world never
    get as contacts).
    """
    if len(world.entries) < 2:
        return []
    if labels is None:
        labels = [model.name + (f' ({prefix.rstrip("/")})' if prefix else '')
                  for (model, _), prefix in zip(world.entries, world.prefixes)]
    mj = world.mj
    data = mujoco.MjData(mj)
    data.qpos[:] = world.data.qpos
    mujoco.mj_kinematics(mj, data)
    geoms = np.array([g for g in range(mj.ngeom)
                      if (mj.geom_contype[g] or mj.geom_conaffinity[g])
                      and mj.geom_type[g] != mujoco.mjtGeom.mjGEOM_PLANE], dtype=int)
    if len(geoms) < 2:
        return []
    rooted = [i for i, (model, _) in enumerate(world.entries) if is_world_rooted(model)]
    world_model = rooted[0] if len(rooted) == 1 else 0
    owners = [_owner(mj, int(g), world.prefixes, world_model) for g in geoms]
    model_of = np.array([index for index, _ in owners])
    low, high = _world_boxes(mj, data, geoms)
    deepest: dict[tuple[int, int], tuple[float, str, str]] = {}
    for a in range(len(world.entries)):
        for b in range(a + 1, len(world.entries)):
            ia, ib = np.flatnonzero(model_of == a), np.flatnonzero(model_of == b)
            near = np.all((low[ia, None] < high[None, ib] - TOLERANCE) &
                          (low[None, ib] < high[ia, None] - TOLERANCE), axis=2)
            for i, j in zip(*np.nonzero(near)):
                depth = -mujoco.mj_geomDistance(mj, data, int(geoms[ia[i]]), int(geoms[ib[j]]),
                                                TOLERANCE, None)
                if depth > TOLERANCE and depth > deepest.get((a, b), (0.0,))[0]:
                    deepest[(a, b)] = (depth, owners[ia[i]][1], owners[ib[j]][1])
    lines = []
    for (a, b), (depth, link_a, link_b) in sorted(deepest.items(), key=lambda kv: -kv[1][0]):
        lines.append(f'models {labels[a]} and {labels[b]} start inside each other (link '
                     f'{link_a!r} of {labels[a]} is {depth:.3g} m deep in link {link_b!r} of '
                     f'{labels[b]}): place them apart with {remedy}')
    return lines
