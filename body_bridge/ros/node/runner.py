"""The thread that steps the world, paced by real_time_factor, for one or several nodes.

One runner owns one physics world (one model per node). Each control period it steps the
world under its lock, then lets every node publish (joint_states, /tf, sensor topics; the
first node also /clock). Pausing stops the stepping (only /clock is published again, ten
times a second, for nodes that join late); ``step_once`` advances one period while paused;
``reset`` puts the whole world back to its initial state. ``call`` runs a change of the
world (a model spawned or deleted) on the stepping thread between two periods, so that no
period sees half of it.
"""

from __future__ import annotations

import ctypes
import threading
import time

from ...sim.building.overlap import start_overlaps
from ...sim.simulation import simulate_together

__all__ = ['SimulationRunner', 'stop_all']

#: World-wide parameters: taken from the first node; the others' values are ignored.
WORLD_PARAMETERS = ('timestep', 'control_rate', 'real_time_factor', 'start_paused',
                    'ground_plane', 'on_divergence', 'named_poses', 'world_sources')


#: prctl(2) option: the timer slack of the calling thread [ns] (Linux).
PR_SET_TIMERSLACK = 29


def precise_wakeups() -> bool:
    """Wake the calling thread from its sleeps on time: Linux lets a sleep end up to the
    thread's timer slack (50 us by default) late, to batch wake-ups; the stepping thread's
    deadlines are the control periods, and a command waits for the next one. Whether it was
    set (not on systems without prctl)."""
    try:
        return ctypes.CDLL(None).prctl(PR_SET_TIMERSLACK, 1) == 0
    except (OSError, AttributeError):
        return False


#: The runners whose thread runs: a stop ends them all, even one whose node was still being
#: made when the signal came (its node never reached the caller).
_RUNNING: set = set()


def stop_all() -> None:
    """Stop every running runner (the bridge is ending)."""
    for runner in list(_RUNNING):
        runner.stop()


