"""The checks of a sweep (sweep/checks.py) on a simulation stepped here, without ROS: a crate
dropped onto the sample arm's base, against free fall and the geometry; and the world's poses
and the run's parameters a run's values make (sweep/targets.py, sweep/run.py)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.model import Pose
from body_bridge.paths import resolve_model
from body_bridge.sim.building.options import SimOptions
from body_bridge.sim.building.worldfile import WorldFile, WorldModel
from body_bridge.sim.simulation import simulate_together
from body_bridge.sweep.checks import RunView, TopicCounter, make_check
from body_bridge.sweep.spec import read_sweep
from body_bridge.sweep.targets import Plan, apply_poses

REPO = Path(__file__).resolve().parents[1]
CRATE = REPO / 'examples' / 'scenario' / 'crate.body'
G = 9.80665
DROP = 0.5      # [m]: the crate's centre starts this high above the base's centre
BASE_TOP = 0.1  # [m]: the arm's base box is 0.1 m tall, its bottom on the floor
HALF = 0.05     # [m]: half the crate's side
SIDE = 0.105    # [m]: the crate's centre this far out on x: over the base, clear of the arm


def plan_of(tmp_path, checks: str, duration: float = 1.0) -> Plan:
    text = f'models: [arm=sample_arm]\nduration: {duration}\nruns: 1\nchecks:\n{checks}'
    path = tmp_path / 't.sweep.yaml'
    path.write_text(text)
    sweep = read_sweep(str(path), text)
    world = WorldFile('t', str(path), models=(
        WorldModel('arm', resolve_model('sample_arm')),
        WorldModel('crate', str(CRATE), Pose.from_rpy([0, 0, 0], pos=[SIDE, 0, DROP]))))
    models = {'arm': load_model(resolve_model('sample_arm')), 'crate': load_model(str(CRATE))}
    return Plan(sweep, world, models, {'/arm/joint_states', '/tf'})


def run(plan: Plan, seconds: float, counts=None):
    """Step the plan's world for ``seconds``; the checks' (passed, metrics) by name."""
    checks = [make_check(plan, spec) for spec in plan.sweep.checks]
    entries = []
    for entry in plan.world.models:
        options = SimOptions(initial_pose=entry.pose)
        entries.append((plan.models[entry.name], options))
    sims = simulate_together(entries, ['', 'crate/'])
    view = RunView(dict(zip(['arm', 'crate'], sims)), sims[0].world, counts or {}, seconds)
    for check in checks:
        check.start(view)
    for _ in range(int(round(seconds / sims[0].period))):
        sims[0].world.step_period()
        for check in checks:
            check.period(view)
    return {c.name: c.finish(view) for c in checks}, view


@pytest.fixture(scope='module')
def dropped(tmp_path_factory):
    """The crate dropped onto the arm's base, watched by one check of each kind."""
    checks = ('  falling: {inside: crate, box: [[-1, -1, 0.4], [1, 1, 0.6]], at: 0.1}\n'
              '  landed: {inside: crate, box: [[-0.2, -0.2, 0.14], [0.2, 0.2, 0.16]]}\n'
              '  above: {inside: crate, box: [[-1, -1, 0.2], [1, 1, 1]], at: always}\n'
              '  fell: {moved: crate, at_least: 0.3, at_most: 0.4}\n'
              '  fell_far: {moved: crate, at_least: 0.1, at_most: 0.2}\n'
              '  still: {moved: arm/hand, at_most: 0.001}\n'
              '  bolted: {moved: arm, at_most: 0}\n'
              '  elbow: {joint: arm/elbow_pitch, range: [-0.01, 0.01]}\n'
              '  elbow_end: {joint: arm/elbow_pitch, range: [0.5, 1], at: end}\n'
              '  stable: {no_divergence: true}\n'
              '  on_base: {contact: [arm/base, crate]}\n'
              '  on_hand: {contact: [arm/hand, crate], expect: false}\n'
              '  on_arm: {contact: [arm, crate/crate]}\n')
    plan = plan_of(tmp_path_factory.mktemp('drop'), checks)
    return run(plan, 1.0)


def test_a_dropped_crate_falls_freely_then_rests_on_the_base(dropped):
    outcome, _ = dropped
    passed, m = outcome['falling']
    assert passed and m['z'] == pytest.approx(DROP - G * 0.1 ** 2 / 2, abs=2e-3)  # free fall
    assert m['outside'] == 0.0 and m['x'] == pytest.approx(SIDE, abs=1e-6)
    assert abs(m['y']) < 1e-9
    passed, m = outcome['landed']
    assert passed and m['z'] == pytest.approx(BASE_TOP + HALF, abs=2e-3)
    passed, m = outcome['above']  # at every period: it went below 0.2 m
    # it rests 0.05 m below the box, and sank a little deeper on impact (soft contact)
    assert not passed and 0.2 - (BASE_TOP + HALF) - 1e-3 <= m['outside'] <= 0.08
    passed, m = outcome['fell']
    assert passed and m['distance'] == pytest.approx(DROP - BASE_TOP - HALF, abs=2e-3)
    assert outcome['still'][0] and outcome['still'][1]['distance'] < 1e-4
    assert not outcome['fell_far'][0]  # farther than at_most, though more than at_least
    assert outcome['bolted'] == (True, {'distance': 0.0})  # a fixed base: not a nanometre


