"""Label selectors compiled once per cycle into predicates over a label map (``labels.Selector``,
k8s.io/apimachinery pkg/labels/selector.go; ``metav1.LabelSelectorAsSelector``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from spec.objects import LabelSelector

Labels = Mapping[str, str]
Matcher = Callable[[Labels], bool]


def _nothing(labels: Labels) -> bool:
    return False


def _everything(labels: Labels) -> bool:
    return True


NOTHING: Final[Matcher] = _nothing
"""``labels.Nothing()``: what a nil selector becomes."""
EVERYTHING: Final[Matcher] = _everything
"""``labels.Everything()``: what an empty selector becomes."""


def _requirement(key: str, operator: str, values: frozenset[str]) -> Matcher:
    """``Requirement.Matches`` for one expression."""
    if operator == "In":
        return lambda labels: key in labels and labels[key] in values
    if operator == "NotIn":
        return lambda labels: key not in labels or labels[key] not in values
    if operator == "Exists":
        return lambda labels: key in labels
    return lambda labels: key not in labels


def compile_selector(selector: LabelSelector | None) -> Matcher:
    """``LabelSelectorAsSelector(selector).Matches`` as a function: nil matches nothing, empty everything; otherwise
    every ``matchLabels`` pair and every expression (In, NotIn, Exists, DoesNotExist) must hold."""
    if selector is None:
        return NOTHING
    pairs = tuple(selector.match_labels.items())
    checks = [_requirement(r.key, r.operator, frozenset(r.values)) for r in selector.match_expressions]
    if not pairs and not checks:
        return EVERYTHING
    if not checks and len(pairs) == 1:  # the common case: one label to match, as one dict lookup
        ((only_key, only_value),) = pairs
        return lambda labels: labels.get(only_key) == only_value

    def matches(labels: Labels) -> bool:
        for k, v in pairs:
            if labels.get(k) != v:
                return False
        return all(check(labels) for check in checks)

    return matches
