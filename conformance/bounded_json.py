"""Reading JSON that someone else wrote (an adapter's reply, a vector file given on the command line) with bounds.

``json.loads`` recurses once per level of nesting, so text nested 200,000 levels deep ends in ``RecursionError``,
and an integer of more than 4,300 digits in a ``ValueError`` that is not a ``JSONDecodeError``; a value nested a few
hundred levels deep parses but then overflows the stack of whatever reads it recursively (the runner's comparison,
jsonschema, a report). :func:`loads` turns each into a ``ValueError`` saying what was wrong, and refuses nesting
deeper than :data:`MAX_DEPTH`; :func:`json_problem` checks a value built in-process the same way, without recursion.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any, Final

JSON = Any

MAX_DEPTH: Final = 64
"""The deepest nesting of arrays and objects a protocol message (or a vector file) may have; an observation nests
about a dozen levels. Deeper input is refused before anything recursive (the comparison, a report) reads it."""
MAX_INT_DIGITS: Final = 4_300
"""The longest integer a message may hold, in decimal digits (Python's own limit for converting text to int)."""

_SCALARS: Final = (str, int, float, bool, type(None))


def json_problem(value: object, max_depth: int = MAX_DEPTH) -> str | None:
    """What makes ``value`` something other than JSON the runner can read, or None: a value that is not a JSON type
    (a dict key that is not a string, a set, an object), nesting deeper than ``max_depth``, an integer of more than
    :data:`MAX_INT_DIGITS` digits; where there are several, the first met depth first, last child first. Iterative,
    so any depth is safe to check."""
    # The runner checks every in-process answer with this, so it is written for speed (it was a third of the time
    # the suite took on refimpl): a stack of iterators over each container's children, strings, floats, booleans
    # and None passed over where they are met. tests/conformance/test_bounded_json.py checks it against the plain
    # stack of values it replaced, problem for problem.
    if not isinstance(value, dict | list):
        return _scalar_problem(value)
    problem = _container_problem(value, 1, max_depth)
    if problem is not None:
        return problem
    stack: list[tuple[Iterator[object], int]] = [(_children(value), 2)]
    plain, str_ = _PLAIN, str
    while stack:
        children, depth = stack[-1]
        for child in children:
            kind = type(child)
            if kind in plain:
                continue
            if kind is dict:  # inlined _container_problem and _children: the common containers
                if depth > max_depth:
                    return f"nested deeper than {max_depth} levels"
                for key in child:  # type: ignore[attr-defined]
                    if type(key) is not str_:
                        return "an object key is not a string"
                stack.append((reversed(child.values()), depth + 1))  # type: ignore[attr-defined]
                break
            if kind is list:
                if depth > max_depth:
                    return f"nested deeper than {max_depth} levels"
                stack.append((reversed(child), depth + 1))  # type: ignore[call-overload]
                break
            if isinstance(child, dict | list):
                problem = _container_problem(child, depth, max_depth)
                if problem is not None:
                    return problem
                stack.append((_children(child), depth + 1))
                break
            problem = _scalar_problem(child)
            if problem is not None:
                return problem
        else:
            stack.pop()
    return None


_PLAIN: Final = frozenset({str, float, bool, type(None)})
"""The JSON scalars that need no check (an int does: its length)."""


def _children(container: dict[Any, Any] | list[Any]) -> Iterator[object]:
    return reversed(container.values()) if isinstance(container, dict) else reversed(container)


def _container_problem(container: dict[Any, Any] | list[Any], depth: int, max_depth: int) -> str | None:
    if depth > max_depth:
        return f"nested deeper than {max_depth} levels"
    if isinstance(container, dict) and not all(type(key) is str for key in container):
        return "an object key is not a string"
    return None


def _scalar_problem(item: object) -> str | None:
    if not isinstance(item, _SCALARS):
        return f"a {type(item).__name__} is not a JSON value"
    if type(item) is int and item.bit_length() > MAX_INT_DIGITS * 3.33:
        return f"an integer of more than {MAX_INT_DIGITS:,} digits"
    return None


def loads(text: str, max_depth: int = MAX_DEPTH) -> JSON:
    """``json.loads`` with bounds: fails with ``ValueError`` (a :class:`json.JSONDecodeError` for malformed text)
    whose message says what was wrong, for text that is not JSON, nests deeper than ``max_depth`` or holds an
    integer too long to convert; never with ``RecursionError``."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError(f"nested deeper than {max_depth} levels") from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # an integer beyond sys.get_int_max_str_digits()
        raise ValueError(f"an integer too long to read (more than {sys.get_int_max_str_digits():,} digits)") from None
    problem = json_problem(value, max_depth)
    if problem is not None:
        raise ValueError(problem)
    return value
