"""Every argument of every command is checked before any work, with one line and status 2:
numbers in their range, files to write in a folder that exists; problems go to stderr."""

import argparse
import math

import pytest

from body_bridge import cli
from body_bridge.arguments import OUTPUTS, Number

from conftest import SAMPLE_ARM
from test_cli import cli as run_cli

#: Options that take a text and are not files written (each was looked at: a new option must
#: be classified here or in arguments.OUTPUTS).
NOT_OUTPUTS = {('snapshot', 'camera'), ('snapshot', 'position'), ('snapshot', 'ground'),
               ('rviz', 'fixed_frame'), ('record', 'topics'), ('record', 'commands'),
               ('sweep', 'cluster')}
#: What each command needs besides the option tested.
REQUIRED = {'convert': [str(SAMPLE_ARM)], 'snapshot': [str(SAMPLE_ARM), '-o', 'x.png'],
            'rviz': [str(SAMPLE_ARM)], 'params': [], 'srdf': [str(SAMPLE_ARM), '-o', 'x.srdf'],
            'check': [str(SAMPLE_ARM)], 'info': [str(SAMPLE_ARM)], 'sim': [str(SAMPLE_ARM)],
            'record': [str(SAMPLE_ARM), '-o', 'x.bag'],
            'sweep': ['examples/sweep/crate_push.sweep.yaml', '-o', 'x.sweep']}


def subcommands() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in cli._parser()._actions
                  if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def options(kind) -> list[tuple[str, argparse.Action]]:
    """(command, option) of every option of every command that ``kind`` selects."""
    return [(command, a) for command, parser in subcommands().items()
            for a in parser._actions if a.option_strings and kind(a)]


NUMBERS = options(lambda a: isinstance(a.type, Number))
TEXTS = options(lambda a: a.nargs != 0 and not isinstance(a.type, Number)
                and a.dest != 'help')


def option_id(item) -> str:
    return f'{item[0]} {item[1].option_strings[-1]}'


def run(capsys, *args) -> tuple[int, str, str]:
    """``python -m body_bridge ARGS`` in this process: (status, stdout, stderr)."""
    try:
        status = cli.main([str(a) for a in args])
    except SystemExit as end:
        status = end.code
    out = capsys.readouterr()
    return status, out.out, out.err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert 'Traceback' not in err
    return lines[0]


# --- numbers -------------------------------------------------------------------------------

def test_every_numeric_option_has_a_range():
    """A number given to argparse as a plain int or float would take NaN, infinities and
    values that make no sense: every numeric option is a Number with its range."""
    plain = options(lambda a: a.type in (int, float))
    assert plain == []
    assert {option_id(n) for n in NUMBERS} == {
        'check --seconds', 'snapshot --width', 'snapshot --height', 'snapshot --azimuth',
        'snapshot --elevation', 'snapshot --time', 'srdf --samples', 'srdf --seed',
        'sim --foxglove', 'record --duration', 'record --real-time-factor', 'sweep --jobs',
        'sweep --retries'}


def bad_values(number: Number) -> list[str]:
    step = 1 if number.kind is int else 0.5
    values = ['nan', 'inf', '-inf', 'abc', repr(number.low - step), repr(number.high + step)]
    if number.kind is int:
        values.append('1.5')
    return values


@pytest.mark.parametrize('command, action', NUMBERS, ids=[option_id(n) for n in NUMBERS])
def test_every_numeric_option_refuses_what_is_out_of_range(capsys, tmp_path, command, action):
    option, number = action.option_strings[-1], action.type
    for value in bad_values(number):
        args = [command, *REQUIRED[command], f'{option}={value}']  # '-inf' is not an option
        status, out, err = run(capsys, *args)
        assert status == 2, (args, out)
        line = one_line(err)
        assert f'argument {option}' in line and value in line, line
        assert f"'{value}' is not {number.range()} (" in line, line
        assert '--help lists the options' in line
    # both ends of the range are taken
    parser = subcommands()[command]
    for value in (number.low, number.high):
        text = str(int(value)) if number.kind is int else repr(float(value))
        parsed = parser.parse_args([*REQUIRED[command], option, text])
        assert getattr(parsed, action.dest) == value


