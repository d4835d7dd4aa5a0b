"""Chrono bodies, contact materials and shapes (formats/chrono/bodies.py), on small own models."""

import sys

import numpy as np
import pytest

from body_bridge.formats import load_model

import chrono_files
from chrono_files import error

HEAD = 'chrono-version: 10.0\nmodel:\n  data_path: {type: RELATIVE}\n  bodies:\n'
TETRA = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n'


def write(tmp_path, text):
    (tmp_path / 'tetra.obj').write_text(TETRA)
    return chrono_files.write(tmp_path, text)


def body(tmp_path, contact='', extra='', visual=''):
    """A fixed body g with the given contact and visualization sections."""
    text = HEAD + f'    - name: g\n      location: [0, 0, 0]\n      fixed: true\n{extra}'
    if contact:
        text += '      contact:\n' + contact
    if visual:
        text += '      visualization:\n        shapes:\n' + visual
    return write(tmp_path, text)


def warnings(path):
    return [w.split(': ', 1)[1] for w in load_model(path).warnings]


MATERIAL = '        materials: [{name: steel}]\n'


def test_an_unknown_body_key_is_reported_and_a_guessed_one_named(tmp_path):
    path = body(tmp_path, extra='      colour: red\n      angular_velocity: [0, 0, 1]\n')
    assert warnings(path) == [
        "body 'g': key \"angular_velocity\" is not a Chrono body key (Chrono reads "
        '"initial_angular_velocity"); ignored, as Chrono ignores it',
        "body 'g': key \"colour\" is not part of the Chrono model format; ignored"]


def test_a_moving_body_with_zero_mass_fails(tmp_path):
    path = write(tmp_path, HEAD + '    - {name: m, location: [0, 0, 0], mass: 0, inertia: '
                 '{moments: [1, 1, 1]}}\n')
    assert error(path) == "body 'm': a moving body needs a positive \"mass\""


def test_smc_coefficients_in_the_10x_spelling_are_kept_and_said_unused(tmp_path):
    path = body(tmp_path, '        materials:\n          - name: steel\n'
                '            coefficients: {normal_stiffness: 1e5, normal_damping: 10, '
                'tangential_stiffness: 2e4, tangential_damping: 1}\n'
                '            physical_properties: {Young_modulus: 2e11, Poisson_ratio: 0.3}\n'
                '        shapes: [{type: SPHERE, material: steel, location: [0, 0, 0], '
                'radius: 0.1}]\n')
    model = load_model(path)
    assert [w.split(': ', 1)[1] for w in model.warnings] == [
        "body 'g' contact material 'steel': SMC contact values normal_stiffness, "
        'normal_damping, tangential_stiffness, tangential_damping are kept in the model but '
        "not used, as in Chrono's YAML parser (its SMC contact takes Young's modulus, Poisson "
        'ratio, restitution and friction: docs/materials.md)']
    (contact,) = model.contacts
    assert contact.material.smc['normal_stiffness'] == 1e5
    assert contact.material.smc['young_modulus'] == 2e11


def test_a_material_without_a_name_fails(tmp_path):
    path = body(tmp_path, '        materials: [{coefficient_of_friction: 0.5}]\n'
                '        shapes: [{type: SPHERE, material: steel, location: [0, 0, 0], '
                'radius: 0.1}]\n')
    assert error(path) == 'body \'g\' contact material: "name" is missing'


def test_contact_without_materials_fails(tmp_path):
    path = body(tmp_path, '        materials: []\n        shapes: [{type: SPHERE, material: '
                'steel, location: [0, 0, 0], radius: 0.1}]\n')
    assert error(path) == "body 'g' contact: \"materials\" is missing or empty"


def test_a_contact_radius_counts_on_meshes_only(tmp_path):
    path = body(tmp_path, MATERIAL + '        shapes:\n'
                '          - {type: SPHERE, material: steel, location: [0, 0, 0], radius: 0.1}\n'
                '          - {type: BOX, material: steel, location: [0, 0, 0], dimensions: '
                '[1, 1, 1], orientation: [0, 0, 0], contact_radius: 0.01}\n'
                '          - {type: MESH, material: steel, filename: tetra.obj, '
                'contact_radius: 0.02}\n')
    model = load_model(path)
    assert [w.split(': ', 1)[1] for w in model.warnings] == [
        "body 'g' collision shape: \"contact_radius\" applies to MESH shapes only; ignored"]
    assert [c.radius for c in model.contacts] == [0.0, 0.0, 0.02]


