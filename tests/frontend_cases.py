"""What the front-end tests that compare bm with p4c do with each case: check a program
text, and check that it is rejected with a message and a location, as p4c rejects it."""

from __future__ import annotations

import pytest

from behavioral_model.frontend.checker import CheckedProgram
from behavioral_model.frontend.errors import P4TypeError
from behavioral_model.frontend.preprocess import preprocess_text
from behavioral_model.program import check_source


def check(text: str) -> CheckedProgram:
    return check_source(preprocess_text(text))


def assert_rejected(text: str, message: str) -> None:
    """``text`` fails the check with a type error saying ``message``, at a place."""
    with pytest.raises(P4TypeError) as err:
        check(text)
    assert message in err.value.message
    assert err.value.location is not None
