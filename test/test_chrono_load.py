"""Project Chrono YAML: which files load, into what tree, with which conventions and messages."""

import math
from pathlib import Path

import numpy as np
import pytest
from chrono_files import write
from conftest import CORPUS, shared_model
from model_checks import check_all

from body_bridge.errors import ModelError, UnsupportedError
from body_bridge.formats import load_model
from body_bridge.model import Box, Cylinder, JointType, Mesh, Sphere

DATA = Path(__file__).parent / 'data' / 'chrono'
CHRONO = CORPUS / 'chrono'

#: Every multibody model of the shared set (10.x layout, 9.x layout, MBS specifications).
REAL_MBS = [
    'data/yaml/mbs/model_bushing.yaml',
    'data/yaml/mbs/model_inverted_pendulum_motor.yaml',
    'data/yaml/mbs/model_motors.yaml',
    'data/yaml/mbs/model_slider_crank_reduced.yaml',
    'data/yaml/fea/model_beams.yaml',
    *[f'data/yaml/fsi/{case}/{name}' for case in ('baffle_flow', 'cylinder_drop', 'dam_break',
                                                 'sphere_drop', 'wave_tank')
      for name in ('model_mbs.yaml', 'mbs.yaml')],
    *[f'data/precice/{case}/solid_chrono/{name}' for case in ('flap_openfoam', 'sphere_drop')
      for name in ('mbs_model.yaml', 'mbs_participant.yaml')],
    'historical/58ece18a/data/yaml/models/motors.yaml',
    'historical/58ece18a/data/yaml/models/slider_crank.yaml',
]
OWN = sorted(p.name for p in DATA.glob('*.yaml') if p.name != 'loads_solver.yaml')


def what_it_is(name: str) -> str:
    """What the loader must say about a Chrono file that is not a multibody model."""
    if name.endswith('.schema.yaml'):
        return 'a Chrono YAML schema'
    if name.startswith('fsi_'):
        return 'a Chrono FSI (fluid-solid interaction) simulation specification'
    if name in ('sph.yaml', 'sph_participant.yaml'):
        return 'a Chrono::FSI-SPH fluid simulation specification'
    if name in ('model_sph.yaml', 'sph_model.yaml'):
        return 'a Chrono::FSI-SPH fluid model'
    if name in ('solver_sph.yaml', 'sph_solver.yaml'):
        return 'a Chrono::FSI-SPH solver specification'
    if name.startswith('solver_') or name.endswith('_solver.yaml'):
        return 'a Chrono solver specification'
    if name == 'polaris.yaml':
        return 'a Chrono::Vehicle model'
    if name == 'vehicle.yaml':
        return 'a Chrono::Vehicle simulation specification'
    if name.startswith('basic_'):
        return 'a Chrono 9.x simulation specification'
    raise AssertionError(f'{name}: no expectation')


OTHER = sorted(str(p.relative_to(CHRONO)) for p in CHRONO.rglob('*.yaml')
               if str(p.relative_to(CHRONO)) not in REAL_MBS)


@pytest.mark.corpus
def test_the_shared_set_is_covered():
    assert len(REAL_MBS) == 21 and len(OTHER) == 52
    assert all((CHRONO / name).is_file() for name in REAL_MBS)


@pytest.mark.corpus
@pytest.mark.parametrize('relative', REAL_MBS)
def test_real_mbs_models_convert(tmp_path, check_urdf, relative):
    model = load_model(shared_model(f'chrono/{relative}'))
    check_all(model, tmp_path, check_urdf)


@pytest.mark.parametrize('name', OWN)
def test_own_models_convert(tmp_path, check_urdf, name):
    check_all(load_model(DATA / name), tmp_path, check_urdf)


@pytest.mark.corpus
@pytest.mark.parametrize('relative', OTHER)
def test_other_chrono_files_say_what_they_are(relative):
    with pytest.raises(UnsupportedError) as err:
        load_model(CHRONO / relative)
    text = str(err.value)
    assert '\n' not in text
    assert text.startswith(str(CHRONO / relative))
    assert what_it_is(Path(relative).name) in text


# --- the tree ---------------------------------------------------------------------------------


