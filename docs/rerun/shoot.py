"""A picture of a recorded bag in Rerun's web viewer, taken in headless Chromium
(docs/make_pictures.sh runs it): the bag imported by Rerun (``rerun mcap convert``), served
with a layout of this folder by ``rerun --serve-web``, loaded in a page of ``--size`` pixels,
screenshot once the viewer has drawn it, scaled (``--scale``) and reduced to 256 colours to
stay small.

    .venv/bin/python docs/rerun/shoot.py BAG LAYOUT.rbl OUT.png [--size 1200x700] [--scale 0.75]

Needs Rerun's command line in tools/rerun_cli (tools/setup.sh) and Chromium
(``apt-get install chromium``; ``BODY_BRIDGE_CHROMIUM`` names another).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / 'test'))

from rerun_browser import RERUN, Browser, Viewer, chromium, import_bag, settled  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('bag', type=Path)
    parser.add_argument('layout', type=Path)
    parser.add_argument('out', type=Path)
    parser.add_argument('--size', default='1200x700', help='the page, WIDTHxHEIGHT pixels')
    parser.add_argument('--scale', type=float, default=0.75, help='the picture against the page')
    args = parser.parse_args(argv)
    browser = chromium()
    if browser is None or not RERUN.exists():
        return _fail("Chromium or Rerun's command line is missing (apt-get install chromium; "
                     'bash tools/setup.sh)')
    try:
        width, height = (int(n) for n in args.size.split('x'))
    except ValueError:
        return _fail(f'--size {args.size}: expected WIDTHxHEIGHT, as 1200x700')
    if not any(args.bag.glob('*.mcap')):
        return _fail(f'{args.bag}: no .mcap file there (a bag that record wrote is a folder)')
    if not args.layout.is_file():
        return _fail(f'{args.layout}: no such blueprint file')
    try:
        image = _shoot(browser, args.bag, args.layout, width, height)
    except (RuntimeError, AssertionError, TimeoutError) as error:
        return _fail(str(error))
    size = (round(width * args.scale), round(height * args.scale))
    picture = image.resize(size, resample=3).quantize(256, method=2)  # bicubic; octree
    picture.save(args.out, optimize=True)
    print(f'{args.out}: {size[0]}x{size[1]}, {args.out.stat().st_size // 1024} KB')
    return 0


def _fail(message: str) -> int:
    print(f'shoot: {message}', file=sys.stderr)
    return 2


def _shoot(browser: str, bag: Path, layout: Path, width: int, height: int):
    """The screenshot of the page once the viewer has drawn the bag."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        rrd = import_bag(bag, tmp / 'run.rrd')
        with Viewer(rrd, layout, log=tmp / 'rerun.log', renderer='webgl') as viewer, \
                Browser(browser, tmp / 'chromium') as chrome:
            page = chrome.page(viewer.url, width, height)
            # drawn: the 3D view (the left half) holds more than its background and grid
            return settled(page, lambda shot: len(
                shot.crop((0, 60, width // 2, height - 40)).getcolors(1 << 20)) > 100, 120)


if __name__ == '__main__':
    sys.exit(main())
