"""OpenRAVE ``<mass>`` (body_bridge.formats.openrave.mass): masses, centres and inertias of
each mass type against the solids' formulas, and the warnings and errors of bad numbers."""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.formats.openrave.mass import link_inertial, read_mass
from body_bridge.formats.openrave.xmlfile import parse_bytes


def mass_of(xml: str, geoms=(), allow_custom=True):
    warnings = []
    element = parse_bytes(xml.encode(), 'm.xml')
    spec = read_mass(element, lambda e, m: warnings.append(f'{e.where()}: {m}'), allow_custom)
    return link_inertial(spec, list(geoms)), warnings


def link(folder, body: str):
    path = folder / 'm.kinbody.xml'
    path.write_text(textwrap.dedent(f"""\
        <KinBody name="k">
          <Body name="a" type="static">
            {body}
          </Body>
        </KinBody>
        """))
    model = load_model(path)
    return model.link('a').inertial, model.warnings


def test_custom_inertia_symmetric_within_rounding_gives_no_warning():
    # an asymmetry of exactly 1e-9 of the largest entry (at least 1) is rounding
    inertial, warnings = mass_of('<mass type="custom"><total>2</total><com>1 2 3</com>'
                                 '<inertia>1 1e-9 0 0 1 0 0 0 1</inertia></mass>')
    assert warnings == []
    assert inertial.mass == 2.0
    np.testing.assert_array_equal(inertial.com, [1, 2, 3])
    expected = np.eye(3)
    expected[0, 1] = expected[1, 0] = 0.5e-9      # the symmetric part
    np.testing.assert_allclose(inertial.inertia, expected, rtol=0, atol=1e-18)
    # large entries: the tolerance grows with them
    _, warnings = mass_of('<mass type="custom"><inertia>1e6 1e-4 0 0 1e6 0 0 0 1e6</inertia>'
                          '</mass>')
    assert warnings == []
    inertial, warnings = mass_of('<mass type="custom"><inertia>1 0.2 0 0 1 0 0 0 1</inertia>'
                                 '</mass>')
    assert warnings == ['m.xml:1: <inertia> is not symmetric; its symmetric part is used']
    assert inertial.inertia[0, 1] == inertial.inertia[1, 0] == pytest.approx(0.1)
    assert inertial.mass == 1.0


def test_sphere_and_box_masses_from_density_or_total():
    inertial, _ = mass_of('<mass type="sphere"><radius>0.5</radius><density>3</density></mass>')
    m = 4.0 / 3.0 * math.pi * 0.125 * 3
    assert inertial.mass == pytest.approx(m)
    np.testing.assert_allclose(inertial.inertia, 0.4 * m * 0.25 * np.eye(3))
    # half extents 0.5 1 2: sides 1, 2, 4; the solid box's moments m (b^2 + c^2) / 12 over the
    # full sides (OpenRAVE's own GetBoxMass puts the half extents there: a quarter of these)
    inertial, _ = mass_of('<mass type="box"><extents>0.5 1 2</extents><total>6</total></mass>')
    assert inertial.mass == 6.0
    np.testing.assert_allclose(inertial.inertia, 2.0 * np.diag([5.0, 4.25, 1.25]))
    inertial, _ = mass_of('<mass type="box"><extents>0.5 1 2</extents></mass>')
    assert inertial.mass == pytest.approx(8.0)      # 1 m x 2 m x 4 m of density 1


def test_mimicgeom_cylinder_follows_its_axis(tmp_path):
    # OpenRAVE's cylinder is along y: radius 0.1, height 0.6, density 1000
    inertial, _ = link(tmp_path, '<Geom type="cylinder"><radius>0.1</radius>'
                                 '<height>0.6</height></Geom>'
                                 '<mass type="mimicgeom"><density>1000</density></mass>')
    m = 1000 * math.pi * 0.01 * 0.6
    side = m * (0.25 * 0.01 + 0.36 / 12)
    assert inertial.mass == pytest.approx(m)
    np.testing.assert_allclose(inertial.inertia, np.diag([side, 0.5 * m * 0.01, side]),
                               atol=1e-12)


def test_mimicgeom_parts_add_about_their_common_centre(tmp_path):
    # two 1 kg-per-part spheres (total 2 shared by volume) at x = 0 and x = 2: centre x = 1
    inertial, _ = link(tmp_path, '<Geom type="sphere"><radius>0.1</radius></Geom>'
                                 '<Geom type="sphere"><translation>2 0 0</translation>'
                                 '<radius>0.1</radius></Geom>'
                                 '<mass type="mimicgeom"><total>2</total></mass>')
    assert inertial.mass == pytest.approx(2.0)
    np.testing.assert_allclose(inertial.com, [1, 0, 0], atol=1e-12)
    own = 0.4 * 1.0 * 0.01
    np.testing.assert_allclose(inertial.inertia, np.diag([2 * own, 2 * own + 2, 2 * own + 2]),
                               atol=1e-12)


def test_no_mass_is_openraves_default_and_bad_masses_are_one_line(tmp_path):
    inertial, _ = link(tmp_path, '<Geom type="box"><extents>1 1 1</extents></Geom>')
    assert inertial.mass == 1.0
    np.testing.assert_allclose(inertial.inertia, 0.4 * np.eye(3))
    with pytest.raises(ModelError, match=r"^m.xml:1: mass type 'custom' is not one of "
                                         r"mimicgeom, box, sphere$"):
        mass_of('<mass type="custom"/>', allow_custom=False)
    with pytest.raises(ModelError, match=r'^m.xml:1: <total> must not be negative$'):
        mass_of('<mass><total>-1</total></mass>')
    with pytest.raises(ModelError, match='a mimicgeom <total> mass needs box, sphere or '):
        mass_of('<mass type="mimicgeom"><total>1</total></mass>')


def test_zero_density_or_total_is_allowed_and_weighs_nothing():
    # only a negative number is refused ("must not be negative"): 0 is a massless link
    for xml in ('<mass type="sphere"><radius>0.5</radius><total>0</total></mass>',
                '<mass type="box"><extents>1 2 3</extents><density>0</density></mass>'):
        inertial, warnings = mass_of(xml)
        assert inertial.mass == 0.0 and warnings == []
        np.testing.assert_array_equal(inertial.inertia, np.zeros((3, 3)))


def test_custom_without_inertia_keeps_the_default_spheres_and_a_box_its_unit_extents():
    # custom: the total moves, the inertia stays that of 1 kg in a sphere of radius 1 m,
    # 2/5 m r^2 = 0.4 kg m^2 (OpenRAVE's default mass, as a link without <mass> has)
    inertial, _ = mass_of('<mass type="custom"><total>3</total></mass>')
    assert inertial.mass == 3.0
    np.testing.assert_allclose(inertial.inertia, 0.4 * np.eye(3), rtol=1e-12)
    # a box without <extents>: half-extents of 1 m, a cube of side 2 m: 8 m^3 at density 2,
    # 16 kg; each moment m (2^2 + 2^2) / 12 = 16 * 8 / 12
    inertial, _ = mass_of('<mass type="box"><density>2</density></mass>')
    assert inertial.mass == pytest.approx(16.0)
    np.testing.assert_allclose(inertial.inertia, 16 * 8 / 12 * np.eye(3), rtol=1e-12)
