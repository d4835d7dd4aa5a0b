"""A Chrono system (a graph of bodies) as the neutral model (a tree plus closures).

* Root: the first fixed body (the other fixed bodies hang from it by fixed joints), or a
  ``world`` link when no body is fixed.
* Tree: a spanning tree over motors first, then kinematic joints, then bushings (so motors
  become tree joints that appear in ``joint_states``); bodies it does not reach hang from the
  root by free joints. Constraints are never tree edges.
* Child link frames are placed at the joint (the URDF convention) with the body's
  orientation; geometry, inertia and everything else are re-expressed so that they stay in
  place. Joints URDF lacks become chains of massless links (``<joint>_link<i>``) with one
  joint per freedom (``<joint><suffix>``); a bushing becomes six compliant joints.
* A joint's coordinate is the motion of body1 relative to body2, as Chrono's (the axis is
  flipped when body1 is the parent), so a motor's coordinate is its joint's.
* Joints, motors and bushings that close loops, and all constraints, become loop closures
  (bushings: ``Bushing`` spring-dampers) that the integrator enforces.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...errors import ModelError, UnsupportedError
from ...model import (BodyVelocity, Bushing, Inertial, Joint, JointType, Link, Load,
                     LoopClosure, Model, Motor, Pose, Shape, ShapeContact, Spring, SpringKind)
from .bodies import BodySpec
from .forces import LoadSpec, SpringSpec
from .joints import Connection, ConstraintSpec, Dof, frame_with_x

__all__ = ['System', 'assemble']


@dataclass
class System:
    """Everything read from a model file, in the model frame."""

    name: str
    source: str
    bodies: list[BodySpec] = field(default_factory=list)
    connections: list[Connection] = field(default_factory=list)
    constraints: list[ConstraintSpec] = field(default_factory=list)
    springs: list[SpringSpec] = field(default_factory=list)
    loads: list[LoadSpec] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    timestep: float | None = None
    gravity: np.ndarray | None = None


class _Names:
    """Unique names within one namespace (links, joints, closures or springs).

    A name already taken gets a suffix, reported in ``warnings`` when a source is given.
    """

    def __init__(self, taken=(), warnings: list | None = None, what: str = 'name'):
        self.taken = set(taken)
        self.warnings = warnings
        self.what = what

    def __call__(self, name: str, source: str | None = None) -> str:
        out, i = name, 2
        while out in self.taken:
            out, i = f'{name}_{i}', i + 1
        self.taken.add(out)
        if out != name and source is not None and self.warnings is not None:
            self.warnings.append(f'{source}: {self.what} name {name!r} is taken; this one is '
                                 f'called {out!r}')
        return out


class _UnionFind:
    def __init__(self, names):
        self.parent = {n: n for n in names}

    def find(self, n):
        while self.parent[n] != n:
            self.parent[n] = self.parent[self.parent[n]]
            n = self.parent[n]
        return n

    def union(self, a, b) -> bool:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        self.parent[rb] = ra
        return True


@dataclass
class _Build:
    system: System
    bodies: dict
    root: str
    links: dict = field(default_factory=dict)  # name -> Link
    joints: list = field(default_factory=list)
    closures: list = field(default_factory=list)
    springs: list = field(default_factory=list)
    bushings: list = field(default_factory=list)
    motors: list = field(default_factory=list)
    passive: list = field(default_factory=list)
    link_names: _Names = field(default_factory=_Names)
    joint_names: _Names = field(default_factory=_Names)
    closure_names: _Names = field(default_factory=_Names)
    spring_names: _Names = field(default_factory=_Names)

    def pose(self, link: str) -> Pose:
        return self.links[link].pose


def assemble(system: System) -> Model:
    """The neutral model of a Chrono system.

    Raises:
        ModelError: a body named twice or unknown, a motor that closes a loop in a way no
            closure can hold.
    """
    bodies = _check_names(system)
    fixed = [b.name for b in system.bodies if b.fixed]
    root = fixed[0] if fixed else _Names(bodies)('world')
    warnings = system.warnings
    build = _Build(system, bodies, root, link_names=_Names(list(bodies) + [root]),
                   joint_names=_Names((), warnings, 'joint'),
                   closure_names=_Names((), warnings, 'closure'),
                   spring_names=_Names((), warnings, 'spring'))
    tree, loops = _spanning_tree(system, bodies, fixed, root)
    _add_root(build)
    for parent, child, conn in _oriented(system, tree, fixed, root):
        _add_edge(build, parent, child, conn)
    for conn in loops:
        _add_loop(build, conn)
    for constraint in system.constraints:
        _add_constraint(build, constraint)
    order = [root] + [b.name for b in system.bodies if b.name != root]
    links = [build.links[n] for n in order] + [v for k, v in build.links.items()
                                               if k not in bodies and k != root]
    return Model(
        name=system.name, links=tuple(links), joints=tuple(build.joints),
        root=root, root_joint=JointType.FIXED, closures=tuple(build.closures),
        source=system.source, timestep=system.timestep, warnings=tuple(system.warnings),
        springs=tuple([_spring(build, s) for s in system.springs] + build.springs),
        bushings=tuple(build.bushings), motors=tuple(build.motors),
        loads=tuple(_load(build, spec) for spec in system.loads),
        initial_velocities=tuple(_velocities(build)), contacts=tuple(_contacts(build)),
        passive_joints=tuple(build.passive), gravity=system.gravity, ground_plane=False,
        self_collision=True)


def _error(source: str, message: str, cls=ModelError) -> ModelError:
    path, _, line = source.rpartition(':')
    return cls(path, int(line), message)


def _check_names(system: System) -> dict:
    """Bodies by name; every element's bodies exist; no name twice within a kind."""
    bodies = {}
    for body in system.bodies:
        if body.name in bodies:
            raise _error(body.source, f'body name {body.name!r} is used twice')
        bodies[body.name] = body
    kinds = [('joint', [c for c in system.connections if c.kind != 'motor']),
             ('motor', [c for c in system.connections if c.kind == 'motor']),
             ('constraint', system.constraints),
             ('TSDA', [s for s in system.springs if s.kind == SpringKind.TRANSLATIONAL]),
             ('RSDA', [s for s in system.springs if s.kind == SpringKind.ROTATIONAL]),
             ('body load', [x for x in system.loads if not x.controller]),
             ('load controller', [x for x in system.loads if x.controller])]
    for kind, items in kinds:
        seen = set()
        for item in items:
            if item.name in seen:
                raise _error(item.source, f'{kind} name {item.name!r} is used twice')
            seen.add(item.name)
    named = [(c.source, c.body1, c.body2) for c in system.connections]
    named += [(c.source, c.body1, c.body2) for c in system.constraints]
    named += [(s.source, s.body1, s.body2) for s in system.springs]
    named += [(s.source, s.body, s.body) for s in system.loads]
    for source, *names in named:
        for name in names:
            if name not in bodies:
                raise _error(source, f'unknown body {name!r}')
    return bodies


