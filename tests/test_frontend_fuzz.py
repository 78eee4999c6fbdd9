"""Mutated programs (tokens deleted, duplicated or swapped) must be accepted or rejected
with a P4Error: the front end and the pipeline compiler never fail with another
exception, whatever the input."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from behavioral_model.frontend.errors import P4Error
from behavioral_model.program import load_program_text

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = sorted((ROOT / "tests" / "stf").glob("*.p4")) + [ROOT / "p4src" / "srv6_switch.p4"]
TOKEN = re.compile(r"\s+|\w+|[^\w\s]")
MUTANTS = 300


def mutate(text: str, rng: random.Random) -> str:
    tokens = TOKEN.findall(text)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(tokens))
        roll = rng.random()
        if roll < 0.4:
            del tokens[i]
        elif roll < 0.7:
            tokens.insert(i, rng.choice(tokens))
        else:
            tokens[i] = rng.choice(tokens)
    return "".join(tokens)


@pytest.mark.parametrize("seed", range(3))
def test_mutated_programs_fail_only_with_p4_errors(seed: int) -> None:
    rng = random.Random(seed)
    outcomes = {"accepted": 0, "rejected": 0}
    for _ in range(MUTANTS // 3):
        path = rng.choice(PROGRAMS)
        source = mutate(path.read_text(), rng)
        try:
            load_program_text(source, filename=str(path),
                              include_dirs=[ROOT / "p4src" / "include"])
        except P4Error as err:
            assert str(err), "a P4Error must carry a message"
            outcomes["rejected"] += 1
        else:
            outcomes["accepted"] += 1
    # Most mutants are wrong; the mix shows the mutations reach every stage.
    assert outcomes["rejected"] > 0
