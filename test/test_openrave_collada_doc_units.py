"""The COLLADA document layer (body_bridge.formats.openrave.collada_doc): transforms of every
kind in the document's unit, the unit's checks, and the ``.zae`` archive's bounds, each
refusal one ``path:line: message`` line."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.formats.openrave import collada_doc
from body_bridge.formats.openrave.collada_doc import Document
from body_bridge.formats.openrave.xmlfile import parse_bytes

NS = 'xmlns="http://www.collada.org/2008/03/COLLADASchema"'


def document(body: str, meter: str = '0.01') -> Document:
    text = (f'<COLLADA {NS}><asset><unit meter="{meter}"/></asset>\n{body}</COLLADA>')
    return Document(parse_bytes(text.encode(), 'd.dae'), 'd.dae')


def node_transform(inner: str, meter: str = '0.01') -> np.ndarray:
    doc = document(f'<node id="n">{inner}</node>', meter)
    return doc.transform(doc.ids['n'])


def test_matrix_scale_translate_rotate_in_the_documents_unit():
    m = node_transform('<matrix>0 -1 0 100  1 0 0 0  0 0 1 50  0 0 0 1</matrix>')
    np.testing.assert_allclose(m, [[0, -1, 0, 1], [1, 0, 0, 0], [0, 0, 1, 0.5], [0, 0, 0, 1]])
    np.testing.assert_allclose(node_transform('<scale>2 3 4</scale>'), np.diag([2, 3, 4, 1]))
    m = node_transform('<translate>100 0 0</translate><rotate>0 0 2 90</rotate>'
                       '<scale>2 2 2</scale>')
    np.testing.assert_allclose(m[:3, 3], [1, 0, 0])
    np.testing.assert_allclose(m[:3, :3] @ [1, 0, 0], [0, 2, 0], atol=1e-12)


@pytest.mark.parametrize('inner, message', [
    ('<matrix>1 0 0 0 0 1 0 0 0 0 1 0 0 0 1 1</matrix>', '<matrix> is not an affine transform'),
    ('<scale>1 0 1</scale>', '<scale> has a zero factor'),
    ('<rotate>0 0 0 30</rotate>', '<rotate> has a zero axis'),
    ('<scale>1 1</scale>', '<scale> must hold 3 numbers, found 2'),
])
def test_transforms_that_are_none_are_one_line(inner, message):
    with pytest.raises(ModelError) as info:
        node_transform(inner)
    assert str(info.value) == f'd.dae:2: {message}'


@pytest.mark.parametrize('meter', ['0', '-1', 'inf', 'nan'])
def test_the_unit_must_be_a_positive_number(meter):
    with pytest.raises(ModelError) as info:
        document('', meter)
    assert str(info.value) == 'd.dae:1: <unit meter> must be a positive number'
    assert document('', '0.001').meter == 0.001


def zae(path, members: dict[str, bytes], compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, 'w', compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return str(path)


DAE = f'<COLLADA {NS}><asset><unit meter="1"/></asset></COLLADA>'.encode()


def test_an_archive_of_at_most_max_entries_members(tmp_path, monkeypatch):
    monkeypatch.setattr(collada_doc, 'MAX_ENTRIES', 3)
    members = {'robot.dae': DAE, 'a.txt': b'a', 'b.txt': b'b'}
    assert collada_doc.read_document(zae(tmp_path / 'ok.zae', members)).meter == 1.0
    path = zae(tmp_path / 'many.zae', {**members, 'c.txt': b'c'})
    with pytest.raises(ModelError) as info:
        collada_doc.read_document(path)
    assert str(info.value) == f'{path}: the archive lists 4 members (at most 3 are read)'


def test_a_member_of_exactly_the_expansion_limit_is_read_whole(tmp_path, monkeypatch):
    # stored, not compressed: the limit is its own size when the ratio is 1
    monkeypatch.setattr(collada_doc, 'MAX_RATIO', 1)
    path = zae(tmp_path / 'stored.zae', {'robot.dae': DAE}, zipfile.ZIP_STORED)
    assert collada_doc.read_document(path).root.tag == 'collada'
    monkeypatch.setattr(collada_doc, 'MAX_RATIO', 2)
    path = zae(tmp_path / 'packed.zae', {'robot.dae': DAE + b' ' * 4000})
    with pytest.raises(ModelError, match=r'refused: robot.dae would expand to 4\d+ bytes '):
        collada_doc.read_document(path)


def test_sid_references_through_an_instance_find_what_it_instantiates():
    doc = document('''<library_kinematics_models>
      <kinematics_model id="km" sid="km"><technique_common><joint sid="j0" name="a"/>
        </technique_common></kinematics_model>
      <kinematics_model id="km2"><technique_common><joint sid="j0" name="b"/>
        </technique_common></kinematics_model></library_kinematics_models>
      <library_articulated_systems><articulated_system id="as"><kinematics>
        <instance_kinematics_model url="#km" sid="inst"/>
        <instance_kinematics_model url="#nothing" sid="broken"/>
        <instance_kinematics_model url="#me" id="me" sid="self"/>
      </kinematics></articulated_system></library_articulated_systems>''')
    assert doc.sidref('as/inst/j0').attrs['name'] == 'a'     # not km2's joint of that sid
    assert doc.sidref('km2/j0').attrs['name'] == 'b'
    assert doc.sidref('as/inst/km') is doc.ids['km']          # the instantiated element itself
    assert doc.sidref('as/broken/j0') is None                 # an instance of nothing
    assert doc.sidref('as/self/j0') is None                   # an instance of itself


def test_sid_scopes_prefer_plain_children_then_the_nearest_instanced():
    doc = document('''<library_kinematics_models><kinematics_model id="km">
        <technique_common><group><item sid="x" name="deep"/></group></technique_common>
        <item sid="x" name="near"/><item sid="j" name="via"/></kinematics_model>
      </library_kinematics_models>
      <library_articulated_systems><articulated_system id="as"><kinematics>
        <instance_kinematics_model url="#km" sid="inst"/>
        <deep><deeper><item sid="j" name="plain"/></deeper></deep>
      </kinematics></articulated_system></library_articulated_systems>''')
    assert doc.sidref('as/j').attrs['name'] == 'plain'    # below it, though deeper
    assert doc.sidref('as/inst/x').attrs['name'] == 'near'
    assert doc.sidref('as/x').attrs['name'] == 'near'
    assert doc.sidref('') is None and doc.sidref(' / ') is None
    assert doc.sidref('nothing/x') is None
    kinematics = doc.up(doc.sidref('as/inst'))
    assert doc.sidref('inst', kinematics) is doc.sidref('as/inst')   # the nearest scope
    assert doc.sidref('zzz', kinematics) is None and doc.sidref('zzz/x', kinematics) is None


def test_an_archive_of_ten_thousand_members_is_read_and_one_more_refused(tmp_path):
    members = {'robot.dae': DAE, **{f'{i}.txt': b'' for i in range(9_999)}}
    path = zae(tmp_path / 'full.zae', members, zipfile.ZIP_STORED)
    assert collada_doc.read_document(path).meter == 1.0
    path = zae(tmp_path / 'over.zae', {**members, 'last.txt': b''}, zipfile.ZIP_STORED)
    with pytest.raises(ModelError) as info:
        collada_doc.read_document(path)
    assert str(info.value) == f'{path}: the archive lists 10001 members (at most 10000 are read)'


@pytest.mark.parametrize('size, read', [(65_535, 'named'), (65_536, 'top')])
def test_a_manifest_under_64_kib_names_the_document(tmp_path, size, read):
    # the manifest names the document inside a folder; a larger manifest is not read, and the
    # archive's one .dae at its top is
    head, tail = b'<dae_root>./inner/named.dae</dae_root><!--', b'-->'
    manifest = head + b' ' * (size - len(head) - len(tail)) + tail
    assert len(manifest) == size
    named = DAE.replace(b'meter="1"', b'meter="0.5"')
    path = zae(tmp_path / 'm.zae', {'manifest.xml': manifest, 'inner/named.dae': named,
                                    'top.dae': DAE})
    assert collada_doc.read_document(path).meter == (0.5 if read == 'named' else 1.0)


@pytest.mark.parametrize('xml, params, value', [
    ('<speed>30</speed>', None, 30.0),
    ('<speed> </speed>', None, None),                       # nothing written
    ('<speed><float>2</float></speed>', None, 2.0),
    ('<speed><bool>TRUE</bool></speed>', None, 1.0),
    ('<speed><param>p</param></speed>', {'p': '<newparam><int>7</int></newparam>'}, 7.0),
    ('<speed><param>p</param></speed>', None, None),        # a parameter without a scope
    ('<speed><param>q</param></speed>', {'p': '<newparam><int>7</int></newparam>'}, None),
    ('<speed><other/></speed>', None, None),                # children, none a value
])
def test_a_value_is_a_typed_child_a_parameter_or_the_elements_own_text(xml, params, value):
    doc = document(xml)
    scope = {k: parse_bytes(v.encode(), 'p.dae') for k, v in (params or {}).items()}
    assert doc.number(doc.root.children[1], scope if params else None) == value


def test_a_transform_leaves_out_what_it_is_told_to_skip():
    # the visual scene's joint rotations are left out: the scene at the joints' zero
    doc = document('<node id="n"><translate>100 0 0</translate><rotate sid="j">0 0 1 90</rotate>'
                   '<instance_geometry url="#g"/><scale>2 2 2</scale></node>')
    node = doc.ids['n']
    turn = node.children[1]
    np.testing.assert_allclose(doc.transform(node, {id(turn)}), np.diag([2, 2, 2, 1]) +
                               np.array([[0, 0, 0, 1], [0] * 4, [0] * 4, [0] * 4]), atol=1e-12)
    np.testing.assert_allclose(doc.transform(node)[:3, :3] @ [1, 0, 0], [0, 2, 0], atol=1e-12)


@pytest.mark.parametrize('links, found', [(3, True), (199, True), (200, False)])
def test_a_sid_is_looked_for_at_most_399_levels_through_instances(links, found):
    # c1 instantiates c2, ... up to c<links>, whose child holds sid x: 2 levels per link of
    # the chain (the instance, its node) and 2 for the holder: 2 * links levels below c1
    nodes = ''.join(f'<node id="c{i}"><instance_node url="#c{i + 1}"/></node>'
                    for i in range(1, links))
    nodes += f'<node id="c{links}"><extra><item sid="x"/></extra></node>'
    doc = document(f'<library_nodes>{nodes}</library_nodes>')
    item = doc.sidref('c1/x')
    assert (item is not None and item.tag == 'item') == found
