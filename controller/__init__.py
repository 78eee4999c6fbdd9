"""The MRC fabric controller: topology file -> uSID plan -> P4Runtime entries (by name).

``controller.topology`` reads and checks a topology file, ``controller.plan`` turns it
into table entries (pure functions, lazy per device), ``controller.cli`` is ``mrc-ctl``.
"""
