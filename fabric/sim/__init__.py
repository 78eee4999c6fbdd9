"""The discrete-event network: devices running their P4 programs in our executor with
a traffic manager each, cables with rate, delay and loss, and host endpoints, all in
one process and in virtual time (fabric.sim.events; time in microseconds)."""
