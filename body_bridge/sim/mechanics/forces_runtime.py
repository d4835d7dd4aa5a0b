"""The per-step part of a model's springs, motors and loads (``Simulation.step_hooks``).

Before every physics step ``ForceSystem.before_step``:

* sets each POSITION/SPEED motor's driver to the target and its rate (POSITION: ``f(t)``,
  ``f'(t)``; SPEED: ``integral of f`` from the last reset, ``f(t)``);
* applies as body wrenches (``xfrc_applied``, its own share only) what MuJoCo cannot hold
  natively: FORCE motors, nonlinear or off-axis springs, loop-closing bushings, body loads
  and load controllers, evaluated at the current state.

Motors whose function is CONTROLLER and load controllers take their value from
``set_motor_input`` and ``set_load_input`` (``ros/control/chrono_controllers.py`` feeds them
from ROS topics). A command for a motor's joint
(``Simulation.command``) releases the motor: its equality is switched off and the servo of
the joint takes over until the next reset. At reset, the model's passive joints and motor
joints are put in effort mode with zero effort (no servo holds them), controller inputs go back
to zero and the model's initial velocities are set.
"""

from __future__ import annotations

import threading

import mujoco
import numpy as np

from ... import functions
from ...model import Actuation, FunctionKind, LoadKind, Model, SpringKind
from .closures import weigh_closure_drives, weigh_virtual_bodies
from .forces import motor_joint, plan_springs
from .forces_laws import rsda_angle, small_rotation, spring_force, unwrap
from ..names import DRIVE_SUFFIX, DRIVER_SUFFIX, Mode

__all__ = ['ForceSystem', 'install_forces']


