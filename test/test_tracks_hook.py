"""The tracks' contact hook (sim/mechanics/tracks.py) step by step, against an oracle written here with
np.cross: the contact frames it turns, the friction it makes anisotropic and the reference
accelerations it shifts, for contacts whose track is the first geom and the second (the
vehicle of test/data/choreonoid/tracked.body on the ground, turned 0.6 rad so that no axis is
a world axis)."""

import math

import mujoco
import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.sim.names import Mode
from body_bridge.sim.mechanics.tracks import TrackDrive, rebuild_constraints

from conftest import REPO
from track_driving import settled

TRACKED = REPO / 'test' / 'data' / 'choreonoid' / 'tracked.body'
#: The module's text: the drive fades out below 30 degrees between the normal and the axis.
FLOOR = math.sin(math.radians(30.0))


@pytest.fixture(scope='module')
def turning():
    """The vehicle settled on the ground, its tracks at -0.3 and +0.4 m/s, turning."""
    sim = settled(load_model(TRACKED))
    sim.command(Mode.VELOCITY, ['TRACK_L', 'TRACK_R'], [-0.3, 0.4])
    for _ in range(60):
        sim.step_period()
    return sim


def _expected(sim, con):
    """Per contact row: (first tangent, second tangent, friction, belt dof, factor) as the
    module's text defines them, or None for a contact the hook leaves as it is."""
    drive = sim.tracks
    out = []
    for i in range(len(con.geom1)):
        g1, g2 = int(con.geom1[i]), int(con.geom2[i])
        k = drive.geom_track[g1] if drive.geom_track[g1] >= 0 else drive.geom_track[g2]
        if k < 0:
            out.append(None)
            continue
        sign = 1.0 if drive.geom_track[g1] >= 0 else -1.0
        normal = con.frame[i, 0:3].copy()
        axis = sim.data.xmat[drive._body[k]].reshape(3, 3) @ drive._axis[k]
        along = np.cross(axis, sign * normal)
        size = float(np.linalg.norm(along))
        if size <= 1e-9 or con.efc_address[i] < 0 or con.dim[i] < 3:
            out.append(None)
            continue
        first = along / size
        friction = con.friction[i].copy()
        if size >= FLOOR:
            friction[1] = friction[0] * drive.lateral
        out.append((first, np.cross(normal, first), friction, drive._dof[k],
                    sign * size / max(size, FLOOR)))
    return out


def _tilt(sim, con, angles):
    """Turn each track contact's normal towards its track's axis, to the given angles from
    the axis in turn (as a side plate touching a wall would have it)."""
    drive = sim.tracks
    n = 0
    for i in range(len(con.geom1)):
        g1, g2 = int(con.geom1[i]), int(con.geom2[i])
        k = drive.geom_track[g1] if drive.geom_track[g1] >= 0 else drive.geom_track[g2]
        if k < 0:
            continue
        axis = sim.data.xmat[drive._body[k]].reshape(3, 3) @ drive._axis[k]
        normal = con.frame[i, 0:3]
        across = normal - (normal @ axis) * axis
        across /= np.linalg.norm(across)
        angle = angles[n % len(angles)]
        con.frame[i, 0:3] = math.cos(angle) * axis + math.sin(angle) * across
        n += 1


def _check_step(sim, swap: bool, angles=None, one=False):
    mj, data, drive = sim.mj, sim.data, sim.tracks
    mujoco.mj_step1(mj, data)
    if one:  # the first contact alone (a track's: the chassis touches nothing)
        data.ncon = 1
        rebuild_constraints(mj, data)
    con = data.contact
    if swap:  # the same contacts with their geoms the other way round: the normal turns
        con.geom1[:], con.geom2[:] = con.geom2.copy(), con.geom1.copy()
        con.frame[:, 0:3] *= -1.0
    if angles is not None:
        _tilt(sim, con, angles)
    before = con.frame.copy(), con.friction.copy()
    expected = _expected(sim, con)
    assert any(e is not None for e in expected)
    assert drive.align(mj, data) is True
    con = data.contact
    for i, e in enumerate(expected):
        if e is None:
            assert np.array_equal(con.frame[i], before[0][i])
            assert np.array_equal(con.friction[i], before[1][i])
            continue
        first, second, friction, _, _ = e
        assert np.array_equal(con.frame[i, 0:3], before[0][i, 0:3])  # the normal stays
        np.testing.assert_allclose(con.frame[i, 3:6], first, atol=1e-12)
        np.testing.assert_allclose(con.frame[i, 6:9], second, atol=1e-12)
        np.testing.assert_allclose(con.friction[i], friction, rtol=1e-12)
    rebuild_constraints(mj, data)
    # Each row its own damping (the rows' reference accelerations are already computed: it
    # changes nothing else), so that a row's shift shows which row's gain it took.
    data.efc_KBIP[:, 1] *= 1.0 + 0.01 * np.arange(data.nefc)
    aref = data.efc_aref.copy()
    drive(mj, data)
    shift = np.zeros_like(aref)
    gain = data.efc_KBIP[:, 1]
    pyramidal = mj.opt.cone == mujoco.mjtCone.mjCONE_PYRAMIDAL
    for i, e in enumerate(expected):
        if e is None:
            continue
        adr, dof, factor = data.contact.efc_address[i], e[3], e[4]
        tangential = data.qvel[dof] * factor
        if pyramidal:
            shift[adr] += gain[adr] * e[2][0] * tangential
            shift[adr + 1] -= gain[adr + 1] * e[2][0] * tangential
        else:
            shift[adr + 1] += gain[adr + 1] * tangential
    assert np.count_nonzero(shift) > 0
    np.testing.assert_allclose(data.efc_aref - aref, shift, rtol=1e-9, atol=1e-12)
    mujoco.mj_step2(mj, data)


