"""The ROS 2 node: the only package that imports rclpy and message packages."""
