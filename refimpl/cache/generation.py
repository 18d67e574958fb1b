"""The global generation counter that orders every NodeInfo change (``nextGeneration`` in framework/types.go).

Kubernetes keeps one package-global, atomically incremented int64 so that generations are unique across all
NodeInfos; a node deleted and re-added can then never be mistaken for an unchanged one (kubernetes#63262).
``UpdateSnapshot`` relies on it: it stops walking the most-recently-updated list at the first NodeInfo whose
generation is not newer than the snapshot's.
"""

from __future__ import annotations

import itertools
from typing import Final


class GenerationCounter:
    """A monotonic counter; :meth:`next` returns 1, 2, 3, ... and is safe to call from several threads.

    ``next(itertools.count())`` is a single C call, so under the GIL it is atomic, like Go's ``atomic.AddInt64``:
    no lock is needed on the hot path.
    """

    __slots__ = ("_count", "_last")

    def __init__(self, start: int = 0) -> None:
        if start < 0:
            raise ValueError(f"a generation counter starts at 0 or more, got {start}")
        self._count = itertools.count(start + 1)
        self._last = start

    def next(self) -> int:
        """``nextGeneration``: the next value, strictly greater than every value returned before."""
        generation = next(self._count)
        self._last = generation
        return generation

    @property
    def last(self) -> int:
        """The value most recently returned (the start value if none). Exact when one thread uses the counter."""
        return self._last


DEFAULT_GENERATIONS: Final = GenerationCounter()
"""The process-wide counter every :class:`~refimpl.cache.cache.Cache` uses unless it is given its own."""
