"""Checking a model before the bridge restarts with it (``~/reload``, the ``model``
parameter): everything the restart would do that can fail, done aside, so that a model that
fails leaves the running one as it is."""

from __future__ import annotations

from ... import urdf as urdf_writer
from ...device_overlay import apply_overlay, load_overlay
from ...errors import BodyBridgeError
from ...formats import load_model
from ...paths import cache_dir, resolve_model
from . import params as P
from ..control.commands import read_controllers

__all__ = ['reload_problem']


def reload_problem(node, spec: str) -> str | None:
    """What is wrong, in one line, with restarting ``node`` (a BridgeNode) on the model
    ``spec``; None when the restart can go ahead. The running model is not touched."""
    p = node.params
    try:
        model = load_model(resolve_model(spec), p['material_table'] or None)
        model = apply_overlay(model, load_overlay(p['devices_file'], model))
        commanded = [j.name for j in model.movable_joints if j.mimic is None]
        P.read_gains(P.group(node, 'gains'), commanded)
        initial, _ = P.read_initial_positions(P.group(node, 'initial_positions'), model)
        controllers, _ = read_controllers(P.group(node, 'controllers'), commanded,
                                          kinematic=p['kinematic'])
        from ..control.grippers import find_grippers
        find_grippers(model, controllers, commanded)
        urdf_writer.to_urdf(model, mesh_dir=p['mesh_directory'] or cache_dir('meshes'))
        if p['simulate']:
            from dataclasses import replace
            from ...sim.building.world import World
            World([(model, replace(node.sim_options(), initial_positions=initial))])
    except BodyBridgeError as err:
        return str(err)
    except Exception as err:  # noqa: BLE001 - a reload must never take the running model down
        return f'{spec}: the model cannot be loaded ({type(err).__name__}: {err})'
    return None
