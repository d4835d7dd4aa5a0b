"""Model -> mujoco.MjSpec. The only files read are the texture images the model names
(decoded in ``sim/sensing/appearance.py``; the loader checked them).

Body names are link names and joint names are the model's joint names, so the compiled
model can be read by name. Every element's ``info`` is the ``file:line`` it came from, so a
MuJoCo compile error points at the model file.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from ... import geometry as geo
from ...model import Box, Capsule, Cylinder, JointType, Mesh, Model, Pose, Shape, Sphere
from ..sensing.appearance import Appearance
from ..mechanics.closures import add_closure
from ..mechanics.contacts import apply_contacts
from ..mechanics.forces import add_model_forces
from ..mechanics.mimic import add_mimic_constraints
from ..sensing.sensors import add_devices
from ..mechanics.tracks import add_belt
from ..names import ACTUATOR_PREFIX, MIN_INERTIA, MIN_MASS, WORLD
from .casters import roll_casters

__all__ = ['BuildOptions', 'build_spec', 'ACTUATOR_PREFIX', 'MIN_MASS', 'MIN_INERTIA',
           'GROUND_PLANE_MODES', 'ground_plane_mode', 'falling_links']

#: Collision bits: each model has one of bits 0..29 (30 models at most share a world); bit 30
#: marks the geoms the ground plane supports in mode 'auto'.
_ALL = 0x7FFFFFFF
PLANE_BIT = 1 << 30
#: The values of ``BuildOptions.ground_plane`` (booleans mean 'on' and 'off').
GROUND_PLANE_MODES = ('auto', 'on', 'off')

#: Collision geoms are in group 0 (shown), visual-only geoms in group 1.
COLLISION_GROUP = 0
VISUAL_GROUP = 1


@dataclass(frozen=True)
class BuildOptions:
    """How the integrator's model is set up.

    Attributes:
        timestep: integrator step [s].
        ground_plane: a plane at z = 0 in the world. 'auto': the plane supports the bodies
            that can fall (links on a free root or below a free joint, of a model that is not
            kinematic); links of fixed-base models pass through it, so an arm bolted to the
            world reaches below its base without sticking in the floor. 'on' (or True): every
            link touches it. 'off' (or False): no plane. Cameras and range sensors see the
            plane in 'auto' and 'on'.
        self_collision: let links of the same model collide with each other.
        contact_bit: the collision bit of this model, 0..29 (several models share one world).
        kinematic: the model does not move by dynamics (nothing of it falls).
        casters: links whose contacts are frictionless: ball casters that roll
            (``casters.roll_casters``).
    """

    timestep: float = 0.001
    ground_plane: str | bool = 'auto'
    self_collision: bool = False
    contact_bit: int = 0
    kinematic: bool = False
    casters: tuple[str, ...] = ()


def ground_plane_mode(value: str | bool) -> str:
    """'auto', 'on' or 'off' for a ``ground_plane`` setting (True is 'on', False 'off').

    Raises:
        ValueError: any other value.
    """
    if isinstance(value, bool):
        return 'on' if value else 'off'
    if value not in GROUND_PLANE_MODES:
        raise ValueError(f'ground_plane {value!r} is not one of {", ".join(GROUND_PLANE_MODES)}')
    return value


def falling_links(model: Model, kinematic: bool = False) -> set[str]:
    """The links that can fall: on a free root, or below a free joint (none if kinematic)."""
    if kinematic:
        return set()
    falling = {model.root} if model.root_joint == JointType.FREE else set()
    for joint in model.ordered_joints():  # parents before children
        if joint.type == JointType.FREE or joint.parent in falling:
            falling.add(joint.child)
    return falling


def _quat(pose: Pose) -> list[float]:
    return [float(x) for x in pose.quat()]


def build_spec(model: Model, options: BuildOptions = BuildOptions()) -> mujoco.MjSpec:
    """Build the integrator's model of ``model``."""
    spec = mujoco.MjSpec()
    spec.modelname = model.name
    spec.compiler.degree = False
    spec.compiler.autolimits = True
    spec.compiler.inertiafromgeom = mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_FALSE
    spec.compiler.boundmass = MIN_MASS
    spec.compiler.boundinertia = MIN_INERTIA
    # MuJoCo balances no inertia: one that breaks A + B >= C beyond rounding was warned about
    # at load and turns balancing on (sim/mechanics/forces.py); one within rounding of the
    # bound (a flat plate, a thin rod) is nudged onto it here (_rigid_inertia), so the simulated inertia is
    # the URDF's.
    spec.compiler.balanceinertia = False
    spec.option.timestep = float(model.timestep or options.timestep)
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST

    mode = ground_plane_mode(options.ground_plane)
    bit = 1 << options.contact_bit
    # Geoms that can fall also collide with the plane in mode 'auto' (PLANE_BIT).
    falling_contact = (bit, _ALL if options.self_collision else _ALL & ~bit)
    fixed_contact = (bit, falling_contact[1] & ~PLANE_BIT)
    falling = falling_links(model, options.kinematic)

    def contact(link) -> tuple[int, int]:
        return falling_contact if link.name in falling else fixed_contact

    if mode != 'off':
        _add_ground_plane(spec, mode)

    bodies: dict[str, mujoco.MjsBody] = {}
    looks = Appearance(spec)
    root = model.link(model.root)
    if root.name == WORLD and model.root_joint == JointType.FIXED and root.pose.is_identity():
        # A fixed root link named 'world' (environments) is MuJoCo's world body itself.
        bodies[root.name] = spec.worldbody
        _add_geoms(spec, spec.worldbody, root, contact(root), looks)
    else:
        bodies[root.name] = _add_body(spec, spec.worldbody, root, root.pose, contact(root),
                                      looks)
    if model.root_joint == JointType.FREE:
        free = bodies[root.name].add_freejoint()
        free.name = f'{root.name}_free'
    for joint in model.ordered_joints():
        link = model.link(joint.child)
        if joint.type == JointType.FREE:
            # MuJoCo allows free joints only on bodies of the world.
            body = _add_body(spec, spec.worldbody, link, link.pose, contact(link), looks)
            free = body.add_freejoint()
            free.name = joint.name
            free.info = joint.source or ''
        else:
            body = _add_body(spec, bodies[joint.parent], link, model.joint_origin(joint),
                             contact(link), looks)
            _add_joint(spec, body, joint)
            if joint.type == JointType.TRACK:
                add_belt(body, joint, link.inertial.mass if link.inertial else None)
        bodies[link.name] = body
    add_mimic_constraints(spec, model, spec.option.timestep)
    for closure in model.closures:
        add_closure(spec, closure, timestep=spec.option.timestep)
    for first, second in model.adjacent:  # pairs the model says never collide
        exclude = spec.add_exclude()
        exclude.bodyname1, exclude.bodyname2 = first, second
    add_model_forces(spec, model)
    apply_contacts(spec, model)
    roll_casters(spec, options.casters)
    add_devices(spec, model)
    return spec


