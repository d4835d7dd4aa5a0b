"""The OpenRAVE XML parser's own rules (body_bridge.formats.openrave.xmlfile): the element tree
with lower-case names and line numbers, the number and name readers, the nesting bound and the
one-line errors for unreadable or refused documents."""

from __future__ import annotations

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.formats.openrave.xmlfile import (MAX_DEPTH, Element, parse_bytes, parse_file,
                                                  root_tag)


def refused(data: bytes, match: str, line: int) -> str:
    with pytest.raises(ModelError) as info:
        parse_bytes(data, 'm.kinbody.xml')
    message = str(info.value)
    assert '\n' not in message and match in message, message
    assert message.startswith(f'm.kinbody.xml:{line}: '), message
    return message


def test_tree_keeps_lines_text_and_lowercases_names():
    root = parse_bytes(b'<?xml version="1.0"?>\n<KinBody Name="Arm">\n <Body NAME="b">'
                       b'<Mass Type="Box"> 1 2 </Mass></Body>\n</KinBody>\n', 'm.xml')
    assert (root.tag, root.attrs, root.line, root.path) == ('kinbody', {'name': 'Arm'}, 2, 'm.xml')
    body = root.children[0]
    assert (body.tag, body.attrs, body.line) == ('body', {'name': 'b'}, 3)
    mass = body.children[0]
    assert (mass.tag, mass.attrs['type'], mass.text) == ('mass', 'Box', ' 1 2 ')
    assert mass.children == [] and root.text.strip() == ''
    assert mass.where() == 'm.xml:3'


def test_a_new_element_has_no_text_and_two_equal_elements_stay_distinct():
    element = Element('geom', {}, 'm.xml', 4)
    assert element.text == '' and element.words() == [] and len(element.numbers()) == 0
    twin = Element('geom', {}, 'm.xml', 4)
    assert element != twin and len({element, twin}) == 2


def test_numbers_count_and_at_least():
    element = parse_bytes(b'<translation>1 2.5\n-3e2</translation>', 'm.xml')
    assert np.array_equal(element.numbers(3), [1.0, 2.5, -300.0])
    assert np.array_equal(element.numbers(at_least=3), [1.0, 2.5, -300.0])
    assert np.array_equal(element.numbers(at_least=2), [1.0, 2.5, -300.0])
    with pytest.raises(ModelError, match=r'^m.xml:1: <translation> must hold 4 numbers, found 3$'):
        element.numbers(4)
    with pytest.raises(ModelError, match=r'^m.xml:1: <translation> must hold at least 4 numbers, '
                                         r'found 3$'):
        element.numbers(at_least=4)


@pytest.mark.parametrize('text, message', [
    ('1 two', "<radius> must hold numbers, found '1 two'"),
    ('1 inf', '<radius> holds a number that is not finite'),
    ('nan', '<radius> holds a number that is not finite'),
])
def test_numbers_refuse_words_and_non_finite_values(text, message):
    element = parse_bytes(f'<Radius>{text}</Radius>'.encode(), 'm.xml')
    with pytest.raises(ModelError) as info:
        element.number()
    assert str(info.value) == f'm.xml:1: {message}'


def test_number_and_word():
    assert parse_bytes(b'<radius> 0.25 </radius>', 'm.xml').number() == 0.25
    assert parse_bytes(b'<body>\n link1 </body>', 'm.xml').word() == 'link1'
    for text in (b'<body>a b</body>', b'<body> </body>'):
        with pytest.raises(ModelError, match=r'^m.xml:1: <body> must hold one name, found '):
            parse_bytes(text, 'm.xml').word()


@pytest.mark.parametrize('value, expected', [
    (None, True), ('false', False), (' FALSE ', False), ('0', False), (' 0 ', False),
    ('true', True), ('1', True), ('no', True),
])
def test_flag_is_false_only_for_false_or_zero(value, expected):
    attrs = b'' if value is None else f' enable="{value}"'.encode()
    element = parse_bytes(b'<joint' + attrs + b'/>', 'm.xml')
    assert element.flag('enable', True) is expected
    if value is None:
        assert element.flag('enable', False) is False
    assert element.attr('enable', 'unset') == ('unset' if value is None else value)


