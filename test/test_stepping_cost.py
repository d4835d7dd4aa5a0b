"""What makes the stepping loop cheap keeps its behaviour: messages serialized once and patched
read back as the messages built field by field; servos retuned only after the joints moved
track as those retuned every period."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from conftest import SAMPLE_ARM, shared_model
from geometry_msgs.msg import TransformStamped
from rclpy.serialization import deserialize_message
from sensor_msgs.msg import JointState
from tf2_msgs.msg import TFMessage

import body_bridge.sim.building.binding as binding
from body_bridge.formats import load_model
from body_bridge.ros.stream import wire
from body_bridge.sim.simulation import Mode, Simulation
from body_bridge.sim.control.trajectory import JointTrajectory


def test_packed_tf_message_reads_back_as_built_field_by_field():
    frames = [('world', 'base'), ('base', 'upper_arm'), ('upper_arm', 'a_much_longer_name_x')]
    packed = wire.tf_message(frames)
    rng = np.random.default_rng(3)
    pos, quat = rng.normal(size=(3, 3)), rng.normal(size=(3, 4))
    sec, nanosec = wire.stamp_parts(12.345678901)
    for slot, values in (('sec', sec), ('nanosec', nanosec), ('translation', pos),
                         ('rotation', quat)):
        packed.set(slot, values)
    got = deserialize_message(packed.payload(), TFMessage)
    assert (sec, nanosec) == (12, 345678901)
    assert len(got.transforms) == 3
    for t, (parent, child), p, q in zip(got.transforms, frames, pos, quat):
        assert (t.header.frame_id, t.child_frame_id) == (parent, child)
        assert (t.header.stamp.sec, t.header.stamp.nanosec) == (sec, nanosec)
        tr, rot = t.transform.translation, t.transform.rotation
        assert [tr.x, tr.y, tr.z] == list(p)  # exactly: the same doubles
        assert [rot.w, rot.x, rot.y, rot.z] == list(q)


def test_packed_joint_state_has_its_names_and_values():
    names = [f'joint_{k}' for k in range(29)]
    packed = wire.joint_state_message(names)
    values = {f: np.linspace(-1.0, 1.0, 29) * (k + 1) for k, f in
              enumerate(('position', 'velocity', 'effort'))}
    for field, v in values.items():
        packed.set(field, v)
    packed.set('sec', 3)
    packed.set('nanosec', 7)
    got = deserialize_message(packed.payload(), JointState)
    assert list(got.name) == names
    assert (got.header.stamp.sec, got.header.stamp.nanosec) == (3, 7)
    for field, v in values.items():
        np.testing.assert_array_equal(getattr(got, field), v)


def test_packed_message_without_joints_and_wrong_sizes():
    empty = wire.joint_state_message([])
    empty.set('position', [])  # a slot with no numbers takes none
    got = deserialize_message(empty.payload(), JointState)
    assert list(got.name) == [] and list(got.position) == []
    with pytest.raises(KeyError):
        empty.set('position', [1.0])
    packed = wire.joint_state_message(['a', 'b'])
    with pytest.raises(ValueError):
        packed.set('position', [1.0, 2.0, 3.0])


def test_packed_message_checks_what_its_build_gives():
    def varying(marks):  # a build whose layout depends on the values: refused
        t = TransformStamped()
        t.child_frame_id = str(marks.float64('x'))
        return TFMessage(transforms=[t])
    with pytest.raises(ValueError):
        wire.PackedMessage(varying)


def test_stamp_parts_match_builtin_time():
    assert wire.stamp_parts(0.0) == (0, 0)
    assert wire.stamp_parts(1.9999999999) == (1, 999_999_999)
    assert wire.stamp_parts(2.5) == (2, 500_000_000)


def _follow(model, distance: float, monkeypatch, seconds: float = 1.5):
    """Joint positions and setpoints at every period while every joint follows a 1 s move."""
    monkeypatch.setattr(binding, 'RETUNE_DISTANCE', distance)
    sim = Simulation(model)
    rows = [sim.joint_names.index(n) for n in sim.actuated]
    goal = sim.joint_positions()[rows] + np.random.default_rng(0).uniform(
        -0.6, 0.6, len(rows))
    sim.follow(JointTrajectory(sim.actuated, np.array([1.0]), goal[None, :]))
    q, setpoints = [], []
    for _ in range(int(round(seconds / sim.period))):
        sim.step_period()
        q.append(sim.joint_positions()[rows])
        setpoints.append(sim._setpoints())
    return np.array(q), np.array(setpoints)


@pytest.mark.parametrize('path', [SAMPLE_ARM, pytest.param('choreonoid/share/model/SR1/SR1.body',
                                                          marks=pytest.mark.corpus)])
def test_retuning_after_a_move_tracks_as_retuning_every_period(path, monkeypatch):
    model = load_model(path if path == SAMPLE_ARM else shared_model(path))
    every_q, every_set = _follow(model, 0.0, monkeypatch)
    moved_q, moved_set = _follow(model, binding.RETUNE_DISTANCE, monkeypatch)
    assert np.max(np.abs(every_q - moved_q)) < 1e-3  # rad, along a move of up to 0.6 rad
    lag_every = np.max(np.abs(every_set - every_q))
    lag_moved = np.max(np.abs(moved_set - moved_q))
    assert lag_moved == pytest.approx(lag_every, rel=0.02)


def test_a_robot_holding_still_is_not_retuned(monkeypatch):
    sim = Simulation(load_model(SAMPLE_ARM))
    calls = []
    original = sim._retune
    monkeypatch.setattr(sim, '_retune', lambda: calls.append(sim.time) or original())
    for _ in range(50):
        sim.step_period()
    assert calls == [0.0]  # once, at the first period after the start (reset)
    sim.command(Mode.POSITION, ['elbow_pitch'], [0.5])
    for _ in range(100):
        sim.step_period()
    assert 5 <= len(calls) <= 100  # retuned as the elbow moved, 0.5 rad in 0.02 rad steps
    assert math.isclose(sim.joint_positions()[2], 0.5, abs_tol=2e-3)



def test_a_joint_is_retuned_only_past_the_retune_distance_and_gravity_every_period(monkeypatch):
    sim = Simulation(load_model(SAMPLE_ARM))
    calls = []
    original = sim._retune
    monkeypatch.setattr(sim, '_retune', lambda: calls.append(sim.time) or original())
    sim.begin_period()  # tuned at the start: every joint at 0 rad
    assert calls == [0.0] and sim._tuned_q.tolist() == [0.0] * len(sim._tuned_q)
    elbow = sim._qa[sim.actuated.index('elbow_pitch')]
    for q, retuned in ((-binding.RETUNE_DISTANCE, False), (binding.RETUNE_DISTANCE, False),
                       (np.nextafter(binding.RETUNE_DISTANCE, 1.0), True)):
        sim.data.qpos[elbow] = q
        mujoco.mj_forward(sim.mj, sim.data)
        sim.begin_period()
        assert (len(calls) == 2) == retuned, q
        # the gravity fed forward is that of this state, retuned or not (fixed base)
        assert sim._gravity.tolist() == sim.data.qfrc_bias[sim._da].tolist()
    sim.data.qpos[elbow] = 0.5  # held still far from 0: not retuned again
    mujoco.mj_forward(sim.mj, sim.data)
    sim.begin_period()
    sim.begin_period()
    assert len(calls) == 3


def test_frames_are_read_through_a_slice_where_their_bodies_follow_one_another():
    rows = np.arange(20.0).reshape(10, 2)
    for index, kind in (([1, 2, 3, 4], slice), ([3], slice), ([2, 3, 5], np.ndarray),
                        ([4, 3], np.ndarray), ([0, 2, 4], np.ndarray), ([], np.ndarray)):
        got = binding._range_or_index(np.array(index, dtype=int))
        assert isinstance(got, kind), index
        assert rows[got].tolist() == rows[np.array(index, dtype=int)].tolist()
    assert binding._range_or_index(np.array([1, 2, 3])) == slice(1, 4)
