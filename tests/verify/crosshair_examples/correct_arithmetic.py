"""The correct version of ``broken_arithmetic.max_into``: CrossHair finds no counterexample."""

from __future__ import annotations


def max_into(total: dict[str, int], other: dict[str, int]) -> None:
    """Raise each entry of ``total`` to ``other``'s, adding the names it lacks.

    post: all(name in total and total[name] >= other[name] for name in other)
    post: all(total[name] >= __old__.total[name] for name in __old__.total)
    post: set(total) == set(__old__.total) | set(other)
    """
    for name, quantity in other.items():
        current = total.get(name)
        if current is None or quantity > current:
            total[name] = quantity
