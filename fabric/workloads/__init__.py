"""A scenario's workloads: what a file may ask for (``specs``) and how each becomes
flows of writes on QPs, with the order collectives impose (``flows``)."""
