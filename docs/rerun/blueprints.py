"""The layouts of Rerun's viewer for the pictures of recorded runs (docs/make_pictures.sh) and
for test/test_rerun_browser.py: which views, where, what each shows, and from where the 3D view
looks. Each is saved as a blueprint file beside this one (``arm.rbl``, ``tank.rbl``) for the
application id ``body_bridge`` that ``rerun mcap convert --application-id body_bridge`` gives a
bag. The files are committed: the rerun-sdk's Python half (and pyarrow) is needed only to write
them again, after a change here, not to use them:

    python3 -m venv /tmp/rr && /tmp/rr/bin/pip install rerun-sdk==0.41.0
    /tmp/rr/bin/python docs/rerun/blueprints.py
"""

from pathlib import Path

import rerun as rr
import rerun.blueprint as rrb

HERE = Path(__file__).resolve().parent
#: The robot's shapes drawn filled (the URDF importer's default is a see-through fill).
SOLID = [rr.Boxes3D.from_fields(fill_mode='solid'),
         rr.Cylinders3D.from_fields(fill_mode='solid'),
         rr.Ellipsoids3D.from_fields(fill_mode='solid')]


def robot_view(name: str, eye, target, hidden=()) -> rrb.Spatial3DView:
    """The 3D view of the robot from ``robot_description`` and TF: its visuals, filled; not its
    collision shapes, nor what ``hidden`` names."""
    contents = ['+ /**', '- /*/collision_geometries/**', *(f'- {h}' for h in hidden)]
    return rrb.Spatial3DView(
        name=name, origin='/', contents=contents, defaults=SOLID,
        eye_controls=rrb.EyeControls3D(position=eye, look_target=target, eye_up=(0, 0, 1)))


def arm() -> rrb.Blueprint:
    """The sample arm: the 3D view; its hand camera's image; the joints' positions."""
    return rrb.Blueprint(
        rrb.Horizontal(
            robot_view('sample_arm', eye=(0.7, -0.6, 0.55), target=(0.05, 0.0, 0.33),
                       hidden=('/hand_camera/**',)),
            rrb.Vertical(
                rrb.Spatial2DView(name='hand_camera/image_raw', origin='/hand_camera/image_raw'),
                rrb.TimeSeriesView(name='joint_states: position [rad]',
                                   origin='/joint_states/position')),
            column_shares=[3, 2]),
        collapse_panels=True)


def tank() -> rrb.Blueprint:
    """The Tank, back near its start after the square; its gyro's rates (the Imu message's
    accelerometer, which a gyro leaves at zero, hidden): the three left turns."""
    gyro_only = rr.SeriesLines.from_fields(visible_series=[True] * 3 + [False] * 3)
    return rrb.Blueprint(
        rrb.Horizontal(
            robot_view('Tank', eye=(1.1, -1.3, 0.9), target=(0.05, -0.05, 0.15),
                       hidden=('/Kinect/**', '/Theta/**', '/VLP_16/**')),
            rrb.TimeSeriesView(name='GYRO: angular velocity [rad/s]', origin='/GYRO',
                               defaults=[gyro_only]),
            column_shares=[3, 2]),
        collapse_panels=True)


if __name__ == '__main__':
    for name, blueprint in (('arm', arm()), ('tank', tank())):
        blueprint.save('body_bridge', HERE / f'{name}.rbl')
