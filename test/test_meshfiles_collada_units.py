"""COLLADA mesh reader: small documents written here (units, axes, nodes, controllers,
materials, broken references and bad input)."""

from __future__ import annotations

import pytest

from body_bridge import geometry as geo
from body_bridge.errors import ModelError
from body_bridge.meshfiles import _common

import mesh_files

BOX = geo.box_mesh((1.0, 2.0, 3.0))
NS = 'xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1"'


def geometry(gid='g', material='m', index=None):
    floats = ' '.join(f'{c:g}' for c in BOX.vertices.ravel())
    index = ' '.join(str(i) for i in (BOX.faces.ravel() if index is None else index))
    count = len(index.split()) // 3
    return f'''<geometry id="{gid}"><mesh>
    <source id="{gid}p"><float_array id="{gid}pa" count="24">{floats}</float_array>
      <technique_common><accessor source="#{gid}pa" count="8" stride="3">
        <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
      </accessor></technique_common></source>
    <vertices id="{gid}v"><input semantic="POSITION" source="#{gid}p"/></vertices>
    <triangles material="{material}" count="{count}">
      <input semantic="VERTEX" source="#{gid}v" offset="0"/>
      <p>{index}</p></triangles></mesh></geometry>'''


def effect(body):
    return (f'<library_effects><effect id="fx"><profile_COMMON><technique sid="t">{body}'
            '</technique></profile_COMMON></effect></library_effects>'
            '<library_materials><material id="mat" name="paint"><instance_effect url="#fx"/>'
            '</material></library_materials>')


BIND = ('<bind_material><technique_common><instance_material symbol="m" target="#mat"/>'
        '</technique_common></bind_material>')


def document(nodes, extra='', asset='<asset><up_axis>Z_UP</up_axis></asset>', geometries=None,
             controllers=''):
    geometries = geometry() if geometries is None else geometries
    return f'''<?xml version="1.0" encoding="utf-8"?>
<COLLADA {NS}>
  {asset}
  {extra}
  <library_geometries>{geometries}</library_geometries>
  {controllers}
  <library_visual_scenes><visual_scene id="s">{nodes}</visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#s"/></scene>
</COLLADA>'''


def load(tmp_path, text, node=None, name='m.dae'):
    return mesh_files.load(mesh_files.write(tmp_path, name, text), node)


def bounds(parts):
    return tuple(corner.tolist() for corner in mesh_files.bounds(parts))


def test_a_selected_node_keeps_its_rotation_but_not_its_translation(tmp_path):
    parts, said = load(tmp_path, document(
        '<node id="turned"><translate>5 0 0</translate><rotate>0 0 1 90</rotate>'
        '<instance_geometry url="#g"/></node>'), 'turned')
    low, high = bounds(parts)
    assert low == pytest.approx([-1, -0.5, -1.5]) and high == pytest.approx([1, 0.5, 1.5])
    assert said == []


def test_no_asset_means_metres_and_no_warning(tmp_path):
    parts, said = load(tmp_path, document('<node id="n"><instance_geometry url="#g"/></node>',
                                          asset=''))
    low, high = bounds(parts)
    assert low == pytest.approx([-0.5, -1, -1.5]) and high == pytest.approx([0.5, 1, 1.5])
    assert said == []


def test_a_unit_outside_the_asset_is_not_the_documents_unit(tmp_path):
    parts, _ = load(tmp_path, document('<node id="n"><instance_geometry url="#g"/></node>',
                                       asset='', extra='<extra><unit meter="0.001"/></extra>'))
    assert bounds(parts)[1] == pytest.approx([0.5, 1, 1.5])


