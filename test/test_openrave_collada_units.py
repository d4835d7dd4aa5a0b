"""OpenRAVE's COLLADA robots, the parts the hand-written robot of ``test_openrave_collada`` leaves
out: attached sensors (body_bridge.formats.openrave.collada_extra, raw), each number known."""

from __future__ import annotations

import numpy as np
import pytest
from test_openrave_collada import DAE

from body_bridge.formats import load_model
from body_bridge.model import DeviceKind

#: A camera with no ``frame_origin`` (on the first link, at its frame) and one on link2, 0.1 m
#: along its z; the document's sensor library describes both as OpenRAVE writes it.
SENSORS = '''
  <extra name="cam" type="attach_sensor"><technique profile="OpenRAVE">
   <instance_sensor url="#cam1"/></technique></extra>
  <extra name="wrist" type="attach_sensor"><technique profile="OpenRAVE">
   <frame_origin link="kmodel1/link2"><translate>0 0 0.1</translate></frame_origin>
   <instance_sensor url="#cam1"/></technique></extra>
  </articulated_system>
 </library_articulated_systems>
 <extra type="library_sensors"><technique profile="OpenRAVE">
  <sensor type="base_pinhole_camera" id="cam1"><image_dimensions>64 48 3</image_dimensions>
   <intrinsic>50 0 32 0 40 24</intrinsic><measurement_time>0.1</measurement_time></sensor>
 </technique></extra>'''


def write(tmp_path, text: str, name: str = 'sensors.dae'):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.fixture
def with_sensors(tmp_path):
    end = '  </articulated_system>\n </library_articulated_systems>'
    assert DAE.count(end) == 1
    return write(tmp_path, DAE.replace(end, SENSORS.strip('\n'), 1))


def test_attached_cameras_with_and_without_a_frame_origin(with_sensors):
    model = load_model(with_sensors)
    devices = {d.name: d for d in model.devices}
    assert set(devices) == {'cam', 'wrist'}
    cam, wrist = devices['cam'], devices['wrist']
    assert cam.kind == DeviceKind.CAMERA and cam.type_name == 'BaseCamera'
    assert (cam.link, wrist.link) == ('base', 'link2')
    # the optical frame: z along the view (OpenRAVE's camera z), x to the right
    np.testing.assert_allclose(cam.pose.pos, [0, 0, 0], atol=1e-12)
    np.testing.assert_allclose(cam.pose.quat(), [0.5, 0.5, -0.5, 0.5], atol=1e-12)
    np.testing.assert_allclose(wrist.pose.pos, [0, 0, 0.1], atol=1e-12)
    params = dict(cam.params)
    assert (params['width'], params['height']) == (64, 48)
    assert (params['fx'], params['fy'], params['cx'], params['cy']) == (50, 40, 32, 24)
    assert params['frame_rate'] == pytest.approx(10.0)
    assert dict(wrist.params) == params
