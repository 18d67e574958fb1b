"""A fuzz target for the adapter protocol's decoder, run by ``make test`` with a fixed budget.

Whatever line an adapter prints, :func:`conformance.protocol.decode` returns a protocol message (a JSON object with
a string ``type``, nested at most :data:`~conformance.bounded_json.MAX_DEPTH` deep) or raises
:class:`~conformance.protocol.ProtocolError`: never ``RecursionError``, a bare ``ValueError`` or anything else
that would take the runner down. The budget is fixed (:data:`EXAMPLES` per target, whatever the Hypothesis
profile), so CI's cost is known; the strategies aim at the edges: deep nesting, long integers, broken text.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.bounded_json import MAX_DEPTH, json_problem
from conformance.protocol import ProtocolError, decode

EXAMPLES = 400
"""Examples per fuzz target in every profile (a fixed budget for CI)."""
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=30,
)


@st.composite
def hostile_lines(draw: st.DrawFn) -> str:
    """A line an adapter might print: a message, one nested deep inside brackets, a long integer, or junk."""
    kind = draw(st.sampled_from(["message", "nested", "long-int", "junk", "cut"]))
    body = {"type": draw(st.sampled_from(["result", "hello", "ready", "failure", ""])), "id": draw(st.integers()),
            "observation": draw(json_values)}
    text = json.dumps(body)
    if kind == "nested":
        depth = draw(st.integers(1, 300_000))
        opener = draw(st.sampled_from(["[", '{"a":']))
        closer = "]" if opener == "[" else "}"
        return f'{{"type":"result","id":1,"observation":{opener * depth}1{closer * depth}}}'
    if kind == "long-int":
        return f'{{"type":"result","id":{"9" * draw(st.integers(1, 20_000))}}}'
    if kind == "junk":
        return draw(st.text(max_size=200))
    if kind == "cut":
        return text[:draw(st.integers(0, len(text)))]
    return text


def depth(value: Any) -> int:
    stack, deepest = [(value, 0)], 0
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level + 1)
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


@FUZZ
@given(hostile_lines())
def test_decode_returns_a_message_or_raises_protocol_error(line: str) -> None:
    try:
        message = decode(line)
    except ProtocolError as error:
        assert str(error)  # it says what was wrong
        return
    assert isinstance(message, dict) and isinstance(message["type"], str)
    assert depth(message) <= MAX_DEPTH and json_problem(message) is None


@FUZZ
@given(json_values)
def test_every_bounded_json_value_round_trips(value: Any) -> None:
    line = json.dumps({"type": "result", "value": value})
    assert decode(line)["value"] == value