def test_the_ranges_are_what_the_commands_can_do():
    by_id = {option_id(n): n[1].type for n in NUMBERS}
    assert by_id['check --seconds'].low == 0.0  # 0: the model is compiled, not stepped
    assert by_id['check --seconds'].range() == 'a number from 0 to 3600 s'
    assert by_id['snapshot --width'].range() == f'a whole number from 1 to {cli.MAX_PIXELS}'
    assert by_id['snapshot --width'].low == 1 and by_id['snapshot --width'].high == \
        cli.MAX_PIXELS
    # straight up or down, a picture has no 'up': the view would be undefined (NaN)
    assert abs(by_id['snapshot --elevation'].high) < 90.0 > abs(by_id['snapshot --elevation'].low)
    with pytest.raises(argparse.ArgumentTypeError):
        by_id['srdf --seed']('-1')  # numpy's generators refuse negative seeds


def test_the_widest_picture_renders(tmp_path):
    """--width at its upper end is rendered (the driver's framebuffer holds it), not blamed
    on a missing OpenGL driver."""
    out = tmp_path / 'wide.png'
    proc = run_cli('snapshot', 'sample_arm', '-o', out, '--width', cli.MAX_PIXELS,
                   '--height', 8)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[16:24] == cli.MAX_PIXELS.to_bytes(4, 'big') + (8).to_bytes(4, 'big')


@pytest.mark.parametrize('value, why', [
    ('elbow_pitch=nan', 'elbow_pitch moves from -2.61799 to 2.61799'),
    ('elbow_pitch=inf', 'elbow_pitch moves from -2.61799 to 2.61799'),
    ('elbow_pitch=-inf', 'elbow_pitch moves from -2.61799 to 2.61799'),
    ('elbow_pitch=2.62', 'elbow_pitch moves from -2.61799 to 2.61799'),
    ('elbow_pitch=-7', 'elbow_pitch moves from -2.61799 to 2.61799'),
    ('elbow_pitch=one', "'one' is not a number"),
    ('knee=1', "'knee=1' is not JOINT=VALUE"),
])
def test_snapshot_positions_are_finite_and_within_the_limits(capsys, tmp_path, value, why):
    out = tmp_path / 'x.png'
    status, _, err = run(capsys, 'snapshot', 'sample_arm', '-o', out, '--position', value)
    assert status == 2
    line = one_line(err)
    assert line.startswith('parameter --position: ') and why in line, line
    assert not out.exists()


def test_snapshot_positions_at_the_limits_are_taken(capsys, tmp_path):
    from body_bridge.formats import load_model
    limits = load_model(SAMPLE_ARM).joint('elbow_pitch').limits
    positions = cli._positions([f'elbow_pitch={limits.upper!r}',
                                f'shoulder_pitch={-0.0}'], load_model(SAMPLE_ARM))
    assert positions == {'elbow_pitch': limits.upper, 'shoulder_pitch': 0.0}
    assert math.isfinite(limits.upper)


# --- files written -------------------------------------------------------------------------

def test_every_option_that_names_a_file_to_write_is_checked():
    written = {(c, a.dest) for c, a in TEXTS if (c, a.dest) not in NOT_OUTPUTS}
    assert written == {(c, d) for c, dests in OUTPUTS.items() for d in dests}


OUTPUT_OPTIONS = [(c, d) for c, dests in OUTPUTS.items() for d in dests]


@pytest.mark.parametrize('command, dest', OUTPUT_OPTIONS, ids=[f'{c} {d}' for c, d in
                                                               OUTPUT_OPTIONS])
def test_a_file_into_a_missing_folder_is_one_line(capsys, tmp_path, command, dest):
    option = '--' + dest.replace('_', '-')
    target = tmp_path / 'missing' / 'deeper' / 'out.file'
    args = [command, *REQUIRED[command]]
    if '-o' in args:  # the option replaces the command's own output
        args[args.index('-o') + 1] = str(tmp_path / 'fine.out')
    status, out, err = run(capsys, *args, option, target)
    assert status == 2
    line = one_line(err)
    assert line == f'{option} {target}: the folder {target.parent} does not exist'
    assert not (tmp_path / 'missing').exists() and not (tmp_path / 'fine.out').exists()


@pytest.mark.parametrize('command, dest', [('convert', 'output'), ('snapshot', 'output'),
                                           ('srdf', 'output'), ('params', 'write')])
def test_a_file_that_is_a_folder_is_one_line(capsys, tmp_path, command, dest):
    option = '--' + dest
    args = [command, *REQUIRED[command]]
    if '-o' in args:
        del args[args.index('-o'):args.index('-o') + 2]
    status, _, err = run(capsys, *args, option, tmp_path)
    assert status == 2
    assert one_line(err) == f'{option} {tmp_path}: is a folder, not a file'


