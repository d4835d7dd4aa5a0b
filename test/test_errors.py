"""The one line an error prints (errors.py): where (file, line, or the model itself) and what,
with a hostile file name's control characters escaped and whitespace runs made one space."""

from body_bridge.errors import CommandError, ModelError, ParameterError, UnsupportedError, where


def test_the_place_is_the_file_and_line_or_the_model():
    assert where(None) == '<model>' and where(None, 4) == '<model>'
    assert where('a.body') == 'a.body' and where('a.body', 7) == 'a.body:7'
    assert str(ModelError(None, None, 'no root')) == '<model>: no root'
    err = ModelError('a.body', 3, 'bad\n  joint')
    assert (str(err), err.path, err.line, err.message) == ('a.body:3: bad joint', 'a.body', 3,
                                                           'bad joint')
    assert isinstance(UnsupportedError('x.dae', None, 'no'), ModelError)


def test_control_characters_of_a_hostile_name_are_escaped():
    err = ModelError('evil\x1b[2J.body', 1, 'link \x00x\x7f is bad é')
    assert str(err) == 'evil\\x1b[2J.body:1: link \\x00x\\x7f is bad é'
    assert err.message == 'link \\x00x\\x7f is bad é'


def test_parameter_and_command_errors_are_one_line():
    err = ParameterError('controllers.arm.joints', 'empty\n list')
    assert str(err) == 'parameter controllers.arm.joints: empty list' and err.name.endswith('joints')
    assert str(CommandError('rejected')) == 'rejected'
