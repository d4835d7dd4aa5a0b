"""control_msgs in the environment: the actions the bridge serves, with the released type
hashes (a wheel environment builds them from tools/control_msgs; a ROS installation has them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)


#: RIHS01 type hashes of the released control_msgs (Jazzy, Kilted), as its generated headers
#: carry them. Goal, Result and Feedback are what a client and a server must agree on.
RELEASED = {
    'control_msgs/action/FollowJointTrajectory':
        '738ebcb7a2d7cfa42f9f1001cc99ce3a4383d1cfe508015d9be8485e4b1c66f6',
    'control_msgs/action/FollowJointTrajectory_Goal':
        '8a9060704b269608f5a340934cc26e66869dd14bdac29e2e7fd9ec8b9882d205',
    'control_msgs/action/FollowJointTrajectory_Result':
        '8002e99ed2c14c6faa522f2a93c26d744c5982f254f9e98ff9c6f19789bdb220',
    'control_msgs/action/FollowJointTrajectory_Feedback':
        '3fd0aaecf71725121ae1ff7f01098a5e0da581e672be18a6b2c286cb43d96b49',
    'control_msgs/action/FollowJointTrajectory_SendGoal':
        'b13789dddc325a7a962825c45e28c77d37237ec129dd0c34dc5994562938c57f',
    'control_msgs/action/FollowJointTrajectory_GetResult':
        'e3ceb38e3e1867c8dc0f46014df26e90eb93422f27e9e97f936e07f94be4bc8b',
    'control_msgs/action/FollowJointTrajectory_FeedbackMessage':
        '80398fcb9674a79081a9906e2ccf0c804dd7cb15e22e362e606ee87186beab71',
}


def _share() -> Path:
    """control_msgs' share directory: the install prefix of its Python package."""
    import control_msgs
    for parent in Path(control_msgs.__file__).resolve().parents:
        if (parent / 'share' / 'control_msgs' / 'package.xml').exists():
            return parent / 'share' / 'control_msgs'
    raise AssertionError(f'no share/control_msgs above {control_msgs.__file__}')


def _hashes(relative: str) -> dict[str, str]:
    path = _share() / relative
    data = json.loads(path.read_text())
    return {h['type_name']: h['hash_string'].removeprefix('RIHS01_')
            for h in data['type_hashes']}


def test_follow_joint_trajectory_has_the_released_type_hashes():
    hashes = _hashes('action/FollowJointTrajectory.json')
    for name, expected in RELEASED.items():
        assert hashes[name] == expected, name


def test_actions_import_with_the_fields_the_bridge_uses():
    from control_msgs.action import FollowJointTrajectory, GripperCommand
    result = FollowJointTrajectory.Result
    assert (result.SUCCESSFUL, result.INVALID_GOAL, result.INVALID_JOINTS,
            result.OLD_HEADER_TIMESTAMP, result.PATH_TOLERANCE_VIOLATED,
            result.GOAL_TOLERANCE_VIOLATED) == (0, -1, -2, -3, -4, -5)
    assert set(FollowJointTrajectory.Feedback.get_fields_and_field_types()) >= {
        'header', 'joint_names', 'desired', 'actual', 'error'}
    goal = GripperCommand.Goal()
    assert goal.command.get_fields_and_field_types() == {'position': 'double',
                                                        'max_effort': 'double'}
    assert GripperCommand.Result.get_fields_and_field_types() == {
        'position': 'double', 'effort': 'double', 'stalled': 'boolean',
        'reached_goal': 'boolean'}