def test_the_contact_is_seen_when_free_fall_says_it_begins(dropped):
    outcome, _ = dropped
    passed, m = outcome['on_base']
    fall = math.sqrt(2 * (DROP - HALF - BASE_TOP) / G)  # 0.267 s
    assert passed and m['first'] == pytest.approx(fall, abs=0.015)
    assert outcome['on_arm'] == (True, {'first': m['first']})  # the whole arm, one of its links
    passed, m = outcome['on_hand']  # expected never: and never
    assert passed and math.isnan(m['first'])


def test_joints_are_held_and_judged_over_the_whole_run_or_at_its_end(dropped):
    outcome, _ = dropped
    passed, m = outcome['elbow']
    assert passed and -0.01 <= m['min'] <= m['max'] <= 0.01
    passed, m = outcome['elbow_end']
    assert not passed and m['min'] == m['max']  # looked at once, at the end
    assert outcome['stable'] == (True, {'resets': 0.0})


def test_a_topic_rate_is_its_messages_per_simulated_second(tmp_path):
    plan = plan_of(tmp_path, '  js: {topic: arm/joint_states, min_rate: 99.5}\n')
    check = make_check(plan, plan.sweep.checks[0])
    assert check.topics == ('/arm/joint_states',) and check.name == 'js'
    counter = TopicCounter(check.topics)

    class Channel:
        topic = '/arm/joint_states'
    assert counter.wants(Channel) and counter.subscribers(Channel) == 1
    Channel.topic = '/tf'
    assert not counter.wants(Channel)
    Channel.topic = '/arm/joint_states'
    for _ in range(201):
        counter.write(Channel, b'', 0)
    view = RunView({}, None, counter.counts, 2.0)
    assert check.finish(view) == (True, {'rate': 100.5})
    counter.counts['/arm/joint_states'] = 198
    assert check.finish(view) == (False, {'rate': 99.0})


@pytest.mark.parametrize('check, message', [
    ('{inside: crate, box: [[0, 0, 0]]}', 'box: two corners'),
    ('{inside: crate, box: [[0, 0], [1, 1, 1]]}', 'box: two corners'),
    ('{inside: crate, box: [5, [1, 1, 1]]}', 'box: two corners'),
    ('{inside: crate, box: [[0, 0, true], [1, 1, 1]]}', 'box: two corners'),
    ('{inside: crate, box: [[0, 0, 0], [1, 1, 1]], at: 2}', 'at: end, always or a time in [0, 1]'),
    ('{inside: crate, box: [[0, 0, 0], [1, 1, 1]], at: -0.5}', 'at: end, always or a time'),
    ('{inside: 5, box: [[0, 0, 0], [1, 1, 1]]}', 'inside: a name'),
    ('{moved: crate}', 'at_least and/or at_most, a distance >= 0'),
    ('{moved: crate, at_least: -1}', 'at_least and/or at_most'),
    ('{joint: arm/elbow_pitch, range: [1, 0]}', 'the range [1, 0] is negative'),
    ('{joint: arm/elbow_pitch, range: [0, .inf]}', 'a range [low, high]'),
    ('{joint: arm, range: [0, 1]}', 'a joint is named MODEL/JOINT'),
    ('{joint: arm/base, range: [0, 1]}', "model 'arm' has no moving joint 'base'"),
    ('{no_divergence: false}', 'no_divergence: write true'),
    ('{topic: /arm/joint_states, min_rate: 0}', 'min_rate: a rate > 0'),
    ('{topic: /arm/imu, min_rate: 1}', 'the world publishes no /arm/imu'),
    ('{contact: [arm]}', 'two bodies [A, B]'),
    ('{contact: [arm, crate], expect: maybe}', 'expect: true or false'),
    ('{contact: [arm, crate/lid]}', "entity 'crate' has no link 'lid'"),
    ('{moved: box, at_least: 1}', "the world has no entity 'box' (it has arm, crate)"),
])
def test_a_check_that_cannot_be_is_refused_with_its_line(tmp_path, check, message):
    plan = plan_of(tmp_path, f'  c: {check}\n')
    with pytest.raises(ModelError) as err:
        make_check(plan, plan.sweep.checks[0])
    assert err.value.line == 5 and message in str(err.value)


