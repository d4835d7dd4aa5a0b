"""Tracks a Body file adds to a body it includes (test/data/choreonoid/subbody: crawler.body
includes crawler_base.body as a SubBody and adds two AGXVehicleContinuousTrackDevice tracks
under the SubBody's elements): the tracks are there, cmd_vel's drive finds them on either
side, and the twist cmd_vel asks for moves and turns the crawler as tracks do
(test_tracks_own.py); ``check`` says ok for it, and reports an element it cannot read as an
error."""

from __future__ import annotations

import numpy as np
import pytest

from body_bridge.check import check_model
from body_bridge.formats import load_model
from body_bridge.model import JointType
from body_bridge.sim.building.options import SimOptions
from body_bridge.sim.mechanics.drive import find_drive

from conftest import REPO
from track_driving import drive, settled

CRAWLER = REPO / 'test' / 'data' / 'choreonoid' / 'subbody' / 'crawler.body'
#: The belts: around wheels at x = +-0.2 m (radius 0.06 m, 0.01 m thick), y = +-0.22 m.
HALF_SEPARATION, HALF_LENGTH = 0.22, 0.2


@pytest.fixture(scope='module')
def crawler():
    return load_model(CRAWLER)


def test_the_tracks_of_the_sub_body_s_elements_are_tracks(crawler):
    assert {d.name: (d.link, d.type_name) for d in crawler.devices} == {
        'TRACK_L': ('CHASSIS', 'AGXVehicleContinuousTrackDevice'),
        'TRACK_R': ('CHASSIS', 'AGXVehicleContinuousTrackDevice')}
    for side in ('L', 'R'):
        joint = crawler.joint(f'TRACK_{side}')
        assert joint.type == JointType.TRACK and joint.child == f'TRACK_{side}_belt'
        assert joint.parent == 'CHASSIS'
        assert crawler.link(f'WHEEL_{side}0').collisions == ()  # the belt is what touches
    assert not any("'elements' is not supported" in w for w in crawler.warnings)
    assert crawler.dropped == ()


def test_cmd_vel_s_drive_finds_them_by_side(crawler):
    d = find_drive(crawler)
    assert (d.kind, d.left, d.right) == ('tracks', ('TRACK_L',), ('TRACK_R',))
    assert d.separation == pytest.approx(2 * HALF_SEPARATION, abs=1e-9)
    assert d.gains == (1.0, 1.0)


def test_cmd_vel_moves_it_straight_at_the_speed_asked(crawler):
    d = find_drive(crawler)
    sim = settled(crawler)
    start = sim.body_pose('CHASSIS')[0]
    path, yaws = drive(sim, d.joints, d.joint_speeds(0.3, 0.0)[0], 2.0)
    assert path[-1][0] - start[0] == pytest.approx(0.6, rel=0.05)
    assert abs(path[-1][1] - start[1]) < 0.01 and abs(yaws[-1] - yaws[0]) < 0.01


@pytest.mark.parametrize('lateral', [1.0, 0.25])
def test_cmd_vel_turns_it_as_tracks_turn(crawler, lateral):
    """A turn in place of w asks the tracks for -+ w b; sliding sideways at the belt ends,
    half a length a ahead and behind, with friction r times lower across than along, the
    crawler turns at v b / (b^2 + r^2 a^2) (test_tracks_own.py): 0.95 of w with the default
    r, 0.49 of it with isotropic friction."""
    d = find_drive(crawler)
    w = 0.5
    speeds = d.joint_speeds(0.0, w)[0]
    np.testing.assert_allclose(speeds, [-w * HALF_SEPARATION, w * HALF_SEPARATION])
    sim = settled(crawler, track_lateral_friction=lateral)
    start = sim.body_pose('CHASSIS')[0]
    path, yaws = drive(sim, d.joints, speeds, 3.0)
    rate = (yaws[-1] - yaws[len(yaws) // 3]) / 2.0
    v, a, b = w * HALF_SEPARATION, HALF_LENGTH, HALF_SEPARATION
    assert rate == pytest.approx(v * b / (b * b + lateral ** 2 * a * a), rel=0.15)
    if lateral == SimOptions().track_lateral_friction:
        assert rate == pytest.approx(w, rel=0.1)
    assert np.linalg.norm(path[-1][:2] - start[:2]) < 0.05


def test_check_says_ok_and_reports_what_it_cannot_read(tmp_path):
    report = check_model(str(CRAWLER), seconds=0.2)
    assert not report.errors, report.errors
    assert any(p.startswith('mobile base: root free (as the model file says); cmd_vel drives '
                            'tracks TRACK_L (left) and TRACK_R (right), 0.44 m apart')
               for p in report.passed)
    (tmp_path / 'crawler_base.body').write_text((CRAWLER.parent / 'crawler_base.body')
                                                .read_text())
    odd = tmp_path / 'crawler.body'
    odd.write_text(CRAWLER.read_text().replace(
        '    elements:\n', '    elements:\n      - { type: FlowSensor, name: flow }\n'))
    report = check_model(str(odd), seconds=0.2)
    assert [(f.stage, f.text) for f in report.errors] == [
        ('load', f"{odd}:13: FlowSensor nodes are not supported; this element of SubBody "
                 "'crawler_base.body' was ignored")]
    assert not [f for f in report.warnings if 'FlowSensor' in f.text]
    assert len(find_drive(report.model).joints) == 2  # the tracks are still read
