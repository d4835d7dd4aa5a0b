"""Real OpenRAVE robots against independent numbers: the Barrett WAM, its hand, the PG70."""

from __future__ import annotations

import math
import mujoco
import numpy as np
import pytest
from urdf_parser_py import urdf

from conftest import CORPUS
from urdf_fk import urdf_forward_kinematics

from body_bridge.formats import load_model
from body_bridge.kinematics import forward_kinematics
from body_bridge.model import JointType
from body_bridge.sim.simulation import Mode, SimOptions, Simulation
from body_bridge.urdf import to_urdf

pytestmark = pytest.mark.corpus  # every test here reads the real model corpus

ROBOTS = CORPUS / 'openrave' / 'src' / 'robots'
DATA = CORPUS / 'openrave' / 'src' / 'data'

#: Barrett WAM Denavit-Hartenberg parameters (Barrett's WAM kinematics documentation):
#: a [m], alpha [rad], d [m] per joint, standard convention T = Rz(q) Tz(d) Tx(a) Rx(alpha).
WAM_DH = ([0, 0, 0.045, -0.045, 0, 0, 0],
          [-math.pi / 2, math.pi / 2, -math.pi / 2, math.pi / 2, -math.pi / 2, math.pi / 2, 0],
          [0, 0, 0.55, 0, 0.3, 0, 0.06])


def wam_dh(q) -> np.ndarray:
    t = np.eye(4)
    for qi, a, alpha, d in zip(q, *WAM_DH):
        ct, st, ca, sa = math.cos(qi), math.sin(qi), math.cos(alpha), math.sin(alpha)
        t = t @ np.array([[ct, -st * ca, st * sa, a * ct], [st, ct * ca, -ct * sa, a * st],
                          [0, sa, ca, d], [0, 0, 0, 1]])
    return t


@pytest.fixture(scope='module')
def wam():
    return load_model(ROBOTS / 'barrettwam.robot.xml')


def test_wam_matches_its_denavit_hartenberg_kinematics(wam):
    arm = wam.manipulators[0].arm_joints
    assert arm == ('Shoulder_Yaw', 'Shoulder_Pitch', 'Shoulder_Roll', 'Elbow', 'Wrist_Yaw',
                   'Wrist_Pitch', 'Wrist_Roll')
    rng = np.random.default_rng(7)
    for _ in range(10):
        q = [rng.uniform(wam.joint(n).limits.lower, wam.joint(n).limits.upper) for n in arm]
        flange = forward_kinematics(wam, dict(zip(arm, q)))['wam7']
        reference = wam_dh(q)  # the DH base frame is wam1's frame at zero, the model origin
        np.testing.assert_allclose(flange.pos, reference[:3, 3], atol=1e-9)
        np.testing.assert_allclose(flange.rot, reference[:3, :3], atol=1e-9)


def test_wam_limits_masses_and_hand(wam):
    assert wam.joint('Shoulder_Yaw').limits.lower == pytest.approx(math.radians(-150))
    assert wam.joint('Elbow').limits.upper == pytest.approx(math.radians(180))
    assert wam.joint('Shoulder_Yaw').limits.velocity == pytest.approx(1.5708)
    assert wam.joint('Shoulder_Pitch').limits.effort == pytest.approx(160.6)
    assert wam.joint('Shoulder_Yaw').meta['weight'] == (1.92154,)
    assert wam.link('wam1').inertial.mass == pytest.approx(8.3936)
    # the arm (wam7.kinbody.xml totals) plus the hand (1.1 kg palm, eight 0.1 kg finger links)
    assert wam.total_mass == pytest.approx(27.05 + 1.9, abs=0.01)
    assert wam.joint('dummyhand').type == JointType.FIXED
    assert wam.root == 'wam0' and wam.root_joint == JointType.FIXED
    # the palm sits on the flange: 0.91 m above the shoulder at zero, fingers 0.0915 m higher
    fk = forward_kinematics(wam, {})
    np.testing.assert_allclose(fk['handbase'].pos, [0, 0, 0.91], atol=1e-12)
    np.testing.assert_allclose(fk['Finger2-1'].pos, [-0.05, 0, 0.91 + 0.0915], atol=1e-12)


