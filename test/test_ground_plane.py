"""The ground plane: it carries what can fall, and fixed-base arms reach below it."""

import subprocess
import sys
import time

import mujoco
import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.model import Pose
from body_bridge.sim.building.build import BuildOptions, falling_links
from body_bridge.sim.simulation import Mode, Simulation, SimOptions, simulate_together

from conftest import REPO, SAMPLE_ARM, shared_model

WAM = 'openrave/src/robots/barrettwam.robot.xml'
LYNX6 = 'openrave/historical/c5d9efd0/src/robots/lynx6.robot.xml'
BOX = REPO / 'test' / 'data' / 'choreonoid' / 'box.body'  # a free 0.2 m high box, our own


def run(sim, seconds):
    for _ in range(int(round(seconds / sim.period))):
        sim.step_period()


def plane_contacts(sim) -> int:
    plane = sim.mj.geom('ground_plane').id
    return sum(1 for c in sim.data.contact[:sim.data.ncon] if plane in (c.geom1, c.geom2))


def random_targets(model, names, seed=0):
    rng = np.random.default_rng(seed)
    lo = np.array([model.joint(n).limits.lower for n in names])
    hi = np.array([model.joint(n).limits.upper for n in names])
    return lo + (hi - lo) * rng.random(len(names))


@pytest.mark.corpus
@pytest.mark.parametrize('relative', [WAM, LYNX6])
def test_fixed_base_arm_reaches_below_the_floor(relative):
    """The Barrett WAM hangs 0.37 m below z = 0 at its reference pose and the Lynx6 sweeps
    through it: with the default plane ('auto') every joint reaches its target; with a plane
    every link touches ('on') they stick in it, as they did before 'auto' existed."""
    model = load_model(shared_model(relative))
    assert falling_links(model) == set()
    reached = {}
    for mode in ('auto', 'on'):
        sim = Simulation(model, SimOptions(build=BuildOptions(ground_plane=mode)))
        names = sim.actuated
        targets = random_targets(model, names)
        sim.command(Mode.POSITION, names, list(targets))
        run(sim, 3.0)
        q = sim.joint_positions()[[sim.joint_names.index(n) for n in names]]
        reached[mode] = (np.max(np.abs(q - targets)), plane_contacts(sim))
        assert sim.warnings() == {}
    assert reached['auto'][0] < 0.01 and reached['auto'][1] == 0
    assert reached['on'][0] > 0.1 and reached['on'][1] > 0


def test_free_bodies_rest_on_the_plane_beside_an_arm_that_reaches_through_it():
    """One world: the sample arm (fixed base) bends its hand to 0.14 m below z = 0 while a
    free box dropped from 0.5 m comes to rest on the plane (its centre 0.1 m up)."""
    arm, box = load_model(SAMPLE_ARM), load_model(BOX)
    assert falling_links(box) == {'box'} and falling_links(box, kinematic=True) == set()
    sims = simulate_together([(arm, SimOptions()),
                              (box, SimOptions(initial_pose=Pose((1.0, 0.0, 0.5))))],
                             ['', 'box/'])
    arm_sim, box_sim = sims
    # shoulder 1.9 rad, elbow 1.0 rad: the forearm ends at 0.2 + 0.3 cos 1.9 + 0.25 cos 2.9
    arm_sim.command(Mode.POSITION, ['shoulder_pitch', 'elbow_pitch'], [1.9, 1.0])
    run(arm_sim, 3.0)
    q = arm_sim.joint_positions()
    assert q[1] == pytest.approx(1.9, abs=0.01) and q[2] == pytest.approx(1.0, abs=0.01)
    wrist, _ = arm_sim.body_pose('wrist_pitch')
    assert wrist[2] == pytest.approx(0.2 + 0.3 * np.cos(1.9) + 0.25 * np.cos(2.9), abs=1e-3)
    assert wrist[2] < -0.13
    assert box_sim.body_pose('box')[0][2] == pytest.approx(0.1, abs=2e-3)
    assert plane_contacts(box_sim) >= 4  # the box stands on its four corners


def test_sensors_still_see_the_plane():
    """In 'auto' the plane is part of the scene: a ray cast down from 1 m hits it at 1 m."""
    sim = Simulation(load_model(SAMPLE_ARM))
    geom = np.zeros(1, np.int32)
    distance = mujoco.mj_ray(sim.mj, sim.data, np.array([2.0, 0.0, 1.0]),
                             np.array([0.0, 0.0, -1.0]), None, 1, -1, geom)
    assert distance == pytest.approx(1.0) and geom[0] == sim.mj.geom('ground_plane').id


def test_no_plane_when_off():
    sim = Simulation(load_model(BOX),
                     SimOptions(build=BuildOptions(ground_plane='off')))
    run(sim, 0.5)
    assert sim.body_pose('box')[0][2] < -1.0  # fell freely


def bridge_exit(*ros_args, timeout=60):
    return subprocess.run([sys.executable, '-m', 'body_bridge', 'sim', 'sample_arm',
                           '--ros-args', *ros_args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.ros  # the node reads the parameter
def test_bad_ground_plane_value_is_one_line():
    proc = bridge_exit('-p', 'ground_plane:=maybe')
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "parameter ground_plane: 'maybe' is not one of auto, on, off"]


def test_on_and_off_are_accepted_as_ros_booleans(bridge):
    """``-p x:=on`` reaches the node as a boolean (ROS parses on/off as true/false)."""
    proc = bridge(SAMPLE_ARM, '-p', 'ground_plane:=off', '-p', 'gravity_compensation:=on')
    deadline = time.monotonic() + 60
    while 'moving joints' not in proc.output() and proc.proc.poll() is None \
            and time.monotonic() < deadline:
        time.sleep(0.2)
    assert 'moving joints' in proc.output(), proc.output()
    assert proc.stop() == 0