class SimulationRunner:
    """Steps the world of several bridge nodes.

    Args:
        nodes: bridge nodes (not yet simulating), one per model; the first one's world-wide
            parameters (``WORLD_PARAMETERS``) apply, and it publishes ``/clock``.
    """

    def __init__(self, nodes: list):
        self.nodes = list(nodes)
        first = self.nodes[0]
        for node in self.nodes[1:]:
            for name in WORLD_PARAMETERS:
                if node.params[name] != first.params[name]:
                    node.get_logger().warning(
                        f'parameter {name}: the world takes it from {first.get_namespace()} '
                        f'({first.params[name]!r}); {node.params[name]!r} is not used')
        entries = [(node.model, node.sim_options()) for node in self.nodes]
        prefixes = [''] + [node.get_namespace().strip('/') + '/' for node in self.nodes[1:]]
        sims = simulate_together(entries, prefixes)
        self.world = sims[0].world
        self._period = self.world.period
        #: Simulated seconds per wall-clock second (0: as fast as possible); may change while
        #: the world runs (the first node's ``real_time_factor`` parameter).
        self.real_time_factor = float(first.params['real_time_factor'])
        #: Held while the world steps or resets (services take it too).
        self.lock = threading.Lock()
        #: Simulated seconds stepped so far: only grows (a reset sets the world's time back to
        #: 0, a diverged period is not counted), so that the status line's real-time factor
        #: is the simulated time actually stepped per wall-clock second.
        self.stepped = 0.0
        self._paused = bool(first.params['start_paused'])
        self._wake = threading.Event()
        self._running = False
        self._thread: threading.Thread | None = None
        self._edits: list[_Edit] = []
        for index, (node, sim) in enumerate(zip(self.nodes, sims)):
            node.attach_simulation(sim, self, publishes_clock=(index == 0))
        labels = [f'{node.model.name} in {node.get_namespace()}' for node in self.nodes]
        files = {getattr(node, 'world_file', None) for node in self.nodes}
        remedy = f'their pose in {files.pop()}' if len(files) == 1 and None not in files \
            else 'their initial_pose parameters'
        for line in [*self.world.notes, *start_overlaps(self.world, labels, remedy)]:
            first.get_logger().warning(line)

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def period(self) -> float:
        """The control period [s] (no world: that of the last one)."""
        if self.world is not None:
            self._period = self.world.period
        return self._period

    def _publish(self) -> None:
        for node in self.nodes:
            node.publish_period()

    def start(self) -> None:
        """Publish the initial state and start stepping (unless paused)."""
        with self.lock:
            self._publish()
        self._running = True
        _RUNNING.add(self)
        self._thread = threading.Thread(target=self._loop, name='body_bridge_sim', daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop stepping; once the thread has ended, free the cameras' renderers (their GL
        contexts must go before rclpy and the interpreter do, not whenever the garbage
        collector gets to them)."""
        self._running = False
        self._wake.set()
        _RUNNING.discard(self)
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            if self._thread.is_alive():
                return  # still inside a period: its renderer is left alone
            self._thread = None
        with self.lock:
            for node in self.nodes:
                sensors = getattr(node, 'sensors', None)
                if sensors is not None:
                    sensors.suite.close()

    def _loop(self) -> None:
        precise_wakeups()
        try:
            self._steps()
        except Exception:
            if not self.nodes or self.nodes[0].context.ok():
                raise
            # Ctrl-C shut the ROS context down while this thread published: stop quietly.

    def _steps(self) -> None:
        wall_next = time.monotonic()
        while self._running:
            rtf = self.real_time_factor
            if self._paused:
                if not self._edits:
                    self._wake.wait(0.1)
                self._wake.clear()
                if self._paused:
                    with self.lock:  # late joiners learn the (held) time
                        self._run_edits()
                        if self.nodes:
                            self.nodes[0].publish_clock()
                wall_next = time.monotonic()
                continue
            with self.lock:
                self._run_edits()
                if self._paused or self.world is None:
                    continue
                self._step()
            if rtf > 0:
                wall_next += self.world.period / rtf
                delay = wall_next - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                elif delay < -0.5:
                    wall_next = time.monotonic()  # far behind: do not race to catch up
            else:
                time.sleep(0)  # let the executor thread take the GIL

    def _step(self) -> None:
        """One period of the world, then publish (a divergence that halts it pauses us)."""
        if self.world.step_period() is None:
            self.stepped += self.world.period
        if self.world.halted:  # on_divergence: pause (sim/control/watchdog.py)
            self.world.halted = False
            self._paused = True
        self._publish()

    def advance(self) -> None:
        """One control period of the world, then every node publishes: the work of one turn
        of the stepping thread, without its pacing (the benchmarks time this)."""
        with self.lock:
            self._step()

    def set_paused(self, paused: bool) -> None:
        self._paused = bool(paused)
        self._wake.set()

    def step_once(self) -> bool:
        """One control period, if paused; returns whether it stepped."""
        with self.lock:
            if not self._paused or self.world is None:
                return False
            self._step()
        return True

    def call(self, work, timeout: float = 30.0):
        """``work()`` run on the stepping thread between two control periods, the world
        locked; its result (its exception is raised here). Without a running stepping thread
        (or on it) it runs at once under the lock.

        Raises:
            TimeoutError: not done within ``timeout`` [s] (it is then not done at all).
        """
        if self._thread is None or threading.current_thread() is self._thread:
            with self.lock:
                return work()
        edit = _Edit(work)
        self._edits.append(edit)
        self._wake.set()
        if not edit.done.wait(timeout) and edit.withdraw():
            raise TimeoutError(f'the simulation did not take the change within {timeout:g} s')
        edit.done.wait()
        if edit.error is not None:
            raise edit.error
        return edit.value

    def _run_edits(self) -> None:
        while self._edits:
            self._edits.pop(0).run()

    def add_node(self, node, sim) -> None:
        """A node of a model that joined the world (stepping thread): it publishes with the
        others from now on."""
        node.attach_simulation(sim, self, publishes_clock=False)
        self.nodes.append(node)

    def remove_node(self, node) -> None:
        """A node of a model that left the world stops publishing (stepping thread)."""
        self.nodes.remove(node)

    def reset(self) -> None:
        """The world back to its initial state (time 0, commands cleared); state published."""
        with self.lock:
            if self.world is not None:
                self.world.reset()
            self._publish()

    def replace_world(self, nodes: list, sims: list) -> list:
        """Every model of the world replaced (stepping thread): ``nodes`` (not yet simulating)
        serve ``sims``, the Simulations of a new world (none: no world, nothing steps); the
        first of them publishes ``/clock``. The old nodes are returned, detached (their
        cameras' renderers freed); the caller destroys them."""
        old, self.nodes = self.nodes, list(nodes)
        for node in old:  # each was attached: it has its sensors
            node.sensors.suite.close()
        self.world = sims[0].world if sims else None
        for index, (node, sim) in enumerate(zip(self.nodes, sims)):
            node.attach_simulation(sim, self, publishes_clock=(index == 0))
        return old


class _Edit:
    """A change of the world waiting for the stepping thread."""

    def __init__(self, work):
        self.work = work
        self.done = threading.Event()
        self.value = self.error = None
        self._state = threading.Lock()
        self._taken = False

    def withdraw(self) -> bool:
        """Cancel it if it has not started; whether it was cancelled."""
        with self._state:
            if self._taken:
                return False
            self._taken = True
            return True

    def run(self) -> None:
        with self._state:
            if self._taken:
                return
            self._taken = True
        try:
            self.value = self.work()
        except Exception as err:  # noqa: BLE001 - handed to the caller, which reports it
            self.error = err
        self.done.set()