def _add_ground_plane(spec: mujoco.MjSpec, mode: str) -> None:
    """The plane z = 0: every model's geoms touch it ('on'), or those that can fall ('auto').

    It is drawn as a checkerboard of 0.5 m squares (RGB 0.42 0.46 0.50 and 0.32 0.35 0.39), so
    camera images show how far the floor is and how it moves.
    """
    texture = spec.add_texture()
    texture.name = 'ground_plane_checker'
    texture.type = mujoco.mjtTexture.mjTEXTURE_2D
    texture.builtin = mujoco.mjtBuiltin.mjBUILTIN_CHECKER
    texture.width = texture.height = 64
    texture.rgb1 = [0.42, 0.46, 0.5]
    texture.rgb2 = [0.32, 0.35, 0.39]
    material = spec.add_material()
    material.name = 'ground_plane'
    material.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = texture.name
    material.texrepeat = [1.0, 1.0]  # one texture (2 x 2 squares) per metre
    material.texuniform = True
    ground = spec.worldbody.add_geom()
    ground.name = 'ground_plane'
    ground.type = mujoco.mjtGeom.mjGEOM_PLANE
    ground.size = [0.0, 0.0, 1.0]
    ground.material = material.name
    if mode == 'on':
        ground.contype, ground.conaffinity = _ALL, _ALL
    else:
        ground.contype, ground.conaffinity = PLANE_BIT, 0


