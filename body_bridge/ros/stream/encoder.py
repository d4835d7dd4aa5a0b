"""Compression off the stepping thread: one worker thread per compressed topic.

The stepping thread hands a frame over (:meth:`BackgroundEncoder.submit`: a copy of the
array, a fraction of a millisecond) and goes on; the worker compresses it (Pillow and numpy
release the interpreter lock while they work, so it runs beside the physics and rendering on
another core) and publishes it, stamped in the outlets (a bag, Foxglove) with the frame's own
simulated time, not the time its compression ended.

Two ways to keep up, chosen for the process (:func:`set_lossless`):

* live (the default, a running bridge): a frame handed over while the previous one is still
  being compressed replaces the one waiting: the newest frame wins, as a viewer wants, and a
  slow encoder lowers the compressed frame rate, never the simulation's pace. Which frames
  are kept then depends on the threads' timing.
* lossless (``record``): every frame is compressed and published, in order; the stepping
  thread waits when :data:`WAITING` frames are queued. Identical runs then give identical
  compressed streams, whatever the machine's speed; :meth:`BackgroundEncoder.flush` before the
  end keeps the last frames.
"""

from __future__ import annotations

import collections
import threading
import weakref
from collections.abc import Callable

import numpy as np

from .messages import compressed_image

__all__ = ['BackgroundEncoder', 'set_lossless', 'flush_all', 'WAITING']

#: Frames a lossless encoder holds before the stepping thread waits for it.
WAITING = 4
_MODE = {'lossless': False}
_ENCODERS: weakref.WeakSet = weakref.WeakSet()


def set_lossless(on: bool) -> None:
    """Make the encoders made from now on lossless (``record``) or live."""
    _MODE['lossless'] = bool(on)


def flush_all(timeout: float = 30.0) -> bool:
    """Wait until every encoder of the process has published what it was handed."""
    return all([encoder.flush(timeout) for encoder in list(_ENCODERS)])


class BackgroundEncoder:
    """Compresses and publishes the frames of one CompressedImage topic in its own thread.

    Args:
        node: the publishing node (for its logger and context).
        publisher: the CompressedImage channel (:mod:`.outlets`).
        frame_id: the messages' frame.
        encode: ``encode(array, settings) -> (format, data)`` (:mod:`.compression`).
    """

    def __init__(self, node, publisher, frame_id: str, encode: Callable):
        self.node, self.publisher, self.frame_id, self.encode = node, publisher, frame_id, encode
        self.lossless = _MODE['lossless']
        self._pending: collections.deque = collections.deque()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False
        #: Frames handed over, replaced by a newer one before their turn, published.
        self.submitted = self.replaced = self.published = 0
        _ENCODERS.add(self)

    def submit(self, stamp, array: np.ndarray, settings) -> None:
        """Hand a frame over (the array is copied: the caller may reuse it). Lossless, this
        waits while :data:`WAITING` frames are queued."""
        frame = (stamp, array.copy(), dict(settings))
        with self._wake:
            if self.lossless:
                while len(self._pending) >= WAITING and self._working():
                    self._wake.wait(0.1)
            elif self._pending:  # the frame still waiting gives way
                self.replaced += len(self._pending)
                self._pending.clear()
            self._pending.append(frame)
            self.submitted += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name=f'encode {self.publisher.topic_name}')
                self._thread.start()
            self._wake.notify_all()

    def _working(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and not self._closed

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._pending and not self._closed:
                    self._wake.wait()
                if self._closed:
                    return
                stamp, array, settings = self._pending.popleft()
                self._wake.notify_all()  # room for a lossless submit that waits
            try:
                msg = compressed_image(self.frame_id, stamp, self.encode(array, settings))
                if hasattr(self.publisher, 'sinks'):  # a channel of the outlets: its sinks
                    self.publisher.publish(msg, stamp.sec * 1_000_000_000 + stamp.nanosec)
                else:  # a plain rclpy publisher
                    self.publisher.publish(msg)
            except Exception as err:  # noqa: BLE001 - reported, then this topic stops
                if self._alive():  # else the node is shutting down: nothing to report
                    self.node.get_logger().error(
                        f'{self.publisher.topic_name}: compression stopped: {err}')
                return
            with self._wake:
                self.published += 1

    def _alive(self) -> bool:
        try:
            return self.node.context.ok() and self.publisher.get_subscription_count() >= 0
        except Exception:  # noqa: BLE001 - a destroyed publisher raises
            return False

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every frame handed over is published or replaced."""
        pause = threading.Event()
        for _ in range(int(timeout / 0.005)):
            with self._wake:
                if self.published + self.replaced >= self.submitted:
                    return True
            pause.wait(0.005)
        return False

    def close(self) -> None:
        """Stop the worker (it finishes the frame it is compressing)."""
        with self._wake:
            self._closed = True
            self._wake.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