def test_a_stated_y_up_is_named_with_its_line(tmp_path):
    text = document('<node id="n"><instance_geometry url="#g"/></node>',
                    asset='<asset>\n<up_axis>Y_UP</up_axis></asset>')
    parts, said = load(tmp_path, text)
    assert said == [f'{tmp_path / "m.dae"}:4: <up_axis>Y_UP</up_axis> is not applied (as rviz '
                    'and MuJoCo do not); the numbers keep their axes']
    assert bounds(parts)[1] == pytest.approx([0.5, 1, 1.5])  # the axes as written


def test_a_root_other_than_collada_is_one_line(tmp_path):
    with pytest.raises(ModelError, match=r'm\.dae:2: the root element is <mesh>, not <COLLADA>'):
        load(tmp_path, '<?xml version="1.0"?>\n<mesh/>\n')


def test_a_broken_reference_is_warned_and_the_rest_read(tmp_path):
    parts, said = load(tmp_path, document(
        '<node id="n"><instance_geometry url="#g"/></node>'
        '<node id="lost"><instance_geometry url="#nowhere"/></node>'))
    assert len(parts) == 1 and bounds(parts)[1] == pytest.approx([0.5, 1, 1.5])
    assert len(said) == 1 and 'nowhere' in said[0] and said[0].endswith('; ignored')


def nested(depth, inner):
    return '<node id="d0">' + ''.join(f'<node id="d{i}">' for i in range(1, depth)) + inner \
        + '</node>' * depth


def test_nodes_nested_too_deep_are_refused_and_not_found(tmp_path):
    deep = document(nested(_common.MAX_DEPTH + 2, '<instance_geometry url="#g"/>'))
    with pytest.raises(ModelError, match=rf'nested deeper than {_common.MAX_DEPTH}'):
        load(tmp_path, deep)
    with pytest.raises(ModelError, match='no COLLADA node with id or name'):
        load(tmp_path, deep, f'd{_common.MAX_DEPTH + 1}')
    # the deepest allowed is read
    parts, _ = load(tmp_path, document(nested(_common.MAX_DEPTH, '<instance_geometry url="#g"/>')))
    assert bounds(parts)[1] == pytest.approx([0.5, 1, 1.5])


def test_instance_node_hops_count_as_depth(tmp_path):
    library = ('<library_nodes><node id="lib"><instance_geometry url="#g"/></node>'
               '</library_nodes>')
    inner = '<instance_node url="#lib"/>'
    ok = document(nested(_common.MAX_DEPTH - 2, inner), extra=library)
    assert bounds(load(tmp_path, ok)[0])[1] == pytest.approx([0.5, 1, 1.5])
    deep = document(nested(_common.MAX_DEPTH - 1, inner), extra=library)
    with pytest.raises(ModelError, match='nested deeper than'):
        load(tmp_path, deep)


SKIN = '''<library_controllers><controller id="skin"><skin source="#g">
  <bind_shape_matrix>1 0 0 10 0 1 0 0 0 0 1 0 0 0 0 1</bind_shape_matrix>
  <source id="j"><Name_array id="ja" count="1">b</Name_array><technique_common>
    <accessor source="#ja" count="1" stride="1"><param name="JOINT" type="name"/></accessor>
  </technique_common></source>
  <source id="ib"><float_array id="iba" count="16">1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1</float_array>
    <technique_common><accessor source="#iba" count="1" stride="16">
    <param name="TRANSFORM" type="float4x4"/></accessor></technique_common></source>
  <source id="w"><float_array id="wa" count="1">1</float_array><technique_common>
    <accessor source="#wa" count="1" stride="1"><param name="WEIGHT" type="float"/></accessor>
  </technique_common></source>
  <joints><input semantic="JOINT" source="#j"/><input semantic="INV_BIND_MATRIX" source="#ib"/>
  </joints>
  <vertex_weights count="8"><input semantic="JOINT" source="#j" offset="0"/>
    <input semantic="WEIGHT" source="#w" offset="1"/>
    <vcount>1 1 1 1 1 1 1 1</vcount><v>0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0</v></vertex_weights>
</skin></controller></library_controllers>'''


