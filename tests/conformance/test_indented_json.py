"""conformance.indented_json writes what ``json.dumps(value, indent=1)`` writes, which the vector files were written
with before it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import indented_json
from conformance.format import MANIFEST_NAME, VECTORS_DIR

SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text()
KEYS = st.text() | st.integers() | st.floats(allow_nan=False) | st.booleans() | st.none()
VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=4) | st.lists(children, max_size=3).map(tuple)
    | st.dictionaries(KEYS, children, max_size=4),
    max_leaves=30,
)


@given(VALUES, st.booleans())
def test_same_text_as_json_dumps(value: Any, ensure_ascii: bool) -> None:
    assert indented_json.dumps(value, ensure_ascii=ensure_ascii) == json.dumps(value, indent=1,
                                                                                ensure_ascii=ensure_ascii)


@pytest.mark.parametrize("value", [
    {}, [], (), {"a": []}, [{}], {"": {"": [[], {}]}}, "é\n\"\\\u2028\x00", -0.0, 1e300, float("nan"), float("-inf"),
    {2: 2, 1.5: None, True: False, False: 0, None: "x"}, 2**70,
])
def test_corner_cases(value: Any) -> None:
    for ensure_ascii in (True, False):
        assert indented_json.dumps(value, ensure_ascii=ensure_ascii) == json.dumps(value, indent=1,
                                                                                    ensure_ascii=ensure_ascii)


def test_committed_files_read_back_the_same() -> None:
    """The manifest (ASCII) and a vector file (not ASCII) as the committed bytes, which json.dumps also gives."""
    for name, ensure_ascii in ((MANIFEST_NAME, True), ("cycle.curated.json", False)):
        text = (VECTORS_DIR / name).read_text(encoding="utf-8")
        data = json.loads(text)
        assert indented_json.dumps(data, ensure_ascii=ensure_ascii) + "\n" == text
        assert json.dumps(data, indent=1, ensure_ascii=ensure_ascii) + "\n" == text


@pytest.mark.parametrize("value", [{(1, 2): 3}, [object()], {"a": {1, 2}}])
def test_what_json_refuses_is_refused(value: Any) -> None:
    with pytest.raises(TypeError):
        json.dumps(value, indent=1)
    with pytest.raises(TypeError):
        indented_json.dumps(value)
