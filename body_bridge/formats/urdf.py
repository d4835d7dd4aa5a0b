"""URDF files (``.urdf``) as a neutral Model, read with urdf_parser_py (ROS's urdfdom_py).

The objects ROS users already have are URDF; the simulator API spawns them like any other
model. What is read: links with their inertia (the inertial frame's rotation applied: inertia
about the centre of mass in the link frame), visual and collision shapes (box, cylinder,
sphere, mesh files the mesh readers take, ``scale`` applied; ``package://`` and ``file://``
paths resolved beside the file or through the ROS package path), material colours; joints
(fixed, revolute, continuous, prismatic, floating as free) with their origin, axis, limits,
dynamics and mimic. As Gazebo does, a model whose root link is not ``world`` stands free
(it falls when spawned in the air); one that hangs from a link named ``world`` is fixed there.
Planar joints are refused. Gazebo, transmission and other extensions are ignored.
"""

from __future__ import annotations

import contextlib
import io
import os

import numpy as np

from ..errors import ModelError
from ..fileaccess import read_regular
from ..meshfiles import load_mesh_file
from ..model import Inertial, Joint, JointType, Limits, Link, Mimic, Model, Pose
from ..model.shapes import Box, Cylinder, Material, Mesh, Shape, Sphere

__all__ = ['load', 'EXTENSIONS']

EXTENSIONS = ('.urdf',)
_TYPES = {'fixed': JointType.FIXED, 'revolute': JointType.REVOLUTE,
          'continuous': JointType.CONTINUOUS, 'prismatic': JointType.PRISMATIC,
          'floating': JointType.FREE}
MAX_BYTES = 64 * 1024 * 1024


def _pose(origin) -> Pose:
    if origin is None:
        return Pose()
    xyz = origin.xyz or (0.0, 0.0, 0.0)
    rpy = origin.rpy or (0.0, 0.0, 0.0)
    return Pose.from_rpy(rpy, pos=xyz)


def _mesh_path(filename: str, path: str) -> str:
    """A mesh file name of the URDF as a file path."""
    if filename.startswith('file://'):
        return filename[len('file://'):]
    if filename.startswith('package://'):
        package, _, rest = filename[len('package://'):].partition('/')
        folder = os.path.dirname(os.path.abspath(path))
        for root in [folder, os.path.dirname(folder),
                     *os.environ.get('ROS_PACKAGE_PATH', '').split(os.pathsep)]:
            for candidate in (os.path.join(root, rest), os.path.join(root, package, rest)):
                if root and os.path.exists(candidate):
                    return candidate
        return os.path.join(folder, rest)
    return filename if os.path.isabs(filename) else \
        os.path.join(os.path.dirname(os.path.abspath(path)), filename)


def _shapes(items, path: str, colours: dict) -> tuple[Shape, ...]:
    out = []
    for item in items:
        g = item.geometry
        pose = _pose(item.origin)
        material = None
        named = getattr(item, 'material', None)
        if named is not None:
            colour = named.color or colours.get(named.name)
            if colour is not None:
                material = Material(rgba=tuple(float(v) for v in colour.rgba))
        kind = type(g).__name__
        if kind == 'Box':
            out.append(Shape(Box(tuple(float(v) for v in g.size)), pose, material, path))
        elif kind == 'Cylinder':
            out.append(Shape(Cylinder(float(g.radius), float(g.length)), pose, material, path))
        elif kind == 'Sphere':
            out.append(Shape(Sphere(float(g.radius)), pose, material, path))
        elif kind == 'Mesh':
            scale = np.array(g.scale if g.scale is not None else (1.0, 1.0, 1.0), dtype=float)
            file = _mesh_path(g.filename, path)
            for part in load_mesh_file(file):
                mesh = Mesh(part.mesh.vertices * scale, part.mesh.faces, part.mesh.name, file)
                out.append(Shape(mesh, pose, material or part.material, path))
        else:
            raise ModelError(path, None, f'geometry {kind} is not read')
    return tuple(out)


def _inertial(link) -> Inertial | None:
    i = link.inertial
    if i is None:
        return None
    pose = _pose(i.origin)
    t = i.inertia
    tensor = np.zeros((3, 3)) if t is None else np.array(
        [[t.ixx, t.ixy, t.ixz], [t.ixy, t.iyy, t.iyz], [t.ixz, t.iyz, t.izz]], dtype=float)
    return Inertial(float(i.mass or 0.0), pose.pos, pose.rot @ tensor @ pose.rot.T)


def _parse(path: str):
    from urdf_parser_py.urdf import URDF
    text = read_regular(path, MAX_BYTES, 'URDF file').decode('utf-8', errors='replace')
    try:
        with contextlib.redirect_stderr(io.StringIO()):  # its warnings: unknown extensions
            return URDF.from_xml_string(text)
    except Exception as err:  # noqa: BLE001 - lxml and the parser raise many kinds
        first = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise ModelError(path, getattr(err, 'lineno', None),
                         f'not a URDF robot: {first}') from err


def load(path: str | os.PathLike) -> Model:
    """Read a URDF file.

    Raises:
        ModelError: the file is missing or broken, a planar joint, a geometry that is not read.
    """
    path = os.fspath(path)
    robot = _parse(path)
    colours = {m.name: m.color for m in robot.materials if m.color is not None}
    children = {j.child for j in robot.joints}
    roots = [link.name for link in robot.links if link.name not in children]
    if len(roots) != 1:
        raise ModelError(path, None, f'a URDF tree has one root link; found {len(roots)}: '
                         f'{", ".join(roots) or "none"}')
    by_child = {j.child: j for j in robot.joints}
    poses: dict[str, Pose] = {roots[0]: Pose()}

    def pose_of(name: str) -> Pose:
        if name not in poses:
            joint = by_child[name]
            poses[name] = pose_of(joint.parent) @ _pose(joint.origin)
        return poses[name]
    links = tuple(Link(link.name, pose_of(link.name), _inertial(link),
                       _shapes(link.visuals, path, colours),
                       _shapes(link.collisions, path, colours), path) for link in robot.links)
    joints = []
    for j in robot.joints:
        if j.type not in _TYPES:
            raise ModelError(path, None, f'joint {j.name}: {j.type} joints are not read')
        lim = j.limit
        limits = Limits() if lim is None else Limits(
            lower=lim.lower if j.type in ('revolute', 'prismatic') else None,
            upper=lim.upper if j.type in ('revolute', 'prismatic') else None,
            velocity=lim.velocity, effort=lim.effort)
        dyn = j.dynamics
        mimic = None if j.mimic is None else Mimic(
            j.mimic.joint, float(j.mimic.multiplier if j.mimic.multiplier is not None
                                 else 1.0), float(j.mimic.offset or 0.0))
        joints.append(Joint(j.name, _TYPES[j.type], j.parent, j.child,
                            axis=j.axis if j.axis is not None else (1.0, 0.0, 0.0),
                            limits=limits,
                            damping=float(dyn.damping or 0.0) if dyn else 0.0,
                            friction=float(dyn.friction or 0.0) if dyn else 0.0,
                            mimic=mimic, source=path))
    root = roots[0]
    return Model(robot.name, links, tuple(joints), root,
                 JointType.FIXED if root == 'world' else JointType.FREE, source=path)
