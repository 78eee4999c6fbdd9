"""fabric.payload.random_bytes: what ``random.Random.randbytes`` gives, and the
generator left where ``randbytes`` leaves it, on both of its paths."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fabric.payload import NUMPY_FROM_BYTES, random_bytes


def _pair(seed: int, warm: int) -> tuple[random.Random, random.Random]:
    """Two generators in the same state, not at the start of their block of 624
    words (``warm`` draws made)."""
    a, b = random.Random(seed), random.Random(seed)
    for rng in (a, b):
        for _ in range(warm):
            rng.random()
    return a, b


@pytest.mark.parametrize("size", [NUMPY_FROM_BYTES, NUMPY_FROM_BYTES + 1,
                                  NUMPY_FROM_BYTES + 2, NUMPY_FROM_BYTES + 3,
                                  3 * NUMPY_FROM_BYTES + 5, 1 << 22])
def test_numpy_path_gives_randbytes(size: int) -> None:
    ours, python = _pair(7, 3)
    data = random_bytes(ours, size)
    assert len(data) == size
    assert data == python.randbytes(size)
    assert ours.getstate() == python.getstate()
    assert ours.random() == python.random()  # and the draws after it


@given(seed=st.integers(0, 2**64), warm=st.integers(0, 700),
       extra=st.integers(0, 4 * 624 * 4 + 7), size_small=st.integers(0, 300))
@settings(max_examples=25, deadline=None)
def test_any_state_and_size(seed: int, warm: int, extra: int, size_small: int) -> None:
    """Sizes on both paths, from states anywhere in the 624-word block (a partial last
    word keeps the word's high bits, as getrandbits does)."""
    ours, python = _pair(seed, warm)
    for size in (size_small, NUMPY_FROM_BYTES + extra):
        assert random_bytes(ours, size) == python.randbytes(size)
        assert ours.getstate() == python.getstate()


def test_gauss_state_is_kept() -> None:
    """random.Random keeps a spare normal deviate in its state; it survives."""
    ours, python = _pair(11, 0)
    ours.gauss(0, 1), python.gauss(0, 1)
    random_bytes(ours, NUMPY_FROM_BYTES + 9)
    python.randbytes(NUMPY_FROM_BYTES + 9)
    assert ours.gauss(0, 1) == python.gauss(0, 1)


def test_negative_size_is_refused_like_randbytes() -> None:
    with pytest.raises(ValueError):
        random_bytes(random.Random(1), -1)
