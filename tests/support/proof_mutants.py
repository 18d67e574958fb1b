"""What the "every proof can fail" tests share: finding an obligation, checking a refutation, and
building a broken transition table from the real one (cache or dispatcher alike)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, TypeVar

from spec.verify.obligations import Obligation, Result, Verdict

Encoding = TypeVar("Encoding")
"""A transition encoding: a frozen dataclass with an ``apply(state, args) -> step`` field."""


def obligation(obligations: list[Obligation], name: str) -> Obligation:
    """The obligation called ``name``; StopIteration when there is none."""
    return next(ob for ob in obligations if ob.name == name)


def assert_refuted(result: Result) -> str:
    """Assert that ``result`` refutes its obligation with a complete counterexample; the counterexample's text."""
    assert result.verdict is Verdict.REFUTED, f"{result.obligation.name} was {result.verdict.value}"
    assert result.counterexample is not None
    text = result.counterexample.render()
    for part in ("pre-state", "operation:", "post-state:"):
        assert part in text, text
    return text


def mutated(
    transitions: Mapping[str, Encoding], name: str, apply: Callable[[Any, Any], Any]
) -> dict[str, Encoding]:
    """``transitions`` with the ``apply`` of transition ``name`` replaced."""
    return {**transitions, name: replace(transitions[name], apply=apply)}  # type: ignore[type-var]


def after(transitions: Mapping[str, Any], name: str, change: Callable[[Any, Any, Any], Any]) -> Callable[..., Any]:
    """Transition ``name`` as it is, then ``change(pre, post, args)`` on its post-state."""
    real = transitions[name].apply

    def apply(s: Any, a: Any) -> Any:
        step = real(s, a)
        return replace(step, post=change(s, step.post, a))

    return apply
