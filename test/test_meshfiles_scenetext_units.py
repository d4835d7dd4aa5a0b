"""The VRML / Inventor text parser (meshfiles/_scenetext.py): nodes, fields and one-line errors."""

import pytest

from body_bridge.errors import ModelError
from body_bridge.meshfiles._scenetext import parse


def error(text):
    with pytest.raises(ModelError) as err:
        parse('m.wrl', text)
    assert '\n' not in str(err.value)
    return str(err.value)


def test_the_end_of_the_file_is_named_as_such():
    assert error('Shape {') == "m.wrl:1: expected '}', found the end of the file"
    assert error('DEF A') == 'm.wrl:1: expected a node type, found the end of the file'


def test_a_field_name_that_is_not_a_word():
    assert error('Shape {\n 12 34 }') == "m.wrl:2: expected a field name, found '12 34 }'"


def test_routes_are_skipped():
    nodes = parse('m.wrl', 'ROUTE a.x TO b.y\nShape { }\nROUTE c.x TO d.y\n')
    assert [n.type for n in nodes] == ['Shape']


def test_a_script_body_is_skipped_with_its_nested_braces():
    nodes = parse('m.wrl', 'Script { url "a{" f { g { } } }\nShape { }\n')
    assert [n.type for n in nodes] == ['Script', 'Shape'] and nodes[0].fields == {}


def test_a_list_of_words():
    (node,) = parse('m.wrl', 'Cylinder { parts [ SIDES TOP ] height 2 }')
    assert node.fields['parts'] == ['SIDES', 'TOP']
    assert node.fields['height'].tolist() == [2.0]


@pytest.mark.parametrize('text, message', [
    ('Script { a {', "the file ends before '}'"),  # a skipped body
    ('Group { children [ Shape { }', "the file ends before ']'"),  # a list of nodes
    ('Cylinder { parts [ SIDES TOP', "the file ends before ']'"),  # a list of words
    ('FontStyle { style ( BOLD }', "a bit mask '(' is not closed"),
    ('Shape { size }', "expected a value, found '}'"),
    ('Shape { ROUTE a.x TO b.y }', 'ROUTE inside a node is not supported'),
])
def test_a_file_cut_short_or_ill_formed_is_one_line(text, message):
    assert error(text) == f'm.wrl:1: {message}'


def test_a_comment_inside_a_number_list_is_skipped():
    (node,) = parse('m.wrl', 'Coordinate { point [ 1 2 3 # the first\n 4, 5, 6 ] }')
    assert node.fields['point'].tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]


def test_an_error_quotes_the_next_twenty_characters():
    after = '12345678901234567890' + 'abc'
    assert error('Group { }\n' + after) == "m.wrl:2: expected a node, found '12345678901234567890'"
    assert error('Shape ' + after) == "m.wrl:1: expected '{', found '12345678901234567890'"


@pytest.mark.parametrize('opening, closing', [
    ('Separator { ', '} '),  # a child written inside the braces
    ('Shape { geometry ', '} '),  # a node as a field's value
    ('Group { children [ ', '] } '),  # a node in a list
])
def test_nodes_nest_one_hundred_levels_below_the_top_and_no_deeper(opening, closing):
    from body_bridge.meshfiles._common import MAX_DEPTH
    assert MAX_DEPTH == 100
    # The top node is level 0: 101 nodes nested are levels 0 to 100.
    node, levels = parse('m.wrl', opening * 100 + 'Cone { } ' + closing * 100)[0], 0
    while node.type != 'Cone':
        below = node.children or node.fields.get('geometry') or node.fields.get('children')
        node, levels = (below[0] if isinstance(below, list) else below), levels + 1
    assert levels == 100
    assert error(opening * 101 + 'Cone { } ' + closing * 101) == 'm.wrl:1: nodes nested deeper than 100 levels'


def test_the_node_count_bound_is_the_count_it_names(monkeypatch):
    from body_bridge.meshfiles import _common
    monkeypatch.setattr(_common, 'MAX_NODE_VISITS', 3)
    # USE gives a node already read: it is not counted again.
    assert len(parse('m.wrl', 'DEF A Shape { }\nGroup { children [ Shape { } USE A ] }')) == 2
    assert error('Shape { }\nShape { }\nShape { }\nShape { }') == 'm.wrl:4: more than 3 nodes'


def test_a_def_without_a_name_and_a_string_not_closed_are_one_line():
    assert error('DEF {') == "m.wrl:1: expected a DEF/USE name"
    assert error('WorldInfo { title "a\n b }') == 'm.wrl:1: a string is not closed'
