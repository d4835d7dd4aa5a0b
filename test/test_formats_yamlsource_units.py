"""The YAML reader of the Body and Chrono formats: values, lines (of mappings, lists and each
value), merge keys, aliases, bounds."""

import importlib.util
import sys
from pathlib import Path

import pytest
import yaml

from body_bridge.errors import ModelError
from body_bridge.formats import yamlsource
from body_bridge.formats.yamlsource import (LineDict, LineList, MAX_BYTES, MAX_DEPTH, kind_of,
                                            line_at, line_of, load_yaml, load_yaml_anchors)


def refused(text, path='m.yaml') -> ModelError:
    with pytest.raises(ModelError) as caught:
        load_yaml(path, text)
    return caught.value


def test_scalars_take_yaml_1_1_types():
    doc = load_yaml('m.yaml', 'a: 5\nb: -2.5\nc: 1.5e+3\nd: yes\ne: ~\nf: 010\ng: 0x1F\n'
                    'h: 1_000\ni: .inf\nj: name\nk: "5"\nl: !!str 7\nm: !!float 1\n'
                    'n: !!binary "AAE="\no: true\np: +3\n')
    assert doc == {'a': 5, 'b': -2.5, 'c': 1500.0, 'd': True, 'e': None, 'f': 8, 'g': 31,
                   'h': 1000, 'i': float('inf'), 'j': 'name', 'k': '5', 'l': '7', 'm': 1.0,
                   'n': b'\x00\x01', 'o': True, 'p': 3}
    assert type(doc['a']) is int and type(doc['m']) is float and type(doc['c']) is float


def test_mappings_and_lists_know_their_line():
    doc = load_yaml('m.yaml', '# comment\nlinks:\n  - name: a\n    elements: [1, 2]\n'
                    '  - name: b\n')
    assert isinstance(doc, LineDict) and line_of(doc) == 2
    assert isinstance(doc['links'], LineList) and line_of(doc['links']) == 3
    assert [line_of(link) for link in doc['links']] == [3, 5]
    assert line_of(doc['links'][0]['elements']) == 4
    assert line_of(5) is None and line_of('x', 7) == 7


def test_every_value_knows_its_line():
    """A scalar cannot carry a line: its mapping keeps each key's, its list each item's."""
    doc = load_yaml('m.yaml', 'format: x\nlinks: 5\nname:\n  long\n'
                    'list:\n  - 5\n  - {a: 1}\n  -\n    7\n  - 8\n'
                    'flow: [a, b,\n  c, d, [4,\n  5], 6]\nmesh: [1, 2,\n  3]\n'
                    'late: [\n  {a: 1}, 2]\n')
    assert [line_at(doc, key) for key in doc] == [1, 2, 3, 5, 11, 14, 16]
    assert [line_at(doc['list'], i) for i in range(4)] == [6, 7, 9, 10]
    assert [line_at(doc['flow'], i) for i in range(6)] == [11, 11, 12, 12, 12, 13]
    assert [list(m) for m in doc['flow'].marks] == [[2, 5], [12, 13]]  # one a line
    assert [line_at(doc['late'], i) for i in range(2)] == [17, 17]  # the list starts on 16
    # Numbers before any mapping or list item are not marked (a mesh costs nothing more):
    # each has the list's line.
    assert [line_at(doc['mesh'], i) for i in range(3)] == [14, 14, 14]
    assert doc['mesh'].marks is None
    # The first item is on the list's line: marks only where a scalar item moves on.
    assert [list(m) for m in doc['list'].marks] == [[2, 3], [9, 10]]
    assert load_yaml('m.yaml', 'a: [1, 2, 3]\n')['a'].marks is None
    # Nothing more known: the container's line, then the default.
    assert line_at(doc, 'other') == 1 and line_at(doc['list'], 4) == 6
    assert line_at(doc['list'], -1, 3) == 6
    assert line_at({'a': 1}, 'a') is None and line_at({'a': 1}, 'a', 9) == 9
    assert line_at(5, 0, 4) == 4 and line_at([1], 0, 2) == 2
    plain = LineList([1, 2])
    plain.line, plain.marks = 5, None
    assert line_at(plain, 1) == 5


def test_merged_keys_keep_the_line_they_are_written_on():
    doc = load_yaml('m.yaml', 'base: &b\n  x: 1\n  y: 2\nmore: &m {y: 3, z: 4}\n'
                    'one:\n  <<: *b\n  x: 9\n'
                    'two:\n  <<: [*b, *m]\n  w: 0\n')
    assert doc['one'].lines == {'x': 7, 'y': 3}
    assert doc['two'].lines == {'x': 2, 'y': 3, 'z': 4, 'w': 10}  # the first merged wins


