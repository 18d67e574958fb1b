"""Term helpers that build Z3 expressions from Z3 inputs and plain Python values from Python inputs.

The cache transitions are encoded once (:mod:`spec.verify.cache.transitions`). Given Z3 constants they
build the formulas the proofs are about; given the ``bool`` and ``int`` values of a concrete state
(:mod:`spec.verify.cache.abstraction`) they compute the abstract post-state directly, which is how the
encoding is checked against the executable spec quickly and without a solver. Python's own
``==``, ``+``, ``-`` and ``<`` already work on both kinds of value; this module supplies the rest.

Never branch with ``if`` on a term: a Z3 term refuses to become a Python ``bool``, so a mistake
fails loudly instead of silently taking one branch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields
from typing import Any, TypeAlias, TypeVar

import z3

Bool: TypeAlias = Any
"""A Python ``bool`` or a Z3 ``BoolRef``."""
Int: TypeAlias = Any
"""A Python ``int`` or a Z3 ``ArithRef`` of sort Int."""

State = TypeVar("State")
"""An abstract state: a frozen dataclass whose fields are terms or (nested) tuples of terms."""


def is_concrete(value: object) -> bool:
    """Whether ``value`` is a plain Python value rather than a Z3 term."""
    return isinstance(value, bool | int)


def ite(condition: Bool, then: Any, otherwise: Any) -> Any:
    """``If(condition, then, otherwise)``; a Python condition picks a branch directly."""
    if isinstance(condition, bool):
        return then if condition else otherwise
    return z3.If(condition, then, otherwise)


def and_(*operands: Bool) -> Bool:
    """Conjunction; plain Python when every operand is."""
    symbolic = [x for x in operands if not isinstance(x, bool)]
    if any(x is False for x in operands):
        return False
    if not symbolic:
        return True
    return symbolic[0] if len(symbolic) == 1 else z3.And(*symbolic)


def or_(*operands: Bool) -> Bool:
    """Disjunction; plain Python when every operand is."""
    symbolic = [x for x in operands if not isinstance(x, bool)]
    if any(x is True for x in operands):
        return True
    if not symbolic:
        return False
    return symbolic[0] if len(symbolic) == 1 else z3.Or(*symbolic)


def not_(operand: Bool) -> Bool:
    """Negation."""
    if isinstance(operand, bool):
        return not operand
    return z3.Not(operand)


def implies(premise: Bool, conclusion: Bool) -> Bool:
    """Implication."""
    return or_(not_(premise), conclusion)


def iff(a: Bool, b: Bool) -> Bool:
    """Equivalence of two truth values."""
    return a == b


def count(flags: Sequence[Bool]) -> Int:
    """How many of ``flags`` are true."""
    return sum((ite(flag, 1, 0) for flag in flags), 0)


def pick(values: Sequence[Any], index: Int) -> Any:
    """``values[index]`` for a possibly symbolic index (out of range: the last value)."""
    if isinstance(index, int):
        return values[index]
    result = values[-1]
    for position in range(len(values) - 2, -1, -1):
        result = ite(index == position, values[position], result)
    return result


def put(values: tuple[Any, ...], index: Int, value: Any) -> tuple[Any, ...]:
    """``values`` with position ``index`` replaced by ``value``, for a possibly symbolic index."""
    return tuple(ite(index == position, value, old) for position, old in enumerate(values))


def in_range(index: Int, size: int) -> Bool:
    """``0 <= index < size``."""
    return and_(index >= 0, index < size)


def fresh_constants(params: Iterable[tuple[str, object]], tag: str, flag: object) -> dict[str, Any]:
    """Fresh Z3 constants ``tag.name`` for an operation's parameters: Bool for those of sort ``flag``, Int for the
    others (indices and amounts)."""
    return {name: z3.Bool(f"{tag}.{name}") if sort is flag else z3.Int(f"{tag}.{name}") for name, sort in params}


def _map_terms(value: Any, leaf: Callable[[Any], Any]) -> Any:
    if isinstance(value, tuple):
        return tuple(_map_terms(item, leaf) for item in value)
    return leaf(value)


def map_fields(state: State, leaf: Callable[[Any], Any]) -> State:
    """Apply ``leaf`` to every term of the abstract state ``state`` (a dataclass of terms and tuples of terms)."""
    return type(state)(*(_map_terms(getattr(state, f.name), leaf) for f in fields(state)))  # type: ignore[arg-type]


def select_fields(condition: Bool, then: State, otherwise: State) -> State:
    """The abstract state ``then`` where ``condition`` holds, else ``otherwise``, field by field.

    Both must be instances of the same dataclass with tuples of the same shapes; a mismatch fails
    in ``zip(strict=True)``.
    """
    if isinstance(condition, bool):
        return then if condition else otherwise

    def merge(a: Any, b: Any) -> Any:
        if isinstance(a, tuple):
            return tuple(merge(x, y) for x, y in zip(a, b, strict=True))
        if a is b:
            return a
        return ite(condition, a, b)

    return type(then)(*(merge(getattr(then, f.name), getattr(otherwise, f.name)) for f in fields(then)))  # type: ignore[arg-type]
