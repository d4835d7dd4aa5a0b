"""Chrono TSDA and RSDA laws and body loads (formats/chrono/forces.py), on small own models."""

import numpy as np
import pytest

from body_bridge.formats import load_model

import chrono_files
from chrono_files import error

HEAD = ('chrono-version: 10.0\nmodel:\n  bodies:\n'
        '    - {name: g, location: [0, 0, 0], fixed: true}\n'
        '    - {name: m, location: [1, 0, 0], mass: 2, inertia: {moments: [1, 1, 1]}, '
        'com: {location: [0.1, 0, 0]}}\n')
TSDA = '  tsdas:\n    - {name: s, body1: m, body2: g, point1: [1, 0, 0], point2: [0, 0, 0], '


def write(tmp_path, text):
    return chrono_files.write(tmp_path, HEAD + text)


def tsda(tmp_path, law):
    model = load_model(write(tmp_path, TSDA + law + '}\n'))
    (spring,) = model.springs
    return spring, [w.split(': ', 1)[1] for w in model.warnings]


def test_spring_and_damping_curves_are_kept_sorted_by_abscissa(tmp_path):
    spring, warnings = tsda(tmp_path, 'free_length: 1, spring_curve_data: [[0.1, 5], [-0.1, 10]],'
                            ' damping_curve_data: [[1, 2], [0, 3]], spring_coefficient: 7')
    np.testing.assert_array_equal(spring.spring_curve, [[-0.1, 10], [0.1, 5]])
    np.testing.assert_array_equal(spring.damping_curve, [[0, 3], [1, 2]])
    assert spring.rest == 1 and spring.stiffness == 0
    assert warnings == ["TSDA 's': \"spring_coefficient\" is not used by the force law the "
                        'other keys select (as in Chrono)']


def test_a_curve_may_repeat_a_force_but_not_an_abscissa(tmp_path):
    spring, _ = tsda(tmp_path, 'damping_curve_data: [[0, 1], [1, 1]]')
    np.testing.assert_array_equal(spring.damping_curve, [[0, 1], [1, 1]])
    assert error(write(tmp_path, TSDA + 'damping_curve_data: [[0, 1], [0, 2]]}\n')) == \
        "TSDA 's': \"damping_curve_data\" has two points with the same abscissa"


def test_a_damping_curve_alone_is_a_damper_without_rest_length(tmp_path):
    spring, warnings = tsda(tmp_path, 'damping_curve_data: [[0, 0], [1, 4]], free_length: 2')
    assert spring.spring_curve is None and spring.rest == 0
    np.testing.assert_array_equal(spring.damping_curve, [[0, 0], [1, 4]])
    assert warnings == ["TSDA 's': \"free_length\" is not used by the force law the other keys "
                        'select (as in Chrono)']


def test_a_degressive_damper_and_a_preloaded_spring(tmp_path):
    spring, warnings = tsda(tmp_path, 'damping_coefficient: 20, degressivity_compression: 3, '
                            'degressivity_expansion: 4')
    assert (spring.damping, spring.degressivity, warnings) == (20, (3, 4), [])
    spring, warnings = tsda(tmp_path, 'free_length: 1, spring_coefficient: 100, preload: 10')
    assert (spring.stiffness, spring.preload, spring.rest, warnings) == (100, 10, 1, [])


def test_a_map_needs_increasing_deformations(tmp_path):
    path = write(tmp_path, TSDA + 'deformation: [1, 1], map_data: [[0, 1, 2], [1, 2, 3]]}\n')
    assert error(path).startswith("TSDA 's': \"deformation\" and the velocities of \"map_data\" "
                                  'must each have at least two increasing values')
    path = write(tmp_path, TSDA + 'deformation: [1, 2], map_data: [[0, 1, 2], [0, 2, 3]]}\n')
    assert error(path).startswith("TSDA 's': \"deformation\" and the velocities of \"map_data\" "
                                  'must each have at least two increasing values')


def test_bump_stops_need_both_lengths(tmp_path):
    spring, warnings = tsda(tmp_path, 'free_length: 1, spring_coefficient: 5, '
                            'minimum_length: 0.5, maximum_length: 1.5')
    assert spring.stops == (0.5, 1.5) and warnings == []
    spring, warnings = tsda(tmp_path, 'free_length: 1, spring_coefficient: 5, '
                            'minimum_length: 0.5')
    assert spring.stops is None
    assert warnings == ["TSDA 's': bump stops need both \"minimum_length\" and "
                        '"maximum_length"; ignored']
    spring, warnings = tsda(tmp_path, 'damping_coefficient: 5, maximum_length: 1.5')
    assert spring.stops is None
    assert warnings == ["TSDA 's': \"maximum_length\" is not used by the force law the other "
                        'keys select (as in Chrono)']


