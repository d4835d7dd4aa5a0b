"""The topics ``info`` and ``rviz`` work out from a model are the ones the node publishes."""

import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from rclpy.parameter import Parameter

from body_bridge.formats import load_model
from body_bridge.ros.devices.graph import device_topics

from conftest import SAMPLE_ARM, shared_model

MODELS = [str(SAMPLE_ARM)] + [
    pytest.param(str(shared_model(f'choreonoid/share/model/{relative}')), marks=pytest.mark.corpus)
    for relative in ('SR1/SR1.body', 'AizuSpider/AizuSpiderSS.body', 'Tank/TankBody.body')]


def type_name(cls) -> str:
    return f'{cls.__module__.split(".")[0]}/msg/{cls.__name__}'


@pytest.mark.parametrize('path', MODELS, ids=lambda p: p.rsplit('/', 1)[-1])
def test_predicted_device_topics_are_the_published_ones(ros, tmp_path, path):
    from body_bridge.ros.node.node import BridgeNode
    predicted = device_topics(load_model(path))
    node = BridgeNode(parameter_overrides=[Parameter('model', value=path),
                                           Parameter('start_paused', value=True),
                                           Parameter('mesh_directory', value=str(tmp_path))])
    try:
        outputs = node.sensors.outputs
        assert {e.device.name for e in predicted if e.topics} == set(outputs)
        for entry in predicted:
            if not entry.topics:
                assert entry.note, entry.device.name
                continue
            out = outputs[entry.device.name]
            published = {p.topic_name: type_name(p.msg_type) for p in out.publishers}
            # image_transport's transports of an image (listed as the image, as rviz2 and
            # rqt_image_view offer them): image_raw/compressed, depth/image/compressedDepth
            transports = {name: kind for name, kind in published.items()
                          if name.endswith(('/compressed', '/compressedDepth'))}
            for name, kind in transports.items():
                assert kind == 'sensor_msgs/msg/CompressedImage'
                assert published[name.rsplit('/', 1)[0]] == 'sensor_msgs/msg/Image', name
            published = {n: k for n, k in published.items() if n not in transports}
            assert published == {'/' + t.name: t.type for t in entry.topics}, entry.device.name
            assert all(t.rate == pytest.approx(out.sampler.rate) for t in entry.topics)
    finally:
        node.destroy_node()


@pytest.mark.corpus
def test_devices_without_topics_say_why():
    entries = {e.device.name: e for e in device_topics(load_model(
        shared_model('choreonoid/share/model/Tank/TankBody.body')))}
    assert [t.name for t in entries['Theta'].topics] == ['Theta/image_raw', 'Theta/camera_info']
    gripper = next(e for e in device_topics(load_model(
        shared_model('choreonoid/share/model/PA10/PA10.body'))) if e.device.name == 'Gripper')
    assert gripper.topics == () and gripper.note == 'not simulated (a TF frame only)'
    assert entries['Light'].note == 'lights the rendered scene'
    assert [t.name for t in entries['VLP-16'].topics] == ['VLP_16/points']  # '-' is not allowed
    aizu = {e.device.name: e for e in device_topics(load_model(
        shared_model('choreonoid/share/model/AizuSpider/AizuSpiderSS.body')))}
    assert aizu['CompetitorMarker'].note == 'not simulated (a TF frame only)'
