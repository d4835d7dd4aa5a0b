"""The parameter reference (ros/node/params_doc.py) in this process: the run-time column, the plain
text of ``params``, the default of each type, and the block ``--write`` replaces. That the
page in docs/ is the current table is checked in test_docs.py."""

from __future__ import annotations

import pytest

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from body_bridge.ros.node import params_doc
from body_bridge.ros.node.params import PARAMETERS
from body_bridge.ros.node.params_doc import BEGIN, END, GROUP_ROWS, at_run_time, markdown, text


def test_what_a_change_at_run_time_does():
    assert at_run_time('real_time_factor').startswith('settable: ')
    assert at_run_time('ground_plane').startswith('read-only: ')
    assert at_run_time('gains') == 'read-only: the servos are tuned at start'
    assert at_run_time('devices') == 'settable: applies at the next reading'
    with pytest.raises(KeyError, match='nonsense: no run-time behaviour documented'):
        at_run_time('nonsense')


def test_the_text_has_a_paragraph_per_parameter_and_group():
    paragraphs = text().rstrip('\n').split('\n    ')
    assert len(paragraphs) == len(PARAMETERS) + len(GROUP_ROWS) + 1
    out = text()
    assert ('gains.<joint>.p, gains.<joint>.d (double, default from servo_frequency; '
            'read-only: the servos are tuned at start)\n    Servo stiffness') in out
    assert "initial_positions.<joint> (double, default the file's; read-only: " in out
    assert 'real_time_factor (double, default 1.0; settable: ' in out


@pytest.mark.parametrize('value, ptype, shown', [
    (True, 'bool', 'true'), (False, 'bool', 'false'), ('', 'string', '`""`'),
    ('odom', 'string', '`odom`'), ([0, 1.5], 'double[]', '`[0.0, 1.5]`'),
    (7, 'integer', '`7`'), (2, 'double', '`2.0`')])
def test_defaults_as_the_table_shows_them(monkeypatch, value, ptype, shown):
    kinds = {v: k for k, v in params_doc._TYPES.items()}
    monkeypatch.setattr(params_doc, 'PARAMETERS', {'p': (value, kinds[ptype], 'What | it is.')})
    monkeypatch.setattr(params_doc, 'at_run_time', lambda name: 'read-only: a|b')
    assert markdown().splitlines()[2] == f'| `p` | {ptype} | {shown} | read-only: a\\|b | ' \
        'What \\| it is. |'
    assert text().startswith(f'p ({ptype}, default {shown.strip("`")}; read-only: a|b)\n'
                             '    What | it is.\n')


def test_the_block_between_the_markers_is_replaced():
    table = markdown()
    assert params_doc.replace_block(f'{BEGIN}\nold\n{END}\nafter') == \
        f'{BEGIN}\n\n{table}\n{END}\nafter'
    assert params_doc.replace_block(f'x\n{BEGIN}{END}') == f'x\n{BEGIN}\n\n{table}\n{END}'


@pytest.mark.parametrize('document', ['nothing', f'{BEGIN} only', f'{END} only',
                                      f'{END}\n{BEGIN}'])
def test_a_document_without_the_block_is_refused(document):
    with pytest.raises(ValueError, match='no block between'):
        params_doc.replace_block(document)