def test_nesting_bound_is_exact():
    def nested(depth):
        return ('<a>' * depth + '</a>' * depth).encode()
    assert parse_bytes(nested(MAX_DEPTH), 'm.xml').tag == 'a'
    refused(nested(MAX_DEPTH + 1), f'elements are nested deeper than {MAX_DEPTH} levels', 1)
    assert MAX_DEPTH == 100


def test_bad_documents_are_one_line_with_their_line():
    refused(b'<a>\n<b>\n</a>', 'not well-formed XML: mismatched tag', 3)
    refused(b'', 'not well-formed XML: no element found', 1)
    refused(b'<?xml version="1.0"?>\n<!DOCTYPE a [\n<!ENTITY lol "lol">]>\n<a>&lol;</a>',
            "refused: the file declares the entity 'lol' (entities and external references are "
            'not allowed)', 3)
    refused(b'<?xml version="1.0" encoding="utf1e-320"?>\n<a/>',
            'not readable XML: unknown encoding: utf1e-320', 1)


def test_a_refusal_is_said_in_words_not_as_a_python_repr():
    from defusedxml import DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden
    from defusedxml.common import NotSupportedError

    from body_bridge.formats.openrave.xmlfile import _refusal
    message = refused(b'<?xml version="1.0"?>\n<!DOCTYPE k [\n<!ENTITY a0 SYSTEM '
                      b'"file:///etc/passwd">]>\n<k>&a0;</k>',
                      "refused: the file declares the entity 'a0' from 'file:///etc/passwd' "
                      '(entities and external references are not allowed)', 3)
    assert 'Forbidden' not in message and '(name=' not in message
    assert _refusal(ExternalReferenceForbidden('c', None, 'http://x/y.dtd', None)) == \
        "the file refers to the external resource 'http://x/y.dtd'"
    assert _refusal(DTDForbidden('k', None, None)) == "the file declares the document type 'k'"
    assert _refusal(NotSupportedError()) == 'the file uses what a safe parser does not allow'
    assert _refusal(EntitiesForbidden('b', 'v', None, None, None, None)) == \
        "the file declares the entity 'b'"


def test_parse_file_and_root_tag(tmp_path):
    path = tmp_path / 'arm.robot.xml'
    path.write_text('<?xml version="1.0"?>\n\n<Robot name="arm"><KinBody/></Robot>\n')
    root = parse_file(path)
    assert root.path == str(path) and isinstance(root.path, str)
    assert root.children[0].path == str(path)
    assert root_tag(path) == ('robot', 3)
    with pytest.raises(ModelError, match='no such file'):
        parse_file(tmp_path / 'missing.xml')


def test_a_file_beyond_64_mib_is_refused_before_it_is_read(tmp_path):
    # MAX_BYTES is 64 MiB (the module's bound): one byte more is refused in one line
    path = tmp_path / 'huge.robot.xml'
    with open(path, 'wb') as f:
        f.truncate(64 * 1024 * 1024 + 1)      # sparse: no 64 MiB written
    with pytest.raises(ModelError) as info:
        parse_file(path)
    assert str(info.value) == (f'{path}: file is {64 * 1024 * 1024 + 1} bytes, more than the '
                               f'limit of {64 * 1024 * 1024} bytes')


def test_an_external_dtd_is_refused_not_ignored():
    # no external reference may be followed, a DTD subset included (entities could hide there)
    with pytest.raises(ModelError) as info:
        parse_bytes(b'<!DOCTYPE Robot SYSTEM "robot.dtd">\n<Robot/>', 'r.xml')
    assert str(info.value) == ("r.xml:1: refused: the file refers to the external resource "
                               "'robot.dtd' (entities and external references are not allowed)")
