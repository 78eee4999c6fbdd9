"""bm as a switch: the data path around the executor (:mod:`.engine`, also usable in
virtual time), the real-time device with ports and controller packet I/O
(:mod:`.core`, the P4Runtime target), and the ``switch`` process (:mod:`.process`)."""

from .core import SwitchCore
from .engine import Dataplane

__all__ = ["Dataplane", "SwitchCore"]
