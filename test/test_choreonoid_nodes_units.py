"""Reading Choreonoid YAML nodes: key styles, typed values with their lines, frames, bounds."""

import math

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.formats.choreonoid import nodes
from body_bridge.formats.choreonoid.nodes import (Context, Frame, Node, Session, TooLarge,
                                                  key_text, plain, snake)
from body_bridge.formats.yamlsource import load_yaml


def node(text: str, unit=math.pi / 180.0) -> Node:
    """The node of a YAML mapping text (line 1 is its first line) in the file ``m.body``."""
    ctx = Context('m.body', unit)
    return Node(load_yaml('m.body', text), ctx)


def refused(call) -> ModelError:
    with pytest.raises(ModelError) as caught:
        call()
    assert caught.value.path == 'm.body'
    return caught.value


def said(n: Node) -> list[str]:
    return list(n.ctx.warnings)


def test_snake_and_key_text():
    assert snake('jointType') == 'joint_type' and snake('joint_type') == 'joint_type'
    assert snake('maxJointVelocity2D') == 'max_joint_velocity2_d'
    ctx = Context('m.body')
    assert [key_text(k, ctx, 3) for k in ('name', True, False, 5, 1.5)] == \
        ['name', 'on', 'off', '5', '1.5']
    err = refused(lambda: key_text(None, ctx, 3))
    assert (err.line, err.message) == (3, 'mapping key None is not a string')


def nested(levels, wrap):
    value = 'x'
    for _ in range(levels):
        value = wrap(value)
    return value


@pytest.mark.parametrize('wrap, inner', [(lambda v: [v], lambda v: v[0]),
                                         (lambda v: {'k': v}, lambda v: v['k'])])
def test_plain_cuts_deep_values_at_32_levels(wrap, inner):
    out = plain(nested(40, wrap))
    for _ in range(33):
        assert out != '...'
        out = inner(out)
    assert out == '...'
    assert plain(nested(32, wrap)) == nested(32, wrap)  # the leaf at depth 32 is kept
    assert plain(nested(33, wrap)) != nested(33, wrap)  # its leaf at depth 33 is not


def test_plain_turns_keys_to_text_and_bounds_expanded_values(monkeypatch):
    assert plain({True: 1, False: [2], 3: {'a': None}}) == {'on': 1, 'off': [2], '3': {'a': None}}
    monkeypatch.setattr(nodes, 'MAX_PLAIN_VALUES', 5)
    shared = [1, 2]
    assert plain([shared, 3]) == [[1, 2], 3]  # 5 values: the lists and the numbers
    with pytest.raises(TooLarge, match='more than 5 values once its aliases are expanded'):
        plain([shared, shared])


def test_session_counts_element_nodes_up_to_its_bound(monkeypatch):
    monkeypatch.setattr(nodes, 'MAX_ELEMENTS', 3)
    session = Session()
    assert (session.meshes, session.yaml, session.bodies, session.loading) == ({}, {}, {}, [])
    for line in (1, 2, 3):
        session.count_element('m.body', line)
    err = refused(lambda: session.count_element('m.body', 9))
    assert err.line == 9 and err.message.startswith('more than 3 element nodes to read')


def test_context_defaults_and_files_of_the_same_model(tmp_path):
    ctx = Context(str(tmp_path / 'robot.body'))
    assert ctx.angle_scale == math.pi / 180.0 and ctx.directory == str(tmp_path)
    other = ctx.for_file('parts.yaml')
    assert other.path == 'parts.yaml' and other.session is ctx.session
    other.warn(4, 'odd')
    assert ctx.warnings == ['parts.yaml:4: odd']
    assert Context('m.body', 1.0).for_file('x').angle_scale == 1.0


def test_a_node_must_be_a_mapping():
    ctx = Context('m.body')
    err = refused(lambda: Node(load_yaml('m.body', '\n- 1\n'), ctx, 7))
    assert (err.line, err.message) == (2, 'expected a mapping, found a list')
    assert refused(lambda: Node(3, ctx, 7)).line == 7


