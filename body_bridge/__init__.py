"""body_bridge: Choreonoid, OpenRAVE and Chrono models as live ROS 2 robots."""

from .errors import BodyBridgeError, CommandError, ModelError, UnsupportedError
from .formats import load_model
from .model import Model

__all__ = ['BodyBridgeError', 'CommandError', 'Model', 'ModelError', 'UnsupportedError',
           'load_model']