def test_a_tsda_without_body1_fails_and_its_visualization_is_said_not_shown(tmp_path):
    path = write(tmp_path, '  tsdas:\n    - {name: s, body2: g, point1: [0, 0, 0], '
                 'point2: [1, 0, 0], damping_coefficient: 1}\n')
    assert error(path) == "TSDA 's': \"body1\" is missing"
    path = write(tmp_path, '  tsdas:\n    - {name: s, body1: m, point1: [0, 0, 0], '
                 'point2: [1, 0, 0], damping_coefficient: 1}\n')
    assert error(path) == "TSDA 's': \"body2\" is missing"
    _, warnings = tsda(tmp_path, 'damping_coefficient: 1, visualization: {type: SPRING}')
    assert warnings == ["TSDA 's': \"visualization\" is not shown (URDF has no element for a "
                        'spring)']


RSDA = '  rsdas:\n    - {name: r, body1: m, body2: g, axis: [0, 0, 1]'


def test_an_rsda_sits_at_the_origin_unless_located_and_reports_unknown_keys(tmp_path):
    model = load_model(write(tmp_path, RSDA + ', spring_coefficient: 3, free_angle: 90, '
                             'colour: red}\n'))
    (spring,) = model.springs
    np.testing.assert_allclose(spring.pose2.pos, [0, 0, 0])  # on the fixed body g
    np.testing.assert_allclose(spring.pose1.pos, [-1, 0, 0])  # m's frame is at (1, 0, 0)
    assert spring.rest == pytest.approx(np.pi / 2)
    assert [w.split(': ', 1)[1] for w in model.warnings] == [
        "RSDA 'r': key \"colour\" is not part of the Chrono model format; ignored"]
    assert error(write(tmp_path, RSDA + '}\n')).startswith("RSDA 'r': no force law")


LOAD = '  body_loads:\n    - {name: f, body: m, load: [0, 0, 1]'


def test_a_force_acts_at_the_centroid_unless_a_point_is_given(tmp_path):
    (load,) = load_model(write(tmp_path, LOAD + ', type: FORCE}\n')).loads
    assert load.local_point and load.local_vector and load.function is None
    np.testing.assert_allclose(load.point, [0.1, 0, 0])  # the centroid, in m's frame


def test_a_load_needs_a_type_and_a_body(tmp_path):
    assert error(write(tmp_path, LOAD + '}\n')) == "body load 'f': \"type\" is missing"
    path = write(tmp_path, '  body_loads:\n    - {name: f, type: FORCE, load: [0, 0, 1]}\n')
    assert error(path) == "body load 'f': \"body\" is missing"


def test_a_torque_ignores_a_point_and_a_load_keeps_its_modulation(tmp_path):
    model = load_model(write(tmp_path, LOAD + ', type: TORQUE, point: [1, 0, 0], '
                             'modulation_function: {type: RAMP, slope: 2}}\n'))
    assert [w.split(': ', 1)[1] for w in model.warnings] == [
        "body load 'f': \"point\" does not apply to a TORQUE load; ignored"]
    (load,) = model.loads
    assert load.function.kind.value == 'ramp' and load.function.params == (0.0, 2.0)


def test_a_linear_tsda_has_its_points_coefficients_and_free_length(tmp_path):
    model = load_model(write(tmp_path, '  tsdas:\n    - {name: s, body1: m, body2: g, '
                             'point1: [1.5, 0, 0], point2: [0, 0, 0.5], spring_coefficient: 50, '
                             'damping_coefficient: 5, free_length: 1}\n'))
    (spring,) = model.springs
    assert (spring.link1, spring.link2) == ('m', 'g')
    np.testing.assert_allclose(spring.pose1.pos, [0.5, 0, 0])  # point1 in m's frame
    np.testing.assert_allclose(spring.pose2.pos, [0, 0, 0.5])
    assert (spring.stiffness, spring.damping, spring.rest, spring.preload) == (50, 5, 1, 0)
    assert model.warnings == ()


def test_a_tsda_of_a_body_with_itself_is_refused(tmp_path):
    path = write(tmp_path, '  tsdas:\n    - {name: s, body1: m, body2: m, point1: [0, 0, 0], '
                 'point2: [1, 0, 0], damping_coefficient: 1}\n')
    assert error(path) == "TSDA 's': body1 and body2 are the same body 'm'"


