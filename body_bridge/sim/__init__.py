"""The integrator (MuJoCo): the only package that imports mujoco."""