def test_keys_in_either_style_and_imported_keys_never_override():
    n = node('jointType: a\njoint_type: b\nmaxVelocity: 3\n')
    assert n.string('joint_type') == 'a' and n.number('max_velocity') == 3.0
    ctx = Context('m.body')
    n = Node({'jointType': 'own', 'mass': 1}, ctx, 5,
             extra={'joint_type': 'imported', 'gearRatio': 2})
    assert n.string('joint_type') == 'own' and n.number('gear_ratio') == 2.0
    assert n.line == 5


def test_has_raw_and_use():
    n = node('a: 1\nb: ~\nc: [1]\n')
    assert n.has('a') and not n.has('b') and n.has('b', 'c') and not n.has('d')
    assert n.raw('d', 'c') == [1] and n.raw('d', default=7) == 7
    n.use('a')
    n.warn_unused('thing')
    assert said(n) == ["m.body:1: thing: 'b' given no value; ignored"]


def test_strings():
    n = node('a: 5\nb: 2.0\nc: 2.5\nd: true\ne: off\nf: name\ng: [1]\n')
    assert [n.string(k) for k in 'abcdef'] == ['5', '2', '2.5', 'true', 'false', 'name']
    assert n.string('z', default='dflt') == 'dflt'
    assert refused(lambda: n.string('g')).message == 'g must be a string, found a list'


def test_numbers_integers_and_booleans():
    n = node('a: 5\nb: 2.5\nc: true\nd: x\ne: .inf\nf: yes\ng: 2.0\n')
    assert n.number('a') == 5.0 and type(n.number('a')) is float
    assert n.number('z', default=1.5) == 1.5 and n.number('z') is None
    assert refused(lambda: n.number('c')).message == 'c must be a number, found bool True'
    assert refused(lambda: n.number('d')).message == "d must be a number, found str 'x'"
    assert refused(lambda: n.number('e')).message == 'e must be finite, found inf'
    assert n.integer('a') == 5 and n.integer('z', default=4) == 4 and n.integer('z') is None
    assert refused(lambda: n.integer('g')).message == 'g must be an integer, found float 2.0'
    assert refused(lambda: n.integer('c')).message == 'c must be an integer, found bool True'
    assert n.boolean('f') is True and n.boolean('z', default=False) is False
    assert refused(lambda: n.boolean('a')).message == 'a must be true or false, found 5'


@pytest.mark.parametrize('call, line, message', [
    (lambda n: n.string('e'), 6, 'e must be a string, found a mapping'),
    (lambda n: n.number('b'), 3, "b must be a number, found str 'x'"),
    (lambda n: n.number('zz', 'max_force'), 13, "zz must be a number, found str 'x'"),
    (lambda n: n.number('v'), 12, 'v must be finite, found inf'),
    (lambda n: n.integer('c'), 4, 'c must be an integer, found float 2.5'),
    (lambda n: n.boolean('d'), 5, 'd must be true or false, found 5'),
    (lambda n: n.numbers('f'), 7, 'f must be a list of numbers, found int 3'),
    (lambda n: n.numbers('g', minimum=2), 8, 'g must have at least 2 numbers, found 1'),
    (lambda n: n.numbers('h'), 15, "h must be a number, found str 'x'"),
    (lambda n: n.vector('a'), 2, 'a must have 3 numbers, found 2'),
    (lambda n: n.vector('f'), 7, 'f must be a list of numbers, found int 3'),
    (lambda n: n.vector('zz', 'h', size=2), 15, "zz must be a number, found str 'x'"),
    (lambda n: n.translation('t'), 9, 't must be [x, y, z] or a list of them, found a list'),
    (lambda n: n.rotation('r'), 10, 'r axis is the zero vector'),
    (lambda n: n.rotation('s'), 11, 's must be [x, y, z, angle] or a list of them'),
    (lambda n: n.rotation('a'), 2, 'a must be [x, y, z, angle] or a list of them'),
    (lambda n: Frame().of_node(n), 14, 'scale must not be zero'),
    (lambda n: n.string('zz', 'e'), 6, 'zz must be a string, found a mapping'),
])
def test_an_error_about_a_value_names_the_line_of_its_key(call, line, message):
    n = node('name: x\na: [1, 2]\nb: x\nc: 2.5\nd: 5\ne: {k: 1}\nf: 3\ng: [1]\n'
             't: [1, 2]\nr: [0, 0, 0, 5]\ns: 7\nv: .inf\nmaxForce: x\nscale: [1, 0, 1]\n'
             'h: [1, x]\n')
    err = refused(lambda: call(n))
    assert (err.line, err.message) == (line, message)
    assert n.at('zz') == 1 and n.at('zz', 'max_force') == 13 and n.at() == 1
    assert n.error('about the node').line == 1
    # Keys imported into a node (not written in it) have the node's line.
    imported = Node(load_yaml('m.body', '\nname: x\n'), Context('m.body'), 9,
                    extra={'gearRatio': 'x'})
    assert imported.at('gear_ratio') == 2 and imported.at('name') == 2


