"""``check`` (check.py) in this process, on a chain built in code and the sample arm: the stages
passed, and each problem a stage can find reported in one line (the model's loader, the URDF
writer and parsers, the integrator and the kinematics made to fail here)."""

from __future__ import annotations

import math
import os
import stat

import numpy as np
import pytest

import body_bridge.formats
import body_bridge.paths
from body_bridge import check
from body_bridge.check import FK_TOLERANCE, check_model
from body_bridge.errors import ModelError
from body_bridge.sim.simulation import Simulation
from body_bridge.model import (Box, Inertial, Joint, JointType, Limits, Link, Mimic, Model,
                               Pose, Shape)


def _link(name, pos):
    return Link(name, Pose(pos), Inertial(0.5, inertia=np.eye(3) * 0.01),
                collisions=(Shape(Box((0.05, 0.05, 0.05))),))


def _chain(warnings=()):
    links = (_link('base', (0, 0, 0)), _link('a', (0, 0, 0.2)), _link('b', (0.1, 0, 0)),
             _link('c', (0, 0.1, 0)), _link('d', (0, 0, 0.1)), _link('e', (0, 0, 0.1)),
             _link('f', (0.05, 0, 0)))
    z, x = np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0])
    joints = (
        Joint('j1', JointType.REVOLUTE, 'base', 'a', z, Limits(-0.5, 0.25)),
        Joint('j2', JointType.PRISMATIC, 'a', 'b', x),
        Joint('j3', JointType.CONTINUOUS, 'b', 'c', x),
        Joint('j4', JointType.REVOLUTE, 'c', 'd', x, Limits(-2e3, 3e3)),
        Joint('m1', JointType.REVOLUTE, 'd', 'e', z, mimic=Mimic('m2', 0.5, 0.1)),
        Joint('m2', JointType.REVOLUTE, 'e', 'f', x, mimic=Mimic('j1', -2.0, 0.05)))
    return Model(name='chain', links=links, joints=joints, root='base', source='chain.body',
                 warnings=tuple(warnings))


@pytest.fixture
def chain(monkeypatch):
    model = _chain(warnings=('chain.body:3: the colour is ignored',))
    monkeypatch.setattr(body_bridge.formats, 'load_model', lambda path: model)
    monkeypatch.setattr(body_bridge.paths, 'resolve_model', lambda path: path)
    return model


def _no_check_urdf(monkeypatch):
    monkeypatch.setattr(check.shutil, 'which', lambda name: None)


def test_a_good_model_passes_every_stage(chain, monkeypatch):
    _no_check_urdf(monkeypatch)
    report = check_model('chain.body', seconds=0.05, trials=2)
    assert report.path == 'chain.body' and report.model is chain and report.errors == []
    assert [(f.level, f.stage, f.text) for f in report.warnings] == [
        ('warning', 'load', 'chain.body:3: the colour is ignored'),
        ('warning', 'urdf', 'check_urdf is not installed (Debian/Ubuntu: liburdfdom-tools); '
         'the C++ URDF parser was not run')]
    assert report.passed[0] == 'loaded'
    assert report.passed[1].startswith("URDF written (7 links: the model's 7; 6 joints)")
    assert report.passed[2] == 'integrator compiled (0 simulated devices), 0.05 s stepped ' \
        'without warnings'
    assert report.passed[3].startswith('URDF and integrator agree on every link pose (')
    assert len(report.passed) == 4


