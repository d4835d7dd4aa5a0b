"""Rerun's web viewer in headless Chromium, for tests and the docs' pictures: the viewer served by
Rerun's command line (``rerun FILE... --serve-web``, the web viewer the rerun-sdk wheel carries,
nothing fetched from the network), a Chromium started headless and driven over the DevTools
protocol on a pipe (``--remote-debugging-pipe``: JSON messages ended by a NUL byte on the
descriptors 3 and 4, no port, no WebSocket library), and screenshots as Pillow images.

WebGL and WebGPU in headless Chromium without a GPU run on SwiftShader, Chromium's CPU
renderer: :data:`CHROMIUM_FLAGS` names the flags, and docs/recording-and-foxglove.md says which
of them the viewer needs.
"""

from __future__ import annotations

import base64
import io
import json
import os
import select
import shutil
import socket
import subprocess
import time
import urllib.parse
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: The binary of the rerun-sdk wheel, where tools/setup.sh puts it.
RERUN = REPO / 'tools' / 'rerun_cli' / 'rerun_cli' / 'rerun'

#: What Rerun 0.41 cannot show, left out of the import: compressedDepth images (a PNG behind
#: a 12-byte header: "Failed to detect GOP for video sample") and the depth camera's
#: camera_info, which names the colour camera's optical frame too ("Two entities define the
#: same child frame").
UNSHOWN = ('-n', '/depth/', '-n', '/compressed')

#: SwiftShader for WebGL (no GPU, no display), and nothing that reaches the network.
CHROMIUM_FLAGS = ('--headless', '--no-sandbox', '--use-angle=swiftshader',
                  '--enable-unsafe-swiftshader', '--disable-background-networking',
                  '--disable-component-update', '--disable-sync', '--no-first-run',
                  '--disable-dev-shm-usage', '--hide-scrollbars', '--mute-audio',
                  '--disable-renderer-backgrounding', '--disable-background-timer-throttling',
                  '--disable-backgrounding-occluded-windows', '--no-proxy-server',
                  # no host but this one: the viewer's page links Google's fonts
                  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1')


def chromium() -> str | None:
    """The Chromium to run: ``$BODY_BRIDGE_CHROMIUM``, else ``chromium`` (Debian's package,
    what tools/setup.sh installs) or ``google-chrome`` on PATH. Not Ubuntu's
    ``chromium-browser``, a stand-in for a snap that does not run in containers."""
    chosen = os.environ.get('BODY_BRIDGE_CHROMIUM')
    if chosen:
        return chosen
    for name in ('chromium', 'google-chrome'):
        found = shutil.which(name)
        if found:
            return found
    return None


def last_line(log: Path) -> str:
    """The last line of a program's log that says something, or where the log is."""
    lines = [line for line in log.read_text(errors='replace').splitlines() if line.strip()]
    return lines[-1].strip() if lines else f'nothing in {log}'


def first_run(folder: Path) -> dict[str, str]:
    """The environment for Rerun's command line with a configuration of its own in ``folder``,
    new each time: Rerun collects no usage data on its first run."""
    return {**os.environ, 'XDG_CONFIG_HOME': str(folder / 'config'),
            'XDG_DATA_HOME': str(folder / 'data')}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return probe.getsockname()[1]


class Viewer:
    """``rerun FILES --serve-web`` on free ports: :attr:`url` opens the files in the web viewer."""

    def __init__(self, *files: Path, log: Path, renderer: str | None = None):
        self.web, self.grpc = free_port(), free_port()
        self.log = open(log, 'w')
        self.process = subprocess.Popen(
            [str(RERUN), *map(str, files), '--serve-web', '--bind', '127.0.0.1',
             '--web-viewer-port', str(self.web), '--port', str(self.grpc)],
            stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env=first_run(Path(f'{log}.rerun')))
        proxy = f'rerun+http://127.0.0.1:{self.grpc}/proxy'
        query = {'url': proxy, **({'renderer': renderer} if renderer else {})}
        self.url = f'http://127.0.0.1:{self.web}/?{urllib.parse.urlencode(query)}'
        deadline = time.monotonic() + 30
        while True:
            try:  # listening (a connection, not an HTTP request: no proxy may answer it)
                socket.create_connection(('127.0.0.1', self.web), timeout=2).close()
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.close()
                    raise RuntimeError('rerun --serve-web did not start: '
                                       f'{last_line(log)}') from None
                time.sleep(0.2)

    def close(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()


class Browser:
    """A headless Chromium driven over the DevTools protocol on a pipe; :meth:`page` opens a
    window on a URL."""

    def __init__(self, executable: str, profile: Path, flags: tuple[str, ...] = CHROMIUM_FLAGS):
        to_browser, self._to = os.pipe()
        self._from, from_browser = os.pipe()

        def descriptors():  # in the child: the protocol's pipe on the descriptors 3 and 4
            read, write = os.dup(to_browser), os.dup(from_browser)
            os.dup2(read, 3)
            os.dup2(write, 4)

        self.log = open(f'{profile}.log', 'w')
        self.process = subprocess.Popen(
            [executable, *flags, '--remote-debugging-pipe', f'--user-data-dir={profile}',
             'about:blank'],
            close_fds=False, preexec_fn=descriptors, stdin=subprocess.DEVNULL,
            stdout=self.log, stderr=subprocess.STDOUT)
        os.close(to_browser)
        os.close(from_browser)
        self._pending, self._count = b'', 0

    def call(self, method: str, session: str | None = None, timeout: float = 60, **params):
        """One protocol command (to a page's session when given), and its result; the
        protocol's events on the way are dropped."""
        self._count += 1
        message = {'id': self._count, 'method': method, 'params': params}
        if session:
            message['sessionId'] = session
        os.write(self._to, json.dumps(message).encode() + b'\0')
        deadline = time.monotonic() + timeout
        while True:
            while b'\0' not in self._pending:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self._from], [], [], left)[0]:
                    raise TimeoutError(f'Chromium did not answer {method}')
                chunk = os.read(self._from, 1 << 20)
                if not chunk:
                    raise RuntimeError(f'Chromium ended: {last_line(Path(self.log.name))}')
                self._pending += chunk
            raw, self._pending = self._pending.split(b'\0', 1)
            reply = json.loads(raw)
            if reply.get('id') == self._count:
                if 'error' in reply:
                    raise RuntimeError(f'{method}: {reply["error"]}')
                return reply['result']

    def page(self, url: str, width: int, height: int) -> 'Page':
        """A new window of ``width`` x ``height`` CSS pixels (at 1 device pixel each) on ``url``:
        a window of its own, not a background tab, so that it draws its frames."""
        target = self.call('Target.createTarget', url='about:blank', newWindow=True,
                           width=width, height=height)['targetId']
        session = self.call('Target.attachToTarget', targetId=target, flatten=True)['sessionId']
        self.call('Emulation.setDeviceMetricsOverride', session, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)
        self.call('Page.navigate', session, url=url)
        return Page(self, session)

    def close(self):
        try:
            os.close(self._to)
        except OSError:
            pass
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._from)
        self.log.close()

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()


