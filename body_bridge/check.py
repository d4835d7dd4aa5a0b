"""``check MODEL``: every validation a model goes through on its way to a live robot.

Stages, each run even when an earlier one found problems (unless the model did not load):

1. load: the format's loader (its first error stops the file; its warnings name everything
   it ignored; those about parts the model lacks, ``Model.dropped``, are errors here);
2. URDF: the writer, a re-parse of its output with urdf_parser_py, and ``check_urdf`` (the C++
   parser robot_state_publisher and rviz use) when it is installed;
3. kinematics: the URDF and the integrator's model agree on every link pose at random joint
   positions (within 1e-6 m and rad);
4. integrator: the MuJoCo model compiles, its devices can be simulated, and one simulated
   second (servos holding the initial positions) raises no MuJoCo warning and stays finite;
5. mobile base, for a model with wheels or tracks: how the bridge would take its root
   (``root: auto``), what cmd_vel would drive or why nothing, and ball casters the file
   welds, which drag (a warning naming the ``casters`` parameter's value).
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field

import numpy as np

from .errors import BodyBridgeError
from .model import JointType, Model, axis_angle_matrix

__all__ = ['Finding', 'Report', 'check_model']

#: Largest disagreement between URDF and integrator link poses [m or rad].
FK_TOLERANCE = 1e-6


@dataclass(frozen=True)
class Finding:
    """One problem: ``level`` is 'error' or 'warning'; ``text`` starts with where it is."""

    level: str
    stage: str
    text: str


@dataclass
class Report:
    """What ``check_model`` found, and which stages passed."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    passed: list[str] = field(default_factory=list)
    model: Model | None = None

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.level == 'error']

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.level == 'warning']

    def error(self, stage: str, text: str) -> None:
        self.findings.append(Finding('error', stage, text))

    def warning(self, stage: str, text: str) -> None:
        self.findings.append(Finding('warning', stage, text))


def check_model(path: str, seconds: float = 1.0, trials: int = 3) -> Report:
    """Run every stage on one model file (or bundled model name); never raises for a bad
    model: its problems are in the report."""
    from .formats import load_model
    from .paths import resolve_model
    report = Report(path)
    try:
        model = load_model(resolve_model(path))
    except BodyBridgeError as err:
        report.error('load', str(err))
        return report
    report.model = model
    for line in model.warnings:
        if line not in model.dropped:
            report.warning('load', line)
    for line in model.dropped:  # the model lacks what the file declares: a problem
        report.error('load', line)
    report.passed.append('loaded')
    with tempfile.TemporaryDirectory(prefix='body_bridge_check_') as tmp:
        text = _check_urdf(model, tmp, report)
    mj = _check_integrator(model, seconds, report)
    if text is not None and mj is not None:
        _check_kinematics(model, text, trials, report)
    _check_mobile(model, report)
    return report


def _check_mobile(model: Model, report: Report) -> None:
    from .sim.building.casters import caster_note
    from .sim.building.rootchoice import choose_root, ground_contacts
    from .sim.mechanics.drive import DriveError, find_drive
    chosen, taken, why = choose_root(model, 'auto')
    wheels, casters = ground_contacts(model)
    tracks = any(j.type == JointType.TRACK for j in model.joints)
    if taken == 'fixed' and not wheels and not tracks:
        return  # an arm, an environment: no mobile base to speak of
    if taken == 'fixed':
        report.passed.append(f'mobile base: root fixed ({why}); no cmd_vel')
        return
    try:
        drive = find_drive(chosen)
    except DriveError as err:
        report.warning('mobile', f'{model.source}: root free ({why}); no cmd_vel: {err}')
    else:
        report.passed.append(
            f'mobile base: root free ({why}); cmd_vel drives {drive.kind} '
            f'{", ".join(drive.left)} (left) and {", ".join(drive.right)} (right), '
            f'{drive.separation:.4g} m apart')
    note = caster_note(casters, ())
    if note:
        report.warning('mobile', f'{model.source}: {note}')


