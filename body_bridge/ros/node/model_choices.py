"""What the node's parameters change in the model before anything is made of it: the root
joint (``root``), the joints that start free (``passive_joints``) and the ball casters that
roll (``casters``), all said at start: why the root was taken (the node adds why cmd_vel is
or is not offered to that line), and the ball casters the file welds, which drag.

:mod:`body_bridge.sim.building.rootchoice` makes the choices; a bad value is a one-line
``ParameterError``. Without simulation (``simulate: false``) the model is taken as it is.
"""

from __future__ import annotations

from ...errors import ParameterError
from ...sim.building.casters import caster_note, check_caster_names
from ...sim.building.rootchoice import choose_root, ground_contacts, with_passive

__all__ = ['apply_model_choices']


def _names(value: str) -> list[str]:
    return [n for n in value.replace(',', ' ').split() if n]


def apply_model_choices(node) -> None:
    """Set ``node.model``, ``node.root_taken`` (``fixed``, ``free``, ``planar``; None
    without simulation) and ``node.casters`` (the links of rolling casters) from the
    parameters; what was taken goes to ``node.start_notes`` (the root first), which the node
    logs once it has started (a start that fails says only why).

    Raises:
        ParameterError: a root choice that is not one, a passive joint that is not one, or a
            caster that is no link with a sphere.
    """
    p = node.params
    node.root_taken, node.start_notes, node.casters = None, [], ()
    if not p['simulate']:
        return
    try:
        model, taken, why = choose_root(node.model, p['root'])
    except ValueError as err:
        raise ParameterError('root', str(err)) from None
    try:
        model = with_passive(model, _names(p['passive_joints']))
    except ValueError as err:
        raise ParameterError('passive_joints', str(err)) from None
    try:
        node.casters = check_caster_names(model, _names(p['casters']))
    except ValueError as err:
        raise ParameterError('casters', str(err)) from None
    node.model, node.root_taken = model, taken
    node.start_notes.append(f'root: {taken} ({why})')
    if node.casters:
        node.start_notes.append(f'ball casters {", ".join(node.casters)} roll (their contacts '
                                'are frictionless: the casters parameter)')
    if taken == 'free':
        note = caster_note(ground_contacts(model)[1], node.casters)
        if note:
            node.start_notes.append(note)
    if model.passive_joints:
        node.start_notes.append('passive joints (free, no servo holds them until a command '
                                'names them): ' + ', '.join(model.passive_joints))
