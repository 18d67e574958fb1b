""":func:`conformance.bounded_json.json_problem` is written for speed; it must say exactly what the plain stack of
values it replaced said, for every value: the same problem, or None."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from conformance.bounded_json import MAX_INT_DIGITS, json_problem

_SCALARS = (str, int, float, bool, type(None))


def plain_json_problem(value: object, max_depth: int) -> str | None:
    """The implementation before the speed-up (commit 434b25e), kept as the oracle."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > max_depth:
                return f"nested deeper than {max_depth} levels"
            if isinstance(item, dict):
                if not all(type(key) is str for key in item):
                    return "an object key is not a string"
                stack.extend((child, depth + 1) for child in item.values())
            else:
                stack.extend((child, depth + 1) for child in item)
        elif not isinstance(item, _SCALARS):
            return f"a {type(item).__name__} is not a JSON value"
        elif type(item) is int and item.bit_length() > MAX_INT_DIGITS * 3.33:
            return f"an integer of more than {MAX_INT_DIGITS:,} digits"
    return None


class Text(str):
    pass


scalars = st.one_of(
    st.text(max_size=3), st.integers(-5, 5), st.floats(allow_nan=False), st.booleans(), st.none(),
    st.booleans().map(lambda long: 1 << (15_000 if long else 14_000)),  # too long, and long but within the limit
    st.just(frozenset({1})), st.just((1, 2)), st.just(object()), st.builds(Text, st.text(max_size=2)),
)
keys = st.one_of(st.text(max_size=2), st.integers(0, 3), st.just(("t",)))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(keys, inner, max_size=4),
        st.dictionaries(st.text(max_size=2), inner, max_size=3).map(OrderedDict),
    ),
    max_leaves=30,
)


@given(values, st.integers(1, 6))
def test_the_same_problem_as_the_plain_stack(value: Any, max_depth: int) -> None:
    assert json_problem(value, max_depth) == plain_json_problem(value, max_depth)


def test_the_oracle_and_the_check_find_each_kind_of_problem() -> None:
    """The property is not vacuous: each kind of problem occurs and both name it."""
    cases = {
        "nested deeper than 2 levels": [[[1]]],
        "an object key is not a string": {"a": {1: "x"}},
        "a set is not a JSON value": [1, "a", {2}],
        f"an integer of more than {MAX_INT_DIGITS:,} digits": {"n": 1 << 15_000},
    }
    for message, value in cases.items():
        assert json_problem(value, 2) == plain_json_problem(value, 2) == message
    first = [{"a": {3}}, [[[0]]]]  # two problems: the last child's is met first
    assert json_problem(first, 3) == plain_json_problem(first, 3) == "nested deeper than 3 levels"
    assert json_problem({"ok": [1.5, None, True, "s"]}) is None
