"""The Foxglove SDK's own log lines said by the bridge: a client that drops its connection is
one line of ours, not the SDK's ``Broken pipe (os error 32)`` for every message it could not
send. The drop is made for real: a client (a plain socket speaking WebSocket) subscribes to
a busy channel and resets its connection."""

from __future__ import annotations

import base64
import json
import logging
import os
import socket
import struct
import threading
import time

import pytest

pytestmark = pytest.mark.ros
foxglove = pytest.importorskip('foxglove', reason='foxglove-sdk (tools/requirements.txt) is '
                                                  'missing')

from body_bridge.ros.stream.foxglove import SDK_LOG, SdkLog  # noqa: E402
from ros_standins import Log  # noqa: E402


def record(text, level=logging.ERROR):
    return logging.LogRecord('foxglove.websocket.connected_client.poller', level, 'x', 1, text,
                             None, None)


def test_a_dropped_client_is_one_line_and_other_sdk_lines_are_prefixed(monkeypatch):
    handler, log = SdkLog(), Log()
    handler.emit(record('anything'))  # no target yet: nothing said, nothing raised
    handler.target = log
    for _ in range(3):
        handler.emit(record('Error sending message to client 127.0.0.1:43128: IO error: '
                            'Broken pipe (os error 32)'))
    handler.emit(record('Error receiving from client 127.0.0.1:43128: IO error: Connection '
                        'reset by peer (os error 104)'))
    handler.emit(record('Error receiving from client [::1]:9: IO error: Connection reset by '
                        'peer (os error 104)'))
    handler.emit(record('client 10.0.0.2:1: IO error: timed out'))  # no os error number
    handler.emit(record('Failed to bind\n  port 8765', logging.WARNING))
    assert log.lines == [
        ('info', 'Foxglove: client 127.0.0.1:43128 went away (broken pipe)'),
        ('info', 'Foxglove: client [::1]:9 went away (connection reset by peer)'),
        ('info', 'Foxglove: client 10.0.0.2:1 went away (timed out)'),
        ('warning', 'Foxglove: Failed to bind port 8765')]
    monkeypatch.setattr(SdkLog, 'REMEMBERED', 2)  # the memory starts over when full
    handler.emit(record('client 10.0.0.3:1: IO error: Broken pipe (os error 32)'))
    handler.emit(record('client [::1]:9: IO error: Broken pipe (os error 32)'))
    assert log.lines[-2:] == [('info', 'Foxglove: client 10.0.0.3:1 went away (broken pipe)'),
                              ('info', 'Foxglove: client [::1]:9 went away (broken pipe)')]
    assert handler.level == logging.WARNING


def test_a_reset_without_a_closing_handshake_is_the_same_client_gone():
    """The SDK says a reset twice, as an IO error of a send and as a protocol error of a
    receive, in either order: one line (seen in CI, where the receive came second)."""
    handler, log = SdkLog(), Log()
    handler.target = log
    handler.emit(record('Error sending message to client 127.0.0.1:59334: IO error: Connection '
                        'reset by peer (os error 104)'))
    handler.emit(record('Error receiving from client 127.0.0.1:59334: WebSocket protocol '
                        'error: Connection reset without closing handshake', logging.WARNING))
    handler.emit(record('Error receiving from client 127.0.0.1:7: WebSocket protocol error: '
                        'Connection reset without closing handshake', logging.WARNING))
    handler.emit(record('Error receiving from client 127.0.0.1:8: WebSocket protocol error: '
                        'Unmasked frame', logging.WARNING))
    assert log.lines == [
        ('info', 'Foxglove: client 127.0.0.1:59334 went away (connection reset by peer)'),
        ('info', 'Foxglove: client 127.0.0.1:7 went away (connection reset without closing '
                 'handshake)'),
        ('warning', 'Foxglove: Error receiving from client 127.0.0.1:8: WebSocket protocol '
                    'error: Unmasked frame')]


def test_installing_takes_the_sdk_logger_once_and_keeps_it_from_the_root():
    sdk = logging.getLogger('foxglove')
    first, second = Log(), Log()
    SDK_LOG.install(first)
    SDK_LOG.install(second)
    assert sdk.handlers.count(SDK_LOG) == 1 and SDK_LOG.target is second
    assert sdk.propagate is False and sdk.level == logging.WARNING
    logging.getLogger('foxglove.websocket.server').error('Server stopped: gone')
    assert second.lines == [('warning', 'Foxglove: Server stopped: gone')] and not first.lines


def _frames(sock, buffer=b''):
    """Text frames the server sends (JSON), read until ``stop(message)``."""
    def read(n):
        nonlocal buffer
        while len(buffer) < n:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionError('closed')
            buffer += chunk
        out, buffer = buffer[:n], buffer[n:]
        return out
    while True:
        head = read(2)
        size = head[1] & 0x7F
        if size == 126:
            size = struct.unpack('>H', read(2))[0]
        elif size == 127:
            size = struct.unpack('>Q', read(8))[0]
        payload = read(size)
        if head[0] & 0x0F == 1:
            yield json.loads(payload)


def _send_text(sock, text: str) -> None:
    data, mask = text.encode(), os.urandom(4)
    head = bytes([0x81]) + (bytes([0x80 | len(data)]) if len(data) < 126 else
                            bytes([0x80 | 126]) + struct.pack('>H', len(data)))
    sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))


def test_a_client_that_resets_its_connection_is_said_once():
    log = Log()
    SDK_LOG.install(log)
    context = foxglove.Context()
    server = foxglove.start_server(name='t', host='127.0.0.1', port=0, context=context)
    channel = foxglove.Channel('/big', message_encoding='cdr', context=context,
                               schema=foxglove.Schema(name='m', encoding='ros2msg',
                                                      data=b'uint8[] data'))
    busy = threading.Event()

    def pump():  # big messages, so that writes to the dropped client fail
        while not busy.is_set():
            channel.log(bytes(1 << 20))
            time.sleep(0.002)
    worker = threading.Thread(target=pump, daemon=True)
    try:
        sock = socket.create_connection(('127.0.0.1', server.port), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall(f'GET / HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n'
                     f'Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n'
                     'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: foxglove.sdk.v1'
                     '\r\n\r\n'.encode())
        reply = b''
        while b'\r\n\r\n' not in reply:
            reply += sock.recv(1)
        assert b' 101 ' in reply.split(b'\r\n')[0], reply
        for message in _frames(sock):
            if message.get('op') == 'advertise':
                ident = message['channels'][0]['id']
                break
        _send_text(sock, json.dumps({'op': 'subscribe',
                                     'subscriptions': [{'id': 1, 'channelId': ident}]}))
        worker.start()
        sock.recv(65536)  # the messages come
        mine = f'127.0.0.1:{sock.getsockname()[1]}'
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
        sock.close()  # dropped: a reset, no closing handshake
        deadline = time.monotonic() + 10
        while not log.lines and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # the writes that fail after it
    finally:
        busy.set()
        server.stop()
    assert len(log.lines) == 1, log.lines
    level, text = log.lines[0]
    assert level == 'info' and text.startswith(f'Foxglove: client {mine} went away ('), text
    assert 'os error' not in text
