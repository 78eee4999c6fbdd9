"""The random bytes a scenario's writes carry: ``random.Random.randbytes``, made faster.

A fabric run posts every byte it moves as random data (so that the receivers' memory
can be checked byte for byte), and ``randbytes`` turns its Mersenne Twister words into
one big integer and that integer into bytes: about 4 ns a byte, a twentieth of a small
fabric run's CPU. numpy's legacy ``RandomState`` is the same generator (MT19937, whose
stream numpy keeps stable) and writes its words straight into an array. Given the
``random.Random``'s state it draws the same words in half the time; the state it ends
in goes back into the ``random.Random``, so the bytes, and every draw after them, are
what ``randbytes`` would have given.
"""

from __future__ import annotations

import random

import numpy as np
from numpy.random import RandomState  # imported here, not in a run's first big write

__all__ = ["random_bytes"]

# Below this a write takes Python's own path: moving the generator's state (624 words)
# to numpy and back costs about as much as drawing this many bytes the slow way.
NUMPY_FROM_BYTES = 1 << 18

_WORD_BITS = 32


def random_bytes(rng: random.Random, size: int) -> bytes:
    """``rng.randbytes(size)``: the same bytes, and ``rng`` left in the same state."""
    if size < NUMPY_FROM_BYTES:
        return rng.randbytes(size)
    version, state, gauss = rng.getstate()
    mt = RandomState(0)  # any seed: set_state replaces it
    mt.set_state(("MT19937", np.array(state[:-1], dtype=np.uint32), state[-1]))
    # randbytes is getrandbits(8 * size) in little-endian order: whole words first,
    # from the least significant; a last partial word keeps its high bits.
    words, tail = divmod(size, 4)
    data = mt.randint(0, 1 << _WORD_BITS, size=words, dtype=np.uint32)
    out = data.astype("<u4", copy=False).tobytes()
    if tail:
        last = int(mt.randint(0, 1 << _WORD_BITS, dtype=np.uint32))
        out += (last >> (_WORD_BITS - 8 * tail)).to_bytes(tail, "little")
    _, key, pos = mt.get_state()[:3]
    rng.setstate((version, (*key.tolist(), int(pos)), gauss))
    return out
