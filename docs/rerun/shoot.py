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
        print("shoot: Chromium or Rerun's command line is missing (apt-get install chromium; "
              'bash tools/setup.sh)', file=sys.stderr)
        return 2
    width, height = (int(n) for n in args.size.split('x'))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        rrd = import_bag(args.bag, tmp / 'run.rrd')
        with Viewer(rrd, args.layout, log=tmp / 'rerun.log', renderer='webgl') as viewer, \
                Browser(browser, tmp / 'chromium') as chrome:
            page = chrome.page(viewer.url, width, height)
            # drawn: the 3D view (the left half) holds more than its background and grid
            image = settled(page, lambda shot: len(
                shot.crop((0, 60, width // 2, height - 40)).getcolors(1 << 20)) > 100, 120)
    size = (round(width * args.scale), round(height * args.scale))
    picture = image.resize(size, resample=3).quantize(256, method=2)  # bicubic; octree
    picture.save(args.out, optimize=True)
    print(f'{args.out}: {size[0]}x{size[1]}, {args.out.stat().st_size // 1024} KB')
    return 0


if __name__ == '__main__':
    sys.exit(main())