def test_a_run_starts_its_models_where_its_values_put_them(tmp_path):
    plan = plan_of(tmp_path, '  s: {no_divergence: true}\n')
    world = apply_poses(plan.world, {'crate.x': 0.3, 'crate.yaw': 1.0, 'arm.z': 0.2,
                                     'arm.roll': 0.25, 'arm.noise_seed': 4})
    arm, crate = world.models
    assert np.allclose(crate.pose.pos, [0.3, 0, DROP]) and crate.pose.rpy()[2] == \
        pytest.approx(1.0)
    assert np.allclose(arm.pose.pos, [0, 0, 0.2]) and np.allclose(arm.pose.rpy(), [0.25, 0, 0])
    assert apply_poses(plan.world, {'arm.noise_seed': 4}) is plan.world
    assert plan.world.models[1].pose.pos[0] == SIDE  # the plan's world is left as it was


def test_a_runs_values_split_into_parameters_frictions_and_pace(tmp_path):
    from body_bridge.sweep.run import _split
    text = ('models: [arm=sample_arm]\nduration: 1\nruns: 1\nreal_time_factor: 2\n'
            'parameters: {arm.servo_damping: 0.9, arm.passive_joints: [wrist_pitch, elbow]}\n')
    path = tmp_path / 'p.sweep.yaml'
    path.write_text(text)
    plan = Plan(read_sweep(str(path)), plan_of(tmp_path, '  s: {no_divergence: true}\n').world,
                {}, set())
    parameters, frictions, rtf = _split(plan, {
        'crate.x': 0.4, 'arm.noise_seed': 3, 'crate.friction': 0.2, 'arm/hand.friction': 1.5,
        'arm.initial_positions.elbow_pitch': 0.5})
    assert parameters == {'arm': {'servo_damping': 0.9, 'passive_joints': ['wrist_pitch', 'elbow'],
                                  'noise_seed': 3, 'initial_positions.elbow_pitch': 0.5}}
    assert frictions == [('crate', None, 0.2), ('arm', 'hand', 1.5)]
    assert rtf == 2.0
    assert _split(plan, {'real_time_factor': 0})[2] == 0.0


def test_the_smallest_bounds_a_check_takes(tmp_path):
    plan = plan_of(tmp_path, '  a: {moved: crate, at_most: 0}\n'
                             '  b: {topic: /arm/joint_states, min_rate: 0.5}\n'
                             '  c: {inside: crate, box: [[0, 0, 0], [0, 1, 1]], at: 0}\n')
    checks = [make_check(plan, spec) for spec in plan.sweep.checks]
    assert checks[0].at_most == 0 and checks[1].min_rate == 0.5 and checks[2].when == 0.0


def test_a_check_says_its_verdict_or_is_not_a_check():
    from body_bridge.sweep.checks import Check
    with pytest.raises(NotImplementedError):
        Check('bare').finish(None)


def test_bodies_touching_from_the_start_touch_at_time_zero(tmp_path):
    """The crate put resting on the base: the contact is there before the first period."""
    plan = plan_of(tmp_path, '  on_base: {contact: [arm/base, crate]}\n'
                             '  at_start: {inside: crate, box: [[0, 0, 0.149], [1, 1, 0.151]], '
                             'at: 0}\n', duration=0.05)
    plan.world = apply_poses(plan.world, {'crate.z': BASE_TOP + HALF - 1e-4})
    outcome, _ = run(plan, 0.05)
    assert outcome['on_base'] == (True, {'first': 0.0})
    assert outcome['at_start'][0] and outcome['at_start'][1]['z'] == \
        pytest.approx(BASE_TOP + HALF - 1e-4, abs=1e-9)  # looked at before the first period


def test_a_time_the_run_did_not_reach_is_looked_at_at_its_end(tmp_path):
    plan = plan_of(tmp_path, '  late: {inside: crate, box: [[-1, -1, 0.3], [1, 1, 1]], at: 0.9}\n'
                             '  late_joint: {joint: arm/elbow_pitch, range: [-1, 1], at: 0.9}\n')
    outcome, view = run(plan, 0.2)  # stopped short of 0.9 s
    passed, m = outcome['late']
    assert passed and m['z'] == pytest.approx(DROP - G * 0.2 ** 2 / 2, abs=3e-3)
    assert outcome['late_joint'][0] and outcome['late_joint'][1]['min'] == \
        outcome['late_joint'][1]['max']


def test_divergences_before_the_run_are_not_its_own(tmp_path):
    from body_bridge.sweep.checks import NoDivergence

    class World:
        class watchdog:
            count = 2
    plan = plan_of(tmp_path, '  calm: {no_divergence: true}\n')
    check = make_check(plan, plan.sweep.checks[0])
    assert isinstance(check, NoDivergence) and check.name == 'calm'
    view = RunView({}, World, {}, 1.0)
    check.start(view)
    assert check.finish(view) == (True, {'resets': 0.0})
    World.watchdog.count = 3
    assert check.finish(view) == (False, {'resets': 1.0})