@pytest.mark.parametrize('swap', [False, True], ids=['track second', 'track first'])
def test_the_hook_turns_frames_sets_friction_and_shifts_the_drive_rows(turning, swap):
    for _ in range(5):
        _check_step(turning, swap)


def test_contacts_whose_normal_nears_the_axis_fade_out_below_30_degrees(turning):
    """Normals 20 degrees from a track's axis (driven at sin 20 / sin 30 of the belt speed,
    friction left round) and 45 degrees (driven fully, friction made anisotropic)."""
    angles = [math.radians(20.0), math.radians(45.0)]
    for swap in (False, True):
        _check_step(turning, swap, angles)


def test_a_single_contact_of_a_track_is_driven_too(turning):
    for swap in (False, True):
        _check_step(turning, swap, one=True)


def test_the_hook_knows_the_pyramid_rows(turning):
    sim = turning
    cone = sim.mj.opt.cone
    sim.mj.opt.cone = mujoco.mjtCone.mjCONE_PYRAMIDAL
    sim.tracks._pyramidal = True
    try:
        for swap in (False, True):
            _check_step(sim, swap)
    finally:
        sim.mj.opt.cone = cone
        sim.tracks._pyramidal = False


def test_nothing_touching_is_nothing_to_align(turning):
    sim = turning
    data = mujoco.MjData(sim.mj)  # the initial state: every geom where the file puts it
    data.qpos[2] += 5.0  # far above the ground
    mujoco.mj_step1(sim.mj, data)
    assert data.ncon == 0
    assert sim.tracks.align(sim.mj, data) is False
    sim.tracks(sim.mj, data)  # nothing found: nothing shifted


def test_a_new_drive_shifts_nothing_before_it_has_aligned(turning):
    sim = turning
    drive = TrackDrive(sim.mj, sim.model, sim.prefix)
    data = mujoco.MjData(sim.mj)
    mujoco.mj_copyData(data, sim.mj, sim.data)
    mujoco.mj_step1(sim.mj, data)
    aref = data.efc_aref.copy()
    drive(sim.mj, data)
    assert np.array_equal(data.efc_aref, aref)


def test_contacts_without_a_track_are_left_as_they_are(turning):
    sim = turning
    data = mujoco.MjData(sim.mj)
    mujoco.mj_copyData(data, sim.mj, sim.data)
    mujoco.mj_step1(sim.mj, data)
    assert data.ncon > 0
    others = np.flatnonzero((sim.tracks.geom_track < 0) & (sim.mj.geom_contype > 0))
    con = data.contact
    con.geom1[:], con.geom2[:] = others[0], others[-1]  # as if two other shapes touched
    frames, friction = con.frame.copy(), con.friction.copy()
    assert sim.tracks.align(sim.mj, data) is False
    assert np.array_equal(data.contact.frame, frames)
    assert np.array_equal(data.contact.friction, friction)


def test_frictionless_contacts_of_a_track_are_left_as_they_are(turning):
    sim = turning
    data = mujoco.MjData(sim.mj)
    mujoco.mj_copyData(data, sim.mj, sim.data)
    mujoco.mj_step1(sim.mj, data)
    con = data.contact
    assert (sim.tracks.geom_track[np.concatenate((con.geom1, con.geom2))] >= 0).any()
    con.dim[:] = 1  # a normal force only: no tangent to turn
    frames, friction = con.frame.copy(), con.friction.copy()
    assert sim.tracks.align(sim.mj, data) is False
    assert np.array_equal(data.contact.frame, frames)
    assert np.array_equal(data.contact.friction, friction)


def test_the_skew_matrices_are_cross_products():
    from body_bridge.sim.mechanics.tracks import _SKEW
    rng = np.random.default_rng(7)
    v, w = rng.normal(size=(20, 3)), rng.normal(size=(20, 3))
    products = ((v @ _SKEW).reshape(-1, 3, 3) @ w[:, :, None])[:, :, 0]
    np.testing.assert_allclose(products, np.cross(v, w), rtol=1e-12, atol=1e-12)


def test_a_drive_made_without_a_lateral_friction_takes_the_nodes_default(turning):
    """One default for the ratio across/along a track: the node's (SimOptions, 0.25)."""
    from body_bridge.sim.building.options import SimOptions
    drive = TrackDrive(turning.mj, turning.model, turning.prefix)
    assert drive.lateral == SimOptions().track_lateral_friction == 0.25


def test_without_mujocos_islands_the_rows_are_built_again_the_same(turning, monkeypatch):
    """MuJoCo before 3.2 has no mj_island: rebuild_constraints then builds the rows alone,
    and the step's accelerations are those of the rows built with the islands."""
    from body_bridge.sim.mechanics import tracks
    sim = turning
    accelerations = []
    for islands in (tracks._ISLANDS, None):
        monkeypatch.setattr(tracks, '_ISLANDS', islands)
        data = mujoco.MjData(sim.mj)
        mujoco.mj_copyData(data, sim.mj, sim.data)
        mujoco.mj_step1(sim.mj, data)
        assert data.ncon > 0
        rebuild_constraints(sim.mj, data)
        mujoco.mj_step2(sim.mj, data)
        accelerations.append(data.qacc.copy())
    np.testing.assert_allclose(accelerations[1], accelerations[0], rtol=1e-9, atol=1e-9)