@pytest.mark.corpus
def test_every_body_is_a_link_reached_from_the_root():
    model = load_model(shared_model('chrono/data/yaml/mbs/model_motors.yaml'))
    bodies = ['ground', 'stator1', 'rotor1', 'stator2', 'rotor2', 'stator3', 'rotor3', 'guide1',
              'slider1', 'obs1', 'guide2', 'slider2', 'obs2', 'guide3', 'slider3', 'obs3']
    assert [link.name for link in model.links] == bodies
    assert model.root == 'ground'
    kinds = {j.child: (j.type, j.parent) for j in model.joints}
    assert kinds['stator1'] == (JointType.FIXED, 'ground')  # the other fixed bodies
    assert kinds['rotor1'] == (JointType.CONTINUOUS, 'stator1')  # motors are tree joints
    assert kinds['slider1'] == (JointType.PRISMATIC, 'guide1')
    assert kinds['obs1'] == (JointType.FREE, 'ground')  # what no joint reaches floats
    assert model.ground_plane is False and model.self_collision is True


@pytest.mark.corpus
def test_a_model_without_a_fixed_body_hangs_from_world():
    model = load_model(shared_model('chrono/data/yaml/fsi/sphere_drop/model_mbs.yaml'))
    assert model.root == 'world' and model.link('world').inertial is None
    (joint,) = model.joints
    assert (joint.type, joint.parent, joint.child) == (JointType.FREE, 'world', 'object')
    np.testing.assert_allclose(model.link('object').pose.pos, [0, 0, 1.38])


def test_loops_close_with_closures_and_motors_stay_in_the_tree():
    model = load_model(DATA / 'four_bar.yaml')
    assert [j.name for j in model.joints] == ['crank_motor', 'crank_coupler', 'coupler_rocker']
    (closure,) = model.closures
    assert (closure.name, closure.type) == ('rocker_ground', 'hinge')
    (motor,) = model.motors
    assert (motor.joint, motor.actuation.value, motor.function.params) == \
        ('crank_motor', 'speed', (1.0,))
    assert set(model.passive_joints) == {j.name for j in model.joints}


def test_joints_urdf_lacks_become_chains_of_massless_links():
    model = load_model(DATA / 'universal_shaft.yaml')
    names = [(j.name, j.type, j.parent, j.child) for j in model.joints]
    assert names == [('in_drive', JointType.CONTINUOUS, 'ground', 'shaft_in'),
                     ('cross_axis1', JointType.CONTINUOUS, 'shaft_in', 'cross_link1'),
                     ('cross_axis2', JointType.CONTINUOUS, 'cross_link1', 'shaft_out')]
    assert model.link('cross_link1').inertial is None
    # The first freedom seen from shaft_in (body1) is axis1, the second axis2 in shaft_out.
    cross = model.link('cross_link1').pose.rot
    np.testing.assert_allclose(cross @ model.joint('cross_axis1').axis, [0, 0, -1], atol=1e-12)
    np.testing.assert_allclose(model.link('shaft_out').pose.rot @ model.joint('cross_axis2').axis,
                               [-0.5, math.sqrt(3) / 2, 0], atol=1e-12)
    bushing = load_model(DATA / 'bushing.yaml')
    chain = [j.name for j in bushing.joints if j.name.startswith('hinged_bushing')]
    assert chain == [f'hinged_bushing_{d}' for d in ('tx', 'ty', 'tz', 'rx', 'ry', 'rz')]
    springs = {s.joint: (s.stiffness, s.damping) for s in bushing.springs}
    assert springs['hinged_bushing_tz'] == (1e4, 280.0)
    assert springs['hinged_bushing_rx'] == (1e3, 9.0)
    assert springs['hinged_bushing_rz'] == (2.0, 0.4)  # the free rotation: the DOF values
    (loop,) = bushing.bushings
    assert loop.name == 'looped_bushing'
    np.testing.assert_allclose(loop.stiffness, [1e4] * 3 + [100] * 3)


def test_child_frames_move_to_the_joint_and_geometry_stays_in_place():
    model = load_model(DATA / 'pendulum.yaml')
    bob = model.link('bob')
    np.testing.assert_allclose(bob.pose.pos, [0, 0, 0], atol=1e-15)  # at the pivot
    pitch = np.array([[math.cos(0.1), 0, math.sin(0.1)], [0, 1, 0],
                      [-math.sin(0.1), 0, math.cos(0.1)]])
    np.testing.assert_allclose(bob.pose.rot, pitch, atol=1e-15)  # the body's orientation
    world_com = bob.pose.apply(bob.inertial.com)
    np.testing.assert_allclose(world_com, [-math.sin(0.1), 0, -math.cos(0.1)], atol=1e-12)
    sphere = next(s for s in bob.visuals if isinstance(s.geometry, Sphere))
    np.testing.assert_allclose((bob.pose @ sphere.pose).pos, world_com, atol=1e-12)
    rod = next(s for s in bob.visuals if isinstance(s.geometry, Cylinder))
    np.testing.assert_allclose((bob.pose @ rod.pose).pos, world_com / 2, atol=1e-12)


