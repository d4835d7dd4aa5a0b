"""Recording what the bridge publishes: a sink of the outlets that writes a bag in its thread.

The publishing thread (the simulation's) only appends the message's bytes to a queue and
returns; a thread of the recorder writes them (:class:`~.bag.BagWriter`), waking every
:data:`PERIOD` seconds, or at once when a quarter of the queue's bound is waiting (waking it
for every message cost the publishing thread more than the bag's writing). The queue is bounded
in bytes: a message that would overflow it is dropped, counted (:attr:`Recorder.dropped`) and
warned about, so that a slow disk never slows the control loop; a lossless recorder
(``record``, whose bag must not depend on the disk's speed) makes the publishing thread wait
for room instead. A topic is registered in the
bag as soon as its channel exists, so a topic without messages is listed too.
"""

from __future__ import annotations

import collections
import fnmatch
import threading
from collections.abc import Callable

from .bag import BagError, BagWriter

__all__ = ['Recorder', 'PERIOD']

#: How often the writing thread takes what is queued [s] (wall time).
PERIOD = 0.05


class Recorder:
    """A sink that records the channels it wants into a bag.

    Args:
        directory: the new bag's directory.
        topics: topic names or shell patterns (``/camera/*``) to record; empty: all.
        max_queue: bytes waiting to be written beyond which messages are dropped.
        warn: called with a one-line warning (messages dropped, a topic left out).
        lossless: wait for room in the queue rather than drop a message.

    Raises:
        BagError: the bag's directory cannot be made.
    """

    def __init__(self, directory: str, topics: list[str] | tuple = (),
                 max_queue: int = 256 << 20, warn: Callable[[str], None] | None = None,
                 lossless: bool = False):
        self.bag = BagWriter(directory)
        self.patterns = [t if t.startswith('/') else '/' + t for t in topics]
        self.max_queue, self.lossless = max_queue, lossless
        self.warn = warn or (lambda text: None)
        #: Messages dropped because the queue was full.
        self.dropped = 0
        self._reported = 0
        self._queue: collections.deque = collections.deque()
        self._queued = 0  # bytes in the queue
        self._early = max_queue // 4  # bytes waiting that wake the writer before its time
        self._lock = threading.Lock()  # guards _queued
        self._room = threading.Condition(self._lock)  # the writer took some of the queue
        self._refused: set[str] = set()  # topics whose type cannot be recorded
        self._keys: dict = {}  # (topic, type) -> registered in the bag (False: refused)
        self._wake = threading.Event()
        self._running = True
        self._thread = threading.Thread(target=self._loop, name='body_bridge_recorder',
                                        daemon=True)
        self._thread.start()

    # --- the sink (any thread) ---------------------------------------------------------------

    def wants(self, channel) -> bool:
        if not self._running or channel.topic in self._refused:
            return False
        return (not self.patterns or any(
            fnmatch.fnmatchcase(channel.topic, p) for p in self.patterns))

    def subscribers(self, channel) -> int:
        return 1

    def add_channel(self, channel) -> None:
        self._queue.append((channel, None, 0))  # never dropped
        self._wake.set()

    def write(self, channel, data: bytes, time_ns: int) -> None:
        size = len(data)
        with self._lock:
            while self.lossless and self._running and self._queued \
                    and self._queued + size > self.max_queue and self._thread.is_alive():
                self._wake.set()
                self._room.wait(0.1)
            if not self._running or (self._queued + size > self.max_queue
                                     and not self.lossless):
                self.dropped += 1  # a write once close() began is counted, never left behind
                return
            self._queued += size
            early = self._queued > self._early
            self._queue.append((channel, bytes(data), time_ns))  # before close() can look
        if early:
            self._wake.set()

    # --- the writing thread ------------------------------------------------------------------

    def _loop(self) -> None:
        while True:
            self._wake.wait(PERIOD)
            self._wake.clear()
            self._drain()
            self._report()
            if not self._running and not self._queue:
                return

    def _drain(self) -> None:
        queue, bag, keys = self._queue, self.bag, self._keys
        freed = 0
        try:
            while queue:
                channel, data, stamp = queue.popleft()
                key = (channel.topic, channel.type)
                known = keys.get(key)
                if known is None:
                    known = keys[key] = self._register(channel)
                if data is not None:
                    freed += len(data)
                    if known:
                        bag.write(key, data, stamp)
        finally:
            with self._lock:
                self._queued -= freed
                self._room.notify_all()

    def _report(self, why: str = 'the disk does not keep up') -> None:
        """Warn of the messages dropped since the last warning."""
        if self.dropped != self._reported:
            self.warn(f'recording {self.bag.directory}: {self.dropped - self._reported} '
                      f'messages dropped ({why})')
            self._reported = self.dropped

    def _register(self, channel) -> bool:
        """Register a channel's topic in the bag; False if its type cannot be recorded."""
        try:
            self.bag.add_topic(channel.topic, channel.type, channel.qos)
            return True
        except BagError as err:
            self.warn(f'recording: {err}; the topic is not recorded')
            self._refused.add(channel.topic)
            return False

    def close(self, timeout: float = 60.0) -> None:
        """Stop taking messages, write those queued, finish the bag."""
        with self._lock:
            if not self._running:
                return
            self._running = False  # no write queues after this (see write)
            self._room.notify_all()
        self._wake.set()
        self._thread.join(timeout)
        if self._thread.is_alive():
            self.warn(f'recording {self.bag.directory}: the writer did not finish in '
                      f'{timeout:g} s; {len(self._queue)} messages are not written')
        else:
            self._drain()  # anything queued after the thread's last look
        self._report('the disk did not keep up, or they came as the recording closed')
        self.bag.close()
