"""Compression off the stepping thread: one worker thread per compressed topic.

The stepping thread hands a frame over (:meth:`BackgroundEncoder.submit`: a copy of the
array, a fraction of a millisecond) and goes on; the worker compresses it (Pillow and numpy
release the interpreter lock while they work, so it runs beside the physics and rendering on
another core) and publishes it. A frame handed over while the previous one is still being
compressed replaces the one waiting: the newest frame wins, as a viewer wants, and a slow
encoder lowers the compressed frame rate, never the simulation's pace.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

from .messages import compressed_image

__all__ = ['BackgroundEncoder']


class BackgroundEncoder:
    """Compresses and publishes the frames of one CompressedImage topic in its own thread.

    Args:
        node: the publishing node (for its logger and context).
        publisher: the CompressedImage publisher.
        frame_id: the messages' frame.
        encode: ``encode(array, settings) -> (format, data)`` (:mod:`.compression`).
    """

    def __init__(self, node, publisher, frame_id: str, encode: Callable):
        self.node, self.publisher, self.frame_id, self.encode = node, publisher, frame_id, encode
        self._pending = None
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False
        #: Frames handed over, replaced by a newer one before their turn, published.
        self.submitted = self.replaced = self.published = 0

    def submit(self, stamp, array: np.ndarray, settings) -> None:
        """Hand a frame over (the array is copied: the caller may reuse it)."""
        with self._wake:
            self.replaced += self._pending is not None
            self._pending = (stamp, array.copy(), dict(settings))
            self.submitted += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name=f'encode {self.publisher.topic_name}')
                self._thread.start()
            self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                while self._pending is None and not self._closed:
                    self._wake.wait()
                if self._closed:
                    return
                (stamp, array, settings), self._pending = self._pending, None
            try:
                msg = compressed_image(self.frame_id, stamp, self.encode(array, settings))
                self.publisher.publish(msg)
                self.published += 1
            except Exception as err:  # noqa: BLE001 - reported, then this topic stops
                if self._alive():  # else the node is shutting down: nothing to report
                    self.node.get_logger().error(
                        f'{self.publisher.topic_name}: compression stopped: {err}')
                return

    def _alive(self) -> bool:
        try:
            return self.node.context.ok() and self.publisher.get_subscription_count() >= 0
        except Exception:  # noqa: BLE001 - a destroyed publisher raises
            return False

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every frame handed over is published or replaced (tests)."""
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
            self._wake.notify()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