@pytest.mark.corpus
def test_joint_coordinates_are_body1_relative_to_body2():
    model = load_model(shared_model('chrono/historical/58ece18a/data/yaml/models/'
                                    'slider_crank.yaml'))
    motor = model.joint('ground_crank')  # body1 = ground is the parent: the axis turns over
    assert (motor.parent, motor.child) == ('ground', 'crank')
    np.testing.assert_allclose(model.link('crank').pose.rot @ motor.axis, [0, -1, 0])
    slide = model.joint('ground_slider')
    np.testing.assert_allclose(model.link('slider').pose.rot @ slide.axis, [-1, 0, 0])


# --- conventions ----------------------------------------------------------------------------


def rz(a):
    return np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])


def ry(a):
    return np.array([[math.cos(a), 0, math.sin(a)], [0, 1, 0], [-math.sin(a), 0, math.cos(a)]])


def rx(a):
    return np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])


def quat_to_matrix(w, x, y, z):
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


BODY = '''
    - name: b
      location: [1, 2, 3]
      orientation: {orientation}
      mass: 2.0
      com: {{location: [0.1, 0.2, 0.3], orientation: {com}}}
      inertia: {{moments: [0.4, 0.5, 0.6], products: [0.01, 0.02, 0.03]}}
      visualization:
        shapes:
          - {{type: BOX, dimensions: [0.1, 0.2, 0.3], location: [0, 0, 0],
             orientation: [0, 0, 90]}}
          - {{type: CYLINDER, radius: 0.05, length: 0.4, axis: [1, 0, 0], location: [0, 0, 1]}}
'''


def one_body(tmp_path, orientation, com='[0, 0, 0]', degrees='true'):
    return load_model(write(tmp_path, f'chrono-version: 10.0\nmodel:\n  angle_degrees: {degrees}'
                            f'\n  bodies:{BODY.format(orientation=orientation, com=com)}'))


def test_cardan_angles_are_yaw_pitch_roll_in_degrees(tmp_path):
    model = one_body(tmp_path, '[30, 45, 60]')
    expected = rz(math.radians(30)) @ ry(math.radians(45)) @ rx(math.radians(60))
    np.testing.assert_allclose(model.link('b').pose.rot, expected, atol=1e-12)


def test_cardan_angles_in_radians_and_quaternions_scalar_first(tmp_path):
    a = one_body(tmp_path, '[0.3, -0.2, 0.1]', degrees='false')
    np.testing.assert_allclose(a.link('b').pose.rot, rz(0.3) @ ry(-0.2) @ rx(0.1), atol=1e-12)
    q = np.array([0.8, 0.2, -0.4, 0.4])
    b = one_body(tmp_path, f'[{q[0]}, {q[1]}, {q[2]}, {q[3]}]')
    np.testing.assert_allclose(b.link('b').pose.rot, quat_to_matrix(*q / np.linalg.norm(q)),
                               atol=1e-12)


def test_centroidal_frame_inertia_products_and_shapes(tmp_path):
    model = one_body(tmp_path, '[0, 0, 0]', com='[90, 0, 0]')  # centroidal x = body y
    link = model.link('b')
    np.testing.assert_allclose(link.inertial.com, [0.1, 0.2, 0.3])
    inertia_com = np.array([[0.4, 0.01, 0.02], [0.01, 0.5, 0.03], [0.02, 0.03, 0.6]])
    turn = rz(math.pi / 2)
    np.testing.assert_allclose(link.inertial.inertia, turn @ inertia_com @ turn.T, atol=1e-12)
    box, cylinder = link.visuals
    assert box.geometry == Box((0.1, 0.2, 0.3))  # full lengths
    np.testing.assert_allclose(box.pose.rot, rx(math.pi / 2), atol=1e-12)  # roll 90
    assert cylinder.geometry == Cylinder(0.05, 0.4)
    np.testing.assert_allclose(cylinder.pose.rot[:, 2], [1, 0, 0], atol=1e-12)  # along axis
    np.testing.assert_allclose(cylinder.pose.pos, [0, 0, 1])


