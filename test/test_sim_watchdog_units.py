"""sim/control/watchdog.py on a small MuJoCo model of its own: the bound, the joint named, the state
kept, MuJoCo's messages (no ROS)."""

import dataclasses

import mujoco
import pytest

from body_bridge.sim.control import watchdog
from body_bridge.sim.control.watchdog import MAX_VALUE, Divergence, Watchdog

#: A free box (7 positions, 6 velocities) carrying an arm on a hinge.
XML = """
<mujoco>
  <worldbody>
    <body name="box" pos="0 0 1">
      <freejoint name="float"/>
      <geom type="box" size="0.1 0.1 0.1" mass="1"/>
      <body name="arm" pos="0.2 0 0">
        <joint name="elbow" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="0.2"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


@pytest.fixture
def model():
    mj = mujoco.MjModel.from_xml_string(XML)
    return mj, mujoco.MjData(mj)


def test_values_up_to_the_bound_are_sound_beyond_it_not(model):
    mj, data = model
    dog = Watchdog(mj, data)
    watchdog.mujoco_messages()  # what earlier models of this process made MuJoCo say
    assert dog.count == 0
    data.qvel[6] = MAX_VALUE
    data.qpos[7] = -MAX_VALUE
    assert dog.check() is None
    data.qvel[6] = 1.5e10
    found = dog.check()
    assert (found.joint, found.what) == ('elbow', 'velocity 1.5e+10')
    data.qvel[2] = MAX_VALUE  # before the bad value, at the bound: not the one named
    assert dog.check().joint == 'elbow'


@pytest.mark.parametrize('array, index, joint', [
    ('qpos', 7, 'elbow'), ('qpos', 3, 'float'), ('qvel', 6, 'elbow'), ('qvel', 5, 'float')])
def test_the_joint_is_found_by_position_or_by_velocity_index(model, array, index, joint):
    mj, data = model
    dog = Watchdog(mj, data)
    getattr(data, array)[index] = float('nan')
    assert dog.check().joint == joint


def test_the_state_before_the_period_is_kept_from_the_start(model):
    mj, data = model
    data.time, data.qpos[7] = 2.5, 0.4
    dog = Watchdog(mj, data)  # keeps the state it is given
    data.time, data.qpos[7], data.qvel[0] = 2.6, float('nan'), 3.0
    assert dog.check().time == 2.5
    dog.restore()
    assert (data.time, data.qpos[7], data.qvel[0]) == (2.5, 0.4, 0.0)


def test_the_report_names_the_joint_without_the_models_prefix():
    found = Divergence(1.25, 'arm_1/elbow', 'velocity nan')
    assert found.describe('arm_1/') == ("the integrator diverged at t = 1.25 s (joint 'elbow': "
                                        'velocity nan)')
    assert "joint 'arm_1/elbow'" in found.describe('arm_2/')
    assert "joint 'arm_1/elbow'" in found.describe()
    assert '(no single joint: position inf)' in Divergence(0.0, None, 'position inf').describe(
        'arm_1/')
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.time = 0.0  # a report is a value


def test_mujocos_messages_are_given_once_each_and_then_forgotten(model):
    Watchdog(*model)  # routes MuJoCo's warnings here
    watchdog.mujoco_messages()
    for text in ('Nan, Inf or huge value in QACC at DOF 6.', 'two\n  lines',
                 'Nan, Inf or huge value in QACC at DOF 6.'):
        watchdog._keep_message(text)
    assert watchdog.mujoco_messages() == ['Nan, Inf or huge value in QACC at DOF 6.',
                                          'two lines']
    assert watchdog.mujoco_messages() == []


def test_a_report_quotes_only_what_mujoco_said_during_the_period(model):
    mj, data = model
    dog = Watchdog(mj, data)
    watchdog._keep_message('Attach conflict: another model, before this period')
    dog.save()
    data.qvel[6] = float('inf')
    assert dog.check().what == 'velocity inf'
    dog.save()
    watchdog._keep_message('Nan, Inf or huge value in QACC at DOF 6.')
    data.qvel[6] = float('nan')
    assert dog.check().what == 'velocity nan; MuJoCo: Nan, Inf or huge value in QACC at DOF 6.'


def test_a_restored_state_is_where_the_bodies_are_drawn_and_published(model):
    # what follows a reset (TF, the viewer) reads the bodies' poses MuJoCo derives from qpos
    mj, data = model
    mujoco.mj_forward(mj, data)
    arm_tip = data.xpos[mj.body('arm').id].copy()
    dog = Watchdog(mj, data)
    data.qpos[0] = 5.0
    mujoco.mj_forward(mj, data)
    assert data.xpos[mj.body('arm').id][0] == pytest.approx(arm_tip[0] + 5.0)
    dog.restore()
    assert data.xpos[mj.body('arm').id].tolist() == pytest.approx(arm_tip.tolist())
