"""Springs, motors, loads, contact materials and world settings of a model in MuJoCo.

What MuJoCo holds exactly is built into the spec (``add_model_forces``, called by
``build_spec``):

* a linear TSDA is a spatial tendon between two sites with stiffness, damping and a spring
  length (``rest + preload / stiffness``);
* a linear RSDA whose two links are joined by a tree hinge about the same axis, and the
  springs of bushing chains, are that joint's stiffness, spring reference and damping;
* a POSITION or SPEED motor is a joint equality ``q = q_driver`` with a *driver*: a joint of
  its own (``<motor>:driver``, heavy and weightless, no geometry) whose position and velocity the
  integrator sets before every step to the motor's target and its rate (so the equality
  tracks without lag);
* gravity, contact friction and restitution (as the damping ratio of MuJoCo's contact
  spring), a mesh's contact radius (the geom's margin), the model's own ground (no ground
  plane) and collisions between its links.

Everything else is applied as forces before every physics step by ``ForceSystem``
(``sim/mechanics/forces_runtime.py``), installed into a Simulation by
``forces_runtime.install_forces``.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

from ...model import Actuation, Joint, JointType, Model, Spring, SpringKind
from .closures import driven_joint
from ..names import DRIVE_SUFFIX, DRIVER_SUFFIX

__all__ = ['add_model_forces', 'plan_springs', 'motor_joint',
           'DRIVER_INERTIA', 'DRIVER_SUFFIX', 'DRIVE_SUFFIX']

#: Mass [kg] and inertia [kg m^2] of a motor's driver body: the motor's reaction does not move it.
DRIVER_INERTIA = 1e6
_HINGES = (JointType.REVOLUTE, JointType.CONTINUOUS)


def add_model_forces(spec: mujoco.MjSpec, model: Model) -> None:
    """Add the model's native elements to a spec whose bodies and joints are built."""
    _world(spec, model)
    for name, (how, *args) in plan_springs(model).items():
        spring = next(s for s in model.springs if s.name == name)
        if how == 'tendon':
            _tendon(spec, spring)
        elif how == 'joint':
            _joint_spring(spec, spring, *args)
    for motor in model.motors:
        if motor.actuation != Actuation.FORCE:
            _driver(spec, motor.name, motor_joint(model, motor), spec.option.timestep)


def motor_joint(model: Model, motor) -> str:
    """The MuJoCo joint a motor drives (a tree joint, or the chain joint of its closure)."""
    if motor.joint is not None:
        return motor.joint
    closure = next(c for c in model.closures if c.name == motor.closure)
    return driven_joint(closure, motor.kind.value)


# --- world, contact ----------------------------------------------------------------------------


def _world(spec: mujoco.MjSpec, model: Model) -> None:
    if model.gravity is not None:
        spec.option.gravity = [float(g) for g in model.gravity]
    if model.ground_plane is False:
        plane = spec.geom('ground_plane')
        if plane is not None:
            spec.delete(plane)
    for link in model.links:
        inertial = link.inertial
        if inertial is not None and inertial.mass > 0:
            eig = np.linalg.eigvalsh(inertial.inertia)
            if eig[0] + eig[1] < eig[2] * (1 - 1e-9):
                spec.compiler.balanceinertia = True  # the loader warned about it
        if model.self_collision:
            for geom in collision_geoms(spec, link.name):
                geom.conaffinity = geom.conaffinity | geom.contype


#: The least restitution of a MuJoCo contact, a spring-damper that only pushes: the one it
#: has at damping ratio 1 (exp(-2)); lower restitutions get ratio 1.
MIN_RESTITUTION = math.exp(-2.0)


def contact_restitution(ratio: float) -> float:
    """The restitution of a contact that is a linear spring-damper of damping ratio ``ratio``
    (0 to 1) and only pushes: it lets go when the spring's push and the damper's pull cancel,
    before the spring is back at rest (so it rebounds more than exp(-pi z / sqrt(1 - z^2))).
    """
    return contact_bounce(ratio)[1]


def contact_bounce(ratio: float) -> tuple[float, float]:
    """(duration x natural frequency, restitution) of the bounce of :func:`contact_restitution`."""
    if ratio <= 0.0:
        return math.pi, 1.0
    if ratio >= 1.0:
        return 2.0, MIN_RESTITUTION
    damped = math.sqrt(1.0 - ratio * ratio)
    # Unit frequency: x = e^(-z t) sin(wd t) / wd; the force x + 2 z x' is 0 at wd t = phase.
    phase = math.pi - math.atan2(2.0 * ratio * damped, 1.0 - 2.0 * ratio * ratio)
    t = phase / damped
    return t, math.exp(-ratio * t) * (ratio / damped * math.sin(phase) - math.cos(phase))


def restitution_damping(restitution: float) -> float:
    """Damping ratio of a contact spring-damper (that only pushes) whose coefficient of
    restitution is given (:func:`contact_restitution` inverted; 1 at and below
    :data:`MIN_RESTITUTION`)."""
    if restitution >= 1.0:
        return 0.0
    if restitution <= MIN_RESTITUTION:
        return 1.0
    low, high = 0.0, 1.0
    for _ in range(60):
        mid = 0.5 * (low + high)
        if contact_restitution(mid) > restitution:
            low = mid
        else:
            high = mid
    return 0.5 * (low + high)