def test_a_mesh_scale_must_be_positive(tmp_path):
    path = body(tmp_path, visual='          - {type: MESH, filename: tetra.obj, scale: 0}\n')
    assert error(path) == ("body 'g' visualization shape MESH: \"scale\" must be positive, "
                           'found 0')


def test_a_hull_is_read_as_it_is_and_its_placement_keys_are_warned(tmp_path):
    path = body(tmp_path, MATERIAL + '        shapes:\n'
                '          - {type: HULL, material: steel, filename: tetra.obj, '
                'location: [0, 0, 1], scale: 2}\n'
                '          - {type: HULL, material: steel, filename: tetra.obj, '
                'location: [0, 0, 0], orientation: [1, 0, 0, 0], scale: 1}\n')
    model = load_model(path)
    assert [w.split(': ', 1)[1] for w in model.warnings] == [
        "body 'g' collision shape HULL: \"location\" is not used: Chrono reads a HULL file as "
        'it is',
        "body 'g' collision shape HULL: \"scale\" is not used: Chrono reads a HULL file as "
        'it is']
    for shape in model.link('g').collisions:
        np.testing.assert_allclose(shape.pose.pos, [0, 0, 0])
        assert np.max(shape.geometry.vertices) == 1.0  # not scaled


def test_neutral_placements_of_a_sphere_are_not_warned(tmp_path):
    path = body(tmp_path, visual='          - {type: SPHERE, location: [0, 0, 0], radius: 1, '
                'orientation: [0, 0, 0]}\n          - {type: SPHERE, location: [0, 0, 0], '
                'radius: 1, orientation: [1, 0, 0, 0]}\n          - {type: SPHERE, location: '
                '[0, 0, 0], radius: 1, orientation: [0, 0, 90]}\n')
    assert warnings(path) == [
        "body 'g' visualization shape SPHERE: \"orientation\" is not used: a sphere has no "
        'orientation']


AXES = [(1, 0, 0), (0, 1, 0), (0, -1, 0), (1, 1, 1), (-2, 1, -3), (0, 0, -1), (0, 0, 5)]


def test_a_cylinder_turns_z_onto_its_axis_by_the_smallest_rotation(tmp_path):
    shapes = ''.join(f'          - {{type: CYLINDER, location: [0, 0, 0], axis: {list(a)}, '
                     'radius: 0.1, length: 1}\n' for a in AXES)
    model = load_model(body(tmp_path, visual=shapes))
    for axis, shape in zip(AXES, model.link('g').visuals):
        rot, unit = shape.pose.rot, np.array(axis) / np.linalg.norm(axis)
        np.testing.assert_allclose(rot.T @ rot, np.eye(3), atol=1e-12)
        assert np.linalg.det(rot) == pytest.approx(1.0)
        np.testing.assert_allclose(rot[:, 2], unit, atol=1e-12)
        turn = np.cross([0, 0, 1], unit)  # the turn is about e_z x axis, which stays put
        np.testing.assert_allclose(rot @ turn, turn, atol=1e-12)
    np.testing.assert_allclose(model.link('g').visuals[5].pose.rot, np.diag([1, -1, -1]))


def test_an_axis_close_to_minus_z_keeps_its_precision():
    from body_bridge.formats.chrono.bodies import rotation_to_z
    for tilt in (1e-3, 1e-5, 1e-7, 1e-9):
        axis = np.array([tilt, 0.0, -1.0]) / np.hypot(tilt, 1.0)
        rot = rotation_to_z(axis)
        np.testing.assert_allclose(rot[:, 2], axis, atol=1e-15)
        np.testing.assert_allclose(rot.T @ rot, np.eye(3), atol=1e-15)
        np.testing.assert_allclose(rot[1], [0, 1, 0], atol=1e-15)  # a turn about y only


def moving(tmp_path, inertia):
    """A moving body m of 2 kg with the given inertia section (YAML flow text, or none)."""
    text = HEAD + '    - name: m\n      location: [0, 0, 0]\n      mass: 2\n'
    if inertia:
        text += f'      inertia: {inertia}\n'
    return write(tmp_path, text)


def test_a_moving_body_without_inertia_fails(tmp_path):
    assert error(moving(tmp_path, '')) == \
        "body 'm': a moving body needs \"inertia\" with \"moments\""


def test_unstated_moments_of_a_fixed_body_are_zero(tmp_path):
    # Chrono reads no inertia of a fixed body; the model keeps what is written, zero if unstated
    path = body(tmp_path, extra='      mass: 3\n      inertia: {products: [0, 0, 0]}\n')
    np.testing.assert_allclose(load_model(path).link('g').inertial.inertia, np.zeros((3, 3)))


