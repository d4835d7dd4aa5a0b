"""The message stream and its outlets: what the bridge publishes, and where it goes.

``qos`` (the QoS of every topic), ``wire`` (messages serialized once and patched in place),
``cdr`` (serialized messages with their padding zeroed),
``messages`` (sensor messages built from readings), ``msgdefs`` (message definitions for bags),
``compression`` and ``encoder`` (compressed images, off the stepping thread), ``outlets`` (one
stream, several outlets: DDS, a bag, a Foxglove server), ``live_outlets`` (the outlets the
parameters ask for), ``recorder`` and ``bag`` (a rosbag2 MCAP bag) and ``foxglove`` (the live
WebSocket server).

Imports: ``ros/console.py``, ``sim/`` and the layers below it; nothing else of ``ros/``.
"""
