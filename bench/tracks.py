"""Tracks: what moving the tracks' surfaces costs per control period, and the Tank with its
Kinect subscribed at real-time factor 1.

* Per period, side by side in this process (CPU time of the stepping thread): the Tank with
  its tracks turning it in place (``-0.3`` and ``+0.3`` m/s), against the same Tank whose
  tracks are fixed joints (the same contacts, the physics stepped in one ``mj_step`` call
  without the contact hook). ``tracks_cost_per_period`` is the difference.
* Paced: the bridge as a user starts it (``python -m body_bridge sim Tank.body``, real-time
  factor 1) in its own process, driven in a circle by ``cmd_vel`` from this one, with a
  subscriber in another process on every topic, the Kinect's colour and depth images
  included: the real-time factor kept (``/clock`` over wall time) and the Kinect's rates.
  The Tank's other camera, its Theta (a 720x360 DUAL_FISHEYE composed from six cube-face
  renders at 30 Hz), is not subscribed (so not rendered) there; the stepping loop as fast as
  possible is measured both ways (``tracks_tank_kinect_max_rtf``,
  ``tracks_tank_all_cameras_max_rtf``).
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

from figures import shared_model, side_by_side, timed

__all__ = ['run', 'TANK']

TANK = 'choreonoid/share/model/Tank/Tank.body'
#: The camera of the Tank's figures (the Theta is measured apart: see the module's text).
KINECT = ['Kinect']


def _simulations():
    from body_bridge.formats import load_model
    from body_bridge.model import JointType
    from body_bridge.sim.names import Mode
    from body_bridge.sim.simulation import Simulation
    tank = load_model(shared_model(TANK))
    fixed = replace(tank, joints=tuple(replace(j, type=JointType.FIXED)
                                       if j.type == JointType.TRACK else j
                                       for j in tank.joints))
    with_tracks, without = Simulation(tank), Simulation(fixed)
    for sim in (with_tracks, without):
        for _ in range(50):
            sim.step_period()
    with_tracks.command(Mode.VELOCITY, ['TRACK_L', 'TRACK_R'], [-0.3, 0.3])
    return with_tracks, without


def per_period(figures, periods: int, repeats: int) -> None:
    """The tracks' cost per control period [us], side by side."""
    with_tracks, without = _simulations()

    def stepping(sim):
        def run():
            return timed(lambda: [sim.step_period() for _ in range(periods)]) / periods
        return run
    costs = side_by_side({'tracks': stepping(with_tracks), 'fixed': stepping(without)},
                         repeats)
    tracks, fixed = costs['tracks'].cpu * 1e6, costs['fixed'].cpu * 1e6
    figures.add('tracks_tank_period', tracks, 'us')
    figures.add('tracks_tank_fixed_period', fixed, 'us')
    figures.add('tracks_cost_per_period', tracks - fixed, 'us')
    figures.add('tracks_ratio', tracks / fixed, 'x')


def paced(figures, context, listener, window: float, settle: float, scratch: Path) -> None:
    """The Tank at real-time factor 1, driving, everything subscribed (Kinect included)."""
    import rclpy
    from geometry_msgs.msg import Twist
    from paced import rates, watch_paced
    ns = '/bench_tank'
    cmd = [sys.executable, '-m', 'body_bridge', 'sim', str(shared_model(TANK)), '--ros-args',
           '-r', f'__ns:={ns}', '-p', f'mesh_directory:={scratch / "meshes"}',
           '-p', 'real_time_factor:=1.0']
    node = rclpy.create_node('bench_tank_driver', namespace=ns, context=context)
    publisher = node.create_publisher(Twist, 'cmd_vel', 10)

    def drive() -> None:
        deadline = time.monotonic() + 10.0
        while publisher.get_subscription_count() == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        twist = Twist()
        twist.linear.x, twist.angular.z = 0.3, 0.3
        publisher.publish(twist)
    try:
        report, cpu = watch_paced(listener, cmd, ns, scratch / 'tank_bridge.log',
                                  f'{ns}/Kinect/image_raw', settle, window, started=drive,
                                  cameras=KINECT)
    finally:
        node.destroy_node()
    rtf, image, depth = rates(report, f'{ns}/Kinect/image_raw', f'{ns}/Kinect/depth/image')
    figures.add('tracks_tank_kinect_rtf', rtf, 'x')
    figures.add('tracks_tank_kinect_image_rate', image, 'Hz')
    figures.add('tracks_tank_kinect_depth_rate', depth, 'Hz')
    figures.add('tracks_tank_kinect_bridge_cpu', cpu, 'cores')


def headroom(figures, context, listener, seconds: float, scratch: Path,
             cameras=KINECT, name: str = 'tracks_tank_kinect_max_rtf') -> None:
    """The stepping loop as fast as possible, everything subscribed (the Kinect too, or the
    ``cameras`` named; True: every camera), the tracks turning the Tank: the real-time
    factor it reaches (the renderer's threads work too: wall time)."""
    from throughput import bridge_under_test
    from body_bridge.sim.names import Mode
    params = {'mesh_directory': str(scratch / 'meshes')}
    with bridge_under_test(context, shared_model(TANK), '/bench_tank_rtf', params) as bridge:
        bridge.listen(listener, cameras=cameras)
        bridge.node.sim.command(Mode.VELOCITY, ['TRACK_L', 'TRACK_R'], [-0.3, 0.3])
        periods = max(1, round(seconds / bridge.world.period))
        bridge.bridge(3)  # the renderer's first frame (its context) is not counted
        cost = timed(lambda: bridge.bridge(periods))
        listener.send('drop', ns=bridge.namespace)
    figures.add(name, periods * bridge.world.period / cost.wall, 'x')


def run(figures, context, listener, quick: bool, scratch: Path) -> None:
    per_period(figures, periods=20 if quick else 100, repeats=3 if quick else 15)
    headroom(figures, context, listener, 0.5 if quick else 5.0, scratch)
    # Quick: three frames of the Theta (it renders six faces a frame).
    headroom(figures, context, listener, 0.1 if quick else 5.0, scratch, cameras=True,
             name='tracks_tank_all_cameras_max_rtf')
    paced(figures, context, listener, 2.0 if quick else 20.0, 1.5 if quick else 3.0, scratch)