def test_an_unknown_inertia_key_is_warned(tmp_path):
    path = moving(tmp_path, '{moments: [1, 1, 1], product: [0, 0, 0]}')
    assert warnings(path) == [
        "body 'm' inertia: key \"product\" is not part of the Chrono model format; ignored"]


def test_principal_moments_breaking_the_triangle_inequality_are_warned_not_a_flat_plate(
        tmp_path):
    # a flat plate's moments meet A + B = C exactly: a rigid body, no warning
    assert warnings(moving(tmp_path, '{moments: [1, 2, 3]}')) == []
    assert warnings(moving(tmp_path, '{moments: [1, 1, 3]}')) == [
        "body 'm' inertia: principal moments [1.0, 1.0, 3.0] violate A + B >= C (no rigid "
        'body has them); kept as given, the integrator balances them']
    inertia = load_model(moving(tmp_path, '{moments: [1, 1, 3]}')).link('m').inertial.inertia
    np.testing.assert_allclose(inertia, np.diag([1, 1, 3]))


SPHERE = '        shapes: [{type: SPHERE, material: steel, location: [0, 0, 0], radius: 0.1}]\n'


@pytest.mark.parametrize('missing', ['Youngs_modulus', 'Poisson_ratio'])
def test_smc_properties_need_both_youngs_modulus_and_poisson_ratio(tmp_path, missing):
    given = {'Youngs_modulus': 'Youngs_modulus: 2e7', 'Poisson_ratio': 'Poisson_ratio: 0.3'}
    del given[missing]
    path = body(tmp_path, '        materials:\n          - name: steel\n'
                f'            properties: {{{", ".join(given.values())}}}\n' + SPHERE)
    assert error(path) == \
        f"body 'g' contact material 'steel' properties: \"{missing}\" is missing"


def test_smc_properties_in_the_9x_spelling_are_read(tmp_path):
    path = body(tmp_path, '        materials:\n          - name: steel\n'
                '            properties: {Youngs_modulus: 2e7, Poisson_ratio: 0.3}\n' + SPHERE)
    (contact,) = load_model(path).contacts
    assert dict(contact.material.smc) == {'young_modulus': 2e7, 'poisson_ratio': 0.3}


def test_an_unknown_contact_material_key_is_warned(tmp_path):
    path = body(tmp_path, '        materials: [{name: steel, friction: 0.5}]\n' + SPHERE)
    assert warnings(path) == ["body 'g' contact material 'steel': key \"friction\" is not part "
                              'of the Chrono model format; ignored']
    (contact,) = load_model(path).contacts
    assert contact.material.friction == 0.8  # Chrono's default, "friction" not read


def test_a_collision_family_is_said_unused_once(tmp_path):
    path = body(tmp_path, MATERIAL + '        collision_family: 2\n' + SPHERE)
    assert warnings(path) == [
        "body 'g' contact: \"collision_family\" is not used (Chrono's YAML parser does not use "
        'it either); every collision shape collides with every other']


def test_a_collision_shape_needs_its_material(tmp_path):
    path = body(tmp_path, MATERIAL + '        shapes: [{type: SPHERE, location: [0, 0, 0], '
                'radius: 0.1}]\n')
    assert error(path) == "body 'g' collision shape: \"material\" is missing"


@pytest.mark.parametrize('keys, message', [
    ('length: 1', '"radius" is missing'),
    ('radius: 0, length: 1', '"radius" must be positive, found 0'),
    ('radius: 0.1', '"length" is missing'),
    ('radius: 0.1, length: -1', '"length" must be positive, found -1')])
def test_a_cylinder_needs_a_positive_radius_and_length(tmp_path, keys, message):
    path = body(tmp_path, visual='          - {type: CYLINDER, location: [0, 0, 0], '
                f'axis: [0, 0, 1], {keys}}}\n')
    assert error(path) == f"body 'g' visualization shape CYLINDER: {message}"


def test_a_cylinder_has_its_radius_and_length(tmp_path):
    path = body(tmp_path, visual='          - {type: CYLINDER, location: [0, 0, 0.5], '
                'axis: [0, 1, 0], radius: 0.1, length: 2}\n')
    (shape,) = load_model(path).link('g').visuals
    assert (shape.geometry.radius, shape.geometry.length) == (0.1, 2.0)
    np.testing.assert_allclose(shape.pose.pos, [0, 0, 0.5])


