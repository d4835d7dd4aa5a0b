"""The bridge as a process: started (``bridge``, ``sim``), recorded (``record``), stopped.

``launcher`` (one model or several sharing one world, the outlets, the simulator API),
``record`` (models run headless into a bag), ``scenario`` (one run of a sweep: a world with
given parameters, recorded and watched), ``stopping`` (Ctrl-C and SIGTERM) and ``transport``
(the DDS settings camera topics need).

Imports: every other room of ``ros/`` and the layers below it.
"""
