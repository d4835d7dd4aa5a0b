"""GripperCommand over real DDS from this process to a bridge in another: the Barrett WAM's
hand closes on a cylinder held in front of its palm (stalled, fingers at the surface) and
opens again (reached_goal)."""

from __future__ import annotations

import os
import subprocess
import sys

import mujoco
import pytest
from conftest import ROS_MISSING

# Needs ROS 2 (rclpy, message packages) and the real model corpus (the Barrett WAM).
pytestmark = [pytest.mark.ros, pytest.mark.corpus]
pytest.importorskip('rclpy', reason=ROS_MISSING)

from control_msgs.action import GripperCommand
from rclpy.action import ActionClient
from sensor_msgs.msg import JointState

from body_bridge.formats import load_model
from body_bridge.ros.stream import qos
from body_bridge.ros.control.commands import read_controllers
from body_bridge.ros.control.grippers import find_grippers
from body_bridge.sim.simulation import simulate_together

from conftest import REPO, shared_model
from test_end_to_end import STARTUP, spin_until

WAM = 'openrave/src/robots/barrettwam.robot.xml'
FINGERS = ['JF1', 'JF2', 'JF3']
#: A cylinder along y, fixed 0.18 m above the hand base of the upright WAM (radius 0.04 m).
CYLINDER = """format: ChoreonoidBody
format_version: 2.0
name: post
root_link: post
links:
  - name: post
    joint_type: fixed
    translation: [ 0, 0, 1.09 ]
    mass: 0.5
    inertia: [ 0.001, 0, 0, 0.001, 0, 0.001 ]
    elements:
      - type: Shape
        geometry: { type: Cylinder, radius: 0.04, height: 0.2 }
"""


def test_grippers_come_from_manipulators_and_the_parameter_file():
    wam = load_model(shared_model(WAM))
    (hand,) = find_grippers(wam, [], [j.name for j in wam.movable_joints])
    assert hand.name == 'arm_gripper' and hand.joints == ('JF1', 'JF2', 'JF3')  # no spread
    assert hand.directions == (1.0, 1.0, 1.0)
    controllers, _ = read_controllers({
        'pinch.type': 'position_controllers/GripperActionController', 'pinch.joint': 'JF4',
        'pinch.closing_direction': [-1]}, ['JF4'])
    (pinch,) = find_grippers(wam, controllers, ['JF4'])  # the hand's fingers take none
    assert pinch.joints == ('JF4',) and pinch.directions == (-1.0,)


@pytest.fixture
def hand_bridge(tmp_path):
    (tmp_path / 'post.body').write_text(CYLINDER)
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / 'cache'))
    log = open(tmp_path / 'bridge.log', 'w')
    proc = subprocess.Popen([sys.executable, '-m', 'body_bridge', 'sim',
                             f'wam={shared_model(WAM)}', f'post={tmp_path / "post.body"}'],
                            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    yield proc, tmp_path
    proc.send_signal(2)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


def _finger_gaps(tmp_path, positions: dict[str, float]) -> dict[str, float]:
    """Distance from each finger to the cylinder [m] (negative: overlap), by the models'
    geometry in the joint positions given."""
    wam, post = load_model(shared_model(WAM)), load_model(tmp_path / 'post.body')
    sim = simulate_together([(wam, wam_options()), (post, wam_options())], ['', 'post/'])[0]
    mj, data = sim.mj, sim.data
    for name, q in positions.items():
        data.qpos[mj.joint(name).qposadr[0]] = q
    mujoco.mj_forward(mj, data)

    def geoms(body):
        return [g for g in range(mj.ngeom) if mj.body(mj.geom_bodyid[g]).name == body]
    cylinder = geoms('post/post')
    return {finger: min(mujoco.mj_geomDistance(mj, data, g, c, 0.1, None)
                        for link in (f'Finger{k}-1', f'Finger{k}-2')
                        for g in geoms(link) for c in cylinder)
            for k, finger in enumerate(FINGERS)}


def wam_options():
    from body_bridge.sim.building.options import SimOptions
    return SimOptions()


def test_hand_closes_on_a_held_cylinder_and_opens(ros, hand_bridge):
    proc, tmp_path = hand_bridge
    node = ros.create_node('hand_client', namespace='/wam')
    states: list[JointState] = []
    node.create_subscription(JointState, 'joint_states', states.append, qos.JOINT_STATES)
    client = ActionClient(node, GripperCommand, 'arm_gripper/gripper_command')
    try:
        spin_until(ros, node, client.server_is_ready, STARTUP, 'the gripper action')

        def command(position, max_effort=0.0):
            goal = GripperCommand.Goal()
            goal.command.position, goal.command.max_effort = position, max_effort
            future = client.send_goal_async(goal)
            spin_until(ros, node, future.done, 10.0, 'the goal response')
            result = future.result().get_result_async()
            spin_until(ros, node, result.done, 30.0, 'the result')
            return result.result()

        closed = command(2.4)
        assert closed.status == 4 and closed.result.stalled and not closed.result.reached_goal
        assert closed.result.effort > 1.0  # the fingers press on the cylinder [N m]
        spin_until(ros, node, lambda: len(states) > 0, 5.0, 'joint_states')
        msg = states[-1]
        q = dict(zip(msg.name, msg.position))
        assert all(0.3 < q[n] < 2.0 for n in FINGERS), q  # stopped short of closed
        gaps = _finger_gaps(tmp_path, q)
        assert all(abs(gap) < 0.003 for gap in gaps.values()), gaps  # at the surface

        opened = command(0.0)
        assert opened.status == 4 and opened.result.reached_goal
        assert not opened.result.stalled and abs(opened.result.position) < 0.01

        gentle = command(2.4, max_effort=1.5)  # a softer grip: the servos give at most 1.5
        assert gentle.result.stalled and 1.0 < gentle.result.effort <= 1.5 + 1e-9
    finally:
        node.destroy_node()
