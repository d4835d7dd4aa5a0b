"""sim/sensors.py, read from the built spec of the sample arm: device elements name their
source line, a light without parameters takes the documented defaults, cameras get the
overhead light."""

from dataclasses import replace

import mujoco
import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.sim.build import build_spec
from body_bridge.sim.names import SITE_PREFIX

from conftest import SAMPLE_ARM


@pytest.fixture(scope='module')
def arm():
    return load_model(SAMPLE_ARM)


def test_every_device_element_names_its_source_line(arm):
    spec = build_spec(arm)
    source = {d.name: d.source for d in arm.devices}
    assert spec.site(SITE_PREFIX + 'forearm_gyro').info == source['forearm_gyro']
    assert spec.sensor(SITE_PREFIX + 'wrist_force:torque').info == source['wrist_force']
    assert spec.light(SITE_PREFIX + 'hand_light').info == source['hand_light']


def test_a_light_without_parameters_shines_white_down_its_z_without_shadows(arm):
    bare = tuple(replace(d, params={}) if d.name == 'hand_light' else d for d in arm.devices)
    mj = build_spec(replace(arm, devices=bare)).compile()
    light = mj.light(SITE_PREFIX + 'hand_light')
    np.testing.assert_allclose(light.diffuse, [1.0, 1.0, 1.0])
    np.testing.assert_allclose(light.attenuation, [1.0, 0.0, 0.0])  # MuJoCo's: none
    assert light.castshadow[0] == 0 and light.active[0] == 1
    data = mujoco.MjData(mj)
    mujoco.mj_kinematics(mj, data)
    frame = data.xmat[int(light.bodyid[0])].reshape(3, 3)
    pose = next(d.pose for d in arm.devices if d.name == 'hand_light')
    np.testing.assert_allclose(light.dir, pose.rot @ [0.0, 0.0, -1.0], atol=1e-9)
    assert frame.shape == (3, 3)


def test_cameras_get_an_overhead_light_that_casts_no_shadow(arm):
    mj = build_spec(arm).compile()
    sun = mj.light(SITE_PREFIX + 'overhead_light')
    assert sun.type[0] == mujoco.mjtLightType.mjLIGHT_DIRECTIONAL and sun.castshadow[0] == 0
    np.testing.assert_allclose(sun.diffuse, [0.5, 0.5, 0.5])
    direction = np.array([0.3, 0.2, -1.0])
    np.testing.assert_allclose(sun.dir, direction / np.linalg.norm(direction), atol=1e-6)
    assert mj.vis.global_.offheight >= 480 and mj.vis.global_.offwidth >= 640
