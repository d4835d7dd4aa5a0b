"""Model -> URDF text, built from urdf_parser_py objects.

Choices the URDF format forces (documented in docs/formats.md):

* Shapes URDF lacks (capsule, cone, triangle meshes) are written as binary STL files into a
  mesh directory and referenced by ``file://`` URIs (or a caller's prefix).
* Ball and free joints inside the tree become ``floating`` joints (the bridge publishes their
  TF itself; robot_state_publisher would ignore them).
* Every extra frame of the model (``Model.frames``) is a fixed child link of its link.
* Every device gets a fixed child link named after its TF frame; cameras also get
  ``<frame>_optical_frame`` (z forward, x right, y down, REP-103).
* Unknown velocity or effort limits are written as 0 (URDF requires the attributes);
  a missing position bound of a revolute or prismatic joint is written as +-1e9.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from urdf_parser_py import urdf

from . import geometry as geo
from .model import (Box, Capsule, Cone, Cylinder, DeviceKind, JointType, Material, Mesh, Model,
                    Pose, Shape, Sphere)

__all__ = ['to_urdf', 'write_meshes', 'OPTICAL', 'optical_frame']

#: The optical frame in the camera body frame: z forward, x right, y down.
OPTICAL = Pose((0, 0, 0), [[0, 0, 1], [-1, 0, 0], [0, -1, 0]])

_UNBOUNDED = 1e9


def optical_frame(frame: str) -> str:
    return f'{frame}_optical_frame'


def _origin(pose: Pose) -> urdf.Pose:
    return urdf.Pose(xyz=[float(x) for x in pose.pos], rpy=[float(a) for a in pose.rpy()])


def _material(material: Material | None) -> urdf.Material | None:
    if material is None:
        return None
    rgba = [float(c) for c in material.rgba]
    name = material.name or 'rgba_' + '_'.join(f'{c:.3f}' for c in rgba)
    return urdf.Material(name=name, color=urdf.Color(rgba))


def write_meshes(model: Model, directory: str | os.PathLike) -> dict[int, str]:
    """Write every shape URDF cannot express as an STL file; return id(shape) -> path."""
    os.makedirs(directory, exist_ok=True)
    paths: dict[int, str] = {}
    for link in model.links:
        for shape in (*link.visuals, *link.collisions):
            if id(shape) in paths or not _needs_mesh(shape):
                continue
            mesh = geo.to_mesh(shape.geometry)
            path = os.path.join(os.fspath(directory), f'{_safe(link.name)}_{mesh.name}_'
                                f'{geo.mesh_digest(mesh)}.stl')
            if not os.path.exists(path):
                geo.write_stl(mesh, path)
            paths[id(shape)] = os.path.abspath(path)
    return paths


def _safe(name: str) -> str:
    return ''.join(c if c.isalnum() or c in '-_' else '_' for c in name)


def _needs_mesh(shape: Shape) -> bool:
    return isinstance(shape.geometry, (Capsule, Cone, Mesh))


def _geometry(shape: Shape, mesh_paths: dict[int, str], uri: Callable[[str], str]):
    g = shape.geometry
    if isinstance(g, Box):
        return urdf.Box([float(s) for s in g.size])
    if isinstance(g, Sphere):
        return urdf.Sphere(float(g.radius))
    if isinstance(g, Cylinder):
        return urdf.Cylinder(float(g.radius), float(g.length))
    return urdf.Mesh(filename=uri(mesh_paths[id(shape)]))  # to_urdf wrote them all


def _file_uri(path: str) -> str:
    return 'file://' + os.path.abspath(path)


def to_urdf(model: Model, mesh_dir: str | os.PathLike | None = None,
            mesh_uri: Callable[[str], str] | None = None) -> str:
    """Write the model as URDF text.

    Args:
        model: the model.
        mesh_dir: where mesh files go; required when the model has shapes URDF lacks.
        mesh_uri: maps a written mesh file path to the URI put in the URDF
            (default ``file://<absolute path>``).

    Raises:
        ValueError: the model needs mesh files and ``mesh_dir`` is None.
    """
    needs = any(_needs_mesh(s) for link in model.links for s in (*link.visuals, *link.collisions))
    if needs and mesh_dir is None:
        raise ValueError('the model has shapes URDF cannot express; a mesh directory is needed')
    mesh_paths = write_meshes(model, mesh_dir) if needs else {}
    uri = mesh_uri or _file_uri
    robot = urdf.Robot(name=model.name)
    for link in model.links:
        robot.add_link(_link(link, mesh_paths, uri))
    for joint in model.ordered_joints():
        robot.add_joint(_joint(model, joint))
    for extra in model.frames:
        robot.add_link(urdf.Link(name=extra.name))
        robot.add_joint(urdf.Joint(name=f'{extra.name}_joint', parent=extra.link,
                                   child=extra.name, joint_type='fixed',
                                   origin=_origin(extra.pose)))
    frames = model.device_frames()
    for device in model.devices:
        frame = frames[device.name]
        robot.add_link(urdf.Link(name=frame))
        robot.add_joint(urdf.Joint(name=f'{frame}_joint', parent=device.link, child=frame,
                                   joint_type='fixed', origin=_origin(device.pose)))
        if device.kind == DeviceKind.CAMERA:
            optical = optical_frame(frame)
            robot.add_link(urdf.Link(name=optical))
            robot.add_joint(urdf.Joint(name=f'{optical}_joint', parent=frame, child=optical,
                                       joint_type='fixed', origin=_origin(OPTICAL)))
    return robot.to_xml_string()


def _link(link, mesh_paths, uri) -> urdf.Link:
    out = urdf.Link(name=link.name)
    for shape in link.visuals:
        out.add_aggregate('visual', urdf.Visual(geometry=_geometry(shape, mesh_paths, uri),
                                                material=_material(shape.material),
                                                origin=_origin(shape.pose)))
    for shape in link.collisions:
        out.add_aggregate('collision', urdf.Collision(geometry=_geometry(shape, mesh_paths, uri),
                                                      origin=_origin(shape.pose)))
    inertial = link.inertial
    if inertial is not None and inertial.mass > 0.0:
        # URDF keeps one number per pair of mirrored cells: the symmetric part, the tensor
        # the simulation builds (sim/building/build.py), is exactly symmetric
        i = 0.5 * (inertial.inertia + inertial.inertia.T)
        out.inertial = urdf.Inertial(
            mass=float(inertial.mass),
            inertia=urdf.Inertia(ixx=float(i[0, 0]), ixy=float(i[0, 1]), ixz=float(i[0, 2]),
                                 iyy=float(i[1, 1]), iyz=float(i[1, 2]), izz=float(i[2, 2])),
            origin=urdf.Pose(xyz=[float(c) for c in inertial.com], rpy=[0.0, 0.0, 0.0]))
    return out


def _joint(model: Model, joint) -> urdf.Joint:
    kind = {JointType.FIXED: 'fixed', JointType.REVOLUTE: 'revolute',
            JointType.CONTINUOUS: 'continuous', JointType.PRISMATIC: 'prismatic',
            JointType.BALL: 'floating', JointType.FREE: 'floating',
            JointType.TRACK: 'fixed'}[joint.type]
    out = urdf.Joint(name=joint.name, parent=joint.parent, child=joint.child, joint_type=kind,
                     origin=_origin(model.joint_origin(joint)))
    if joint.type.dof == 1 and not joint.type.rigid:
        out.axis = [float(a) for a in joint.axis]
        lim = joint.limits
        velocity = float(lim.velocity) if lim.velocity is not None else 0.0
        effort = float(lim.effort) if lim.effort is not None else 0.0
        if joint.type == JointType.CONTINUOUS:
            if lim.velocity is not None or lim.effort is not None:
                out.limit = urdf.JointLimit(effort=effort, velocity=velocity)
        else:
            lower = -_UNBOUNDED if lim.lower is None else float(lim.lower)
            upper = _UNBOUNDED if lim.upper is None else float(lim.upper)
            out.limit = urdf.JointLimit(effort=effort, velocity=velocity, lower=lower, upper=upper)
        if joint.damping or joint.friction:
            out.dynamics = urdf.JointDynamics(damping=float(joint.damping),
                                              friction=float(joint.friction))
        mimic = joint.mimic
        if mimic is not None and mimic.expression is None:
            out.mimic = urdf.JointMimic(joint_name=mimic.joint, multiplier=float(mimic.multiplier),
                                        offset=float(mimic.offset))
    return out