class Page:
    """One window of a :class:`Browser`."""

    def __init__(self, browser: Browser, session: str):
        self.browser, self.session = browser, session

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (a promise is waited for)."""
        return self.browser.call('Runtime.evaluate', self.session, expression=expression,
                                 returnByValue=True, awaitPromise=True)['result'].get('value')

    def screenshot(self):
        """The page as it is drawn now (a Pillow RGB image)."""
        from PIL import Image
        for attempt in range(20):  # while the navigation swaps the page's process
            try:
                data = self.browser.call('Page.captureScreenshot', self.session,
                                         format='png')['data']
                return Image.open(io.BytesIO(base64.b64decode(data))).convert('RGB')
            except RuntimeError as error:
                if 'Not attached' not in str(error) or attempt == 19:
                    raise
                time.sleep(0.5)


#: What the page's canvas renders with: WebGPU's adapter, else WebGL's renderer string.
RENDERER = """(async () => {
  if (navigator.gpu) {
    const adapter = await navigator.gpu.requestAdapter();
    if (adapter) return 'WebGPU ' + (adapter.info ? adapter.info.description ||
                                      adapter.info.vendor : '');
  }
  const gl = document.createElement('canvas').getContext('webgl2');
  if (!gl) return 'none';
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  return 'WebGL2 ' + (info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : '');
})()"""


def settled(page: Page, loaded, timeout: float):
    """The page once ``loaded(image)`` holds and two screenshots a second apart are the same
    (the viewer has drawn what it was sent); AssertionError after ``timeout`` seconds."""
    from PIL import ImageChops
    last = None
    deadline = time.monotonic() + timeout
    while True:
        image = page.screenshot()
        if loaded(image) and last is not None and \
                ImageChops.difference(image, last).getbbox() is None:
            return image
        assert time.monotonic() < deadline, f'the viewer did not settle in {timeout} s'
        last = image
        time.sleep(1.0)


def import_bag(bag: Path, rrd: Path) -> Path:
    """``rerun mcap convert`` of the bag's MCAP file into ``rrd``, for the layouts of
    docs/rerun (application id ``body_bridge``, time from the start of the run), without
    :data:`UNSHOWN`."""
    done = subprocess.run([str(RERUN), 'mcap', 'convert', str(next(bag.glob('*.mcap'))), '-o',
                           str(rrd), '--application-id', 'body_bridge', '--timeline-type',
                           'duration', *UNSHOWN], capture_output=True, text=True, timeout=120,
                          env=first_run(Path(f'{rrd}.rerun')))
    if done.returncode:
        raise RuntimeError(f'rerun mcap convert {bag}: {done.stderr.strip()}')
    return rrd