def test_a_mesh_without_a_reader_is_refused_as_unsupported(tmp_path, monkeypatch):
    from body_bridge.errors import UnsupportedError
    path = body(tmp_path, visual='          - {type: MESH, filename: tetra.obj}\n')
    monkeypatch.setitem(sys.modules, 'body_bridge.meshfiles', None)  # import fails
    with pytest.raises(UnsupportedError) as err:
        load_model(path)
    assert str(err.value).endswith(
        "body 'g' visualization shape MESH: cannot read 'tetra.obj': this installation has no "
        'mesh file reader (body_bridge.meshfiles)')


def test_the_parts_of_a_mesh_of_two_materials_are_named_by_their_number(tmp_path):
    (tmp_path / 'two.mtl').write_text('newmtl red\nKd 1 0 0\nnewmtl blue\nKd 0 0 1\n')
    two = TETRA.replace('f 1 3 2', 'usemtl red\nf 1 3 2').replace('f 1 2 4', 'usemtl blue\nf 1 2 4')
    (tmp_path / 'two.obj').write_text('mtllib two.mtl\n' + two)
    path = body(tmp_path, visual='          - {type: MESH, filename: two.obj}\n'
                '          - {type: MESH, filename: tetra.obj}\n')
    shapes = load_model(path).link('g').visuals
    assert [s.geometry.name for s in shapes] == ['two_0', 'two_1', 'tetra']
    assert [s.material.rgba[:3] for s in shapes[:2]] == [(1.0, 0.0, 0.0), (0.0, 0.0, 1.0)]


def test_a_youngs_modulus_must_be_positive(tmp_path):
    path = body(tmp_path, '        materials:\n          - name: steel\n'
                '            properties: {Youngs_modulus: 0, Poisson_ratio: 0.3}\n' + SPHERE)
    assert error(path) == \
        "body 'g' contact material 'steel' properties: \"Youngs_modulus\" must be positive, found 0"


def test_a_fixed_body_with_a_mass_and_no_inertia_has_zero_moments(tmp_path):
    # the spec requires inertia of moving bodies only: a fixed body's mass stands alone
    inertial = load_model(body(tmp_path, extra='      mass: 5\n')).link('g').inertial
    assert inertial.mass == 5.0
    np.testing.assert_array_equal(inertial.inertia, np.zeros((3, 3)))


@pytest.mark.parametrize('version, key, warned', [
    ('9.0', 'Coefficients', False), ('10.0', 'coefficients', False),
    ('9.0', 'coefficients', True), ('10.0', 'Coefficients', True)])
def test_smc_coefficients_are_warned_only_in_the_other_versions_spelling(
        tmp_path, version, key, warned):
    text = HEAD.replace('10.0', version) + (
        '    - name: g\n      location: [0, 0, 0]\n      fixed: true\n      contact:\n'
        '        materials:\n          - name: steel\n'
        f'            {key}: {{normal_stiffness: 1e5, normal_damping: 10, '
        'tangential_stiffness: 2e4, tangential_damping: 1}\n' + SPHERE)
    said = [w for w in warnings(write(tmp_path, text)) if 'spelling' in w]
    other = {'9.0': '10', '10.0': '9'}[version]
    assert said == ([f"body 'g' contact material 'steel': \"{key}\" is the spelling of Chrono "
                     f'{other}.x; read anyway'] if warned else [])


@pytest.mark.parametrize('shape, missing', [
    ('{location: [0, 0, 0], radius: 0.1}', 'type'),
    ('{type: BOX, location: [0, 0, 0], orientation: [0, 0, 0]}', 'dimensions'),
    ('{type: BOX, dimensions: [1, 1, 1], orientation: [0, 0, 0]}', 'location'),
    ('{type: BOX, location: [0, 0, 0], dimensions: [1, 1, 1]}', 'orientation'),
    ('{type: SPHERE, radius: 0.1}', 'location'),
    ('{type: CYLINDER, axis: [0, 0, 1], radius: 0.1, length: 1}', 'location'),
    ('{type: CYLINDER, location: [0, 0, 0], radius: 0.1, length: 1}', 'axis'),
    ('{type: MESH, scale: 2}', 'filename')])
def test_a_visual_shape_without_a_key_the_spec_requires_is_refused(tmp_path, shape, missing):
    kind = shape.split('type: ')[1].split(',')[0] if 'type' in shape else ''
    what = "body 'g' visualization shape" + (f' {kind}' if kind else '')
    path = body(tmp_path, visual=f'          - {shape}\n')
    assert error(path) == f'{what}: "{missing}" is missing'