def test_a_skinned_mesh_is_read_in_its_bind_pose_with_a_warning(tmp_path):
    parts, said = load(tmp_path, document(
        '<node id="n"><scale>2 1 1</scale><instance_controller url="#skin"/></node>',
        controllers=SKIN))
    low, high = bounds(parts)
    assert low == pytest.approx([19, -1, -1.5]) and high == pytest.approx([21, 1, 1.5])
    assert said == [f"{tmp_path / 'm.dae'}: COLLADA controller 'skin': its mesh is used in the "
                    'bind pose (skinning is not applied)']


def test_an_index_past_the_vertices_is_one_line(tmp_path):
    with pytest.raises(ModelError, match=r"m\.dae: COLLADA geometry 'g': index -1 out of range"):
        load(tmp_path, document('<node id="n"><instance_geometry url="#g"/></node>',
                                geometries=geometry(index=[0, 1, -1])))


def test_an_unbound_material_gives_no_material(tmp_path):
    parts, _ = load(tmp_path, document('<node id="n"><instance_geometry url="#g"/></node>',
                                       extra=effect('<lambert/>')))
    assert parts[0].material is None


def shaded(tmp_path, body):
    parts, _ = load(tmp_path, document(
        f'<node id="n"><instance_geometry url="#g">{BIND}</instance_geometry></node>',
        extra=effect(body)))
    return parts[0].material


def test_diffuse_alpha_and_three_component_colours(tmp_path):
    material = shaded(tmp_path, '<phong><emission><color>0 1 0</color></emission>'
                      '<diffuse><color>1 0 0 0.5</color></diffuse>'
                      '<specular><color>0.5 0.5 0.5</color></specular></phong>')
    assert material.rgba == pytest.approx((1.0, 0.0, 0.0, 0.5)) and material.name == 'paint'
    assert material.emission == pytest.approx((0.0, 1.0, 0.0))
    assert material.specular == pytest.approx((0.5, 0.5, 0.5))
    assert shaded(tmp_path, '<lambert><diffuse><color>0 0 1</color></diffuse></lambert>'
                  ).rgba == pytest.approx((0.0, 0.0, 1.0, 1.0))


def test_a_one_transparency_scales_the_alpha_and_is_clipped(tmp_path):
    def alpha(transparent, transparency):
        return shaded(tmp_path, '<lambert><diffuse><color>1 1 1 1</color></diffuse>'
                      f'<transparent opaque="A_ONE"><color>{transparent}</color></transparent>'
                      f'<transparency><float>{transparency}</float></transparency></lambert>'
                      ).rgba[3]
    assert alpha('0 0 0 0.5', 0.5) == pytest.approx(0.25)
    assert alpha('0 0 0 1', 2.0) == pytest.approx(1.0)


def test_an_opacity_above_one_leaves_a_half_transparent_diffuse_as_it_is(tmp_path):
    # An opacity is a fraction of the light stopped: at most 1 whatever the file says, so a
    # diffuse alpha of 0.5 times an opacity of 1.5 (transparent alpha 1 x transparency 1.5)
    # stays 0.5, not 0.75.
    def alpha(transparency):
        return shaded(tmp_path, '<lambert><diffuse><color>1 1 1 0.5</color></diffuse>'
                      '<transparent opaque="A_ONE"><color>0 0 0 1</color></transparent>'
                      f'<transparency><float>{transparency}</float></transparency></lambert>'
                      ).rgba[3]
    assert alpha(1.5) == pytest.approx(0.5)
    # transparency 0 with A_ONE (what many exporters write for opaque surfaces) reads as
    # opaque: the diffuse alpha alone, neither invisible nor doubled
    assert alpha(0.0) == pytest.approx(0.5)


