"""Many devices in one emulated network: the NICs of p4src/mrc_nic.p4 and the switches of
p4src/srv6_switch.p4, each running its P4 program in our executor, with host/ endpoints on
the NICs' host ports.

``python -m fabric run`` (docs/fabric.md): the scenarios in
``fabric/scenarios/`` on a discrete-event network (``fabric.sim``: devices, cables,
hosts in virtual time) that the controller programs over P4Runtime
(``fabric.control``); ``runner`` makes one run, ``experiment`` a scenario's runs,
``metrics``/``outcomes`` measure and judge them, ``report``/``plots`` write them out.
``back_to_back`` is the smallest network: two NICs cabled directly.

``fabric.procs`` runs the devices as processes instead: one bm switch process per device
of a topology file, cabled by a patch panel between their nanomsg sockets, on loopback
and without root (``python -m fabric.procs up TOPO``)."""