@pytest.mark.parametrize('law', ['spring_coefficient: 5', 'spring_curve_data: [[0, 0], [1, 5]]'])
def test_a_spring_law_needs_its_free_length(tmp_path, law):
    assert error(write(tmp_path, TSDA + law + '}\n')) == "TSDA 's': \"free_length\" is missing"


def test_a_spring_curve_with_a_damping_curve_keeps_both_and_a_preload(tmp_path):
    spring, warnings = tsda(tmp_path, 'free_length: 1, spring_curve_data: [[0, 0], [1, 5]], '
                            'damping_curve_data: [[0, 0], [1, 2]], preload: 3')
    np.testing.assert_array_equal(spring.spring_curve, [[0, 0], [1, 5]])
    np.testing.assert_array_equal(spring.damping_curve, [[0, 0], [1, 2]])
    assert (spring.rest, spring.preload, warnings) == (1, 3, [])


def test_a_damper_alone_takes_no_preload_nor_degressivity_of_one_side(tmp_path):
    spring, warnings = tsda(tmp_path, 'damping_coefficient: 20, degressivity_compression: 3, '
                            'preload: 2')
    assert (spring.damping, spring.degressivity, spring.preload, spring.stiffness) == \
        (20, None, 0, 0)
    assert warnings == [f"TSDA 's': \"{key}\" is not used by the force law the other keys "
                        'select (as in Chrono)' for key in ('preload',
                                                            'degressivity_compression')]


def test_a_map_law_reads_its_deformations_and_table_and_not_the_free_length(tmp_path):
    spring, warnings = tsda(tmp_path, 'free_length: 1, deformation: [0.2, 0.3, 0.4], '
                            'map_data: [[-1, -10, -20, -30], [0, 0, 0, 0], [1, 10, 20, 30]], '
                            'spring_coefficient: 4, minimum_length: 0.1, maximum_length: 0.5')
    np.testing.assert_array_equal(spring.map_deformations, [0.2, 0.3, 0.4])
    np.testing.assert_array_equal(spring.map_data[2], [1, 10, 20, 30])
    assert (spring.stiffness, spring.rest, spring.stops) == (0, 0, None)
    assert warnings == [f"TSDA 's': \"{key}\" is not used by the force law the other keys "
                        'select (as in Chrono)' for key in (
                            'spring_coefficient', 'free_length', 'minimum_length',
                            'maximum_length')]


def test_a_map_row_needs_a_force_per_deformation(tmp_path):
    path = write(tmp_path, TSDA + 'deformation: [1, 2], map_data: [[0, 1], [1, 2]]}\n')
    assert 'map_data' in error(path)


@pytest.mark.parametrize('degrees, angle', [('true', np.pi / 4), ('false', 45.0)])
def test_an_rsda_turns_about_its_axis_from_its_free_angle(tmp_path, degrees, angle):
    text = HEAD.replace('model:\n', f'model:\n  angle_degrees: {degrees}\n') + (
        '  rsdas:\n    - {name: r, body1: m, body2: g, location: [1, 2, 3], axis: [0, 3, 4], '
        'spring_coefficient: 3, damping_coefficient: 0.5, free_angle: 45, preload: 2}\n')
    (spring,) = load_model(chrono_files.write(tmp_path, text)).springs
    assert (spring.link1, spring.link2) == ('m', 'g')
    np.testing.assert_allclose(spring.pose2.rot[:, 2], [0, 0.6, 0.8], atol=1e-12)  # g unturned
    np.testing.assert_allclose(spring.pose2.pos, [1, 2, 3])
    np.testing.assert_allclose(spring.pose1.pos, [0, 2, 3])
    assert (spring.stiffness, spring.damping, spring.preload) == (3, 0.5, 2)
    assert spring.rest == pytest.approx(angle)


def test_an_rsda_needs_an_axis_and_offers_no_map(tmp_path):
    path = write(tmp_path, '  rsdas:\n    - {name: r, body1: m, body2: g, '
                 'spring_coefficient: 3, free_angle: 0}\n')
    assert error(path) == "RSDA 'r': \"axis\" is missing"
    assert error(write(tmp_path, RSDA + ', map_data: [[0, 1], [1, 2]]}\n')) == (
        "RSDA 'r': no force law: give spring_coefficient, damping_coefficient, "
        'spring_curve_data, damping_curve_data')


