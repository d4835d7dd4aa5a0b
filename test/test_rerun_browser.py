"""A recorded run as a user sees it in Rerun's web viewer, in a real browser: the sample arm
recorded with a trajectory, its bag imported by Rerun (``rerun mcap convert``, what the viewer
runs on an opened ``.mcap``) and served with the docs' layout (docs/rerun/arm.rbl: the 3D view
on the left three fifths, the hand camera and the joints' plot on the right) by ``rerun
--serve-web``, loaded in headless Chromium (WebGL on SwiftShader) and screenshot
(test/rerun_browser.py). The 3D view draws the robot from ``robot_description`` and TF: the
arm's orange (diffuse 0.95 0.5 0.1 in sample_arm.body) is there; a bag of the same run without
``robot_description`` draws the same camera image and plot but no robot, and no orange."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.ros

import rerun_browser  # noqa: E402
from rerun_browser import RERUN, Browser, Viewer, chromium, import_bag, settled  # noqa: E402

if chromium() is None or not RERUN.exists():
    pytest.skip("headless Chromium or Rerun's web viewer is missing (tools/setup.sh installs "
                'chromium with apt and Rerun into tools/rerun_cli)', allow_module_level=True)
pytest.importorskip('PIL', reason='Pillow (tools/requirements.txt) is missing')

REPO = Path(__file__).resolve().parents[1]
LAYOUT = REPO / 'docs' / 'rerun' / 'arm.rbl'
WIDTH, HEIGHT = 800, 480
#: The page's regions (left, top, right, bottom) in the layout: below the top bar and above the
#: time bar, the 3D view left of x = 0.6 WIDTH (column shares 3 : 2), the camera image at the
#: top of the right column.
VIEW_3D = (0, 60, int(0.58 * WIDTH), HEIGHT - 40)
CAMERA = (int(0.62 * WIDTH), 60, WIDTH, HEIGHT // 2)
MOVES = 'time,shoulder_yaw,shoulder_pitch,elbow_pitch,wrist_pitch\n' \
        '0.2,0,0,0,0\n1.2,0.6,0.3,1.5,1.75\n'
#: The last bag's topics: what the viewer draws beside the robot, not robot_description.
WITHOUT_ROBOT = ('/tf', '/tf_static', '/joint_states', '/hand_camera/image_raw',
                 '/hand_camera/camera_info')


def orange_pixels(image, box) -> int:
    """Pixels of ``box`` in the arm's orange as the viewer shades it: hue 15-40 degrees,
    saturation over a half, value over a third (Pillow's HSV runs 0-255)."""
    h, s, v = np.moveaxis(np.asarray(image.crop(box).convert('HSV')).astype(int), 2, 0)
    return int(np.count_nonzero((h >= 11) & (h <= 28) & (s > 128) & (v > 85)))


def colours(image, box) -> int:
    return len(image.crop(box).getcolors(1 << 20))


def _record(tmp: Path, name: str, *topics: str) -> subprocess.Popen:
    args = [sys.executable, '-m', 'body_bridge', 'record', 'sample_arm', '-o', str(tmp / name),
            '--duration', '1.5', '--commands', str(tmp / 'moves.csv')]
    if topics:
        args += ['--topics', *topics]
    return subprocess.Popen(args, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


@pytest.fixture(scope='module')
def screenshots(tmp_path_factory):
    """The viewer's page with the full bag, and with the bag without robot_description."""
    tmp = tmp_path_factory.mktemp('browser')
    (tmp / 'moves.csv').write_text(MOVES)
    runs = [_record(tmp, 'arm'), _record(tmp, 'bare', *WITHOUT_ROBOT)]
    for run in runs:
        _, err = run.communicate(timeout=240)
        assert run.returncode == 0, err
    rrds = [import_bag(tmp / name, tmp / f'{name}.rrd') for name in ('arm', 'bare')]
    with Viewer(rrds[0], LAYOUT, log=tmp / 'arm.log', renderer='webgl') as full, \
            Viewer(rrds[1], LAYOUT, log=tmp / 'bare.log', renderer='webgl') as bare, \
            Browser(chromium(), tmp / 'chromium') as browser:
        pages = [browser.page(viewer.url, WIDTH, HEIGHT) for viewer in (full, bare)]
        robot = settled(pages[0], lambda image: orange_pixels(image, VIEW_3D) > 0, 90)
        # loaded: the camera's image is drawn (the image has more colours than the panel)
        without = settled(pages[1], lambda image: colours(image, CAMERA) > 200, 90)
        renderer = pages[0].evaluate(rerun_browser.RENDERER)
    robot.save(tmp / 'robot.png')
    without.save(tmp / 'without.png')
    return robot, without, renderer


def test_the_page_is_drawn_on_webgl(screenshots):
    robot, without, renderer = screenshots
    assert renderer.startswith('WebGL2') and 'SwiftShader' in renderer, renderer
    for image in (robot, without):
        assert image.size == (WIDTH, HEIGHT)
        assert colours(image, (0, 0, WIDTH, HEIGHT)) > 200  # not one colour: text, views, plot
        assert colours(image, VIEW_3D) > 5  # the 3D view: its background and grid, at least


def test_the_3d_view_draws_the_robot_from_robot_description(screenshots):
    robot, _, _ = screenshots
    # the arm's links (three orange boxes and cylinders, 0.3-0.4 m) fill thousands of pixels
    assert orange_pixels(robot, VIEW_3D) > 1500


def test_without_robot_description_the_3d_view_has_no_robot(screenshots):
    robot, without, _ = screenshots
    assert orange_pixels(without, VIEW_3D) == 0
    # the same run otherwise: the camera's image shows the arm's orange shoulder in both
    assert orange_pixels(without, CAMERA) > 100 and orange_pixels(robot, CAMERA) > 100
