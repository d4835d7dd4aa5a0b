"""An rviz2 configuration for a model: the robot, TF and one display per sensor topic.

Only display classes that ``rviz_default_plugins`` ships on Humble, Jazzy and Kilted are used:
RobotModel (from the ``robot_description`` topic), TF, Grid, Image (colour and depth images),
LaserScan, PointCloud2, Range and Wrench. IMU messages get no display: an Imu display is not
in rviz_default_plugins on every one of those distros (``rviz_imu_plugin`` from imu_tools has
one); their frames are in TF.

Topic names are relative, so rviz2 started in the bridge's namespace (``-r __ns:=/arm``, as
the launch file does) shows that robot. Display types the model does not publish are present
but disabled, with an empty topic, ready for another model.
"""

from __future__ import annotations

import yaml

from .model import Model

__all__ = ['rviz_config', 'DISPLAY_CLASSES']

#: Message type -> rviz display class.
DISPLAY_CLASSES = {
    'sensor_msgs/msg/Image': 'rviz_default_plugins/Image',
    'sensor_msgs/msg/LaserScan': 'rviz_default_plugins/LaserScan',
    'sensor_msgs/msg/PointCloud2': 'rviz_default_plugins/PointCloud2',
    'sensor_msgs/msg/Range': 'rviz_default_plugins/Range',
    'geometry_msgs/msg/WrenchStamped': 'rviz_default_plugins/Wrench',
}


def _topic(name: str, reliable: bool = False, latched: bool = False, depth: int = 5) -> dict:
    return {'Value': name, 'Depth': depth, 'History Policy': 'Keep Last',
            'Reliability Policy': 'Reliable' if reliable else 'Best Effort',
            'Durability Policy': 'Transient Local' if latched else 'Volatile'}


def _display(cls: str, name: str, topic: str, enabled: bool = True, **extra) -> dict:
    out = {'Class': cls, 'Name': name, 'Enabled': enabled, 'Value': enabled,
           'Topic': _topic(topic)}
    out.update(extra)
    return out


def _sensor_display(topic: str, msg_type: str, enabled: bool = True) -> dict:
    cls = DISPLAY_CLASSES[msg_type]
    name = topic or cls.split('/')[-1]
    if cls.endswith('/Image'):
        depth = topic.endswith('depth/image')
        extra = {'Normalize Range': depth, 'Min Value': 0.0, 'Max Value': 5.0} if depth else {}
        return _display(cls, name, topic, enabled, **extra)
    if cls.endswith('/LaserScan'):
        return _display(cls, name, topic, enabled, Style='Points', **{
            'Size (Pixels)': 3, 'Color Transformer': 'FlatColor', 'Color': '255; 64; 64'})
    if cls.endswith('/PointCloud2'):
        return _display(cls, name, topic, enabled, Style='Points', **{
            'Size (Pixels)': 2, 'Color Transformer': 'AxisColor', 'Axis': 'Z'})
    if cls.endswith('/Range'):
        return _display(cls, name, topic, enabled, Color='255; 200; 0', Alpha=0.5, **{
            'Buffer Length': 1})
    return _display(cls, name, topic, enabled, Alpha=1.0, **{
        'Force Arrow Scale': 0.02, 'Torque Arrow Scale': 0.1, 'Arrow Width': 0.3,
        'History Length': 1})


def rviz_config(model: Model, device_topics: list, fixed_frame: str = 'world') -> str:
    """The rviz2 configuration (YAML text) of ``model``.

    Args:
        model: the model (its name titles the view).
        device_topics: :class:`~body_bridge.ros.devices.graph.DeviceTopics` of its devices.
        fixed_frame: the bridge's ``fixed_frame``.
    """
    robot = {'Class': 'rviz_default_plugins/RobotModel', 'Name': 'RobotModel', 'Enabled': True,
             'Value': True, 'Description Source': 'Topic', 'Visual Enabled': True,
             'Collision Enabled': False,
             'Description Topic': _topic('robot_description', reliable=True, latched=True,
                                         depth=1)}
    displays = [{'Class': 'rviz_default_plugins/Grid', 'Name': 'Grid', 'Enabled': True,
                 'Value': True, 'Reference Frame': '<Fixed Frame>', 'Cell Size': 0.5,
                 'Plane Cell Count': 20},
                robot,
                {'Class': 'rviz_default_plugins/TF', 'Name': 'TF', 'Enabled': True,
                 'Value': True, 'Show Names': False, 'Show Axes': True, 'Show Arrows': False,
                 'Marker Scale': 0.3}]
    shown = set()
    for entry in device_topics:
        for topic in entry.topics:
            if topic.type in DISPLAY_CLASSES:
                displays.append(_sensor_display(topic.name, topic.type))
                shown.add(topic.type)
    for msg_type in DISPLAY_CLASSES:
        if msg_type not in shown:
            displays.append(_sensor_display('', msg_type, enabled=False))
    config = {
        'Panels': [{'Class': 'rviz_common/Displays', 'Name': 'Displays'},
                   {'Class': 'rviz_common/Views', 'Name': 'Views'}],
        'Visualization Manager': {
            'Class': '', 'Name': 'root', 'Enabled': True, 'Value': True,
            'Displays': displays,
            'Global Options': {'Fixed Frame': fixed_frame, 'Frame Rate': 30,
                               'Background Color': '48; 48; 48'},
            'Tools': [{'Class': 'rviz_default_plugins/MoveCamera'},
                      {'Class': 'rviz_default_plugins/Select'}],
            'Views': {'Current': {'Class': 'rviz_default_plugins/Orbit', 'Name': 'Current View',
                                  'Distance': 2.5, 'Pitch': 0.45, 'Yaw': 0.6,
                                  'Focal Point': {'X': 0.0, 'Y': 0.0, 'Z': 0.4},
                                  'Target Frame': '<Fixed Frame>', 'Value': 'Orbit (rviz)'},
                      'Saved': None},
        },
        'Window Geometry': {'Width': 1400, 'Height': 900},
    }
    header = (f'# rviz2 configuration for {model.name}, written by '
              '"python -m body_bridge rviz".\n# Topics are relative: start rviz2 in the '
              "bridge's namespace (the launch file does).\n")
    return header + yaml.safe_dump(config, sort_keys=False, default_flow_style=False, width=99)
