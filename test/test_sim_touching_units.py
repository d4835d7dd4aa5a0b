"""sim/building/touching.py: which links touch, joint by joint, on a small model of its own."""

import math

import numpy as np
import pytest

from body_bridge.model import (Box, Inertial, Joint, Limits, Link, Mimic, Model, Pose, Shape,
                               Sphere)
from body_bridge.sim.building.touching import ShapeContacts


def cube(at):
    return Shape(Box((0.1, 0.1, 0.1)), Pose(at))


def turntable():
    """An arm and its mirror image turn about z over a base; at a quarter turn each lands on a
    post, one on +y, the other on -y. A lamp on the base is seen, never touched."""
    mass = Inertial(1.0, (0, 0, 0), np.eye(3) * 0.01)
    links = (Link('base', collisions=(cube((0, 0, 0)),)),
             Link('arm', inertial=mass, collisions=(cube((0.3, 0, 0)),)),
             Link('twin', inertial=mass, collisions=(cube((0.3, 0, 0)),)),
             Link('post', Pose((0, 0.3, 0)), collisions=(cube((0, 0, 0)),)),
             Link('stake', Pose((0, -0.41, 0)), collisions=(cube((0, 0, 0)),)),
             Link('lamp', Pose((0, 0, 0.5)), visuals=(Shape(Sphere(0.05)),)))
    joints = (Joint('turn', 'revolute', 'base', 'arm', (0, 0, 1), Limits(-3.0, 3.0)),
              Joint('mirror', 'revolute', 'base', 'twin', (0, 0, 1), Limits(-3.0, 3.0),
                    mimic=Mimic('turn', -1.0, 0.0)),
              Joint('p', 'fixed', 'base', 'post'), Joint('s', 'fixed', 'base', 'stake'),
              Joint('l', 'fixed', 'base', 'lamp'))
    return Model('turntable', links, joints, 'base')


def test_the_free_joints_and_the_links_that_can_touch():
    shapes = ShapeContacts(turntable())
    assert [j.name for j in shapes.free] == ['turn']
    assert shapes.links == ['arm', 'base', 'post', 'stake', 'twin']


def test_links_touch_where_the_joints_and_their_formulas_put_them():
    shapes = ShapeContacts(turntable())
    assert shapes.touching(np.array([0.0])) == {('arm', 'twin')}  # both at +x
    # a quarter turn: the arm on the post; its mirror, turned the other way, 1 cm short of
    # the stake
    assert shapes.touching(np.array([math.pi / 2])) == {('arm', 'post')}
    assert shapes.touching(np.array([-math.pi / 2])) == {('post', 'twin')}


def test_a_margin_counts_shapes_that_near_each_other():
    shapes = ShapeContacts(turntable(), margin=0.02)
    assert shapes.touching(np.array([math.pi / 2])) == {('arm', 'post'), ('stake', 'twin')}


def test_a_formula_that_cannot_be_evaluated_puts_its_joint_at_zero():
    model = turntable()
    joints = tuple(Joint(j.name, j.type, j.parent, j.child, j.axis, j.limits,
                         mimic=Mimic('turn', expression='sqrt(turn + 1) - 1'))
                   if j.name == 'mirror' else j for j in model.joints)
    from dataclasses import replace
    shapes = ShapeContacts(replace(model, joints=joints))
    # no square root below a turn of -1: the twin stays at +x, where it touches nothing
    assert shapes.touching(np.array([-math.pi / 2])) == set()
    assert shapes.data.qpos[shapes.qadr['mirror']] == 0.0
    assert shapes.touching(np.array([0.0])) == {('arm', 'twin')}


def test_the_margin_is_the_pairs_not_the_sum_of_its_shapes():
    """The twin's cube stops 1 cm short of the stake at a quarter turn: a margin of 6 mm does
    not reach it (MuJoCo alone would count the two shapes' 6 mm each), one of 11 mm does."""
    quarter = np.array([math.pi / 2])
    assert ShapeContacts(turntable(), margin=0.006).touching(quarter) == {('arm', 'post')}
    assert ShapeContacts(turntable(), margin=0.011).touching(quarter) == {('arm', 'post'),
                                                                         ('stake', 'twin')}