def test_line_records_carry_no_attribute_dictionary():
    """A file of a million values keeps one slot per mapping or list, not a dict each."""
    for value in (LineDict(), LineList()):
        value.line = 3
        with pytest.raises(AttributeError):
            value.other = 1


def test_kind_of_names_each_kind():
    assert kind_of({'a': 1}) == 'a mapping' and kind_of(LineDict()) == 'a mapping'
    assert kind_of([1]) == 'a list' and kind_of(LineList()) == 'a list'
    assert kind_of(None) == 'nothing'
    assert kind_of(2.5) == 'float 2.5' and kind_of('x') == "str 'x'"


def test_empty_stream_is_none_and_a_second_document_is_refused():
    assert load_yaml('m.yaml', '') is None
    assert load_yaml('m.yaml', '# only a comment\n') is None
    assert load_yaml('m.yaml', '---\na: 1\n...\n') == {'a': 1}
    err = refused('a: 1\n---\nb: 2\n')
    assert (err.path, err.line) == ('m.yaml', 2)
    assert 'single document' in err.message


def test_anchors_and_aliases_share_values():
    doc = load_yaml('m.yaml', 'a: &x [1, 2]\nb: *x\nc: &y 5\nd: *y\ne: &z name\nf: *z\n')
    assert doc == {'a': [1, 2], 'b': [1, 2], 'c': 5, 'd': 5, 'e': 'name', 'f': 'name'}
    assert doc['a'] is doc['b']
    err = refused('a: 1\nb: *nope\n')
    assert err.line == 2 and err.message == "invalid YAML: found undefined alias 'nope'"


def test_merge_keys_put_the_mapping_s_own_keys_last():
    doc = load_yaml('m.yaml', 'base: &b {x: 1, y: 2}\nmore: &m {y: 3, z: 4}\n'
                    'one: {<<: *b, x: 9}\n'
                    'two: {<<: [*b, *m], w: 0}\n')
    assert doc['one'] == {'x': 9, 'y': 2}
    assert doc['two'] == {'x': 1, 'y': 2, 'z': 4, 'w': 0}  # the first merged mapping wins
    assert '<<' not in doc['one']


def test_merging_a_non_mapping_names_the_merge_key_s_line():
    err = refused('a: 1\nb:\n  c: 2\n  <<: 5\n')
    assert (err.line, err.message) == (
        4, 'invalid YAML: expected a mapping or list of mappings for merging')
    assert refused('a:\n  <<: [{x: 1}, 3]\n').line == 2


def test_value_tag_is_kept_as_text():
    assert load_yaml('m.yaml', 'a: !!value =\n') == {'a': '='}


@pytest.mark.parametrize('text, line, message', [
    ('a: !!int x\n', 1, "invalid YAML: int value 'x': invalid literal for int() with base 10: 'x'"),
    ('a: 1\nb: !foo 1\n', 2,
     "invalid YAML: could not determine a constructor for the tag '!foo'"),
    ('a: !!python/none x\n', 1, 'invalid YAML: could not determine a constructor for the tag '
     "'tag:yaml.org,2002:python/none'"),
    ('a: !!map x\n', 1,
     "invalid YAML: could not determine a constructor for the tag 'tag:yaml.org,2002:map'"),
    ('\na: !!set {b: 1}\n', 2, "YAML tag 'tag:yaml.org,2002:set' is not supported here"),
    ('a: !!seq {b: 1}\n', 1, "YAML tag 'tag:yaml.org,2002:seq' is not supported here"),
    ('a: !!timestamp 2001-13-01\n', 1,
     "invalid YAML: timestamp value '2001-13-01': month must be in 1..12"),
    ('a: 1\n? [1]\n: 2\n', 2, 'invalid YAML: a mapping key must be a plain value'),
    ('a: [1, 2\n', 2, "invalid YAML: did not find expected ',' or ']'"),
    ('\n\nb: \x07\n', 3, 'not YAML text: control characters are not allowed (character 7)'),
])
def test_bad_yaml_is_one_line_with_its_line(text, line, message):
    err = refused(text)
    assert (err.path, err.line, err.message) == ('m.yaml', line, message)


def test_tagged_mappings_and_lists_are_plain_ones():
    assert load_yaml('m.yaml', '!!map {a: !!seq [1]}\n') == {'a': [1]}


def test_nesting_is_bounded():
    assert MAX_DEPTH == 1000
    deepest = load_yaml('m.yaml', '[' * MAX_DEPTH + ']' * MAX_DEPTH)
    depth = 0
    while deepest:
        deepest, depth = deepest[0], depth + 1
    assert depth == MAX_DEPTH - 1  # the innermost list is empty
    err = refused('\n' + '[' * (MAX_DEPTH + 1) + ']' * (MAX_DEPTH + 1))
    assert (err.line, err.message) == (2, 'YAML nesting deeper than 1000 levels')