def _exe(tmp_path, status, output):
    path = tmp_path / 'check_urdf'
    path.write_text(f'#!/bin/sh\necho "{output}"\nexit {status}\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_the_cxx_parser_is_run_on_the_urdf(chain, monkeypatch, tmp_path):
    exe = _exe(tmp_path, 0, 'robot name is: chain')
    monkeypatch.setattr(check.shutil, 'which', lambda name: exe)
    report = check_model('chain.body', seconds=0.0, trials=1)
    assert 'check_urdf accepts the URDF' in report.passed and report.errors == []


def test_a_urdf_the_cxx_parser_rejects_is_an_error(chain, monkeypatch, tmp_path):
    exe = _exe(tmp_path, 1, 'Error:   joint   j9 is broken ' + 'x' * 400)
    monkeypatch.setattr(check.shutil, 'which', lambda name: exe)
    report = check_model('chain.body', seconds=0.0, trials=1)
    (error,) = report.errors
    assert error.stage == 'urdf' and error.text.startswith(
        'chain.body: check_urdf rejects the URDF: ')
    assert len(error.text) == len('chain.body: check_urdf rejects the URDF: ') + 300
    assert not any('check_urdf accepts' in p for p in report.passed)


def test_a_model_that_does_not_load_stops_the_check(monkeypatch):
    def refuse(path):
        raise ModelError('bad.body', 4, 'no links')
    monkeypatch.setattr(body_bridge.formats, 'load_model', refuse)
    monkeypatch.setattr(body_bridge.paths, 'resolve_model', lambda path: path)
    report = check_model('bad.body')
    assert [(f.stage, f.text) for f in report.errors] == [('load', 'bad.body:4: no links')]
    assert (report.passed, report.model) == ([], None)


def test_a_missing_file_is_a_load_error(tmp_path):
    report = check_model(str(tmp_path / 'gone.body'))
    assert [f.stage for f in report.errors] == ['load'] and report.passed == []


def test_a_urdf_that_cannot_be_written_skips_the_kinematics(chain, monkeypatch):
    import body_bridge.urdf as urdf

    def refuse(model, mesh_dir):
        raise ModelError('chain.body', None, 'a mesh cannot be written')
    monkeypatch.setattr(urdf, 'to_urdf', refuse)
    report = check_model('chain.body', seconds=0.0)
    assert [(f.stage, f.text) for f in report.errors] == [
        ('urdf', 'chain.body: a mesh cannot be written')]
    assert report.passed[1].startswith('integrator compiled') and len(report.passed) == 2


def test_a_urdf_the_python_parser_cannot_read_is_an_error(chain, monkeypatch):
    import body_bridge.urdf as urdf
    monkeypatch.setattr(urdf, 'to_urdf', lambda model, mesh_dir: '<robot name="x"><link')
    report = check_model('chain.body', seconds=0.0)
    (error,) = report.errors
    assert error.text.startswith('chain.body: urdf_parser_py cannot read the URDF: ')
    assert not any(p.startswith('URDF and integrator') for p in report.passed)


def test_a_model_the_integrator_refuses_skips_the_kinematics(chain, monkeypatch):
    import body_bridge.sim.simulation as simulation

    def refuse(model):
        raise ModelError('chain.body', None, 'the integrator refuses it')
    monkeypatch.setattr(simulation, 'Simulation', refuse)
    _no_check_urdf(monkeypatch)
    report = check_model('chain.body', seconds=0.0)
    assert [(f.stage, f.text) for f in report.errors] == [
        ('integrator', 'chain.body: the integrator refuses it')]
    assert len(report.passed) == 2 and report.passed[1].startswith('URDF written')


class _Sim(Simulation):
    """The chain's simulation, stepped by counting, with the warnings and state given."""

    found: dict = {}
    nan = False

    def step_period(self):
        self.steps = getattr(self, 'steps', 0) + 1
        if self.nan:
            self.data.qpos[0] = math.nan

    def warnings(self):
        return dict(self.found)


@pytest.mark.parametrize('warnings, nan, message', [
    ({'mjWARN_BADQACC': 2, 'mjWARN_CONTACTFULL': 1}, False,
     'chain.body: MuJoCo warned while stepping 0.25 s: mjWARN_BADQACC x2, mjWARN_CONTACTFULL x1'),
    ({}, True, 'chain.body: the state is not finite after 0.25 s')])
def test_integrator_trouble_is_one_error(chain, monkeypatch, warnings, nan, message):
    import body_bridge.sim.simulation as simulation
    made = []
    monkeypatch.setattr(_Sim, 'found', warnings)
    monkeypatch.setattr(_Sim, 'nan', nan)
    monkeypatch.setattr(simulation, 'Simulation', lambda model: made.append(_Sim(model)) or
                        made[-1])
    report = check_model('chain.body', seconds=0.25)
    assert made[0].steps == 25
    assert [(f.stage, f.text) for f in report.errors] == [('integrator', message)]
    assert not any(p.startswith('integrator compiled') for p in report.passed)
    assert report.passed[-1].startswith('URDF and integrator agree')


def test_the_sample_arm_s_devices_are_simulated(monkeypatch):
    _no_check_urdf(monkeypatch)
    report = check_model('sample_arm', seconds=0.0, trials=1)
    assert report.errors == []
    assert any(p.startswith('integrator compiled (') and 'simulated devices), 0 s stepped'
               in p and not p.startswith('integrator compiled (0 ') for p in report.passed)


@pytest.mark.parametrize('offset, agree', [(0.0, True), (0.5 * FK_TOLERANCE, True),
                                           (3 * FK_TOLERANCE, False)])
def test_a_urdf_that_disagrees_with_the_integrator_is_an_error(chain, monkeypatch, offset,
                                                               agree):
    real = check._urdf_poses

    def shifted(text, q, root):
        world = real(text, q, root)
        world['d'] = world['d'] @ np.array([[1, 0, 0, offset], [0, 1, 0, 0], [0, 0, 1, 0],
                                            [0, 0, 0, 1.0]])
        return world
    monkeypatch.setattr(check, '_urdf_poses', shifted)
    report = check_model('chain.body', seconds=0.0, trials=2)
    if agree:
        assert report.errors == [] and report.passed[-1].startswith('URDF and integrator agree')
    else:
        assert [(f.stage, f.text) for f in report.errors] == [
            ('kinematics', "chain.body: the URDF and the integrator disagree on link 'd' by "
             f'{3 * FK_TOLERANCE:.3g} (m or rad)')]


def test_a_rotation_the_urdf_gets_wrong_is_found(chain, monkeypatch):
    from body_bridge.model import axis_angle_matrix
    real = check._urdf_poses

    def turned(text, q, root):
        world = real(text, q, root)
        world['f'] = world['f'].copy()
        world['f'][:3, :3] = world['f'][:3, :3] @ axis_angle_matrix((0, 1, 0), 0.01)
        return world
    monkeypatch.setattr(check, '_urdf_poses', turned)
    report = check_model('chain.body', seconds=0.0, trials=1)
    assert [f.text for f in report.errors] == [
        "chain.body: the URDF and the integrator disagree on link 'f' by 0.01 (m or rad)"]


def test_random_positions_keep_to_the_limits_and_the_mimic_rules():
    model = _chain()
    rng = np.random.default_rng(3)
    for _ in range(40):
        q = check._random_positions(model, rng)
        assert set(q) == {'j1', 'j2', 'j3', 'j4', 'm1', 'm2'}
        assert -0.5 <= q['j1'] <= 0.25 and -0.5 <= q['j2'] <= 0.5
        assert -math.pi <= q['j3'] <= math.pi and -1e3 <= q['j4'] <= 1e3
        assert q['m2'] == pytest.approx(-2.0 * q['j1'] + 0.05)
        assert q['m1'] == pytest.approx(0.5 * q['m2'] + 0.1)
    spread = [check._random_positions(model, rng) for _ in range(200)]
    assert min(q['j4'] for q in spread) < -500 and max(q['j4'] for q in spread) > 500
    assert min(q['j2'] for q in spread) < -0.4 and max(q['j2'] for q in spread) > 0.4
    assert min(q['j3'] for q in spread) < -3.0 and max(q['j3'] for q in spread) > 3.0


def test_urdf_poses_follow_the_joints_and_the_mimic_rules():
    from body_bridge.urdf import to_urdf
    model = _chain()
    text = to_urdf(model, mesh_dir=os.devnull)
    q = {'j1': 0.2, 'j2': 0.3, 'j3': 0.0, 'j4': 0.0, 'm2': 0.0, 'm1': 0.0}
    world = check._urdf_poses(text, q, np.eye(4))
    np.testing.assert_allclose(world['base'], np.eye(4))
    c, s = math.cos(0.2), math.sin(0.2)
    np.testing.assert_allclose(world['a'][:3, 3], [0, 0, 0.2])
    np.testing.assert_allclose(world['a'][:3, :3], [[c, -s, 0], [s, c, 0], [0, 0, 1]],
                               atol=1e-12)
    # link poses are in the model frame: b starts at (0.1, 0, 0) and slides 0.3 along x,
    # all turned with a about z
    np.testing.assert_allclose(world['b'][:3, 3], [0.4 * c, 0.4 * s, 0.0], atol=1e-12)
    # m2 follows j1 (-2 * 0.2 + 0.05 about x), m1 follows m2 (0.5 * m2 + 0.1 about z)
    m2 = -2 * 0.2 + 0.05
    rot_f = world['e'][:3, :3].T @ world['f'][:3, :3]
    assert math.atan2(rot_f[2, 1], rot_f[1, 1]) == pytest.approx(m2)
    rot_e = world['d'][:3, :3].T @ world['e'][:3, :3]
    assert math.atan2(rot_e[1, 0], rot_e[0, 0]) == pytest.approx(0.5 * m2 + 0.1)


def test_urdf_roll_pitch_yaw():
    r = check._rpy((0.1, 0.2, 0.3))
    from body_bridge.model import axis_angle_matrix
    expected = axis_angle_matrix((0, 0, 1), 0.3) @ axis_angle_matrix((0, 1, 0), 0.2) @ \
        axis_angle_matrix((1, 0, 0), 0.1)
    np.testing.assert_allclose(r, expected)
    assert not np.allclose(r, axis_angle_matrix((1, 0, 0), 0.1) @
                           axis_angle_matrix((0, 1, 0), 0.2) @ axis_angle_matrix((0, 0, 1), 0.3))


def test_urdf_poses_take_the_urdf_defaults():
    text = '''<robot name="r">
      <link name="base"/><link name="a"/><link name="b"/>
      <joint name="j1" type="revolute"><parent link="base"/><child link="a"/>
        <origin xyz="0 0 1"/><axis xyz="0 0 1"/>
        <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
      <joint name="j2" type="revolute"><parent link="a"/><child link="b"/>
        <axis xyz="0 0 1"/><mimic joint="j1"/>
        <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
    </robot>'''
    world = check._urdf_poses(text, {'j1': 0.3}, np.eye(4))
    np.testing.assert_allclose(world['a'][:3, 3], [0, 0, 1])
    rot = world['a'][:3, :3].T @ world['b'][:3, :3]  # b turns with j1, multiplier 1, offset 0
    assert math.atan2(rot[1, 0], rot[0, 0]) == pytest.approx(0.3)
    assert math.atan2(world['a'][1, 0], world['a'][0, 0]) == pytest.approx(0.3)


def test_a_link_off_by_exactly_the_tolerance_passes(chain, monkeypatch):
    real = check._urdf_poses

    def shifted(text, q, root):
        world = real(text, q, root)
        world['base'] = world['base'].copy()
        world['base'][0, 3] += FK_TOLERANCE  # the base is at the origin: off by exactly that
        return world
    monkeypatch.setattr(check, '_urdf_poses', shifted)
    report = check_model('chain.body', seconds=0.0, trials=1)
    assert report.errors == [] and report.passed[-1].startswith('URDF and integrator agree')
