"""sim/sensing/sensors.py, read from the built spec of the sample arm: device elements name their
source line, a light without parameters takes the documented defaults, cameras get the
overhead light and an offscreen buffer as large as the largest; and the SensorSuite's renderer
(the arm's hand camera made 32x24): one scene per instant, a reset, a model joining the world,
close, a render error."""

import math
from dataclasses import replace

import mujoco
import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.model import DeviceKind, Pose
from body_bridge.sim.sensing import render
from body_bridge.sim.building.build import build_spec
from body_bridge.sim.names import SITE_PREFIX
from body_bridge.sim.sensing.render import OffscreenRenderer, RenderError
from body_bridge.sim.sensing.samplers import SCHEDULE_TOLERANCE
from body_bridge.sim.sensing.sensors import SensorSuite, spot_cone
from body_bridge.sim.simulation import Simulation, SimOptions

from conftest import REPO, SAMPLE_ARM


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
    np.testing.assert_allclose(sun.specular, [0.1, 0.1, 0.1])
    direction = np.array([0.3, 0.2, -1.0])
    np.testing.assert_allclose(sun.dir, direction / np.linalg.norm(direction), atol=1e-6)
    assert mj.vis.global_.offheight >= 480 and mj.vis.global_.offwidth >= 640


# --- the suite's renderer: one per world, its scene taken once per instant ------------------


def small_camera_arm(arm, **params):
    """The sample arm with its hand camera made small (a quick render), or as ``params``."""
    def small(device):
        if device.name != 'hand_camera':
            return device
        return replace(device, params={**device.params, 'width': 32, 'height': 24, **params})
    return replace(arm, devices=tuple(small(d) for d in arm.devices))


def counting_updates(suite, monkeypatch):
    """How often the suite's renderers take the scene (one list entry per update)."""
    calls = []
    original = OffscreenRenderer.update

    def update(renderer, data):
        calls.append(float(data.time))
        original(renderer, data)
    monkeypatch.setattr(OffscreenRenderer, 'update', update)
    return calls


def run(sim, suite, periods):
    for _ in range(periods):
        sim.step_period()
        suite.due()


@pytest.fixture
def camera_arm(arm):
    """The arm with its 32x24 hand camera: (simulation, sensor suite, camera), closed after."""
    sim = Simulation(small_camera_arm(arm))
    suite = SensorSuite(sim)
    try:
        yield sim, suite, suite.samplers['hand_camera']
    finally:
        suite.close()


def test_the_scene_is_taken_once_per_instant_and_again_after_a_reset(camera_arm, monkeypatch):
    sim, suite, camera = camera_arm
    updates = counting_updates(suite, monkeypatch)
    camera.read()  # the initial state, published before the first step
    assert camera in suite.due()  # the first reading is due at the start: no reset
    assert suite.due() == [] and suite.due(-1e-8) == []  # the same instant: no reset
    camera.read()
    camera.read(color=False)
    assert updates == [0.0]
    run(sim, suite, 5)
    later = sim.time
    camera.read()
    camera.read()
    assert updates == [0.0, later]
    sim.reset()  # back to time 0; then the same time again, with the state it has then
    assert camera in suite.due()
    run(sim, suite, 5)
    assert sim.time == later
    camera.read()
    assert updates == [0.0, later, later]


def test_a_model_that_joins_the_world_is_seen_and_the_old_renderer_closed(camera_arm):
    sim, suite, camera = camera_arm
    assert suite.rebind in sim.rebind_hooks
    pos, rot = camera.optical_pose()
    np.testing.assert_allclose(rot[:, 2], [0.0, 0.0, 1.0], atol=1e-12)  # looks up
    assert np.isinf(camera.read(color=False).depth[12, 16])  # nothing above the arm
    old = suite._renderer
    box = load_model(REPO / 'test' / 'data' / 'choreonoid' / 'box.body')
    options = SimOptions(initial_pose=Pose(tuple(pos + 0.5 * rot[:, 2])))
    sim.world.add(box, options, 'box/')  # the world compiled anew: the suite rebinds
    Simulation(box, options, world=sim.world)
    assert suite._renderer is None and suite._retired == [old]
    depth = camera.read(color=False).depth
    assert depth[12, 16] == pytest.approx(0.4, abs=1e-4)  # its lower face (0.2 m tall)
    assert old._con is None and old._gl is None  # freed by the thread that renders
    assert suite._retired == [] and suite._renderer._mj is sim.mj


def test_close_frees_every_renderer_and_a_later_read_makes_a_new_one(camera_arm):
    _, suite, camera = camera_arm
    first = camera.read(color=False).depth.copy()
    retired = suite._renderer
    suite.rebind()
    suite.close()
    assert retired._con is None and suite._retired == []
    np.testing.assert_array_equal(camera.read(color=False).depth, first)
    current = suite._renderer
    suite.close()
    assert current._con is None and current._gl is None and suite._renderer is None
    np.testing.assert_array_equal(camera.read(color=False).depth, first)
    suite.close()


def test_a_render_error_is_kept_and_raised_again_without_a_new_attempt(arm, monkeypatch):
    attempts = []

    class NoDisplay:
        def __init__(self, width, height):
            attempts.append((width, height))
            raise RuntimeError('no display')
    monkeypatch.setattr(render, '_gl_context_class', lambda: NoDisplay)
    sim = Simulation(small_camera_arm(arm))
    suite = SensorSuite(sim)
    camera = suite.samplers['hand_camera']
    for _ in range(2):
        with pytest.raises(RenderError) as err:
            camera.read()
        assert str(err.value) == 'offscreen rendering is not available: no display'
    assert attempts == [(32, 24)]
    suite.close()


