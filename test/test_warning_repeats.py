"""A loader warning repeated with other names is said once, with its count and the first few
places (``formats/repeats.py``), whichever format or check gave it."""

import pytest

from body_bridge.formats import load_model
from body_bridge.formats.repeats import FOLD_FROM, NAMED, SHOWN, fold_repeats

KEY = "{path}:{line}: link '{name}': key 'gearRatio' is not supported and was ignored"


def repeated(n: int, path: str = 'r.body') -> list[str]:
    return [KEY.format(path=path, line=10 * (i + 1), name=f'J{i + 1}') for i in range(n)]


def test_one_problem_on_every_joint_is_one_line_with_count_and_first_names():
    folded = fold_repeats(repeated(16))
    assert folded == (KEY.format(path='r.body', line=10, name='J1') +
                      " (16 warnings like this one; the others at 'J2' (line 20), 'J3' "
                      "(line 30), 'J4' (line 40), " +
                      ', '.join(f"'J{i}'" for i in range(5, 17)) + ')',)
    assert NAMED == 20
    many, = fold_repeats(repeated(30))
    assert many.endswith(", 'J21' and 9 more)") and "'J22'" not in many


def test_few_repeats_stay_as_they_are():
    assert FOLD_FROM == 3 and SHOWN == 3
    assert fold_repeats(repeated(2)) == tuple(repeated(2))
    assert fold_repeats(repeated(3))[0].endswith(
        "(3 warnings like this one; the others at 'J2' (line 20), 'J3' (line 30))")
    assert fold_repeats(repeated(4))[0].endswith(
        "(4 warnings like this one; the others at 'J2' (line 20), 'J3' (line 30), 'J4' "
        "(line 40))")
    assert fold_repeats(repeated(5), fold_from=6) == tuple(repeated(5))
    assert fold_repeats(repeated(5), shown=1)[0].endswith(
        "the others at 'J2' (line 20), 'J3', 'J4', 'J5')")
    assert fold_repeats(repeated(5), named=2)[0].endswith(
        "the others at 'J2' (line 20), 'J3' (line 30) and 2 more)")


def test_other_problems_and_other_files_are_kept_apart_in_order():
    other = "r.body:15: link 'J1': key 'rotorInertia' is not supported and was ignored"
    lines = [other, *repeated(4), 'r.body:99: the root has no mass', *repeated(3, 'q.body')]
    folded = fold_repeats(lines)
    assert folded == (
        other,  # another key: another problem, even on the same link
        KEY.format(path='r.body', line=10, name='J1') + " (4 warnings like this one; the "
        "others at 'J2' (line 20), 'J3' (line 30), 'J4' (line 40))",
        'r.body:99: the root has no mass',
        KEY.format(path='q.body', line=10, name='J1') + " (3 warnings like this one; the "
        "others at 'J2' (line 20), 'J3' (line 30))")


def test_numbers_vary_within_one_problem_but_are_not_shown_as_names():
    lines = [f"a.xml:{3 + i}: link 'L{i}': principal inertia moments {i}.5, 1, {i + 9} kg m^2 "
             'are not physical' for i in range(3)]
    folded, = fold_repeats(lines)
    assert folded == lines[0] + " (3 warnings like this one; the others at 'L1' (line 4), " \
        "'L2' (line 5))"


def test_counts_a_loader_gave_add_up():
    lines = ["m.body:20: material: key 'shinines' is not supported and was ignored (7 times)",
             "m.body:10: material: key 'shinines' is not supported and was ignored",
             "m.body:15: material: key 'shinines' is not supported and was ignored (8 times)"]
    assert fold_repeats(lines) == (
        "m.body:20: material: key 'shinines' is not supported and was ignored (16 warnings "
        "like this one; the others at line 10, line 15)",)
    assert fold_repeats(lines[:2]) == tuple(lines[:2])


def test_warnings_without_a_place():
    lines = ["device 'a' is not simulated", "device 'b' is not simulated",
             "device 'c' is not simulated"]
    assert fold_repeats(lines) == (
        "device 'a' is not simulated (3 warnings like this one; the others at 'b', 'c')",)
    same = ['no line here'] * 3
    assert fold_repeats(same) == ('no line here (3 warnings like this one)',)
    assert fold_repeats([]) == ()


def test_paths_with_colons_and_lines():
    lines = [f"C:/m/r.body:{i}: link 'J{i}': mass 0" for i in (1, 2, 3)]
    assert fold_repeats(lines)[0].endswith("the others at 'J2' (line 2), 'J3' (line 3))")


# --- through the loaders --------------------------------------------------------------------

JOINT = """  - name: j{i}
    parent: j{p}
    jointType: revolute
    jointAxis: [ 0, 0, 1 ]
    jointId: {i}
    jointMotorForceRange: [ -10, 10 ]
    translation: [ 0, 0, 0.1 ]
    mass: 0.5
    inertia: [ 0.001, 0, 0, 0.001, 0, 0.001 ]
"""


@pytest.mark.parametrize('joints', [2, 6])
def test_a_key_ignored_on_every_joint_of_a_body_file_is_said_once(tmp_path, joints):
    text = ('format: ChoreonoidBody\nformat_version: 2.0\nname: chain\nlinks:\n'
            '  - name: j0\n    jointType: fixed\n    mass: 1.0\n'
            '    inertia: [ 0.01, 0, 0, 0.01, 0, 0.01 ]\n' +
            ''.join(JOINT.format(i=i, p=i - 1) for i in range(1, joints + 1)))
    path = tmp_path / 'chain.body'
    path.write_text(text)
    warnings = [w for w in load_model(path).warnings if 'jointMotorForceRange' in w]
    if joints < FOLD_FROM:
        assert len(warnings) == joints
        return
    assert len(warnings) == 1
    assert warnings[0].startswith(f"{path}:9: link 'j1': key 'jointMotorForceRange' is not "
                                  'supported and was ignored')
    assert warnings[0].endswith(f"({joints} warnings like this one; the others at 'j2' "
                                "(line 18), 'j3' (line 27), 'j4' (line 36), 'j5', 'j6')")