def test_mesh_shapes_are_read_through_data_path(tmp_path, check_urdf):
    model = load_model(DATA / 'meshes.yaml')
    block = model.link('block')
    assert [type(s.geometry) for s in block.visuals] == [Mesh, Mesh]
    model_file, scaled = block.visuals
    np.testing.assert_allclose(model_file.geometry.vertices.max(axis=0), [0.2, 0.1, 0.2])
    np.testing.assert_allclose(scaled.geometry.vertices.max(axis=0), [0.4, 0.2, 0.4])
    np.testing.assert_allclose(scaled.pose.rot, rz(math.pi / 2), atol=1e-12)
    assert scaled.material.rgba == (0.1, 0.6, 0.1, 1.0)
    assert len(block.collisions) == 2  # MESH and HULL
    friction = {(c.link, c.index): c.material.friction for c in model.contacts}
    assert friction == {('ground', 0): 0.5, ('block', 0): 0.3, ('block', 1): 0.3}
    steel = model.contacts[1].material
    assert steel.smc['normal_stiffness'] == 2e5 and steel.restitution == 0.01
    check_all(model, tmp_path, check_urdf)


@pytest.mark.corpus
def test_mbs_specification_takes_model_time_step_and_gravity():
    model = load_model(DATA / 'loads_mbs.yaml')
    assert model.name == 'loads' and model.timestep == 5e-4
    np.testing.assert_allclose(model.gravity, [0, 0, 0])
    assert any('loads_solver.yaml:1: contact_method, solver, integrator.type not used' in w
               for w in model.warnings)
    real = load_model(shared_model('chrono/data/yaml/fsi/sphere_drop/mbs.yaml'))
    assert real.timestep == 1e-4
    np.testing.assert_allclose(real.gravity, [0, 0, -9.8])  # Chrono's default
    flap = load_model(shared_model('chrono/data/precice/flap_openfoam/solid_chrono/'
                                   'mbs_participant.yaml'))
    assert flap.timestep == 0.025 and not flap.gravity.any()
    assert any('precice_adapter_config' in w for w in flap.warnings)
    plain = load_model(DATA / 'loads.yaml')
    assert plain.timestep is None
    np.testing.assert_allclose(plain.gravity, [0, 0, -9.8])


def test_springs_motors_and_loads_are_in_link_frames():
    model = load_model(DATA / 'springs.yaml')
    osc = next(s for s in model.springs if s.name == 'osc_spring')
    np.testing.assert_allclose(osc.pose1.pos, [0, 0, 0])  # the osc link frame is at the joint
    np.testing.assert_allclose(osc.pose2.pos, [-1, 0, 0])
    torsion = next(s for s in model.springs if s.name == 'torsion_spring')
    assert torsion.rest == pytest.approx(math.radians(10))  # free_angle in degrees
    loads = load_model(DATA / 'loads.yaml')
    lever = next(load for load in loads.loads if load.name == 'lever')
    assert lever.local_vector and lever.local_point  # 10.x defaults
    np.testing.assert_allclose(lever.point, [0, 0.5, 0])
    (thruster,) = [load for load in loads.loads if load.controller]
    assert thruster.name == 'thruster' and not thruster.local_vector


# --- warnings ---------------------------------------------------------------------------------


@pytest.mark.corpus
def test_what_is_ignored_is_reported():
    bushing = load_model(shared_model('chrono/data/yaml/mbs/model_bushing.yaml'))
    assert [w.split(': ', 1)[1] for w in bushing.warnings] == [
        'body \'body\': key "lin_vel" is not a Chrono body key (Chrono reads '
        '"initial_linear_velocity"); ignored, as Chrono ignores it',
        'body \'body\': key "ang_vel" is not a Chrono body key (Chrono reads '
        '"initial_angular_velocity"); ignored, as Chrono ignores it']
    beams = load_model(shared_model('chrono/data/yaml/fea/model_beams.yaml'))
    (fea,) = beams.warnings
    assert '"FEA_beams": 6 finite-element part(s) (beam1_euler,' in fea
    assert [link.name for link in beams.links] == ['world']
    motors9 = load_model(shared_model('chrono/historical/58ece18a/data/yaml/models/motors.yaml'))
    # one problem on three motors: said once, with the count (formats/repeats.py)
    (spindle,) = [w for w in motors9.warnings
                  if '"spindle: PRISMATIC" does not apply to a LINEAR motor' in w]
    assert spindle.endswith("(3 warnings like this one; the others at 'motor_B2' (line 423), "
                            "'motor_B3' (line 437))")


