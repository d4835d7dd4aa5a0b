"""The neutral model: what every loader produces and every writer reads.

One idea a module: ``transforms`` (poses and rotations), ``shapes`` (geometry, colours and
contact materials), ``parts`` (links, joints, devices, frames, manipulators), ``dynamics``
(closures, springs, bushings, motors with their time functions, loads, initial velocities)
and ``model`` (the :class:`Model` and its validation).

Units are SI (m, kg, s), angles are radians, quaternions are (w, x, y, z).

Conventions every loader must meet (the writers rely on them):

* ``Link.pose`` is the link frame in the model frame at the reference configuration
  (all joints at zero). The root link's pose is where the model is placed in the world.
* A joint's child link frame is the joint frame: its axis is expressed in the child link
  frame and passes through the child link's origin (the URDF convention). The joint origin
  is therefore derived, ``parent.pose.inverse() @ child.pose``, never stored twice.
* Cylinders, capsules and cones are built along their local +z axis, centred at the
  origin; a cone's apex points to +z. Box sizes are full edge lengths.
* Inertia is about the centre of mass, in the link frame.
* Device frames, by kind: cameras and range sensors look along +x with +z up (the ROS body
  convention; the optical frame is derived from it); IMU, accelerometer, gyro and force
  sensors report in their own frame.
"""

from ._values import freeze
from .dynamics import (Actuation, BodyVelocity, Bushing, Function, FunctionKind, Load, LoadKind,
                       LoopClosure, Motor, MotorKind, Repeat, Spring, SpringKind)
from .model import Model
from .parts import (Device, DeviceKind, Frame, Inertial, Joint, JointType, Limits, Link,
                    Manipulator, Mimic)
from .shapes import (Box, Capsule, Cone, ContactMaterial, ContactPair, Cylinder, Geometry,
                     Material, Mesh, Shape, ShapeContact, Sphere)
from .transforms import (Pose, axis_angle_matrix, is_rotation, matrix_quat, matrix_rpy,
                         quat_matrix)

__all__ = [
    'Pose', 'Box', 'Sphere', 'Cylinder', 'Capsule', 'Cone', 'Mesh', 'Geometry',
    'Material', 'Shape', 'Inertial', 'Link', 'JointType', 'Limits', 'Mimic', 'Joint',
    'DeviceKind', 'Device', 'Frame', 'LoopClosure', 'Manipulator', 'Model', 'freeze',
    'is_rotation', 'axis_angle_matrix', 'quat_matrix', 'matrix_quat',
    'matrix_rpy',
    'Repeat', 'FunctionKind', 'Function', 'SpringKind', 'Spring', 'Bushing', 'MotorKind',
    'Actuation', 'Motor', 'LoadKind', 'Load', 'BodyVelocity', 'ContactMaterial', 'ContactPair',
    'ShapeContact',
]