def test_wam_tool_frame_is_in_the_urdf(wam, tmp_path):
    manip = wam.manipulators[0]
    assert (manip.name, manip.base, manip.effector, manip.tool_frame) == \
        ('arm', 'wam0', 'wam7', 'arm')
    assert manip.gripper_joints == ('JF1', 'JF2', 'JF3', 'JF4')
    assert manip.closing_direction == (1, 1, 1, 0)
    np.testing.assert_allclose(manip.direction, [0, 0, 1])
    text = to_urdf(wam, mesh_dir=tmp_path)
    robot = urdf.URDF.from_xml_string(text)
    joint = next(j for j in robot.joints if j.child == 'arm')
    assert joint.parent == 'wam7' and joint.type == 'fixed'
    np.testing.assert_allclose(joint.origin.xyz, [0, 0, 0.16], atol=1e-12)
    # at any arm configuration the tool is 0.16 m along the flange's z axis (DH reference)
    q = dict(zip(manip.arm_joints, [0.3, -0.5, 0.2, 1.1, -0.4, 0.6, 0.9]))
    tool = urdf_forward_kinematics(text, q, wam.link(wam.root).pose.matrix())['arm']
    expected = wam_dh(list(q.values())) @ np.array([0, 0, 0.16, 1.0])
    np.testing.assert_allclose(tool[:3, 3], expected[:3], atol=1e-9)


def _settle(sim: Simulation, seconds: float) -> None:
    for _ in range(int(seconds / sim.period)):
        sim.step_period()


def test_barrett_hand_mimic_joints_follow_in_simulation():
    hand = load_model(ROBOTS / 'barretthand.robot.xml')
    assert hand.joint('JF1mimic').mimic.joint == 'JF1'
    assert hand.joint('JF1mimic').mimic.multiplier == pytest.approx(1 / 3)
    assert hand.joint('JF1mimic').mimic.offset == pytest.approx(0.8727)
    assert hand.joint('JF4mimic').mimic.joint == 'JF4'
    # at rest the distal links start where the formula puts them
    assert hand.joint('JF2mimic').initial == pytest.approx(0.8727)
    sim = Simulation(hand, SimOptions(build=_no_ground()))
    assert 'JF1mimic' not in sim.actuated and 'JF1' in sim.actuated
    targets = {'JF1': 1.2, 'JF2': 0.6, 'JF3': 2.0, 'JF4': 1.0}
    sim.command(Mode.POSITION, list(targets), list(targets.values()))
    _settle(sim, 3.0)
    q = dict(zip(sim.joint_names, sim.joint_positions()))
    for lead, value in targets.items():
        assert q[lead] == pytest.approx(value, abs=0.02), lead
    for finger in ('JF1', 'JF2', 'JF3'):
        assert q[f'{finger}mimic'] == pytest.approx(q[finger] / 3 + 0.8727, abs=1e-3), finger
    assert q['JF4mimic'] == pytest.approx(q['JF4'], abs=1e-3)


def _no_ground():
    from body_bridge.sim.building.build import BuildOptions
    return BuildOptions(ground_plane=False)


def test_schunk_gripper_fingers_are_prefixed_and_mirrored():
    gripper = load_model(ROBOTS / 'schunk_manip.robot.xml')
    assert {link.name for link in gripper.links} == {'gripper_base', 'L_finger', 'R_finger'}
    right = gripper.joint('jfinger_R')
    assert right.type == JointType.PRISMATIC
    assert (right.mimic.joint, right.mimic.multiplier, right.mimic.offset) == \
        ('jfinger_L', -1.0, 0.0)
    # the fingers are 18 mm apart and open symmetrically along the gripper's y axis
    for q in (0.0, 0.02, 0.034):
        fk = forward_kinematics(gripper, {'jfinger_L': q, 'jfinger_R': -q})
        gap = fk['R_finger'].pos - fk['L_finger'].pos
        np.testing.assert_allclose(gap, [0, 0.018 + 2 * q, 0], atol=1e-12)
    # the default finger mass (no <mass>): OpenRAVE's 1 kg sphere of radius 1 m
    finger = gripper.link('L_finger').inertial
    assert finger.mass == 1.0
    np.testing.assert_allclose(finger.inertia, 0.4 * np.eye(3))