def _add_body(spec, parent, link, pose: Pose, contact, looks) -> mujoco.MjsBody:
    body = parent.add_body()
    body.name = link.name
    body.pos = [float(x) for x in pose.pos]
    body.quat = _quat(pose)
    body.info = link.source or ''
    # An unset inertial frame (NaN) would be taken from the body's own placement: set it.
    body.ipos = [0.0, 0.0, 0.0]
    body.iquat = [1.0, 0.0, 0.0, 0.0]
    inertial = link.inertial
    if inertial is not None and inertial.mass > 0.0:
        body.explicitinertial = True
        body.mass = inertial.mass
        body.ipos = [float(x) for x in inertial.com]
        body.fullinertia = _full_inertia(_rigid_inertia(inertial.inertia))
    _add_geoms(spec, body, link, contact, looks)
    return body


def _full_inertia(inertia: np.ndarray) -> list[float]:
    """MjSpec's ``fullinertia`` [kg m^2] of a tensor, its principal moments raised to
    MIN_INERTIA. A moment of 0 (a loader sets one that is negative by rounding to 0) is bounded
    by MuJoCo 4's compiler but rejected by MuJoCo 3's, which checks the moments first; raised
    here, both compile the same model."""
    i = 0.5 * (inertia + inertia.T)
    moments, axes = np.linalg.eigh(i)
    if moments.min() < MIN_INERTIA:
        i = (axes * np.maximum(moments, MIN_INERTIA)) @ axes.T
    return [float(i[0, 0]), float(i[1, 1]), float(i[2, 2]), float(i[0, 1]), float(i[0, 2]),
            float(i[1, 2])]


#: Principal moments within this fraction of the largest from A + B = C are a rigid body's
#: (a flat plate meets the bound exactly; its eigenvalues miss it by rounding).
RIGID_TOL = 1e-9


def _rigid_inertia(tensor: np.ndarray) -> np.ndarray:
    """The inertia [kg m^2]; one within rounding of A + B = C (a flat plate) gets every
    principal moment raised by ``C - A - B`` plus 1e-12 C, which puts it on the rigid side
    (A + B > C) so MuJoCo takes it unbalanced."""
    moments = np.linalg.eigvalsh(tensor)
    largest = float(moments[2])
    gap = largest - float(moments[0]) - float(moments[1])  # > 0: A + B < C
    margin = 1e-12 * largest
    if gap <= -margin or gap > RIGID_TOL * largest:
        return tensor  # clear of the bound, or beyond rounding (the loader warned)
    return tensor + (gap + margin) * np.eye(3)


def _add_geoms(spec, body, link, contact, looks: Appearance) -> None:
    collide = {id(s) for s in link.collisions}
    visual = {id(s) for s in link.visuals}
    for index, shape in enumerate(link.collisions):
        _add_geom(spec, body, shape, f'{link.name}:{index}',
                  visible=id(shape) in visual, contact=contact, looks=looks)
    for index, shape in enumerate(link.visuals):
        if id(shape) not in collide:
            _add_geom(spec, body, shape, f'{link.name}:v{index}', visible=True, contact=None,
                      looks=looks)


