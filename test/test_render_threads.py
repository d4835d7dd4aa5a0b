"""A camera renders from whichever thread steps the world (the simulation thread, or the
executor's when ~/step or ~/reset publishes)."""

import threading

import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.sim.sensing.sensors import SensorSuite
from body_bridge.sim.simulation import Simulation

from conftest import SAMPLE_ARM


def test_one_renderer_serves_several_threads_in_turn():
    sim = Simulation(load_model(SAMPLE_ARM))
    suite = SensorSuite(sim)
    camera = suite.samplers['hand_camera']
    images, errors = [], []

    def read():
        try:
            images.append(camera.read(color=True, depth=True).depth.copy())
        except Exception as err:  # noqa: BLE001 - reported below
            errors.append(err)
    try:
        read()  # this thread first, as the node does when it publishes the initial state
        for _ in range(3):
            thread = threading.Thread(target=read)
            thread.start()
            thread.join()
        read()
    finally:
        suite.close()
    assert errors == []
    assert len(images) == 5 and all(np.array_equal(images[0], im) for im in images[1:])


def test_a_context_held_by_another_thread_is_a_render_error():
    """A render that cannot take the GL context fails as RenderError (the node catches that),
    not with the backend's own exception."""
    from body_bridge.sim.sensing.render import RenderError
    sim = Simulation(load_model(SAMPLE_ARM))
    suite = SensorSuite(sim)
    camera = suite.samplers['hand_camera']
    try:
        camera.read(color=True, depth=False)
        gl = suite._renderer._gl
        holder = threading.Thread(target=gl.make_current)  # keeps it current there
        holder.start()
        holder.join()
        with pytest.raises(RenderError, match='offscreen rendering failed'):
            camera.read(color=True, depth=False)
    finally:
        suite._renderer = None  # its context belongs to the ended thread; not freed here