def test_an_rsda_curve_law_is_in_radians_from_a_free_angle_in_degrees(tmp_path):
    (spring,) = load_model(write(tmp_path, RSDA + ', free_angle: 180, spring_curve_data: '
                                 '[[0, 0], [1, 2]], damping_curve_data: [[0, 0], [1, 1]]}\n')
                           ).springs
    assert spring.rest == pytest.approx(np.pi)
    np.testing.assert_array_equal(spring.spring_curve, [[0, 0], [1, 2]])
    np.testing.assert_array_equal(spring.damping_curve, [[0, 0], [1, 1]])


NINE = HEAD.replace('10.0', '9.0')


@pytest.mark.parametrize('missing', ['local_load', 'point', 'local_point'])
def test_a_9x_force_needs_its_frames_and_point(tmp_path, missing):
    keys = {'local_load': 'local_load: false', 'point': 'point: [0, 0, 0]',
            'local_point': 'local_point: true'}
    del keys[missing]
    text = NINE + LOAD + ', type: FORCE, ' + ', '.join(keys.values()) + '}\n'
    assert error(chrono_files.write(tmp_path, text)) == f"body load 'f': \"{missing}\" is missing"


def test_a_global_force_at_a_point_fixed_in_space(tmp_path):
    (load,) = load_model(write(tmp_path, LOAD + ', type: FORCE, local_load: false, '
                               'point: [2, 0, 0], local_point: false}\n')).loads
    assert (load.local_vector, load.local_point) == (False, False)
    np.testing.assert_allclose(load.vector, [0, 0, 1])


def test_a_9x_load_has_no_modulation_and_a_load_controller_no_load(tmp_path):
    text = NINE + LOAD + ', type: TORQUE, local_load: true, modulation_function: {type: RAMP, '
    model = load_model(chrono_files.write(tmp_path, text + 'slope: 2}}\n'))
    (torque,) = model.loads
    assert torque.function is None
    assert [w.split(': ', 1)[1] for w in model.warnings] == [
        "body load 'f': key \"modulation_function\" is not part of the Chrono model format; "
        'ignored']
    text = ('  load_controllers:\n    - {name: c, type: FORCE, body: m, load: [1, 0, 0], '
            'point: [0.5, 0, 0]}\n')
    model = load_model(write(tmp_path, text))
    (control,) = model.loads
    assert control.controller and control.local_vector and control.local_point
    np.testing.assert_array_equal(control.vector, [0, 0, 0])
    assert [w.split(': ', 1)[1] for w in model.warnings] == [
        "load controller 'c': \"load\" is not used: a load controller's value comes from its "
        'topic']


def test_the_smallest_map_two_deformations_by_two_speeds_takes_a_preload(tmp_path):
    spring, warnings = tsda(tmp_path, 'deformation: [1, 2], map_data: [[0, 1, 2], [1, 3, 4]], '
                            'preload: 5')
    np.testing.assert_array_equal(spring.map_data, [[0, 1, 2], [1, 3, 4]])
    assert (spring.preload, warnings) == (5, [])
    path = write(tmp_path, TSDA + 'deformation: [1], map_data: [[0, 1], [1, 3]]}\n')
    assert error(path).startswith("TSDA 's': \"deformation\" and the velocities of \"map_data\" "
                                  'must each have at least two increasing values')


def test_a_local_force_point_is_taken_from_the_centroid(tmp_path):
    (load,) = load_model(write(tmp_path, LOAD + ', type: FORCE, point: [0.5, 0, 1]}\n')).loads
    np.testing.assert_allclose(load.point, [0.6, 0, 1])  # m's centroid is 0.1 along its x


def test_a_tsda_rsda_and_load_need_their_names(tmp_path):
    path = write(tmp_path, '  tsdas:\n    - {body1: m, body2: g, point1: [0, 0, 0], '
                 'point2: [1, 0, 0], damping_coefficient: 1}\n')
    assert error(path) == 'TSDA: "name" is missing'
    path = write(tmp_path, '  rsdas:\n    - {body1: m, body2: g, axis: [0, 0, 1], '
                 'damping_coefficient: 1}\n')
    assert error(path) == 'RSDA: "name" is missing'
    path = write(tmp_path, '  body_loads:\n    - {type: FORCE, body: m, load: [0, 0, 1]}\n')
    assert error(path) == 'body load: "name" is missing'


@pytest.mark.parametrize('missing', ['point1', 'point2'])
def test_a_tsda_needs_both_points(tmp_path, missing):
    points = {'point1': 'point1: [0, 0, 0]', 'point2': 'point2: [1, 0, 0]'}
    del points[missing]
    path = write(tmp_path, '  tsdas:\n    - {name: s, body1: m, body2: g, '
                 f'{points.popitem()[1]}, damping_coefficient: 1}}\n')
    assert error(path) == f"TSDA 's': \"{missing}\" is missing"