MORPH = '''<library_controllers><controller id="morph"><morph source="#g" method="NORMALIZED">
  <source id="t"><IDREF_array id="ta" count="1">g2</IDREF_array><technique_common>
    <accessor source="#ta" count="1" stride="1"><param name="MORPH_TARGET" type="IDREF"/>
    </accessor></technique_common></source>
  <source id="mw"><float_array id="mwa" count="1">1</float_array><technique_common>
    <accessor source="#mwa" count="1" stride="1"><param name="MORPH_WEIGHT" type="float"/>
    </accessor></technique_common></source>
  <targets><input semantic="MORPH_TARGET" source="#t"/>
    <input semantic="MORPH_WEIGHT" source="#mw"/>
  </targets></morph></controller></library_controllers>'''


def test_a_morph_controller_is_left_out(tmp_path):
    parts, said = load(tmp_path, document(
        '<node id="n"><translate>0 0 10</translate><instance_controller url="#morph"/></node>'
        '<node id="plain"><instance_geometry url="#g"/></node>',
        geometries=geometry() + geometry('g2'), controllers=MORPH))
    low, high = bounds(parts)
    assert low == pytest.approx([-0.5, -1, -1.5]) and high == pytest.approx([0.5, 1, 1.5])
    assert said == []


def test_an_empty_up_axis_is_named_as_empty(tmp_path):
    _, said = load(tmp_path, document('<node id="n"><instance_geometry url="#g"/></node>',
                                      asset='<asset><up_axis></up_axis></asset>'))
    assert said == [f'{tmp_path / "m.dae"}:3: <up_axis></up_axis> is not applied (as rviz '
                    'and MuJoCo do not); the numbers keep their axes']


# --- the fresh sample's survivors (issue 39) ---------------------------------------------------


def test_a_file_that_is_no_xml_or_has_no_scene_is_one_line(tmp_path):
    with pytest.raises(ModelError, match=r'm\.dae:1: not an XML file \(COLLADA is XML\)$'):
        load(tmp_path, '\n  solid box\nendsolid\n')
    text = document('<node id="n"><instance_geometry url="#g"/></node>')
    text = text.replace('<scene><instance_visual_scene url="#s"/></scene>', '')
    with pytest.raises(ModelError, match=r'm\.dae: COLLADA file has no scene$'):
        load(tmp_path, text)


def test_content_pycollada_refuses_is_one_line(tmp_path):
    text = document('<node id="n"><instance_geometry url="#g"/></node>',
                    geometries=geometry().replace('count="24">', 'count="24">x '))
    with pytest.raises(ModelError, match=r'm\.dae: COLLADA'):
        load(tmp_path, text)


def test_a_named_node_is_read_as_level_one(tmp_path):
    # The node named is level 1, its children level 2: a geometry 99 nodes below it is at the
    # limit, 100 below is over it.
    inner = '<instance_geometry url="#g"/>'
    parts, _ = load(tmp_path, document(nested(_common.MAX_DEPTH - 1, inner)), 'd0')
    assert bounds(parts)[1] == pytest.approx([0.5, 1, 1.5])
    with pytest.raises(ModelError, match=rf'nested deeper than {_common.MAX_DEPTH}$'):
        load(tmp_path, document(nested(_common.MAX_DEPTH, inner)), 'd0')


def test_the_up_axis_is_looked_for_in_the_first_16_kib(tmp_path):
    # <up_axis> is looked for in the first 16384 bytes: a tag whose last byte is the 16384th
    # is read (its value after it too), one a byte later is not.
    for tag_start, said in ((16375, ':3: <up_axis>Y_UP</up_axis> is not applied'),
                            (16376, None)):
        text = document('<node id="n"><instance_geometry url="#g"/></node>',
                        asset='<asset>PAD<up_axis>Y_UP</up_axis></asset>')
        start = text.index('PAD')
        text = text.replace('PAD', '<!--' + ' ' * (tag_start - start - 7) + '-->')
        assert text.encode().index(b'<up_axis>') == tag_start
        _, messages = load(tmp_path, text)
        assert [said in m for m in messages] == ([True] if said else [])