def test_a_camera_taller_than_480_pixels_gets_an_offscreen_buffer_as_tall(arm):
    mj = build_spec(small_camera_arm(arm, width=40, height=600)).compile()
    assert (mj.vis.global_.offwidth, mj.vis.global_.offheight) == (640, 600)


def test_devices_without_a_rate_read_once_per_control_period(arm):
    sim = Simulation(small_camera_arm(arm))
    suite = SensorSuite(sim)
    counts = dict.fromkeys(suite.samplers, 0)
    periods = int(round(1.0 / sim.period))
    for k in range(periods):  # one simulated second of schedule
        for sampler in suite.due(k * sim.period):
            counts[sampler.name] += 1
    assert counts['forearm_gyro'] == counts['wrist_force'] == counts['base_imu'] == periods
    assert counts['hand_camera'] == 15  # its frame_rate
    last = (periods - 1) * sim.period  # a time back by the tolerance (rounding): no reset
    assert suite.due(last - SCHEDULE_TOLERANCE) == []
    assert suite.samplers['forearm_gyro'].period == pytest.approx(sim.period)
    assert suite.samplers['hand_camera'].rate == pytest.approx(15.0)


def test_a_device_the_bridge_cannot_simulate_is_one_warning_line(arm):
    def odd(device):
        if device.name == 'hand_camera':
            return replace(device, params={**device.params, 'format': 'THERMAL'})
        if device.name == 'forearm_gyro':
            return replace(device, kind=DeviceKind.OTHER, type_name='')
        return device
    model = replace(arm, devices=tuple(odd(d) for d in arm.devices))
    source = {d.name: d.source for d in arm.devices}
    suite = SensorSuite(Simulation(model))
    assert 'hand_camera' not in suite.samplers and 'forearm_gyro' not in suite.samplers
    assert f"{source['hand_camera']}: device 'hand_camera' (Camera): format THERMAL is not " \
        'one of' in '\n'.join(suite.warnings)
    assert f"{source['forearm_gyro']}: device 'forearm_gyro' (other): the bridge has no " \
        'simulation of this kind of device; it does not publish' in suite.warnings
    assert len(suite.warnings) == 2 and suite.warnings[0].endswith('; it does not publish')


def test_a_spot_light_keeps_its_attenuation_and_a_wide_cut_off_falls_off(arm):
    lit = tuple(replace(d, params={**d.params, 'attenuation': (1.0, 0.5, 0.25)})
                if d.name == 'hand_light' else d for d in arm.devices)
    mj = build_spec(replace(arm, devices=lit)).compile()
    np.testing.assert_allclose(mj.light(SITE_PREFIX + 'hand_light').attenuation, [1, 0.5, 0.25])
    # VRML's default beam is 90 degrees wide: a cut-off beyond it falls off from the axis.
    assert spot_cone({'cut_off_angle': 2.0}) == (pytest.approx(math.degrees(2.0)), 1.0)
    assert spot_cone({'cut_off_angle': 1.5}) == (pytest.approx(math.degrees(1.5)), 0.0)


def test_a_model_found_again_after_one_before_it_left_reads_its_own_links(arm):
    sim = Simulation(small_camera_arm(arm))
    box = load_model(REPO / 'test' / 'data' / 'choreonoid' / 'box.body')
    box_options = SimOptions(initial_pose=Pose((0.0, 1.0, 0.1)))
    sim.world.add(box, box_options, 'box/')
    Simulation(box, box_options, world=sim.world)
    other_options = SimOptions(initial_pose=Pose((2.0, 0.0, 0.0)))
    second = small_camera_arm(arm)
    sim.world.add(second, other_options, 'arm2/')
    other = Simulation(second, other_options, world=sim.world)
    suite = SensorSuite(other)
    camera = suite.samplers['hand_camera']
    try:
        pos, rot = camera.optical_pose()
        np.testing.assert_allclose(pos, [2.0, 0.0, 0.895], atol=1e-9)
        sim.world.remove('box/')  # the second arm's bodies and sensors move up by one
        np.testing.assert_allclose(camera.optical_pose()[0], pos, atol=1e-9)
        np.testing.assert_allclose(camera.optical_pose()[1], rot, atol=1e-9)
        assert camera.read(color=False).depth.shape == (24, 32)
    finally:
        suite.close()


def test_every_site_device_sits_where_the_models_kinematics_put_it(arm):
    """The accelerometer, gyro, IMU and force sensor sites against the model's own forward
    kinematics (no physics) with every joint turned 0.3 rad: position and orientation."""
    from body_bridge.kinematics import forward_kinematics
    spec = build_spec(arm)
    mj = spec.compile()
    data = mujoco.MjData(mj)
    turned = {j.name: 0.3 for j in arm.joints if j.type.value in ('revolute', 'continuous')}
    for name, q in turned.items():
        data.qpos[mj.jnt_qposadr[mj.joint(name).id]] = q
    mujoco.mj_forward(mj, data)
    world = forward_kinematics(arm, turned)
    sites = [d for d in arm.devices if d.kind in (DeviceKind.IMU, DeviceKind.ACCELEROMETER,
                                                  DeviceKind.GYRO, DeviceKind.FORCE)]
    assert len(sites) == 4
    for device in sites:
        expected = world[device.link] @ device.pose
        site = mj.site(SITE_PREFIX + device.name).id
        np.testing.assert_allclose(data.site_xpos[site], expected.pos, atol=1e-12)
        np.testing.assert_allclose(data.site_xmat[site].reshape(3, 3), expected.rot,
                                   atol=1e-12)