def test_a_choreonoid_body_file_named_yaml_goes_to_the_body_loader(tmp_path):
    path = write(tmp_path, 'format: ChoreonoidBody\nformat_version: 2.0\nname: cube\nlinks:\n'
                 '  - {name: base, joint_type: free, mass: 1, inertia: [1, 0, 0, 1, 0, 1]}\n',
                 'cube.yaml')
    model = load_model(path)
    assert model.name == 'cube' and model.root_joint == JointType.FREE


def test_names_the_tree_needs_twice_are_made_unique(tmp_path, check_urdf):
    path = write(tmp_path, HEAD + MOVING + '''    - {name: n, location: [2, 0, 0], mass: 1, inertia: {moments: [1, 1, 1]}}
  joints:
    - {name: u, type: UNIVERSAL, body1: m, body2: g, location: [0, 0, 0], axis1: [1, 0, 0],
       axis2: [0, 1, 0]}
    - {name: u_axis1, type: REVOLUTE, body1: n, body2: m, location: [2, 0, 0], axis: [0, 0, 1]}
  motors:
    - {name: u_axis1, type: LINEAR, body1: n, body2: g, location: [2, 0, 0], axis: [1, 0, 0],
       actuation_type: FORCE, actuation_function: {type: CONSTANT, value: 1}}
''')
    model = load_model(path)
    names = [j.name for j in model.joints]
    assert len(names) == len(set(names)) == 3  # the motor, the universal joint (2)
    assert [w.split(': ', 1)[1] for w in model.warnings if 'is taken' in w] == [
        "joint name 'u_axis1' is taken; this one is called 'u_axis1_2'"]
    check_all(model, tmp_path, check_urdf)


def test_unknown_keys_and_the_other_versions_spelling_are_reported(tmp_path):
    path = write(tmp_path, '''chrono-version: 9.1
model:
  colour: red
  bodies:
    - name: a
      location: [0, 0, 0]
      fixed: true
      contact:
        materials:
          - name: m
            physical_properties: {Young_modulus: 1e7, Poisson_ratio: 0.3}
        shapes:
          - {type: SPHERE, material: m, location: [0, 0, 0], radius: 0.1}
  load_controllers:
    - {name: c, type: FORCE, body: a}
''')
    warnings = load_model(path).warnings
    assert f'{path}:3: model: key "colour" is not part of the Chrono model format; ignored' in \
        warnings
    assert any('"physical_properties" is the spelling of Chrono 10.x; read anyway' in w
               for w in warnings)
    assert any('key "load_controllers" is not part of' in w for w in warnings)  # 10.x only


# --- errors ----------------------------------------------------------------------------------

HEAD = ('chrono-version: 10.0\nmodel:\n  bodies:\n'
        '    - {name: g, location: [0, 0, 0], fixed: true}\n')
MOVING = '    - {name: m, location: [1, 0, 0], mass: 1, inertia: {moments: [1, 1, 1]}}\n'

