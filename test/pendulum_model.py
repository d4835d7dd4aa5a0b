"""A free pendulum as a Body file: one revolute joint about y, hanging down (for tests)."""

from pathlib import Path

#: Mass [kg], centre of mass below the axis [m], inertia about the centre of mass [kg m^2].
MASS, LENGTH, INERTIA_YY = 2.0, 0.5, 0.03
#: Inertia about the joint axis (parallel axis theorem) [kg m^2].
AXIS_INERTIA = INERTIA_YY + MASS * LENGTH ** 2

TEXT = f"""format: ChoreonoidBody
format_version: 2.0
angle_unit: degree
name: pendulum
root_link: base
links:
  - name: base
    joint_type: fixed
    translation: [ 0, 0, 1.0 ]
    mass: 1.0
    inertia: [ 0.01, 0, 0, 0.01, 0, 0.01 ]
  - name: bob
    parent: base
    joint_type: revolute
    joint_axis: Y
    mass: {MASS}
    center_of_mass: [ 0, 0, {-LENGTH} ]
    inertia: [ 0.02, 0, 0, {INERTIA_YY}, 0, 0.01 ]
    elements:
      - type: Transform
        translation: [ 0, 0, {-LENGTH} ]
        elements:
          - type: Shape
            geometry: {{ type: Sphere, radius: 0.05 }}
"""


def write_pendulum(folder: Path) -> Path:
    path = Path(folder) / 'pendulum.body'
    path.write_text(TEXT)
    return path