def test_a_polygon_of_no_corners_adds_nothing(tmp_path):
    box = geometry()
    quads = box.replace('<triangles material="m" count="12">', '<polylist material="m" '
                        'count="13">').replace('</triangles>', '</polylist>')
    quads = quads.replace('<p>', '<vcount>3 3 3 3 3 3 0 3 3 3 3 3 3</vcount><p>')
    parts, _ = load(tmp_path, document('<node id="n"><instance_geometry url="#g"/></node>',
                                       geometries=quads))
    assert sum(len(p.mesh.faces) for p in parts) == 12
    assert mesh_files.volume(parts) == pytest.approx(6.0)


def test_a_mirroring_node_keeps_the_faces_outwards(tmp_path):
    parts, _ = load(tmp_path, document(
        '<node id="n"><scale>-1 1 1</scale><instance_geometry url="#g"/></node>'))
    assert mesh_files.volume(parts) == pytest.approx(6.0)  # outward faces: positive volume


def test_without_a_diffuse_the_colour_is_light_grey_and_transparency_applies(tmp_path):
    material = shaded(tmp_path, '<lambert><transparent opaque="A_ONE"><color>0 0 0 1</color>'
                      '</transparent><transparency><float>0.5</float></transparency></lambert>')
    assert material.rgba == pytest.approx((0.8, 0.8, 0.8, 0.5))


def test_rgb_zero_transparency_is_one_minus_the_mean_colour_times_transparency(tmp_path):
    material = shaded(tmp_path, '<lambert><diffuse><color>1 1 1 1</color></diffuse>'
                      '<transparent opaque="RGB_ZERO"><color>0.2 0.4 0.6 1</color></transparent>'
                      '<transparency><float>0.5</float></transparency></lambert>')
    assert material.rgba[3] == pytest.approx(1 - 0.4 * 0.5)


def textured(tmp_path, params='<param name="S" type="float"/><param name="T" type="float"/>',
             uv='0 0 1 0 0 1', stride=2):
    (tmp_path / 'img.png').write_bytes(b'\x89PNG\r\n\x1a\n')
    return f'''<?xml version="1.0" encoding="utf-8"?>
<COLLADA {NS}>
  <library_images><image id="img"><init_from>img.png</init_from></image></library_images>
  <library_effects><effect id="fx"><profile_COMMON>
    <newparam sid="surf"><surface type="2D"><init_from>img</init_from></surface></newparam>
    <newparam sid="samp"><sampler2D><source>surf</source></sampler2D></newparam>
    <technique sid="t"><lambert><diffuse><texture texture="samp" texcoord="UV"/></diffuse>
    </lambert></technique></profile_COMMON></effect></library_effects>
  <library_materials><material id="mat"><instance_effect url="#fx"/></material>
  </library_materials>
  <library_geometries><geometry id="q"><mesh>
    <source id="qp"><float_array id="qpa" count="9">0 0 0 1 0 0 0 1 0</float_array>
      <technique_common><accessor source="#qpa" count="3" stride="3">
        <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
      </accessor></technique_common></source>
    <source id="uv"><float_array id="uva" count="{len(uv.split())}">{uv}</float_array>
      <technique_common><accessor source="#uva" count="3" stride="{stride}">{params}
      </accessor></technique_common></source>
    <vertices id="qv"><input semantic="POSITION" source="#qp"/></vertices>
    <triangles material="m" count="1">
      <input semantic="VERTEX" source="#qv" offset="0"/>
      <input semantic="TEXCOORD" source="#uv" offset="1" set="0"/>
      <p>0 0 1 1 2 LAST</p></triangles>
  </mesh></geometry></library_geometries>
  <library_visual_scenes><visual_scene id="s"><node id="n">
    <instance_geometry url="#q">{BIND}</instance_geometry>
  </node></visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#s"/></scene>
</COLLADA>'''