ERRORS = [
    ('- a\n- b\n', 1, 'not a Chrono YAML file: the top level is a list'),
    ('robot: {links: 3}\n', 1, 'not a Chrono YAML model: it has no "chrono-version"'),
    ('chrono-version: 8.1\nmodel: {bodies: []}\n', 1, 'chrono-version 8.1 is not supported'),
    ('chrono-version: 10.0\nmodel: {name: x}\n', 2, 'model: "bodies" is missing'),
    ('chrono-version: 10.0\nmodel:\n  bodies:\n    - {name: a}\n', 4,
     'body \'a\': "location" is missing'),
    (HEAD + '    - {name: m, location: [0, 0, 0]}\n', 5, 'body \'m\': "mass" is missing'),
    (HEAD + '    - {name: m, location: [0, 0], mass: 1}\n', 5, '"location" must have 3 numbers'),
    (HEAD + '    - {name: m, location: [0, 0, 0], orientation: [1, 2], mass: 1}\n', 5,
     '"orientation" must have 3 numbers (Cardan angles) or 4'),
    (HEAD + '    - {name: m, location: [0, 0, 0], mass: 1, inertia: {moments: [-1, 1, 1]}}\n', 5,
     'its principal moments must be positive'),
    (HEAD + '    - {name: g, location: [0, 0, 0], fixed: true}\n', 5,
     "body name 'g' is used twice"),
    (HEAD + MOVING + '  joints:\n    - {name: j, type: HINGE, body1: m, body2: g, '
     'location: [0, 0, 0]}\n', 7, '"type" is \'HINGE\'; expected one of LOCK'),
    (HEAD + MOVING + '  joints:\n    - {name: j, type: REVOLUTE, body1: m, body2: nope, '
     'location: [0, 0, 0], axis: [0, 0, 1]}\n', 7, "unknown body 'nope'"),
    (HEAD + MOVING + '  joints:\n    - {name: j, type: REVOLUTE, body1: m, body2: g, '
     'location: [0, 0, 0]}\n', 7, 'joint \'j\': "axis" is missing'),
    (HEAD + MOVING + '  joints:\n    - {name: j, type: REVOLUTE, body1: m, body2: g, '
     'location: [0, 0, 0], axis: [0, 0, 0]}\n', 7, '"axis" is the zero vector'),
    (HEAD + MOVING + '  joints:\n    - {name: j, type: UNIVERSAL, body1: m, body2: g, '
     'location: [0, 0, 0], axis1: [1, 0, 0], axis2: [2, 0, 0]}\n', 7, 'are parallel'),
    (HEAD + MOVING + '  joints:\n    - {name: j, type: PRISMATIC, body1: m, body2: g, '
     'location: [0, 0, 0], axis: [1, 0, 0], bushing_data: {stiffness_linear: 1}}\n', 7,
     'a PRISMATIC joint cannot be a bushing'),
    (HEAD + MOVING + '  constraints:\n    - {name: c, type: REVOLUTE-SPHERICAL, body1: g, '
     'body2: m, point1: [0, 0, 0], point2: [1, 0, 0]}\n', 7,
     'a REVOLUTE-SPHERICAL constraint needs "axis"'),
    (HEAD + MOVING + '  constraints:\n    - {name: c, type: DISTANCE, body1: g, body2: m, '
     'point1: [1, 0, 0], point2: [1, 0, 0]}\n', 7, '"point1" and "point2" coincide'),
    (HEAD + MOVING + '  tsdas:\n    - {name: s, body1: g, body2: m, point1: [0, 0, 0], '
     'point2: [1, 0, 0], free_length: 1}\n', 7, 'no force law'),
    (HEAD + MOVING + '  motors:\n    - {name: mo, type: ROTATION, body1: m, body2: g, '
     'location: [0, 0, 0], axis: [0, 0, 1], actuation_type: TORQUE, '
     'actuation_function: {type: CONSTANT, value: 1}}\n', 7,
     '"actuation_type" is \'TORQUE\'; expected one of POSITION, SPEED, FORCE'),
    (HEAD + MOVING + '  motors:\n    - {name: a, type: ROTATION, spindle: FREE, body1: m, '
     'body2: g, location: [0, 0, 0], axis: [0, 0, 1], actuation_type: SPEED, '
     'actuation_function: {type: CONSTANT, value: 1}}\n    - {name: b, type: ROTATION, '
     'spindle: FREE, body1: m, body2: g, location: [0, 0, 0], axis: [0, 0, 1], '
     'actuation_type: SPEED, actuation_function: {type: CONSTANT, value: 1}}\n', 8,
     "motor 'b' closes a loop of the mechanism"),
    (HEAD + '    - name: m\n      location: [0, 0, 0]\n      mass: 1\n      inertia: {moments: '
     '[1, 1, 1]}\n      contact:\n        materials: [{name: rubber}]\n        shapes:\n'
     '          - {type: SPHERE, material: steel, location: [0, 0, 0], radius: 1}\n', 12,
     "material 'steel' is not among the body's contact materials (rubber)"),
    (HEAD + '    - name: m\n      location: [0, 0, 0]\n      fixed: true\n      visualization:'
     '\n        shapes:\n          - {type: MESH, filename: nowhere.obj}\n', 10,
     "mesh file 'nowhere.obj' not found (data_path is ABSOLUTE"),
    ('chrono-version: 10.0\nmodel:\n  bodies: [\n', 4, 'invalid YAML'),
    ('chrono-version: 10.0\ntype: MBS\nmodel: missing.yaml\nsolver: s.yaml\n', 1,
     "model file 'missing.yaml' not found (names are relative to this file)"),
    ('chrono-version: 10.0\ntype: ROBOT\nmodel: a.yaml\n', 1,
     'a Chrono "ROBOT" specification, not a multibody model'),
    ('chrono-version: 10.0\ntype: MBS\nmodel: model.yaml\nsolver: model.yaml\n', 1,
     'the model file of an MBS specification is itself a "MBS" specification'),
    (HEAD + MOVING + '  joints:\n    - {name: j, type: LOCK, body1: m, body2: g, '
     'location: [0, 0, 0]}\n    - {name: j, type: LOCK, body1: m, body2: g, '
     'location: [0, 0, 0]}\n', 8, "joint name 'j' is used twice"),
]