def test_number_lists_drop_an_incomplete_group_with_a_warning():
    n = node('name: x\nv:\n  - 1\n  - 2\n  - 3\n  - 4\n  - 5\n  - 6\n  - 7\nw: 3\n')
    assert n.numbers('v', multiple=3).tolist() == [1, 2, 3, 4, 5, 6]
    assert said(n) == ['m.body:3: v has 7 numbers, not a multiple of 3; the last 1 were ignored']
    assert n.numbers('v', multiple=7, minimum=7).tolist() == [1, 2, 3, 4, 5, 6, 7]
    err = refused(lambda: n.numbers('v', minimum=8))
    assert (err.line, err.message) == (2, 'v must have at least 8 numbers, found 7')
    assert refused(lambda: n.numbers('w')).message == 'w must be a list of numbers, found int 3'
    assert n.numbers('z') is None


def test_vectors():
    n = node('a: [1, 2, 3]\nb: [1, 2]\nc: 4\n')
    assert n.vector('a').tolist() == [1, 2, 3] and n.vector('b', size=None).tolist() == [1, 2]
    assert n.vector('z') is None and n.vector('z', default=(0, 0, 1)).tolist() == [0, 0, 1]
    assert refused(lambda: n.vector('b')).message == 'b must have 3 numbers, found 2'
    assert refused(lambda: n.vector('c')).message == 'c must be a list of numbers, found int 4'
    assert n.angle('c') == pytest.approx(math.radians(4)) and n.angle('z', default=0.5) == 0.5


def test_translations_are_summed():
    n = node('t: [[1, 2, 3], [10, 20, 30]]\nu: [1, 2, 3]\nv: [1, 2]\nw: []\n')
    assert n.translation('t').tolist() == [11, 22, 33]
    assert n.translation('u').tolist() == [1, 2, 3] and n.translation('z') is None
    for key, found in (('v', 'a list'), ('w', 'a list')):
        assert refused(lambda: n.translation(key)).message == \
            f'{key} must be [x, y, z] or a list of them, found {found}'
    n = node('t: [[1, 2, 3], 5]\n')
    assert refused(lambda: n.translation('t')).message == \
        't must be [x, y, z] or a list of them, found a list'