def test_a_negative_texture_coordinate_index_is_one_line(tmp_path):
    # (pycollada refuses an index past the list itself; a negative one is left to the reader)
    text = textured(tmp_path)
    parts, _ = load(tmp_path, text.replace('LAST', '2'))
    assert parts[0].mesh.faces.shape == (1, 3)
    with pytest.raises(ModelError, match=r"m\.dae: COLLADA geometry 'q' TEXCOORD: index -1 out "
                                         'of range'):
        load(tmp_path, text.replace('LAST', '-1'))


def test_content_that_breaks_pycollada_is_one_line(tmp_path):
    # an instance_material without its target: pycollada fails inside (AttributeError)
    text = document('<node id="n"><instance_geometry url="#g"><bind_material><technique_common>'
                    '<instance_material symbol="m"/></technique_common></bind_material>'
                    '</instance_geometry></node>', extra=effect('<lambert/>'))
    with pytest.raises(ModelError, match=r'm\.dae: COLLADA content is broken \(AttributeError: '):
        load(tmp_path, text)


def test_xml_nested_past_lxmls_depth_limit_is_refused(tmp_path):
    # lxml's safe limits stay on (no huge_tree): 300 nested elements are refused at their line
    deep = '\n'.join(['<extra>'] * 300) + '</extra>' * 300
    with pytest.raises(ModelError, match=r'm\.dae:\d+: XML: '):
        load(tmp_path, document('<node id="n"><instance_geometry url="#g"/></node>', extra=deep))


def test_a_missing_node_lists_the_nodes_there_are(tmp_path):
    text = document('<node id="a" name="arm"><node id="b"><instance_geometry url="#g"/></node>'
                    '</node><node id="c"/>')
    with pytest.raises(ModelError) as err:
        load(tmp_path, text, 'hand')
    assert str(err.value).endswith("no COLLADA node with id or name 'hand' "
                                   "(nodes: 'a', 'arm', 'b', 'c')")


def test_lines_are_skipped_beside_triangles(tmp_path):
    lines = ('<lines material="m" count="1"><input semantic="VERTEX" source="#gv" offset="0"/>'
             '<p>0 1</p></lines>')
    box = geometry().replace('</mesh>', lines + '</mesh>')
    parts, said = load(tmp_path, document('<node id="n"><instance_geometry url="#g"/></node>',
                                          geometries=box))
    assert said == [] and len(parts[0].mesh.faces) == 12


def test_a_transparent_colour_of_three_values_has_alpha_one(tmp_path):
    # A_ONE without an alpha in <transparent>: its alpha is 1, the opacity the transparency
    material = shaded(tmp_path, '<lambert><diffuse><color>1 1 1 1</color></diffuse>'
                      '<transparent opaque="A_ONE"><color>0 0 0</color></transparent>'
                      '<transparency><float>0.5</float></transparency></lambert>')
    assert material.rgba[3] == pytest.approx(0.5)


def test_texture_coordinates_of_three_or_one_components(tmp_path):
    # S T P: the first two are u and v (v kept as COLLADA writes it, OpenGL's convention)
    stp = textured(tmp_path, '<param name="S" type="float"/><param name="T" type="float"/>'
                   '<param name="P" type="float"/>', '0 0 9 1 0 9 0 1 9', 3)
    (part,), _ = load(tmp_path, stp.replace('LAST', '2'))
    by_vertex = {tuple(v): tuple(t) for v, t in zip(part.mesh.vertices.tolist(),
                                                    part.mesh.texcoords.tolist())}
    assert by_vertex == {(0, 0, 0): (0, 0), (1, 0, 0): (1, 0), (0, 1, 0): (0, 1)}
    # a single S per corner is no pair of coordinates: one line, no traceback
    one = textured(tmp_path, '<param name="S" type="float"/>', '0 1 0', 1)
    with pytest.raises(ModelError, match=r'm\.dae: '):
        load(tmp_path, one.replace('LAST', '2'))


