"""What the node's parameters change in the model before anything is made of it: the root
joint (``root``) and the joints that start free (``passive_joints``), both said at start.

:mod:`body_bridge.sim.building.rootchoice` makes the choices; a bad value is a one-line
``ParameterError``. Without simulation (``simulate: false``) the model is taken as it is.
"""

from __future__ import annotations

from ...errors import ParameterError
from ...sim.building.rootchoice import choose_root, with_passive

__all__ = ['apply_model_choices']


def _names(value: str) -> list[str]:
    return [n for n in value.replace(',', ' ').split() if n]


def apply_model_choices(node) -> None:
    """Set ``node.model`` and ``node.root_taken`` (``fixed``, ``free``, ``planar``; None
    without simulation) from the parameters; what was taken goes to ``node.start_notes``,
    which the node logs once it has started (a start that fails says only why).

    Raises:
        ParameterError: a root choice that is not one, or a passive joint that is not one.
    """
    p = node.params
    node.root_taken, node.start_notes = None, []
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
    node.model, node.root_taken = model, taken
    node.start_notes.append(f'root: {taken} ({why})')
    if model.passive_joints:
        node.start_notes.append('passive joints (free, no servo holds them until a command '
                                'names them): ' + ', '.join(model.passive_joints))
