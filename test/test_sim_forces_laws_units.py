"""sim/mechanics/forces_laws.py against Chrono's tables and closed forms: bump stops, degressive
damping, angle unwrapping, rotation vectors."""

import math

import numpy as np
import pytest

from body_bridge.model import Spring, SpringKind
from body_bridge.sim.mechanics.forces_laws import small_rotation, spring_force, stop_force, unwrap


#: ChForceFunctors' bump-stop table (ADAMS/Car): deflection [mm] -> force [N], with the
#: force midway along each of its segments.
CHRONO_STOPS = [(0, 0), (1, 100), (2, 200), (3, 300), (5, 500), (7, 700), (9, 900), (10, 1000),
                (15, 1750), (20, 2500), (25, 3500), (30, 4500), (35, 6000), (40, 7500),
                (45, 10000), (50, 12500), (55, 68750), (60, 125000), (70, 125000)]


@pytest.mark.parametrize('millimetres, newtons', CHRONO_STOPS)
def test_bump_stops_and_rebounds_follow_chronos_table(millimetres, newtons):
    deflection = millimetres / 1000
    assert stop_force(0.5 - deflection, 0.5, 1.5) == pytest.approx(newtons)  # pushes out
    assert stop_force(1.5 + deflection, 0.5, 1.5) == pytest.approx(-newtons)  # pulls back


def test_degressive_damping_weakens_each_way_by_its_own_degressivity():
    damper = Spring('d', SpringKind.TRANSLATIONAL, 'a', 'b', damping=10.0,
                    degressivity=(2.0, 3.0))  # (compression, expansion)
    # F = -c v / (1 + d |v|): 10 * 0.5 / (1 + 3 * 0.5) = 2 N pulling while it extends,
    # 10 * 0.5 / (1 + 2 * 0.5) = 2.5 N pushing while it shortens
    assert spring_force(damper, 0.0, 0.5) == pytest.approx(-2.0)
    assert spring_force(damper, 0.0, -0.5) == pytest.approx(2.5)
    assert spring_force(damper, 0.0, -2.0) == pytest.approx(4.0)  # 20 / 5
    assert spring_force(damper, 0.3, 0.0) == 0.0


@pytest.mark.parametrize('angle, previous, expected', [
    (0.1, 0.2 + 2 * math.pi, 0.1 + 2 * math.pi),
    (3.0, -3.0, 3.0 - 2 * math.pi),
    (-3.0, 3.0, -3.0 + 2 * math.pi),
    (0.5, 0.4 - 6 * math.pi, 0.5 - 6 * math.pi),
    (1.0, 1.2, 1.0),
])
def test_unwrap_adds_the_turns_closest_to_the_previous_angle(angle, previous, expected):
    assert unwrap(angle, previous) == pytest.approx(expected, abs=1e-12)


def rodrigues(axis, angle):
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k, a


@pytest.mark.parametrize('axis, angle', [
    ((1, 2, 3), 0.7), ((-2, 1, 0.5), 2.5), ((0.3, -1, 2), 1e-4), ((1, 0, 1), 3.1)])
def test_the_rotation_vector_is_the_axis_times_the_angle(axis, angle):
    rot, a = rodrigues(axis, angle)
    np.testing.assert_allclose(small_rotation(rot), a * angle, rtol=1e-9, atol=1e-13)


def test_a_tiny_rotation_and_half_turns_about_any_axis():
    rot, a = rodrigues((2, -1, 2), 1e-10)  # its trace rounds to 3
    np.testing.assert_allclose(small_rotation(rot), a * 1e-10, rtol=1e-6)
    rot, a = rodrigues((1, 2, 3), math.pi)
    got = small_rotation(rot)
    sign = 1.0 if got @ a > 0 else -1.0  # a half turn about a is one about -a
    np.testing.assert_allclose(got, sign * math.pi * a, atol=1e-9)


def test_rounding_beyond_the_range_of_the_cosine_is_taken_in():
    """Products of rotations carry rounding: a trace a hair above 3 or below -1."""
    above = np.diag([1.0, 1.0, 1.0 + 4e-16])
    np.testing.assert_allclose(small_rotation(above), [0, 0, 0], atol=1e-15)
    below = np.diag([1.0, -1.0 - 4e-16, -1.0 - 4e-16])  # half a turn about x
    np.testing.assert_allclose(np.abs(small_rotation(below)), [math.pi, 0, 0], atol=1e-7)


@pytest.mark.parametrize('deformation, velocity', [
    (0.05, 0.5), (0.0, -1.0), (0.2, 2.0), (0.15, -0.25),     # inside and on the grid
    (-0.05, 0.5), (0.3, 0.5), (0.05, -2.0), (0.05, 3.0),      # beyond one end: the edge cell
    (-0.1, -3.0), (0.4, 4.0)])                                # beyond both
def test_a_map_reproduces_a_bilinear_law_and_extends_its_edge_cells(deformation, velocity):
    """Map data sampled from F = 3 + 200 d + 15 v + 40 d v (bilinear, so interpolation and
    the edge cells' linear extension reproduce it anywhere) on an uneven grid."""
    from body_bridge.sim.mechanics.forces_laws import map_force

    def law(d, v):
        return 3.0 + 200.0 * d + 15.0 * v + 40.0 * d * v
    deformations = np.array([0.0, 0.05, 0.2])
    speeds = np.array([-1.0, 0.5, 2.0])
    data = np.array([[v, *(law(d, v) for d in deformations)] for v in speeds])
    assert map_force(deformations, data, deformation, velocity) == pytest.approx(
        law(deformation, velocity), rel=1e-12, abs=1e-12)


def test_a_map_beyond_its_grid_extends_the_nearest_cell_in_a_straight_line():
    """A law curved in both arguments, F = d^2 + v^2 / 10, sampled on an uneven grid: beyond
    the grid the map goes on along the edge cell's line (not along any other cell)."""
    from body_bridge.sim.mechanics.forces_laws import map_force
    deformations = np.array([0.0, 0.05, 0.2])
    speeds = np.array([-1.0, 0.5, 2.0])
    data = np.array([[v, *(d * d + v * v / 10 for d in deformations)] for v in speeds])

    def along(x, x0, x1, f0, f1):
        return f0 + (x - x0) * (f1 - f0) / (x1 - x0)
    # below the first deformation, at a sampled speed: the first cell's line
    assert map_force(deformations, data, -0.05, 0.5) == pytest.approx(
        along(-0.05, 0.0, 0.05, 0.025, 0.0025 + 0.025), rel=1e-12)
    # beyond the last deformation: the last cell's line
    assert map_force(deformations, data, 0.3, 0.5) == pytest.approx(
        along(0.3, 0.05, 0.2, 0.0025 + 0.025, 0.04 + 0.025), rel=1e-12)
    # below the first speed and beyond the last, at a sampled deformation
    assert map_force(deformations, data, 0.05, -2.0) == pytest.approx(
        along(-2.0, -1.0, 0.5, 0.0025 + 0.1, 0.0025 + 0.025), rel=1e-12)
    assert map_force(deformations, data, 0.05, 3.0) == pytest.approx(
        along(3.0, 0.5, 2.0, 0.0025 + 0.025, 0.0025 + 0.4), rel=1e-12)
