"""Many devices in one emulated network: the NICs of p4src/mrc_nic.p4 and the switches of
p4src/srv6_switch.p4, each running its P4 program in our executor, with host/ endpoints on
the NICs' host ports."""
