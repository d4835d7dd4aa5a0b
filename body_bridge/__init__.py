"""body_bridge: Choreonoid, OpenRAVE and Chrono models as live ROS 2 robots.

The names below are imported on first use, not with the package: ``python -m body_bridge`` and
the ``bridge`` program then reach their own code (and their Ctrl-C handling,
ros/process/stopping.py) in a fraction of a second, before the loaders and numpy are imported.
"""

__all__ = ['BodyBridgeError', 'CommandError', 'Model', 'ModelError', 'UnsupportedError',
           'load_model']

_ERRORS = ('BodyBridgeError', 'CommandError', 'ModelError', 'UnsupportedError')


def __getattr__(name: str):
    if name in _ERRORS:
        from . import errors
        return getattr(errors, name)
    if name == 'load_model':
        from .formats import load_model
        return load_model
    if name == 'Model':
        from .model import Model
        return Model
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