def test_every_node_walked_counts_against_the_visit_bound(tmp_path, monkeypatch):
    # five nodes, each with its instance_geometry: ten visits
    text = document(''.join(f'<node id="n{i}"><instance_geometry url="#g"/></node>'
                            for i in range(5)))
    monkeypatch.setattr(_common, 'MAX_NODE_VISITS', 10)
    assert len(load(tmp_path, text)[0]) == 1
    monkeypatch.setattr(_common, 'MAX_NODE_VISITS', 9)
    with pytest.raises(ModelError, match=r'm\.dae: more than 9 scene nodes to expand'):
        load(tmp_path, text)


def test_a_named_node_is_turned_by_its_ancestors(tmp_path):
    parts, _ = load(tmp_path, document(
        '<node id="p"><translate>0 0 7</translate><rotate>0 0 1 90</rotate>'
        '<node id="c"><instance_geometry url="#g"/></node></node>'), 'c')
    low, high = bounds(parts)  # the 1 x 2 x 3 box turned a quarter about z, not moved
    assert low == pytest.approx([-1, -0.5, -1.5]) and high == pytest.approx([1, 0.5, 1.5])


def test_polygon_sizes_that_do_not_add_up_to_the_indices_are_one_line(tmp_path):
    quads = geometry().replace('<triangles material="m" count="12">', '<polylist material="m" '
                               'count="2">').replace('</triangles>', '</polylist>')
    quads = quads.replace('<p>', '<vcount>3 4</vcount><p>')
    with pytest.raises(ModelError, match=r"m\.dae: COLLADA geometry 'g': polygon sizes do not "
                                         'match the indices$'):
        load(tmp_path, document('<node id="n"><instance_geometry url="#g"/></node>',
                                geometries=quads))


def test_shininess_is_the_specular_exponent_over_128(tmp_path):
    material = shaded(tmp_path, '<phong><shininess><float>32</float></shininess></phong>')
    assert material.shininess == pytest.approx(0.25)


def test_a_node_at_the_depth_limit_is_found_by_name(tmp_path):
    text = document(nested(_common.MAX_DEPTH + 1, '<instance_geometry url="#g"/>'))
    parts, _ = load(tmp_path, text, f'd{_common.MAX_DEPTH}')  # level 100: searched
    assert bounds(parts)[1] == pytest.approx([0.5, 1, 1.5])


def test_the_search_by_name_counts_against_the_visit_bound(tmp_path, monkeypatch):
    text = document(''.join(f'<node id="n{i}"><instance_geometry url="#g"/></node>'
                            for i in range(5)))  # ten visits to search it all
    monkeypatch.setattr(_common, 'MAX_NODE_VISITS', 10)
    with pytest.raises(ModelError, match='no COLLADA node with id or name'):
        load(tmp_path, text, 'hand')
    monkeypatch.setattr(_common, 'MAX_NODE_VISITS', 9)
    with pytest.raises(ModelError, match=r'm\.dae: more than 9 scene nodes to expand'):
        load(tmp_path, text, 'hand')


def test_a_texture_is_white_and_its_coordinates_may_be_absent(tmp_path):
    (part,), _ = load(tmp_path, textured(tmp_path).replace('LAST', '2'))
    assert part.material.rgba == (1.0, 1.0, 1.0, 1.0)  # the image's colour replaces diffuse
    assert part.material.texture == str(tmp_path / 'img.png')
    # a textured material on triangles without TEXCOORD: the texture kept, no coordinates
    plain = textured(tmp_path).replace('LAST', '2').replace(
        '<input semantic="TEXCOORD" source="#uv" offset="1" set="0"/>', '').replace(
        '<p>0 0 1 1 2 2</p>', '<p>0 1 2</p>')
    (part,), _ = load(tmp_path, plain)
    assert part.material.texture is not None and part.mesh.texcoords is None