@pytest.mark.parametrize('text, line, message', ERRORS, ids=[e[2][:40] for e in ERRORS])
def test_bad_files_fail_with_one_line(tmp_path, text, line, message):
    path = write(tmp_path, text)
    with pytest.raises(ModelError) as err:
        load_model(path)
    assert str(err.value).startswith(f'{path}:{line}: '), str(err.value)
    assert message in str(err.value)
    assert '\n' not in str(err.value)


#: Chrono files that are not multibody models (written here; the corpus has real ones of each).
NOT_MBS = [
    ('chrono-version: 9.0\nsimulation: {time_step: 0.001}\n', ':1: not a Chrono MBS model: '
     'a Chrono 9.x simulation specification (solver and integrator settings)'),
    ('chrono-version: 10.0\nintegrator: {type: EULER_IMPLICIT}\nsolver: {type: BARZILAI}\n',
     ':1: not a Chrono MBS model: a Chrono solver specification (integrator and solver '
     'settings)'),
    ('chrono-version: 10.0\nsph: {}\nkernel: {}\n',
     ':1: not a Chrono MBS model: a Chrono::FSI-SPH solver specification'),
    ('chrono-version: 10.0\nmodel: other.yaml\n',
     ':1: not a Chrono MBS model: it names a model file but has no "type: MBS"'),
    ('chrono-version: 10.0\nmodel:\n  vehicle_json: hmmwv.json\n', ':3: model: a '
     'Chrono::Vehicle model (it names Chrono::Vehicle JSON files), not a multibody model'),
    ('chrono-version: 10.0\nmodel:\n  fluid_properties: {density: 1000}\n',
     ':3: model: a Chrono::FSI-SPH fluid model, not a multibody model'),
    ('chrono-version: 10.0\ntype: FSI\n', ':1: a Chrono FSI (fluid-solid interaction) '
     'simulation specification, not a multibody model'),
    ('chrono-version: 10.0\ntype: VEHICLE\n',
     ':1: a Chrono::Vehicle simulation specification, not a multibody model'),
    ('chrono-version: {type: string}\n',
     ':1: a Chrono YAML schema (it describes the file format), not a model'),
]


@pytest.mark.parametrize('text, message', NOT_MBS, ids=[m[:50] for _, m in NOT_MBS])
def test_chrono_files_that_are_not_models_say_what_they_are(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(UnsupportedError) as err:
        load_model(path)
    assert str(err.value) == f'{path}{message}'


def test_finite_element_parts_are_left_out_with_a_warning(tmp_path):
    path = write(tmp_path, HEAD + MOVING + '  FEA_beams:\n    - {name: beam1}\n'
                 '    - {name: beam2}\n')
    model = load_model(path)
    assert [link.name for link in model.links] == ['g', 'm']
    assert any('"FEA_beams": 2 finite-element part(s) (beam1, beam2) left out; the bridge loads '
               'the rigid bodies only' in w for w in model.warnings), model.warnings


def test_specification_whose_solver_is_not_chrono(tmp_path):
    write(tmp_path, HEAD + MOVING, 'model.yaml')
    write(tmp_path, 'format: ChoreonoidBody\nlinks: [ {name: a} ]\n', 'solver.yaml')
    spec = write(tmp_path, 'chrono-version: 10.0\ntype: MBS\nmodel: model.yaml\n'
                 'solver: solver.yaml\n', 'spec.yaml')
    with pytest.raises(ModelError) as err:
        load_model(spec)
    assert str(err.value) == (f'{tmp_path / "solver.yaml"}:1: not a Chrono YAML model: '
                              'it has no "chrono-version"')
