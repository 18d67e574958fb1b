"""A deliberately broken resource-arithmetic helper, for the test that CrossHair finds counterexamples.

``max_into`` should raise every entry of ``total`` to ``other``'s and add the names ``total``
lacks (``maxResourceList``); this version treats a missing name as 0 and so never adds a name
whose quantity is 0 (or negative): the first post-condition fails with a KeyError.
"""

from __future__ import annotations


def max_into(total: dict[str, int], other: dict[str, int]) -> None:
    """Raise each entry of ``total`` to ``other``'s, adding the names it lacks.

    post: all(name in total and total[name] >= other[name] for name in other)
    post: all(total[name] >= __old__.total[name] for name in __old__.total)
    """
    for name, quantity in other.items():
        if quantity > total.get(name, 0):
            total[name] = quantity
