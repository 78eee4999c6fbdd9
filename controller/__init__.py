"""The MRC fabric controller: topology file -> uSID plan -> P4Runtime entries (by name).

``controller.topology`` reads and checks a topology file, ``controller.plan`` turns it
into table entries (pure functions, lazy per device), ``controller.apply`` writes them
to every device (``controller.device``: one device's pipeline, diff and writes),
``controller.react`` keeps the devices programmed and answers the NICs' EV events,
``controller.health`` reads counters, ``controller.cli`` is ``mrc-ctl``.
"""
