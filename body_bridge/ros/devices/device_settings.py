"""Device parameters beyond on/off and rate: the noise and a camera's compression.

* ``devices.<device>.noise.<key>``: every noise setting of the device's kind
  (:data:`body_bridge.device_overlay.NOISE_KEYS`; 0: none), starting from the devices file's;
  a setting of a vector quantity takes one number or a list of three (per axis).
* ``devices.<camera>.compressed.format`` (``jpeg`` or ``png``), ``.jpeg_quality`` (1..100),
  ``.png_level`` (0..9): the ``image_raw/compressed`` topic, as image_transport's compressed
  plug-in names them;
* ``devices.<camera>.compressedDepth.format`` (``png`` or ``rvl``), ``.depth_max`` [m],
  ``.depth_quantization`` [m], ``.png_level``: the ``depth/image/compressedDepth`` topic, as
  compressed_depth_image_transport names them.

All settable at run time: checked in the executor's thread (:func:`problem`), applied in the
simulation's (:func:`apply`).
"""

from __future__ import annotations

import dataclasses
import math

from rcl_interfaces.msg import ParameterDescriptor, ParameterType

from ...device_overlay import NOISE_KEYS, Overlay, noise_value
from ...errors import ModelError
from ...sim.sensing.sensors import CameraSampler
from ..stream.compression import COLOR_DEFAULTS, DEPTH_DEFAULTS

__all__ = ['declare', 'invalid', 'problem', 'convert', 'apply', 'initial', 'defaults',
           'seeded']

_DOUBLE, _INT, _STR = (ParameterType.PARAMETER_DOUBLE, ParameterType.PARAMETER_INTEGER,
                       ParameterType.PARAMETER_STRING)
_TEXT = {'format': 'Compression of image_raw/compressed: jpeg or png.',
         'depth_format': 'Compression of depth/image/compressedDepth: png or rvl.',
         'jpeg_quality': 'JPEG quality of image_raw/compressed, 1..100.',
         'png_level': 'PNG compression level, 0..9.',
         'depth_max': 'Farthest depth compressedDepth keeps [m] (farther: no reading).',
         'depth_quantization': 'Depth at which a step of the inverse-depth code of '
                               'compressedDepth is 1 m [m]; larger: finer.'}


def declare(node, base: str, output) -> dict[str, tuple[str, str]]:
    """Declare the noise (and compression) parameters of one device publisher and apply the
    values given at start; return parameter -> (group, key), group ``noise``, ``compressed``
    or ``compressedDepth``.

    Raises:
        ModelError: a value given at start (``--ros-args -p``) that is not acceptable.
    """
    sampler = output.sampler
    params = {}
    for key, unit in NOISE_KEYS[sampler.device.kind].items():
        value = sampler.noise.get(key, 0.0)
        value = list(value) if isinstance(value, tuple) else float(value)
        node.declare_parameter(f'{base}.noise.{key}', value, ParameterDescriptor(
            type=ParameterType.PARAMETER_DOUBLE, dynamic_typing=True,
            description=f'Noise {key} of device {sampler.name!r} [{unit}] (0: none; '
                        'docs/sensors.md).'))
        params[f'{base}.noise.{key}'] = ('noise', key)
    if isinstance(sampler, CameraSampler):
        for group, settings in (('compressed', output.compression),
                                ('compressedDepth', output.depth_compression)):
            for key, value in settings.items():
                kind = _STR if key == 'format' else _INT if isinstance(value, int) else _DOUBLE
                name = f'{base}.{group}.{key}'
                text = _TEXT['depth_format' if key == 'format' and group != 'compressed' else key]
                node.declare_parameter(name, value, ParameterDescriptor(
                    type=kind, dynamic_typing=True, description=text))
                params[name] = (group, key)
    for name, what in params.items():
        value = node.get_parameter(name).value
        why = problem(what, value)
        if why:
            raise ModelError(None, None, f'parameter {name} {why}')
        if value != initial(output, what):
            apply(output, what, convert(what, value))
    return params


def invalid(what, value) -> str | None:
    """Why a value of ``devices.<device>.on``, ``.rate`` or a setting of this module
    (``what`` a tuple) is not acceptable (None: it is)."""
    if isinstance(what, tuple):
        return problem(what, value)
    if what == 'on':
        return None if isinstance(value, bool) else f'must be true or false, not {value!r}'
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 \
            or not math.isfinite(value):
        return f'must be a positive rate [Hz], not {value!r}'
    return None


def convert(what: tuple[str, str], value):
    """The value to apply (a list of three from an array parameter)."""
    if what[0] == 'noise' and not isinstance(value, (str, bytes)) and hasattr(value, '__len__'):
        value = list(value)
    if what[0] == 'noise':
        return noise_value(what[1], value)
    if what[1] == 'depth_max' or what[1] == 'depth_quantization':
        return float(value)
    return value


def problem(what: tuple[str, str], value) -> str | None:
    """Why ``value`` is not acceptable for the setting ``what`` (None: it is)."""
    group, key = what
    if group == 'noise':
        try:
            convert(what, value)
        except ValueError as err:  # 'noise <key> is negative' -> 'is negative'
            return str(err).removeprefix(f'noise {key} ')
        return None
    if key == 'format':
        allowed = ('jpeg', 'png') if group == 'compressed' else ('png', 'rvl')
        return None if value in allowed else f'must be one of {", ".join(allowed)}, not {value!r}'
    if key in ('jpeg_quality', 'png_level'):
        low, high = (1, 100) if key == 'jpeg_quality' else (0, 9)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            return f'must be an integer within {low}..{high}, not {value!r}'
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not math.isfinite(value) or value <= 0:
        return f'must be a positive number [m], not {value!r}'
    return None


def apply(output, what: tuple[str, str], value) -> None:
    """Apply a checked setting to a device publisher (the simulation's thread)."""
    group, key = what
    if group == 'noise':
        output.sampler.set_noise(key, value)
    elif group == 'compressed':
        output.compression[key] = value
    else:
        output.depth_compression[key] = value


def initial(output, what: tuple[str, str]):
    """The value a setting has before any parameter changes it (as declared)."""
    group, key = what
    if group == 'noise':
        value = output.sampler.noise.get(key, 0.0)
        return list(value) if isinstance(value, tuple) else float(value)
    return (output.compression if group == 'compressed' else output.depth_compression)[key]


def defaults() -> tuple[dict, dict]:
    """Fresh compression settings of a camera: (colour, depth)."""
    return dict(COLOR_DEFAULTS), dict(DEPTH_DEFAULTS)


def seeded(node, overlay: Overlay | None) -> Overlay | None:
    """The overlay with the node's ``noise_seed`` as its seed, when that is set (>= 0)."""
    seed = getattr(node, 'params', {}).get('noise_seed', -1)
    if seed < 0:
        return overlay
    return dataclasses.replace(overlay or Overlay(), seed=seed)
