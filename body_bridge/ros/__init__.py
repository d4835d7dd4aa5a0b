"""The ROS 2 side: the only package that imports rclpy and message packages.

Its rooms, from the bottom: ``console.py`` (what the bridge tells its user); ``stream/`` (QoS,
message packing, the outlets: DDS, bags, Foxglove); ``devices/`` (sensor topics) and
``control/`` (command topics, actions, ``cmd_vel``), both on ``stream/``; ``node/`` (the bridge
node, its parameters, the stepping thread); ``simapi/`` (the simulator API, which makes
nodes); ``process/`` (the bridge started, recorded and stopped). Each imports only the rooms
before it; ``test/test_architecture.py`` holds the edges.
"""