def test_a_folder_path_through_a_file_is_one_line(capsys, tmp_path):
    (tmp_path / 'file').write_text('')
    target = tmp_path / 'file' / 'arm.urdf'
    status, _, err = run(capsys, 'convert', 'sample_arm', '-o', target)
    assert status == 2
    assert one_line(err) == f'--output {target}: the folder {target.parent} is not a folder'


@pytest.mark.ros  # params reads the node's parameters
def test_a_file_to_read_that_is_missing_is_one_line(capsys, tmp_path):
    """params --write reads the page it rewrites: gone, it is one line too (any file error
    the system reports is)."""
    status, _, err = run(capsys, 'params', '--write', tmp_path / 'none.md')
    assert status == 2
    assert one_line(err) == f'params: {tmp_path / "none.md"}: No such file or directory'


def test_a_missing_folder_as_the_user_sees_it(tmp_path):
    proc = run_cli('convert', 'sample_arm', '-o', tmp_path / 'no' / 'arm.urdf')
    assert proc.returncode == 2 and proc.stdout == ''
    assert proc.stderr == f'--output {tmp_path / "no" / "arm.urdf"}: the folder ' \
        f'{tmp_path / "no"} does not exist\n'


def test_argument_mistakes_are_one_line_as_the_user_sees_them():
    for args in (['check', 'sample_arm', '--seconds', '-1'], ['snapshot', 'sample_arm'],
                 ['convert'], ['frobnicate'], ['info', 'sample_arm', '--colour']):
        proc = run_cli(*args)
        assert proc.returncode == 2, args
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert proc.stderr.startswith('python -m body_bridge'), proc.stderr


@pytest.mark.parametrize('error, status', [
    (BrokenPipeError(32, 'Broken pipe'), 0),  # `| head`: the reader is gone, nothing to say
    (PermissionError(13, 'Permission denied', '/root/x.urdf'), 2),
    (OSError(28, 'No space left on device', '/tmp/x.png'), 2),
])
def test_file_errors_while_working_are_one_line(capsys, monkeypatch, error, status):
    def fail(args):
        raise error
    monkeypatch.setitem(cli._COMMANDS, 'convert', fail)
    code, _, err = run(capsys, 'convert', 'sample_arm')
    assert code == status
    if status:
        assert one_line(err) == f'convert: {error.filename}: {error.strerror}'
    else:
        assert err == ''


def test_an_os_error_without_a_file_is_not_hidden(capsys, monkeypatch):
    def fail(args):
        raise ConnectionResetError(104, 'Connection reset by peer')
    monkeypatch.setitem(cli._COMMANDS, 'convert', fail)
    with pytest.raises(ConnectionResetError):
        cli.main(['convert', 'sample_arm'])


def test_a_mesh_folder_that_is_a_file_is_one_line(capsys, tmp_path):
    (tmp_path / 'meshes').write_text('')
    status, _, err = run(capsys, 'convert', 'sample_arm', '-o', tmp_path / 'arm.urdf',
                         '--mesh-dir', tmp_path / 'meshes')
    assert status == 2
    assert one_line(err) == f'--mesh-dir {tmp_path / "meshes"}: exists and is not a folder'
    assert not (tmp_path / 'arm.urdf').exists()
    (tmp_path / 'made').mkdir()  # a mesh folder that exists is what it should be
    status, _, err = run(capsys, 'convert', 'sample_arm', '-o', tmp_path / 'arm.urdf',
                         '--mesh-dir', tmp_path / 'made')
    assert status == 0 and (tmp_path / 'arm.urdf').exists(), err


@pytest.mark.parametrize('command, dest', [('record', 'output'), ('sim', 'record')])
def test_a_bag_folder_that_exists_is_refused_in_one_line(tmp_path, command, dest):
    from body_bridge.arguments import OutputError, check_outputs
    option = '--' + dest.replace('_', '-')
    check_outputs(command, argparse.Namespace(**{dest: str(tmp_path / 'new_bag')}))
    (tmp_path / 'old_bag').mkdir()
    with pytest.raises(OutputError) as refused:
        check_outputs(command, argparse.Namespace(**{dest: str(tmp_path / 'old_bag')}))
    assert str(refused.value) == (f'{option} {tmp_path / "old_bag"}: already exists (a bag is '
                                  'written into a new folder)')


def test_a_sweeps_folder_may_exist_but_not_be_a_file(capsys, tmp_path):
    (tmp_path / 'file').write_text('')
    status, _, err = run(capsys, 'sweep', 'examples/sweep/crate_push.sweep.yaml', '-o',
                         tmp_path / 'file')
    assert status == 2
    assert one_line(err) == f'--output {tmp_path / "file"}: exists and is not a folder'