def test_environment_is_one_model_rooted_at_world():
    env = load_model(DATA / 'lab1.env.xml')
    assert env.root == 'world' and env.root_joint == JointType.FIXED
    bodies = {j.meta['body'] for j in env.joints}
    assert {'BarrettWAM', 'floorwalls', 'segway', 'mug1', 'mug6', 'table'} <= bodies
    attach = {j.child: j for j in env.joints if j.parent == 'world'}
    assert attach['BarrettWAM/segway'].type == JointType.FIXED      # a robot stands
    assert attach['floorwalls/link0'].type == JointType.FIXED       # a static body
    assert attach['mug1/mugbase'].type == JointType.FREE            # a dynamic body
    # every link but the world belongs to one body, named <body>/<link>
    for joint in env.joints:
        assert joint.child.startswith(joint.meta['body'] + '/')
    # the robot's <translation> in the environment moves the whole robot
    robot = load_model(ROBOTS / 'barrettsegway.robot.xml')
    offset = np.array([-0.8, 0.14, 0.01])
    for link in robot.links:
        np.testing.assert_allclose(env.link('BarrettWAM/' + link.name).pose.pos,
                                   link.pose.pos + offset, atol=1e-12)
    # the six mugs are one file placed six times: same shape, different places
    mug_z = {round(float(env.link(f'mug{i}/mugbase').pose.pos[2]), 6) for i in range(1, 7)}
    assert mug_z == {0.755}


def test_segway_moves_the_arm_onto_it():
    robot = load_model(ROBOTS / 'barrettsegway.robot.xml')
    # barrettsegway.robot.xml re-places wam0 (two <translation>s added to its own) and the
    # arm follows through its joints: wam0 at (-0.15, -0.14, 0.742), shoulder 0.346 m higher
    np.testing.assert_allclose(robot.link('wam0').pose.pos, [-0.15, -0.14, 0.742], atol=1e-12)
    np.testing.assert_allclose(robot.link('wam1').pose.pos, [0.07, 0.0, 1.088], atol=1e-12)
    assert robot.joint('dummy0').parent == 'segway'


def test_closed_chain_gripper_keeps_its_loops():
    lynx = load_model(CORPUS / 'openrave' / 'historical' / 'c5d9efd0' / 'src' /
                      'robots' / 'lynx6.robot.xml')
    assert sorted(c.type for c in lynx.closures) == ['hinge', 'hinge']
    sim = Simulation(lynx, SimOptions(build=_no_ground()))
    sim.command(Mode.POSITION, ['JL', 'JR'], [0.5, -0.4])
    _settle(sim, 2.0)
    q = dict(zip(sim.joint_names, sim.joint_positions()))
    assert q['JL'] == pytest.approx(0.5, abs=0.05) and q['JR'] == pytest.approx(-0.4, abs=0.05)
    for closure in lynx.closures:
        ends = []
        for link, pose in ((closure.link1, closure.pose1), (closure.link2, closure.pose2)):
            pos, quat = sim.body_pose(link)
            rot = np.zeros(9)
            mujoco.mju_quat2Mat(rot, quat)
            ends.append(pos + rot.reshape(3, 3) @ pose.pos)
        assert np.linalg.norm(ends[0] - ends[1]) < 1e-3, closure.name


def test_wam_tool_frame_is_on_tf_static(ros, bridge):
    """The bridge in its own process publishes the manipulator's tool frame, as rviz sees it."""
    from tf2_msgs.msg import TFMessage

    from body_bridge.ros.stream import qos
    from test_end_to_end import STARTUP, spin_until

    received = {}
    node = ros.create_node('tool_frame_probe')
    try:
        node.create_subscription(TFMessage, '/tf_static', lambda msg: received.update(
            {t.child_frame_id: t for t in msg.transforms}), qos.TF_STATIC)
        proc = bridge(ROBOTS / 'barrettwam.robot.xml', '-p', 'real_time_factor:=0.0')
        spin_until(ros, node, lambda: 'arm' in received, STARTUP, 'the tool frame', proc)
    finally:
        node.destroy_node()
    tool = received['arm']
    assert tool.header.frame_id == 'wam7'
    t = tool.transform.translation
    assert (t.x, t.y, t.z) == pytest.approx((0.0, 0.0, 0.16), abs=1e-9)
    assert tool.transform.rotation.w == pytest.approx(1.0)


def test_adjacent_links_never_collide_even_with_self_collision():
    from body_bridge.sim.building.build import BuildOptions, build_spec
    hand = load_model(ROBOTS / 'barretthand.robot.xml')
    assert ('Finger0-0', 'Finger1-0') in hand.adjacent and len(hand.adjacent) == 10
    mj = build_spec(hand, BuildOptions(self_collision=True)).compile()
    pairs = {frozenset((mj.body(b1).name, mj.body(b2).name))
             for b1, b2 in zip(mj.exclude_signature >> 16, mj.exclude_signature & 0xFFFF)}
    assert frozenset(('Finger0-0', 'Finger1-0')) in pairs and len(pairs) == 10