def _spanning_tree(system, bodies, fixed, root):
    """Tree connections (motors first) and the connections that close loops."""
    uf = _UnionFind(list(bodies) + [root])
    for name in fixed:
        uf.union(root, name)
    rank = {'motor': 0, 'joint': 1, 'bushing': 2}
    tree, loops = [], []
    for conn in sorted(system.connections, key=lambda c: rank[c.kind]):
        (tree if uf.union(conn.body1, conn.body2) else loops).append(conn)
    return tree, loops


def _oriented(system, tree, fixed, root):
    """(parent, child, connection or 'fixed'/'free') in breadth-first order from the root."""
    adjacent: dict[str, list] = {root: [(name, 'fixed') for name in fixed[1:]]}
    for conn in tree:
        adjacent.setdefault(conn.body1, []).append((conn.body2, conn))
        adjacent.setdefault(conn.body2, []).append((conn.body1, conn))
    seen, out = {root}, []

    def visit(start: str) -> None:
        queue = [start]
        while queue:
            node = queue.pop(0)
            for other, conn in adjacent.get(node, []):
                if other not in seen:
                    seen.add(other)
                    out.append((node, other, conn))
                    queue.append(other)

    visit(root)
    for body in system.bodies:  # what no joint reaches floats
        if body.name not in seen:
            seen.add(body.name)
            out.append((root, body.name, 'free'))
            visit(body.name)
    return out