def _add_geom(spec, body, shape: Shape, name: str, visible: bool, contact,
              looks: Appearance) -> None:
    g = shape.geometry
    geom = body.add_geom()
    geom.info = shape.source or ''
    pose = shape.pose
    if isinstance(g, Box):
        geom.type = mujoco.mjtGeom.mjGEOM_BOX
        geom.size = [0.5 * float(s) for s in g.size]
    elif isinstance(g, Sphere):
        geom.type = mujoco.mjtGeom.mjGEOM_SPHERE
        geom.size = [float(g.radius), 0.0, 0.0]
    elif isinstance(g, Cylinder):
        geom.type = mujoco.mjtGeom.mjGEOM_CYLINDER
        geom.size = [float(g.radius), 0.5 * float(g.length), 0.0]
    elif isinstance(g, Capsule):
        geom.type = mujoco.mjtGeom.mjGEOM_CAPSULE
        geom.size = [float(g.radius), 0.5 * float(g.length), 0.0]
    else:  # cones and triangle meshes
        mesh = g if isinstance(g, Mesh) else geo.to_mesh(g)
        mesh_name = f'{name}:{mesh.name}'
        spec_mesh = spec.add_mesh()
        spec_mesh.name = mesh_name
        vertices = mesh.vertices
        if 0 < len(vertices) < 4:  # MuJoCo wants 4 vertices; the copies are in no face
            vertices = np.vstack([vertices, np.repeat(vertices[:1], 4 - len(vertices), 0)])
        spec_mesh.uservert = vertices.astype(np.float32).ravel().tolist()
        spec_mesh.userface = mesh.faces.astype(np.int32).ravel().tolist()
        if visible and len(vertices) == len(mesh.vertices):
            looks.texcoords(spec_mesh, mesh, shape.material)
        spec_mesh.inertia = mujoco.mjtMeshInertia.mjMESH_INERTIA_SHELL
        spec_mesh.info = shape.source or ''
        geom.type = mujoco.mjtGeom.mjGEOM_MESH
        geom.meshname = mesh_name
    geom.pos = [float(x) for x in pose.pos]
    geom.quat = _quat(pose)
    if visible:
        looks.dress(geom, shape.material)
    elif shape.material is not None:
        geom.rgba = [float(c) for c in shape.material.rgba]
    if contact is None:
        geom.contype = 0
        geom.conaffinity = 0
        geom.group = VISUAL_GROUP
    else:
        geom.contype, geom.conaffinity = contact
        geom.group = COLLISION_GROUP
        if not visible:
            geom.rgba = [geom.rgba[0], geom.rgba[1], geom.rgba[2], 0.0]
    geom.density = 0.0


def _add_joint(spec, body, joint) -> None:
    if joint.type.rigid:
        return  # a track's joint is its belt's (sim/mechanics/tracks.py)
    j = body.add_joint()
    j.name = joint.name
    j.info = joint.source or ''
    kinds = {JointType.REVOLUTE: mujoco.mjtJoint.mjJNT_HINGE,
             JointType.CONTINUOUS: mujoco.mjtJoint.mjJNT_HINGE,
             JointType.PRISMATIC: mujoco.mjtJoint.mjJNT_SLIDE,
             JointType.BALL: mujoco.mjtJoint.mjJNT_BALL}
    j.type = kinds[joint.type]
    if joint.type.dof == 1:
        j.axis = [float(a) for a in joint.axis]
        lim = joint.limits
        if joint.type != JointType.CONTINUOUS and lim.lower is not None and lim.upper is not None:
            j.limited = mujoco.mjtLimited.mjLIMITED_TRUE
            j.range = [float(lim.lower), float(lim.upper)]
        else:
            j.limited = mujoco.mjtLimited.mjLIMITED_FALSE
        j.ref = 0.0
    j.armature = float(joint.armature)
    j.damping = [float(joint.damping), 0.0, 0.0]
    j.frictionloss = float(joint.friction)
