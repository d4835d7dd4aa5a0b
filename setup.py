"""ament_python set-up of body_bridge (colcon build, or pip install -e . in a venv)."""

import os
from glob import glob

from setuptools import find_packages, setup

PACKAGE = 'body_bridge'


def tree(folder):
    """(install dir, files) pairs for every file under a folder, keeping its layout."""
    out = []
    for root, _, files in os.walk(folder):
        if files:
            out.append((os.path.join('share', PACKAGE, root),
                        [os.path.join(root, f) for f in files]))
    return out


setup(
    name=PACKAGE,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'bench']),
    data_files=[
        ('share/ament_index/resource_index/packages', [f'resource/{PACKAGE}']),
        (f'share/{PACKAGE}', ['package.xml']),
        (f'share/{PACKAGE}/launch', glob('launch/*.launch.py')),
        (f'share/{PACKAGE}/config', glob('config/*')),
        *tree('models'),
        *tree('worlds'),
    ],
    install_requires=['setuptools', 'numpy', 'PyYAML', 'mujoco', 'pycollada', 'lxml',
                      'defusedxml', 'Pillow'],
    zip_safe=True,
    maintainer='body_bridge maintainers',
    maintainer_email='maintainers@users.noreply.a-seed-adde5337.example',
    description='Choreonoid, OpenRAVE and Chrono models as live ROS 2 robots.',
    license='Apache-2.0',
    tests_require=['pytest'],
    entry_points={
        'console_scripts': [
            f'bridge = {PACKAGE}.ros.process.launcher:main',
            f'body_bridge = {PACKAGE}.cli:main',
        ],
    },
)