def test_a_mesh_without_a_location_sits_at_the_body_origin(tmp_path):
    # the spec: location and orientation default to [0, 0, 0] and identity for MESH only
    path = body(tmp_path, extra='      orientation: [0, 0, 0]\n',
                visual='          - {type: MESH, filename: tetra.obj, scale: 2}\n'
                '          - {type: MESH, filename: tetra.obj, location: [0, 1, 0]}\n')
    first, second = load_model(path).link('g').visuals
    np.testing.assert_array_equal(first.pose.pos, [0, 0, 0])
    np.testing.assert_array_equal(first.pose.rot, np.eye(3))
    assert np.max(first.geometry.vertices) == 2.0
    np.testing.assert_array_equal(second.pose.pos, [0, 1, 0])


def test_a_mesh_file_that_is_a_folder_is_refused_in_one_line(tmp_path):
    (tmp_path / 'parts.obj').mkdir()
    path = body(tmp_path, visual='          - {type: MESH, filename: parts.obj}\n')
    assert error(path) == (f"body 'g' visualization shape MESH: mesh file 'parts.obj' "
                           f"({tmp_path / 'parts.obj'}) is a directory, not a regular file")


def test_a_com_frame_given_only_its_orientation_sits_at_the_body_origin(tmp_path):
    # com->location defaults to [0, 0, 0]; the moments are about the turned centroidal axes
    text = HEAD + ('    - {name: m, location: [1, 2, 3], mass: 2, com: {orientation: [90, 0, 0]},'
                   ' inertia: {moments: [1, 2, 3]}}\n')
    inertial = load_model(write(tmp_path, text)).link('m').inertial
    np.testing.assert_array_equal(inertial.com, [0, 0, 0])
    np.testing.assert_allclose(inertial.inertia, np.diag([2, 1, 3]), atol=1e-12)


def test_inertia_products_are_ixy_ixz_iyz_about_the_centroid(tmp_path):
    inertia = load_model(moving(tmp_path, '{moments: [1, 2, 3], products: [0.1, 0.2, 0.3]}')
                         ).link('m').inertial.inertia
    np.testing.assert_allclose(inertia, [[1, 0.1, 0.2], [0.1, 2, 0.3], [0.2, 0.3, 3]])


@pytest.mark.parametrize('moments', ['[0, 1, 1]', '[1, 1, 0]'])
def test_a_moving_body_with_a_zero_principal_moment_fails(tmp_path, moments):
    assert error(moving(tmp_path, f'{{moments: {moments}}}')).endswith(
        'are not an inertia: its principal moments must be positive')


def test_a_fixed_body_may_not_weigh_less_than_nothing(tmp_path):
    assert error(body(tmp_path, extra='      mass: -1\n')) == \
        "body 'g': \"mass\" must be at least 0, found -1"


COEFFS = ('            Coefficients: {{normal_stiffness: {k}, normal_damping: 0.5, '
          'tangential_stiffness: 0, tangential_damping: 0.25}}\n')


def material(extra):
    return '        materials:\n          - name: steel\n' + extra + SPHERE


def test_smc_coefficients_may_be_zero_or_below_one_but_not_negative(tmp_path):
    path = body(tmp_path, material(COEFFS.format(k=0.75)))
    smc = load_model(path).contacts[0].material.smc
    assert (smc['normal_stiffness'], smc['normal_damping'], smc['tangential_stiffness'],
            smc['tangential_damping']) == (0.75, 0.5, 0.0, 0.25)
    path = body(tmp_path, material(COEFFS.format(k=-1)))
    assert error(path) == ("body 'g' contact material 'steel' Coefficients: "
                           '"normal_stiffness" must be at least 0, found -1')


def test_friction_and_restitution_default_to_the_specs_values(tmp_path):
    steel = load_model(body(tmp_path, material(''))).contacts[0].material
    assert (steel.friction, steel.restitution) == (0.8, 0.01)
    steel = load_model(body(tmp_path, material(
        '            coefficient_of_friction: 0.25\n'
        '            coefficient_of_restitution: 1\n'))).contacts[0].material
    assert (steel.friction, steel.restitution) == (0.25, 1.0)  # a restitution of 1 is elastic


@pytest.mark.parametrize('key, value, message', [
    ('coefficient_of_restitution', '1.5', 'must be at most 1, found 1.5'),
    ('coefficient_of_restitution', '-0.5', 'must be at least 0, found -0.5'),
    ('coefficient_of_friction', '-0.5', 'must be at least 0, found -0.5')])
