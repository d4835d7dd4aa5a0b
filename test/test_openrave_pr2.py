"""The PR2 (OpenRAVE's ``pr2-beta-static.zae``) as a live robot: the bridge in its own process,
its forearm cameras and its two lasers publishing, its arm following a command, observed from
this process over real DDS as a user's tools would."""

from __future__ import annotations

import pytest
from conftest import ROS_MISSING

pytest.importorskip('rclpy', reason=ROS_MISSING)

from sensor_msgs.msg import CameraInfo, Image, JointState, LaserScan

from body_bridge.ros.stream import qos

from conftest import shared_model
from test_end_to_end import Probe, stamp
from test_sensors_ros import SensorProbe

pytestmark = pytest.mark.corpus  # the PR2 is in the real model corpus
PR2 = shared_model('openrave/src/robots/pr2-beta-static.zae')
STARTUP = 120.0  # [s] wall time: the PR2 has 88 links and two 640 x 480 cameras
TOPICS = {
    'r_forearm_cam_optical_sensor/image_raw': Image,
    'l_forearm_cam_optical_sensor/image_raw': Image,
    'l_forearm_cam_optical_sensor/camera_info': CameraInfo,
    'tilt_laser/scan': LaserScan,
    'base_laser/scan': LaserScan,
}


def test_pr2_cameras_and_lasers_publish_and_an_arm_follows_a_command(bridge, ros):
    proc = bridge(PR2)
    sensors = SensorProbe(ros)
    probe = Probe(ros, 'pr2_probe')
    try:
        for topic, msg_type in TOPICS.items():
            sensors.watch(topic, msg_type, keep=True)
        sensors.spin_until(lambda: all(len(sensors.messages[t]) >= 2 for t in TOPICS),
                           STARTUP, 'every PR2 camera and laser', proc)
        image = sensors.messages['l_forearm_cam_optical_sensor/image_raw'][-1]
        info = sensors.messages['l_forearm_cam_optical_sensor/camera_info'][-1]
        assert (image.width, image.height, image.encoding) == (640, 480, 'rgb8')
        assert info.k[0] == 426.35142 and info.k[2] == 313.91464   # the file's intrinsic
        scan = sensors.messages['base_laser/scan'][-1]
        assert len(scan.ranges) > 10 and scan.header.frame_id

        probe.spin_until(lambda: len(probe.states) > 2, 30.0, 'joint_states', proc)
        assert 'r_shoulder_pan_joint' in probe.states[-1].name
        pub = probe.node.create_publisher(JointState, 'joint_commands', qos.COMMANDS)
        probe.spin_until(lambda: pub.get_subscription_count() > 0, 10.0, 'commands match',
                         proc)
        start = stamp(probe.states[-1])
        pub.publish(JointState(name=['r_shoulder_pan_joint', 'l_elbow_flex_joint'],
                               position=[-0.5, -0.8]))
        probe.spin_until(lambda: stamp(probe.states[-1]) > start + 3.0, 120.0,
                         '3 s of simulated time', proc)
        last = probe.states[-1]
        q = dict(zip(last.name, last.position))
        assert abs(q['r_shoulder_pan_joint'] + 0.5) < 0.02
        assert abs(q['l_elbow_flex_joint'] + 0.8) < 0.02
    finally:
        sensors.close()
        probe.close()