# --- links and tree joints -------------------------------------------------------------------


def _body_link(body: BodySpec, pose: Pose) -> Link:
    """The body as a link whose frame is ``pose`` (in the model frame)."""
    to_link = pose.inverse() @ body.pose
    visuals = tuple(Shape(s.geometry, to_link @ s.pose, s.material, s.source)
                    for s in body.visuals)
    collisions = tuple(Shape(s.geometry, to_link @ s.pose, s.material, s.source)
                       for s in body.collisions)
    inertial = None
    if body.mass > 0:
        centroid = to_link @ body.com
        inertial = Inertial(body.mass, centroid.pos,
                            centroid.rot @ body.inertia @ centroid.rot.T)
    return Link(body.name, pose, inertial, visuals, collisions, body.source)


def _add_root(build: _Build) -> None:
    body = build.bodies.get(build.root)
    link = _body_link(body, body.pose) if body else Link(build.root)
    build.links[build.root] = link


def _add_edge(build: _Build, parent: str, child: str, conn) -> None:
    body = build.bodies[child]
    if conn in ('fixed', 'free'):
        build.links[child] = _body_link(body, body.pose)
        jtype = JointType.FIXED if conn == 'fixed' else JointType.FREE
        build.joints.append(Joint(build.joint_names(f'{child}_{conn}'), jtype, parent, child,
                                  source=body.source))
        return
    if not conn.dofs:  # locked
        build.links[child] = _body_link(body, body.pose)
        build.joints.append(Joint(build.joint_names(conn.name, conn.source), JointType.FIXED,
                                  parent, child, source=conn.source))
        return
    dofs, driven = conn.dofs, conn.driven
    if parent == conn.body1:  # the chain seen from body1: reversed, axes negated
        dofs = [Dof(d.kind, None if d.axis is None else -d.axis, d.suffix, d.stiffness,
                    d.damping) for d in reversed(dofs)]
        driven = len(dofs) - 1 - driven
    frame = conn.frame
    link_from = parent
    for index, dof in enumerate(dofs):
        last = index == len(dofs) - 1
        if last:
            name, pose = child, Pose(frame.pos, body.pose.rot)
            build.links[child] = _body_link(body, pose)
        else:
            name, pose = build.link_names(f'{conn.name}_link{index + 1}'), frame
            build.links[name] = Link(name, pose, source=conn.source)
        joint_name = build.joint_names(conn.name + dof.suffix, conn.source)
        build.joints.append(_joint(joint_name, dof, link_from, name, pose, frame, conn.source))
        if dof.kind != 'ball':
            build.passive.append(joint_name)
        if dof.stiffness or dof.damping:
            build.springs.append(Spring(build.spring_names(f'{joint_name}:spring'),
                                        SpringKind.JOINT, joint=joint_name,
                                        stiffness=dof.stiffness, damping=dof.damping,
                                        source=conn.source))
        if conn.motor is not None and index == driven:
            spec = conn.motor
            build.motors.append(Motor(conn.name, spec.kind, spec.actuation, spec.function,
                                      joint=joint_name, source=conn.source))
        link_from = name


def _joint(name: str, dof: Dof, parent: str, child: str, pose: Pose, frame: Pose,
           source: str) -> Joint:
    if dof.kind == 'ball':
        return Joint(name, JointType.BALL, parent, child, source=source)
    axis = pose.rot.T @ frame.rot @ dof.axis
    jtype = JointType.CONTINUOUS if dof.kind == 'hinge' else JointType.PRISMATIC
    return Joint(name, jtype, parent, child, axis / np.linalg.norm(axis), source=source)


# --- closures ----------------------------------------------------------------------------------


def _local(build: _Build, link: str, pose: Pose) -> Pose:
    return build.pose(link).inverse() @ pose


#: The turn ``sim/mechanics/closures.py`` gives pose1 for the axis +z: columns -x, ... see its
#: ``_frame_with_z`` (``test_chrono_integrator`` checks the two agree).
_CLOSURE_TURN = np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])