def _check_urdf(model: Model, tmp: str, report: Report) -> str | None:
    from urdf_parser_py import urdf as urdf_parser

    from .urdf import to_urdf
    try:
        text = to_urdf(model, mesh_dir=os.path.join(tmp, 'meshes'))
    except BodyBridgeError as err:
        report.error('urdf', str(err))
        return None
    try:
        robot = urdf_parser.URDF.from_xml_string(text)
    except Exception as err:  # the parser raises whatever its XML layer raises
        report.error('urdf', f'{model.source}: urdf_parser_py cannot read the URDF: {err}')
        return None
    from .summary import urdf_links
    links, why = urdf_links(model)
    if len(robot.links) != links:
        report.error('urdf', f'{model.source}: the URDF has {len(robot.links)} links, not '
                     f'{links} ({why})')
        return None
    report.passed.append(f'URDF written ({links} links: {why}; {len(robot.joints)} joints)')
    exe = shutil.which('check_urdf')
    if exe is None:
        report.warning('urdf', 'check_urdf is not installed (Debian/Ubuntu: liburdfdom-tools); '
                       'the C++ URDF parser was not run')
        return text
    file = os.path.join(tmp, f'{model.name}.urdf')
    with open(file, 'w', encoding='utf-8') as f:
        f.write(text)
    proc = subprocess.run([exe, file], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        out = ' '.join((proc.stdout + proc.stderr).split())[-300:]
        report.error('urdf', f'{model.source}: check_urdf rejects the URDF: {out}')
    else:
        report.passed.append('check_urdf accepts the URDF')
    return text


def _check_integrator(model: Model, seconds: float, report: Report):
    from .sim.sensing.sensors import SensorSuite
    from .sim.simulation import Simulation
    try:
        sim = Simulation(model)
    except BodyBridgeError as err:
        report.error('integrator', str(err))
        return None
    suite = SensorSuite(sim)
    for line in suite.warnings:
        report.warning('integrator', line)
    for _ in range(int(round(seconds / sim.period))):
        sim.step_period()
    warnings = sim.warnings()
    if warnings:
        report.error('integrator', f'{model.source}: MuJoCo warned while stepping '
                     f'{seconds:g} s: ' + ', '.join(f'{k} x{v}' for k, v in warnings.items()))
    elif not np.all(np.isfinite(sim.data.qpos)):
        report.error('integrator', f'{model.source}: the state is not finite after '
                     f'{seconds:g} s')
    else:
        report.passed.append(f'integrator compiled ({len(suite.samplers)} simulated devices), '
                             f'{seconds:g} s stepped without warnings')
    return sim.mj


def _check_kinematics(model: Model, text: str, trials: int, report: Report) -> None:
    from .sim.building.poses import LinkPoses
    poses = LinkPoses(model)
    rng = np.random.default_rng(0)
    root = model.link(model.root).pose.matrix()
    worst, where = 0.0, ''
    for _ in range(trials):
        q = _random_positions(model, rng)
        simulated = poses.at(q)
        world = _urdf_poses(text, q, root)
        for link in model.links:
            t = world[link.name]
            xpos, xmat = simulated[link.name]
            dp = float(np.linalg.norm(t[:3, 3] - xpos))
            r = t[:3, :3].T @ xmat
            da = math.acos(max(-1.0, min(1.0, (np.trace(r) - 1) / 2)))
            if max(dp, da) > worst:
                worst, where = max(dp, da), link.name
    if worst > FK_TOLERANCE:
        report.error('kinematics', f'{model.source}: the URDF and the integrator disagree on '
                     f'link {where!r} by {worst:.3g} (m or rad)')
    else:
        report.passed.append(f'URDF and integrator agree on every link pose ({worst:.1g})')


def _random_positions(model: Model, rng) -> dict[str, float]:
    from .fparser import mimic_formula
    q = {}
    for joint in model.movable_joints:
        if joint.mimic is None:
            lo, hi = joint.limits.lower, joint.limits.upper
            span = 0.5 if joint.type == JointType.PRISMATIC else math.pi
            lo = -span if lo is None else max(lo, -1e3)
            hi = span if hi is None else min(hi, 1e3)
            q[joint.name] = float(rng.uniform(lo, hi))
    for _ in range(len(model.joints)):  # chains of mimic joints settle
        for joint in model.movable_joints:
            if joint.mimic is not None:
                formula = mimic_formula(joint.mimic)
                q[joint.name] = formula.evaluate({v: q.get(v, 0.0) for v in formula.variables})
    return q


def _rpy(rpy) -> np.ndarray:
    r, p, y = rpy
    return axis_angle_matrix((0, 0, 1), y) @ axis_angle_matrix((0, 1, 0), p) @ \
        axis_angle_matrix((1, 0, 0), r)


def _urdf_poses(text: str, q: dict[str, float], root: np.ndarray) -> dict[str, np.ndarray]:
    """4x4 world transform of every URDF link, read back from the URDF text itself."""
    from urdf_parser_py import urdf as urdf_parser
    robot = urdf_parser.URDF.from_xml_string(text)
    joints = {j.name: j for j in robot.joints}

    def position(joint) -> float:
        if joint.mimic is not None:
            lead = joints[joint.mimic.joint]
            return (1.0 if joint.mimic.multiplier is None else joint.mimic.multiplier) * \
                position(lead) + (joint.mimic.offset or 0.0)
        return q.get(joint.name, 0.0)

    world = {robot.get_root(): root}
    children: dict[str, list] = {}
    for joint in robot.joints:
        children.setdefault(joint.parent, []).append(joint)
    stack = [robot.get_root()]
    while stack:
        parent = stack.pop()
        for joint in children.get(parent, []):
            t = np.eye(4)
            if joint.origin is not None:
                t[:3, :3] = _rpy(joint.origin.rpy or (0, 0, 0))
                t[:3, 3] = joint.origin.xyz or (0, 0, 0)
            motion = np.eye(4)
            if joint.type in ('revolute', 'continuous'):
                motion[:3, :3] = axis_angle_matrix(joint.axis, position(joint))
            elif joint.type == 'prismatic':
                motion[:3, 3] = np.asarray(joint.axis, float) * position(joint)
            world[joint.child] = world[parent] @ t @ motion
            stack.append(joint.child)
    return world