def _cross(a, b) -> np.ndarray:
    """The cross product of two 3-vectors (numpy's is slow for single vectors)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


class ForceSystem:
    """Runtime forces of one model in one Simulation."""

    def __init__(self, sim):
        self.sim = sim
        self.model: Model = sim.model
        self.mj, self.data = sim.mj, sim.data
        self._lock = threading.Lock()
        self._inputs: dict[tuple[str, str], np.ndarray] = {}
        self._released: set[str] = set()
        self._issuing = False
        self._xfrc = np.zeros((self.mj.nbody, 6))
        self._bodies: dict[str, int] = {}
        self._prepare_motors()
        self._prepare_elements()
        self._weigh_closure_drives()

    @classmethod
    def install(cls, sim) -> ForceSystem | None:
        """Create and register the hooks when the model has anything for them to do."""
        model = sim.model
        if not (model.motors or model.springs or model.bushings or model.loads
                or model.initial_velocities or model.passive_joints):
            return None
        system = cls(sim)
        sim.step_hooks.append(system.before_step)
        sim.reset_hooks.append(system.on_reset)
        sim.command_hooks.append(system.on_command)
        return system

    # --- set-up ----------------------------------------------------------------------------

    def _body(self, link: str) -> int:
        body = self._bodies.get(link)
        if body is None:
            body = self._bodies[link] = self.mj.body(self.sim.mj_name(link)).id
        return body

    def _prepare_motors(self) -> None:
        m, name = self.mj, self.sim.mj_name
        self.motors = []
        for motor in self.model.motors:
            joint = m.joint(name(motor_joint(self.model, motor)))
            entry = {'motor': motor, 'joint': joint.id, 'name': motor.name,
                     'model_joint': motor.joint, 'integral': 0.0}
            if motor.actuation != Actuation.FORCE:
                driver = m.joint(name(motor.name + DRIVER_SUFFIX))
                entry.update(qadr=int(driver.qposadr[0]), dadr=int(driver.dofadr[0]),
                             eq=m.eq(name(motor.name + DRIVE_SUFFIX)).id)
            if motor.function.kind == FunctionKind.CONTROLLER:
                self._inputs['motor', motor.name] = np.zeros(1)
            self.motors.append(entry)

    def _weigh_closure_drives(self) -> None:
        """A motor-driven closure joint gets the inverse inertia its loop really has."""
        dofs = [int(self.mj.jnt_dofadr[e['joint']]) for e in self.motors
                if e['model_joint'] is None and 'eq' in e]
        if dofs:
            weigh_closure_drives(self.mj, self.data, self.model, self.sim.prefix, dofs)

    def _prepare_elements(self) -> None:
        plan = plan_springs(self.model)
        self.springs = [s for s in self.model.springs if plan[s.name][0] == 'hook']
        self._angles = {s.name: 0.0 for s in self.springs if s.kind == SpringKind.ROTATIONAL}
        for load in self.model.loads:
            if load.controller:
                self._inputs['load', load.name] = np.zeros(3)
        self._needs_state = bool(self.springs or self.model.bushings or self.model.loads or
                                 any(e['motor'].actuation == Actuation.FORCE
                                     for e in self.motors))

    def rebind(self, sim) -> None:
        """Find the model's elements again in its world compiled anew (a model joined or left:
        ``World.add``, ``World.remove``), keeping what they were doing: SPEED motors'
        integrals, released motors, controller inputs, springs' unwrapped angles, the closure
        drives' weights and this system's share of the body wrenches (``carry_state`` carried
        ``xfrc_applied`` by body name). The functions' time is the world's, carried too."""
        old_mj, share = self.mj, self._xfrc
        kept = {e['name']: (e['integral'], e['joint']) for e in self.motors}
        with self._lock:
            inputs = dict(self._inputs)
        self.mj, self.data, self._bodies = sim.mj, sim.data, {}
        self._xfrc = np.zeros((self.mj.nbody, 6))
        for row in np.flatnonzero(np.any(share != 0.0, axis=1)):
            name = mujoco.mj_id2name(old_mj, mujoco.mjtObj.mjOBJ_BODY, int(row))
            self._xfrc[self.mj.body(name).id] = share[row]
        self._prepare_motors()  # indices in the new model (the inputs are put back below)
        for entry in self.motors:  # the weights as they were (see _weigh_closure_drives)
            entry['integral'], joint = kept[entry['name']]
            weight = old_mj.dof_invweight0[old_mj.jnt_dofadr[joint]]
            self.mj.dof_invweight0[self.mj.jnt_dofadr[entry['joint']]] = weight
        with self._lock:
            self._inputs = inputs

    # --- inputs (thread safe) ----------------------------------------------------------------

    @property
    def controllers(self) -> list[tuple[str, str]]:
        """(name, kind) of every element fed from outside: kind 'motor' (``set_motor_input``),
        or 'force' or 'torque' for a load controller (``set_load_input``)."""
        out = [(e['name'], 'motor') for e in self.motors
               if e['motor'].function.kind == FunctionKind.CONTROLLER]
        return out + [(load.name, load.kind.value) for load in self.model.loads
                      if load.controller]

    def set_motor_input(self, name: str, value: float) -> None:
        """A CONTROLLER motor's input: its target position, speed or effort (joint units).

        Raises:
            KeyError: no CONTROLLER motor of that name.
            ValueError: not finite.
        """
        self._set(('motor', name), [value])

    def set_load_input(self, name: str, vector) -> None:
        """A load controller's force [N] or torque [N m] (its body's frame if local).

        Raises:
            KeyError: no load controller of that name.
            ValueError: not three finite values.
        """
        self._set(('load', name), vector)

    def _set(self, key, value) -> None:
        current = self._inputs[key]
        value = np.asarray(value, dtype=float).reshape(-1)
        if value.shape != current.shape or not np.all(np.isfinite(value)):
            raise ValueError(f'{key[1]}: expected {current.size} finite value(s)')
        with self._lock:
            self._inputs[key] = value

    def release(self, joint: str) -> None:
        """Stop the motor driving ``joint`` (a command for the joint takes over)."""
        with self._lock:
            self._released.add(joint)

    def engaged(self, motor: str) -> bool:
        """Whether the named motor drives its joint now."""
        entry = next(e for e in self.motors if e['name'] == motor)
        return entry['model_joint'] not in self._released

    # --- hooks ---------------------------------------------------------------------------------

    def on_command(self, mode, names) -> None:
        if self._issuing:
            return
        motor_joints = {e['model_joint'] for e in self.motors}
        for name in names:
            if name in motor_joints:
                self.release(name)

    def on_reset(self, sim) -> None:
        with self._lock:
            self._released.clear()
            self._inputs = {key: np.zeros_like(value) for key, value in self._inputs.items()}
        self._xfrc[:] = 0.0
        for entry in self.motors:
            entry['integral'] = 0.0
        for name in self._angles:
            self._angles[name] = 0.0
        self._set_initial_velocities()
        passive = [n for n in self.model.passive_joints if n in sim.actuated]
        if passive:
            self._issuing = True
            try:
                sim.command(Mode.EFFORT, passive, np.zeros(len(passive)))
            finally:
                self._issuing = False

    def before_step(self, sim) -> None:
        m, d = self.mj, self.data
        with self._lock:
            released = set(self._released)
            inputs = dict(self._inputs)
        self._drive(released, inputs)
        if not self._needs_state:
            return
        mujoco.mj_kinematics(m, d)
        mujoco.mj_comPos(m, d)
        mujoco.mj_comVel(m, d)
        d.xfrc_applied -= self._xfrc
        self._xfrc[:] = 0.0
        self._motor_forces(released, inputs)
        for spring in self.springs:
            self._spring(spring)
        for bushing in self.model.bushings:
            self._bushing(bushing)
        for load in self.model.loads:
            self._load(load, inputs)
        d.xfrc_applied += self._xfrc

    # --- motors --------------------------------------------------------------------------------

    def _target(self, entry, inputs, t: float) -> float:
        fn = entry['motor'].function
        if fn.kind == FunctionKind.CONTROLLER:
            return float(inputs['motor', entry['name']][0])
        return functions.value(fn, t)

    def _drive(self, released, inputs) -> None:
        d = self.data
        t, dt = float(d.time), float(self.mj.opt.timestep)
        for entry in self.motors:
            motor = entry['motor']
            if motor.actuation == Actuation.FORCE:
                continue
            if entry['model_joint'] in released:
                d.eq_active[entry['eq']] = 0
                continue
            fn = motor.function
            if motor.actuation == Actuation.POSITION:
                q = self._target(entry, inputs, t)
                v = 0.0 if fn.kind == FunctionKind.CONTROLLER else functions.derivative(fn, t)
            else:
                q, v = entry['integral'], self._target(entry, inputs, t)
                entry['integral'] += v * dt if fn.kind == FunctionKind.CONTROLLER else \
                    functions.integral(fn, t, t + dt)
            d.qpos[entry['qadr']] = q
            d.qvel[entry['dadr']] = v

    def _motor_forces(self, released, inputs) -> None:
        for entry in self.motors:
            if entry['motor'].actuation != Actuation.FORCE or entry['model_joint'] in released:
                continue
            self._joint_effort(entry['joint'], self._target(entry, inputs, float(self.data.time)))

    def _joint_effort(self, joint: int, effort: float) -> None:
        """A generalised force on one hinge or slide: equal and opposite on its two bodies."""
        m, d = self.mj, self.data
        child = int(m.jnt_bodyid[joint])
        parent = int(m.body_parentid[child])
        axis, anchor = d.xaxis[joint].copy(), d.xanchor[joint].copy()
        if m.jnt_type[joint] == mujoco.mjtJoint.mjJNT_HINGE:
            self._torque(child, effort * axis)
            self._torque(parent, -effort * axis)
        else:
            self._force(child, effort * axis, anchor)
            self._force(parent, -effort * axis, anchor)

    # --- springs, bushings, loads --------------------------------------------------------------

    def _point(self, body: int, local) -> tuple[np.ndarray, np.ndarray]:
        """World position and velocity of a point fixed in a body."""
        d = self.data
        pos = d.xpos[body] + d.xmat[body].reshape(3, 3) @ local
        vel = np.zeros(6)  # (angular, linear) at the body's centre of mass (mjOBJ_BODY)
        mujoco.mj_objectVelocity(self.mj, d, mujoco.mjtObj.mjOBJ_BODY, body, vel, 0)
        return pos, vel[3:] + _cross(vel[:3], pos - d.xipos[body])

    def _spin(self, body: int) -> np.ndarray:
        vel = np.zeros(6)
        mujoco.mj_objectVelocity(self.mj, self.data, mujoco.mjtObj.mjOBJ_BODY, body, vel, 0)
        return vel[:3]

    def _spring(self, spring) -> None:
        if spring.kind == SpringKind.JOINT:  # no links: its joint's two bodies
            self._joint_spring(spring)
            return
        b1, b2 = self._body(spring.link1), self._body(spring.link2)
        d = self.data
        if spring.kind == SpringKind.TRANSLATIONAL:
            p1, v1 = self._point(b1, spring.pose1.pos)
            p2, v2 = self._point(b2, spring.pose2.pos)
            gap = p1 - p2
            length = float(np.linalg.norm(gap))
            if length < 1e-12:
                return
            direction = gap / length
            force = spring_force(spring, length, float(direction @ (v1 - v2))) * direction
            self._force(b1, force, p1)
            self._force(b2, -force, p2)
        elif spring.kind == SpringKind.ROTATIONAL:
            rot1 = d.xmat[b1].reshape(3, 3) @ spring.pose1.rot
            rot2 = d.xmat[b2].reshape(3, 3) @ spring.pose2.rot
            angle = unwrap(rsda_angle(rot1, rot2), self._angles[spring.name])
            self._angles[spring.name] = angle
            axis = rot1[:, 2]
            rate = float(axis @ (self._spin(b2) - self._spin(b1)))
            torque = spring_force(spring, angle, rate) * axis
            self._torque(b2, torque)
            self._torque(b1, -torque)

    def _joint_spring(self, spring) -> None:
        j = self.mj.joint(self.sim.mj_name(spring.joint))
        q, v = float(self.data.qpos[j.qposadr[0]]), float(self.data.qvel[j.dofadr[0]])
        self._joint_effort(j.id, spring_force(spring, q, v))

    def _bushing(self, bushing) -> None:
        d = self.data
        b1, b2 = self._body(bushing.link1), self._body(bushing.link2)
        rot1 = d.xmat[b1].reshape(3, 3) @ bushing.pose1.rot
        rot2 = d.xmat[b2].reshape(3, 3) @ bushing.pose2.rot
        o1, v1 = self._point(b1, bushing.pose1.pos)
        o2, v2 = self._point(b2, bushing.pose2.pos)
        spin1 = self._spin(b1)
        disp = np.concatenate([rot1.T @ (o2 - o1), small_rotation(rot1.T @ rot2)])
        # The rates as pose1's frame sees them: it turns with link1 (spin1).
        rate = np.concatenate([rot1.T @ (v2 - v1 - _cross(spin1, o2 - o1)),
                               rot1.T @ (self._spin(b2) - spin1)])
        local = -bushing.stiffness * disp - bushing.damping * rate
        force, torque = rot1 @ local[:3], rot1 @ local[3:]
        self._force(b2, force, o2)
        self._force(b1, -force, o2)
        self._torque(b2, torque)
        self._torque(b1, -torque)

    def _load(self, load, inputs) -> None:
        d = self.data
        b = self._body(load.link)
        rot = d.xmat[b].reshape(3, 3)
        if load.controller:
            vector = inputs['load', load.name]
        else:
            scale = 1.0 if load.function is None else functions.value(load.function,
                                                                       float(d.time))
            vector = load.vector * scale
        if load.local_vector:
            vector = rot @ vector
        if load.kind == LoadKind.TORQUE:
            self._torque(b, vector)
        else:
            point = d.xpos[b] + rot @ load.point if load.local_point else load.point
            self._force(b, vector, point)

    def _force(self, body: int, force: np.ndarray, point: np.ndarray) -> None:
        if body == 0:
            return
        self._xfrc[body, :3] += force
        self._xfrc[body, 3:] += _cross(point - self.data.xipos[body], force)

    def _torque(self, body: int, torque: np.ndarray) -> None:
        if body != 0:
            self._xfrc[body, 3:] += torque

    # --- initial state -------------------------------------------------------------------------

    def _set_initial_velocities(self) -> None:
        """The joint velocities closest (mass-weighted) to the model's initial body velocities."""
        if not self.model.initial_velocities:
            return
        m, d = self.mj, self.data
        momentum = np.zeros(m.nv)
        jacp, jacr = np.zeros((3, m.nv)), np.zeros((3, m.nv))
        for velocity in self.model.initial_velocities:
            b = self._body(velocity.link)
            mujoco.mj_jacBodyCom(m, d, jacp, jacr, b)
            rot = d.ximat[b].reshape(3, 3)
            inertia = rot @ np.diag(m.body_inertia[b]) @ rot.T
            momentum += jacp.T @ (m.body_mass[b] * velocity.linear)
            momentum += jacr.T @ (inertia @ velocity.angular)
        qvel = np.zeros(m.nv)
        mujoco.mj_solveM(m, d, qvel.reshape(1, -1), momentum.reshape(1, -1))
        d.qvel[:] = qvel
        mujoco.mj_forward(m, d)


def install_forces(sim, running: ForceSystem | None = None):
    """Attach the model's runtime forces to a Simulation (None when it has none); hold its
    loop closures as firmly as direct joints would be. ``running``: the model's system before
    its world was compiled again, bound to the new one with its state."""
    weigh_virtual_bodies(sim.mj, sim.model, sim.prefix)
    if running is not None:
        running.rebind(sim)
        return running
    return ForceSystem.install(sim)