def exact_closure_pose(frame: Pose) -> Pose:
    """The pose1 (with axis +z) whose closure frame is ``frame`` itself, x and y included."""
    return Pose(frame.pos, frame.rot @ _CLOSURE_TURN.T)


def _add_loop(build: _Build, conn: Connection) -> None:
    frame = conn.frame
    if conn.kind == 'bushing':
        k, d = conn.bushing
        build.bushings.append(Bushing(conn.name, conn.body1, conn.body2,
                                      _local(build, conn.body1, frame),
                                      _local(build, conn.body2, frame), k, d, conn.source))
        return
    if conn.closure is None:
        raise _error(conn.source, f'motor {conn.name!r} closes a loop of the mechanism; only '
                     'motors with a REVOLUTE or CYLINDRICAL spindle or a PRISMATIC guide can',
                     UnsupportedError)
    link1, link2 = (conn.body1, conn.body2) if conn.closure_on_body1 else \
        (conn.body2, conn.body1)
    name = build.closure_names(conn.name, conn.source)
    pose1 = _local(build, link1, frame)
    if conn.closure == 'universal':  # its hinges turn about the frame's x and y
        pose1 = exact_closure_pose(pose1)
    build.closures.append(LoopClosure(name, conn.closure, link1, link2, pose1,
                                      _local(build, link2, frame), conn.closure_axis,
                                      conn.source))
    if conn.motor is not None:
        spec = conn.motor
        build.motors.append(Motor(conn.name, spec.kind, spec.actuation, spec.function,
                                  closure=name, source=conn.source))


_CONSTRAINT_CLOSURES = {'DISTANCE': 'distance', 'REVOLUTE-SPHERICAL': 'revolute_spherical',
                        'REVOLUTE-TRANSLATIONAL': 'revolute_translational'}


def _add_constraint(build: _Build, spec: ConstraintSpec) -> None:
    offset = spec.point2 - spec.point1
    length = float(np.linalg.norm(offset))
    x = offset / length
    if spec.axis is None:
        rot = frame_with_x(x)
    else:
        rot = np.column_stack([x, np.cross(spec.axis, x), spec.axis])
    frame1, frame2 = Pose(spec.point1, rot), Pose(spec.point2, rot)
    build.closures.append(LoopClosure(
        build.closure_names(spec.name, spec.source), _CONSTRAINT_CLOSURES[spec.type],
        spec.body1, spec.body2,
        exact_closure_pose(_local(build, spec.body1, frame1)), _local(build, spec.body2, frame2),
        (0.0, 0.0, 1.0), spec.source, length))


# --- forces, loads, initial state ------------------------------------------------------------


def _spring(build: _Build, spec: SpringSpec) -> Spring:
    pose1 = _local(build, spec.body1, Pose(spec.point1, spec.rotation))
    pose2 = _local(build, spec.body2, Pose(spec.point2, spec.rotation))
    return Spring(build.spring_names(spec.name, spec.source), spec.kind, spec.body1, spec.body2,
                  pose1, pose2, source=spec.source, **spec.law)


def _load(build: _Build, spec: LoadSpec) -> Load:
    body = build.bodies[spec.body]
    centroid = _local(build, spec.body, body.centroid)  # Chrono's local frame, in the link
    vector = centroid.rot @ spec.vector if spec.local_vector else spec.vector
    point = centroid.apply(spec.point) if spec.local_point else spec.point
    return Load(spec.name, spec.kind, spec.body, vector, spec.local_vector, point,
                spec.local_point, spec.function, spec.controller, spec.source)


def _velocities(build: _Build):
    for body in build.system.bodies:
        if body.lin_vel is None and body.ang_vel is None:
            continue
        linear = np.zeros(3) if body.lin_vel is None else body.lin_vel
        angular = np.zeros(3) if body.ang_vel is None else body.centroid.rot @ body.ang_vel
        yield BodyVelocity(body.name, linear, angular, body.source)


def _contacts(build: _Build):
    for body in build.system.bodies:
        for index, (material, radius) in enumerate(zip(body.materials, body.radii)):
            yield ShapeContact(body.name, index, material, radius)
