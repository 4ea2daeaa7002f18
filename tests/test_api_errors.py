"""Every bad Python API call of tests/bad_inputs.py raises TypeError/ValueError — an FpforgeError — whose one-line
message names the parameter (or the rule), never another exception type, a wrong result, or a silent cast."""

from __future__ import annotations

import pytest

from fpforge.golden.errors import FpforgeError

from bad_inputs import API_CASES
from error_messages import assert_no_internals


def test_there_are_at_least_100_cases_with_unique_ids():
    ids = [c[0] for c in API_CASES]
    assert len(ids) >= 100 and len(set(ids)) == len(ids)


@pytest.mark.parametrize("call, kind, words", [pytest.param(c, k, w, id=i) for i, c, k, w in API_CASES])
def test_bad_call_raises_a_clear_error(call, kind, words):
    with pytest.raises(kind) as info:
        call()
    assert isinstance(info.value, FpforgeError), f"{type(info.value).__name__}: {info.value}"
    message = str(info.value)
    assert words in message and "\n" not in message, message
    assert_no_internals(message, functions=False)  # the API names its own public functions; no private ones