def test_friction_and_restitution_out_of_range_are_refused(tmp_path, key, value, message):
    path = body(tmp_path, material(f'            {key}: {value}\n'))
    assert error(path) == f"body 'g' contact material 'steel': \"{key}\" {message}"


def test_contact_without_shapes_fails(tmp_path):
    path = body(tmp_path, MATERIAL + '        shapes: []\n')
    assert error(path) == "body 'g' contact: \"shapes\" is missing or empty"
    path = body(tmp_path, MATERIAL)
    assert error(path) == "body 'g' contact: \"shapes\" is missing or empty"


def test_unknown_keys_of_contact_visualization_and_shapes_are_warned(tmp_path):
    path = body(tmp_path, MATERIAL + '        family: 2\n' + SPHERE,
                visual='          - {type: SPHERE, location: [0, 0, 0], radius: 1, size: 2}\n')
    path.write_text(path.read_text() + '        colour: red\n')
    assert warnings(path) == [
        "body 'g' contact: key \"family\" is not part of the Chrono model format; ignored",
        "body 'g' visualization shape SPHERE: key \"size\" is not part of the Chrono model "
        'format; ignored',
        "body 'g' visualization: key \"colour\" is not part of the Chrono model format; "
        'ignored']


@pytest.mark.parametrize('dims', ['[1, 0, 1]', '[1, 1, -2]'])
def test_a_box_needs_positive_dimensions(tmp_path, dims):
    path = body(tmp_path, visual='          - {type: BOX, location: [0, 0, 0], orientation: '
                f'[0, 0, 0], dimensions: {dims}}}\n')
    found = dims.replace('0', '0.0').replace('1', '1.0').replace('-2', '-2.0')
    assert error(path) == (f"body 'g' visualization shape BOX: \"dimensions\" must be "
                           f'positive, found {found}')


def test_a_mesh_without_a_scale_keeps_the_files_size(tmp_path):
    path = body(tmp_path, visual='          - {type: MESH, filename: tetra.obj}\n')
    (shape,) = load_model(path).link('g').visuals
    np.testing.assert_array_equal(shape.geometry.vertices.max(axis=0), [1, 1, 1])


@pytest.mark.parametrize('color, rgba', [
    ('[0, 0.5, 1]', (0.0, 0.5, 1.0, 1.0)), ('[0.5, 2, 0.25]', (0.5, 1.0, 0.25, 1.0)),
    ('[-1, -1, -1]', None), ('[0.5, -1, 0.5]', None)])
def test_a_visual_shapes_color_is_rgb_and_negative_means_none(tmp_path, color, rgba):
    path = body(tmp_path, visual='          - {type: SPHERE, location: [0, 0, 0], radius: 1, '
                f'color: {color}}}\n')
    (shape,) = load_model(path).link('g').visuals
    assert (shape.material.rgba if shape.material else None) == rgba


def test_a_hull_is_no_visual_shape(tmp_path):
    path = body(tmp_path, visual='          - {type: HULL, filename: tetra.obj}\n')
    assert error(path) == ("body 'g' visualization shape: \"type\" is 'HULL'; expected one of "
                           'SPHERE, BOX, CYLINDER, MESH')


def test_a_negative_contact_radius_is_refused(tmp_path):
    path = body(tmp_path, MATERIAL + '        shapes:\n          - {type: MESH, material: steel,'
                ' filename: tetra.obj, contact_radius: -0.1}\n')
    assert error(path) == ("body 'g' collision shape: \"contact_radius\" must be at least 0, "
                           'found -0.1')


def test_unequal_principal_moments_breaking_a_plus_b_ge_c_are_warned(tmp_path):
    # 1 + 2 < 3.5, though 2 + 2 would not be
    assert warnings(moving(tmp_path, '{moments: [1, 2, 3.5]}')) == [
        "body 'm' inertia: principal moments [1.0, 2.0, 3.5] violate A + B >= C (no rigid "
        'body has them); kept as given, the integrator balances them']


def test_an_unknown_com_key_is_warned(tmp_path):
    text = HEAD + ('    - {name: m, location: [0, 0, 0], mass: 2, com: {position: [1, 0, 0]},'
                   ' inertia: {moments: [1, 1, 1]}}\n')
    assert warnings(write(tmp_path, text)) == [
        "body 'm' com: key \"position\" is not part of the Chrono model format; ignored"]