def test_too_many_values_are_refused(monkeypatch):
    monkeypatch.setattr(yamlsource, 'MAX_VALUES', 5)
    assert load_yaml('m.yaml', '[1, 2, 3, 4]') == [1, 2, 3, 4]  # the list and four numbers
    err = refused('a: 1\nb: [1, 2]\n')
    assert err.line == 2 and err.message.startswith('more than 5 values')


def test_files_are_read_as_utf8_with_their_path(tmp_path):
    path = tmp_path / 'm.yaml'
    path.write_bytes('\ufeffname: "\u00e9t\u00e9"\n'.encode('utf-8'))
    assert load_yaml(path) == {'name': '\u00e9t\u00e9'}
    assert load_yaml(str(path)) == {'name': '\u00e9t\u00e9'}
    path.write_bytes(b'a: 1\nb: 2\nc: \xff\n')
    with pytest.raises(ModelError) as caught:
        load_yaml(path)
    assert (caught.value.path, caught.value.line) == (str(path), 3)
    assert caught.value.message == 'file is not UTF-8 text'


def test_a_missing_file_and_an_oversized_one(tmp_path):
    with pytest.raises(ModelError) as caught:
        load_yaml(tmp_path / 'none.yaml')
    assert caught.value.message == 'cannot read file: no such file'
    with pytest.raises(ModelError) as caught:
        load_yaml_anchors(tmp_path / 'none.yaml')
    assert caught.value.message == 'cannot read file: no such file'
    big = tmp_path / 'big.yaml'
    with open(big, 'wb') as out:  # sparse: 64 MiB and one byte, refused before reading
        out.truncate(64 * 1024 * 1024 + 1)
    assert MAX_BYTES == 64 * 1024 * 1024
    with pytest.raises(ModelError) as caught:
        load_yaml(big)
    assert 'more than the limit of 67108864 bytes' in caught.value.message


def test_anchors_of_a_resource_file(tmp_path):
    path = tmp_path / 'parts.yaml'
    path.write_text('parts:\n  - &ARM {name: arm}\n  - &ARM {name: arm2}\n'
                    'colour: &RED [1, 0, 0]\n')
    doc, anchors = load_yaml_anchors(path)
    assert doc['colour'] == [1, 0, 0] and len(doc['parts']) == 2
    assert anchors == {'ARM': {'name': 'arm2'}, 'RED': [1, 0, 0]}  # the last of a name
    assert anchors['RED'] is doc['colour'] and line_of(anchors['ARM']) == 3
    path.write_text('a: [\n')
    with pytest.raises(ModelError) as caught:
        load_yaml_anchors(path)
    assert caught.value.path == str(path) and caught.value.message.startswith('invalid YAML')


def test_pure_python_parser_gives_the_same_document(monkeypatch):
    """Where PyYAML is built without libyaml, its Python parser reads the same values."""
    monkeypatch.setitem(sys.modules, 'yaml._yaml', None)
    spec = importlib.util.spec_from_file_location(
        'body_bridge.formats._yamlsource_pure', Path(yamlsource.__file__))
    pure = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pure)
    assert pure._Parser is not yamlsource._Parser
    text = 'a: &x [1, 2.5, yes]\nb: *x\nc: {<<: {d: 1}, e: name}\n'
    doc = pure.load_yaml('m.yaml', text)
    assert doc == load_yaml('m.yaml', text) == {
        'a': [1, 2.5, True], 'b': [1, 2.5, True], 'c': {'d': 1, 'e': 'name'}}
    assert pure.line_of(doc['c']) == 3
    assert pure.line_at(doc, 'b') == 2 and doc['c'].lines == {'d': 3, 'e': 3}
    doc = pure.load_yaml('m.yaml', 'a:\n  - x\n  - y\n')
    assert [pure.line_at(doc['a'], i) for i in range(2)] == [2, 3]
    with pytest.raises(ModelError) as caught:
        pure.load_yaml('m.yaml', 'a: 1\nb: [1,\n')
    assert caught.value.path == 'm.yaml' and caught.value.message.startswith('invalid YAML')


def test_any_other_yaml_error_is_one_line(monkeypatch):
    """An error PyYAML raises without a position still names the file, on one line."""
    def fail(self):
        raise yaml.YAMLError('unexpected\n   parser state')
    monkeypatch.setattr(yamlsource._Builder, 'document', fail)
    err = refused('a: 1\n')
    assert (err.path, err.line, err.message) == (
        'm.yaml', None, 'invalid YAML: unexpected parser state')
