"""Reading a bag back with ``rosbags``, a reader independent of the writer (its own rosbag2
and MCAP implementation and CDR decoder, types built from the definitions in the bag)."""

from __future__ import annotations

from pathlib import Path

from rosbags.highlevel import AnyReader


def read_bag(path: Path) -> dict:
    """topic -> (type, [(time [ns], message)], offered QoS) as rosbags reads the bag."""
    out = {}
    with AnyReader([path]) as reader:
        for conn in reader.connections:
            out[conn.topic] = (conn.msgtype, [], conn.ext.offered_qos_profiles)
        for conn, stamp, raw in reader.messages():
            out[conn.topic][1].append((stamp, reader.deserialize(raw, conn.msgtype)))
    return out
