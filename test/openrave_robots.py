"""OpenRAVE robots the tests write: a static base and three links 0.3 m apart, each 0.5 kg;
the hinge ``a`` turns ``l1`` and passive hinges follow it by their mimic formulas."""

from __future__ import annotations

import textwrap
from pathlib import Path

from body_bridge.formats import load_model

__all__ = ['QUINTIC', 'mimic_robot', 'quintic_error']

_ROBOT = """
    <Robot name="powers"><KinBody>
      <Body name="base" type="static"><Geom type="box"><extents>0.05 0.05 0.05</extents></Geom>
      </Body>
      {links}
      <Joint name="a" type="hinge"><Body>base</Body><Body>l1</Body><axis>0 0 1</axis>
        <limitsdeg>-90 90</limitsdeg></Joint>
      {second}
      {third}
    </KinBody></Robot>"""

#: ``quintic`` on l3: 0.05 a^5 + a + 0.2, with its rate.
QUINTIC = """<Joint name="quintic" type="hinge" enable="false" mimic_pos="0.05*a^5 + a + 0.2"
        mimic_vel="|a 0.25*a^4 + 1"><Body>base</Body><Body>l3</Body><axis>0 0 1</axis>
        <limitsdeg>-360 360</limitsdeg></Joint>"""


def mimic_robot(folder: Path, second: str, third: str = QUINTIC):
    """The model of the robot with the ``second`` joint on l2 and the ``third`` on l3 (their
    ``<Joint>`` elements), written to ``folder/powers.robot.xml``."""
    links = '\n'.join(
        f'<Body name="l{i}"><Translation>{0.3 * i} 0 0</Translation>'
        f'<Geom type="box"><extents>0.1 0.02 0.02</extents><translation>0.1 0 0</translation>'
        f'</Geom><Mass type="box"><extents>0.1 0.02 0.02</extents><total>0.5</total></Mass>'
        f'</Body>' for i in range(1, 4))
    path = Path(folder) / 'powers.robot.xml'
    path.write_text(textwrap.dedent(_ROBOT.format(links=links, second=second, third=third)))
    return load_model(path)


def quintic_error(sim, target: float = 1.2, periods: int = 150) -> tuple[float, float]:
    """Command ``a`` to ``target`` [rad] and step ``periods``: (``a`` at the end, the largest
    distance of ``quintic`` from 0.05 a^5 + a + 0.2 on the way) [rad]."""
    from body_bridge.sim.simulation import Mode
    sim.command(Mode.POSITION, ['a'], [target])
    worst = 0.0
    for _ in range(periods):
        sim.step_period()
        q = dict(zip(sim.joint_names, sim.joint_positions()))
        worst = max(worst, abs(q['quintic'] - (0.05 * q['a'] ** 5 + q['a'] + 0.2)))
    return q['a'], worst
