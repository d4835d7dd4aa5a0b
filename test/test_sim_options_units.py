"""The integrator's settings of a program using the package (SimOptions, BuildOptions) are
the node's defaults (config/body_bridge.yaml): a script and the bridge simulate alike."""

import dataclasses

import pytest
import yaml

from body_bridge.sim.building.build import BuildOptions
from body_bridge.sim.building.options import SimOptions

from conftest import REPO


def test_the_librarys_defaults_are_the_nodes():
    config = yaml.safe_load((REPO / 'config' / 'body_bridge.yaml').read_text())
    node = config['/**']['ros__parameters']
    options, build = SimOptions(), BuildOptions()
    assert options.control_period == 1.0 / node['control_rate']
    for name in ('servo_frequency', 'servo_damping', 'gravity_compensation', 'kinematic',
                 'default_velocity_limit', 'on_divergence', 'track_lateral_friction'):
        assert getattr(options, name) == node[name], name
    for name in ('timestep', 'ground_plane', 'self_collision'):
        assert getattr(build, name) == node[name], name
    assert options.build == build and not build.kinematic and build.contact_bit == 0
    assert (dict(options.initial_positions), dict(options.gains)) == ({}, {})
    assert options.initial_pose.is_identity()
    with pytest.raises(dataclasses.FrozenInstanceError):  # one value shared by a world
        options.kinematic = True
