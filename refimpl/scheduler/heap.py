"""A keyed binary heap with an arbitrary less function: ``pkg/scheduler/backend/heap`` in Python.

Kubernetes' scheduling queue keeps activeQ and both backoff heaps in this structure: items are found by key in
O(1), updated or deleted in O(log n), and the sift-up / sift-down steps are Go's ``container/heap`` ones, so the
same sequence of operations leaves equal items in the same order as in Kubernetes (ties are not re-broken).
Not thread-safe: the scheduling queue's lock guards it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class Heap(Generic[T]):
    """Items of type ``T`` keyed by ``key(item)``; the head is an item no other item is ``less`` than."""

    __slots__ = ("_index", "_items", "_key", "_less")

    def __init__(self, key: Callable[[T], str], less: Callable[[T, T], bool]) -> None:
        self._key = key
        self._less = less
        self._items: list[T] = []  # the heap array
        self._index: dict[str, int] = {}  # key -> position in _items, for every item

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[T]:
        """The items in heap-array order (``List``), not sorted."""
        return iter(list(self._items))

    def __contains__(self, key: str) -> bool:
        return key in self._index

    def get(self, key: str) -> T | None:
        """``GetByKey``: the item with ``key``, or None."""
        position = self._index.get(key)
        return None if position is None else self._items[position]

    def peek(self) -> T | None:
        """``Peek``: the head, or None when empty."""
        return self._items[0] if self._items else None

    def add_or_update(self, item: T) -> None:
        """``AddOrUpdate``: insert ``item``, or replace the item with its key and restore the order (``heap.Fix``)."""
        key = self._key(item)
        position = self._index.get(key)
        if position is not None:
            self._items[position] = item
            self._fix(position)
            return
        self._items.append(item)
        self._index[key] = len(self._items) - 1
        self._up(len(self._items) - 1)

    def delete(self, key: str) -> T | None:
        """``Delete``: remove and return the item with ``key``; None when absent."""
        position = self._index.get(key)
        if position is None:
            return None
        return self._remove(position)

    def pop(self) -> T | None:
        """``Pop``: remove and return the head, or None when empty."""
        if not self._items:
            return None
        return self._remove(0)

    def fix(self, key: str) -> None:
        """Restore the order after the item with ``key`` changed in place; no-op for an absent key."""
        position = self._index.get(key)
        if position is not None:
            self._fix(position)

    def violations(self) -> list[str]:
        """What is wrong with the structure: an index entry not pointing at its item, or a child ordered before its
        parent. Empty when the heap is sound (for invariant checks; O(n))."""
        problems = []
        if len(self._index) != len(self._items):
            problems.append(f"heap index holds {len(self._index)} keys for {len(self._items)} items")
        for position, item in enumerate(self._items):
            key = self._key(item)
            if self._index.get(key) != position:
                problems.append(f"heap index of {key} is {self._index.get(key)}, item is at {position}")
            if position > 0 and self._less(item, self._items[(position - 1) // 2]):
                problems.append(f"heap item {key} is ordered before its parent")
        return problems

    # Go's container/heap, index bookkeeping included ----------------------------------------------

    def _remove(self, position: int) -> T:
        last = len(self._items) - 1
        if position != last:
            self._swap(position, last)
            if not self._down(position, last):
                self._up(position)
        item = self._items.pop()
        del self._index[self._key(item)]
        return item

    def _fix(self, position: int) -> None:
        if not self._down(position, len(self._items)):
            self._up(position)

    def _swap(self, i: int, j: int) -> None:
        items = self._items
        items[i], items[j] = items[j], items[i]
        self._index[self._key(items[i])] = i
        self._index[self._key(items[j])] = j

    def _up(self, j: int) -> None:
        while j > 0:
            parent = (j - 1) // 2
            if not self._less(self._items[j], self._items[parent]):
                break
            self._swap(parent, j)
            j = parent

    def _down(self, i0: int, n: int) -> bool:
        i = i0
        while True:
            left = 2 * i + 1
            if left >= n:
                break
            j = left
            right = left + 1
            if right < n and self._less(self._items[right], self._items[left]):
                j = right
            if not self._less(self._items[j], self._items[i]):
                break
            self._swap(i, j)
            i = j
        return i > i0