def collision_geoms(spec: mujoco.MjSpec, link: str) -> list:
    """The collision geoms of a link's body, in ``Link.collisions`` order (build_spec adds
    them first; visual-only geoms take part in no contact)."""
    return [g for g in spec.body(link).geoms if g.contype or g.conaffinity]


# --- springs -------------------------------------------------------------------------------------


def plan_springs(model: Model) -> dict[str, tuple]:
    """How each spring is applied: ``('tendon',)``, ``('joint', joint, sign)`` or ``('hook',)``.

    ``sign`` maps the joint coordinate to the spring's: x = sign * q.
    """
    plan = {}
    for spring in model.springs:
        linear = spring.is_linear and (spring.stiffness != 0.0 or spring.preload == 0.0)
        if not linear:
            plan[spring.name] = ('hook',)
        elif spring.kind == SpringKind.JOINT:
            plan[spring.name] = ('joint', spring.joint, 1.0)
        elif spring.kind == SpringKind.TRANSLATIONAL:
            plan[spring.name] = ('tendon',)
        else:
            joint, sign = _coaxial_hinge(model, spring)
            plan[spring.name] = ('hook',) if joint is None else ('joint', joint.name, sign)
    return plan


def _coaxial_hinge(model: Model, spring: Spring) -> tuple[Joint | None, float]:
    """A tree hinge joining the RSDA's links about its axis, and the sign x = sign * q."""
    axis = model.link(spring.link1).pose.rot @ spring.pose1.rot[:, 2]
    for joint in model.joints:
        if joint.type not in _HINGES or {joint.parent, joint.child} != {spring.link1,
                                                                        spring.link2}:
            continue
        joint_axis = model.link(joint.child).pose.rot @ joint.axis
        dot = float(joint_axis @ axis)
        if abs(abs(dot) - 1.0) < 1e-9:
            return joint, math.copysign(1.0, dot) * (1.0 if joint.child == spring.link2 else -1.0)
    return None, 0.0


def _tendon(spec: mujoco.MjSpec, spring: Spring) -> None:
    for end, (link, pose) in enumerate(((spring.link1, spring.pose1),
                                        (spring.link2, spring.pose2)), start=1):
        site = spec.body(link).add_site()
        site.name = f'{spring.name}:site{end}'
        site.pos = [float(x) for x in pose.pos]
        site.info = spring.source or ''
    tendon = spec.add_tendon()
    tendon.name = spring.name
    tendon.info = spring.source or ''
    tendon.wrap_site(f'{spring.name}:site1')
    tendon.wrap_site(f'{spring.name}:site2')
    tendon.stiffness = [float(spring.stiffness), 0.0, 0.0]
    tendon.damping = [float(spring.damping), 0.0, 0.0]
    rest = spring.rest + (spring.preload / spring.stiffness if spring.stiffness else 0.0)
    tendon.springlength = [float(rest), float(rest)]


def _joint_spring(spec: mujoco.MjSpec, spring: Spring, joint_name: str, sign: float) -> None:
    """x = sign q, F = P - k (x - rest) - c dx  ->  tau = -k (q - ref) - c dq on the joint."""
    joint = spec.joint(joint_name)
    k_old = float(joint.stiffness[0])
    ref = sign * (spring.rest + (spring.preload / spring.stiffness if spring.stiffness else 0.0))
    k_new = k_old + spring.stiffness
    if k_new:
        joint.springref = (k_old * float(joint.springref) + spring.stiffness * ref) / k_new
    joint.stiffness = [k_new, 0.0, 0.0]
    damping = list(joint.damping)
    damping[0] += float(spring.damping)
    joint.damping = damping


# --- motors ----------------------------------------------------------------------------------


def _driver(spec: mujoco.MjSpec, motor: str, joint_name: str, timestep: float) -> None:
    """A driver joint for the motor and the equality that makes the motor joint follow it."""
    joint = spec.joint(joint_name)
    body = spec.worldbody.add_body()
    body.name = motor + DRIVER_SUFFIX
    # Heavy (so that the equality's reaction does not move it, and MuJoCo's estimate of the
    # constraint's inertia stays that of the motor joint), weightless (gravcomp).
    body.explicitinertial = True
    body.mass = DRIVER_INERTIA
    body.inertia = [DRIVER_INERTIA] * 3
    body.ipos = [0.0, 0.0, 0.0]
    body.iquat = [1.0, 0.0, 0.0, 0.0]
    body.gravcomp = 1.0
    driver = body.add_joint()
    driver.name = motor + DRIVER_SUFFIX
    driver.type = joint.type
    driver.axis = [0.0, 0.0, 1.0]
    driver.limited = mujoco.mjtLimited.mjLIMITED_FALSE
    driver.info = joint.info
    eq = spec.add_equality()
    eq.name = motor + DRIVE_SUFFIX
    eq.info = joint.info
    eq.type = mujoco.mjtEq.mjEQ_JOINT
    eq.name1 = joint_name
    eq.name2 = driver.name
    eq.data[:5] = [0.0, 1.0, 0.0, 0.0, 0.0]
    eq.solref = [2.0 * timestep, 1.0]
    eq.solimp = [0.9999, 0.9999, 0.001, 0.5, 2.0]