def test_rotations_compose_left_to_right_in_the_file_unit():
    n = node('r: [[0, 0, 1, 90], [1, 0, 0, 90]]\n')
    expected = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]]) @ \
        np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]])
    np.testing.assert_allclose(n.rotation('r'), expected, atol=1e-12)
    n = node('rotation: [0, 0, 1, 1.5707963267948966]\n', unit=1.0)
    np.testing.assert_allclose(n.rotation(), [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-12)
    assert node('a: 1\n').rotation() is None
    n = node('r: [[0, 0, 1, 90]]\n')  # a list of one rotation
    np.testing.assert_allclose(n.rotation('r'), [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-12)


@pytest.mark.parametrize('text, message', [
    ('r: []', 'r must be [x, y, z, angle] or a list of them'),
    ('r: 5', 'r must be [x, y, z, angle] or a list of them'),
    ('r: [0, 0, 1]', 'r must be [x, y, z, angle] or a list of them'),
    ('r: [[0, 0, 1, 5], 3]', 'r must be [x, y, z, angle] or a list of them'),
    ('r: [0, 0, 0, 5]', 'r axis is the zero vector'),
    ('r: [0, 0, x, 5]', "r must be a number, found str 'x'"),
])
def test_bad_rotations_are_one_line(text, message):
    n = node('\n' + text + '\n')
    err = refused(lambda: n.rotation('r'))
    assert (err.line, err.message) == (2, message)


def test_unused_keys_are_named_once():
    n = node('a: 1\nb: 2\nc: ~\nd: 4\n')
    n.raw('a')
    n.warn_unused('Shape', frozenset({'d'}))
    assert said(n) == ["m.body:1: Shape: 'c' given no value; ignored",
                       "m.body:1: Shape: key 'b' is not supported and was ignored"]
    n = node('a: 1\nb: 2\n')
    n.warn_unused('Shape')
    assert said(n) == ["m.body:1: Shape: keys 'a', 'b' are not supported and were ignored"]
    n = node('a: 1\n')
    n.raw('a')
    n.warn_unused('Shape')
    assert said(n) == []


def test_frames_compose_rotation_translation_and_scale():
    frame = Frame()
    assert frame.linear.tolist() == np.eye(3).tolist() and frame.translation.tolist() == [0, 0, 0]
    turn = np.array([[0.0, -1, 0], [1, 0, 0], [0, 0, 1]])
    child = Frame(turn, np.array([1.0, 0, 0])).then(None, np.array([1.0, 2, 3]), np.array(
        [2.0, 3, 4]))
    np.testing.assert_allclose(child.linear, turn @ np.diag([2, 3, 4]))
    np.testing.assert_allclose(child.translation, [-1, 1, 3])
    assert Frame().then(turn, None).translation.tolist() == [0, 0, 0]
    pose, scale = child.rigid()
    np.testing.assert_allclose(scale, [2, 3, 4])
    np.testing.assert_allclose(pose.rot, turn, atol=1e-12)
    assert child.pose() is None
    np.testing.assert_allclose(Frame(turn, np.array([1.0, 2, 3])).pose().pos, [1, 2, 3])


def test_frame_of_a_node():
    n = node('translation: [1, 0, 0]\nrotation: [0, 0, 1, 90]\nscale: [2, 2, 2]\n')
    frame = Frame().of_node(n)
    np.testing.assert_allclose(frame.linear, [[0, -2, 0], [2, 0, 0], [0, 0, 2]], atol=1e-12)
    np.testing.assert_allclose(frame.translation, [1, 0, 0])
    np.testing.assert_allclose(Frame().of_node(n, scale=False).linear,
                               [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-12)
    n = node('\nscale: [1, 0, 1]\n')
    err = refused(lambda: Frame().of_node(n))
    assert (err.line, err.message) == (2, 'scale must not be zero')
    n = node('scale: [1, -1, 1]\n')
    assert Frame().of_node(n).rigid() is None  # a mirror


def test_a_sheared_or_flat_frame_has_no_rigid_pose():
    assert Frame(np.array([[1.0, 0.5, 0], [0, 1, 0], [0, 0, 1]])).rigid() is None
    with np.errstate(divide='raise', invalid='raise'):
        assert Frame(np.diag([1.0, 0.0, 1.0])).rigid() is None
    assert Frame(np.diag([1.0, 1.0, 1.0 + 2e-9])).pose() is None
    assert Frame(np.diag([1.0, 1.0, 1.0 + 1e-10])).pose() is not None
