"""How many feasible nodes a cycle looks for, and which of the scored nodes it picks.

``numFeasibleNodesToFind`` and ``selectHost`` (pkg/scheduler/schedule_one.go; digest §C.2c, §C.2g, §G.8-9):

- Below 100 nodes every node is searched. Otherwise the profile's ``percentageOfNodesToScore`` (or the global one,
  default 0) applies; 0 means the adaptive default ``50 - n/125`` percent, floored at 5; the result is at least 100.
- v1.35 (PR #135231) builds a max-heap ordered by total score, then ``Randomizer``, and pops its top. Without score
  extenders every ``Randomizer`` is 0, so among equally scored nodes the heap's structure decides: deterministic,
  not uniform. The rest of the heap, popped in order, is the cached hint list of opportunistic batching.
- v1.34 pops the same heap but samples the reservoir: the k-th node popped with the top score replaces the
  candidate with probability 1/k (``rand.Intn(k) == 0``), so the choice is uniform among the top-scored nodes.

The heap is Go's ``container/heap`` exactly (``Init``, ``Pop``, ``down``), so ties break as Kubernetes breaks them
for a given input order. Which tie-break applies is the version profile's ``select_host_reservoir_sampling``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import compress, count, repeat
from operator import eq
from typing import Final, Generic, TypeVar

MIN_FEASIBLE_NODES_TO_FIND: Final = 100
"""``minFeasibleNodesToFind``."""
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND: Final = 5
"""``minFeasibleNodesPercentageToFind``."""
DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE: Final = 0
"""``DefaultPercentageOfNodesToScore``: 0 means adaptive."""
NUMBER_OF_HIGHEST_SCORED_NODES_TO_REPORT: Final = 3
"""``numberOfHighestScoredNodesToReport`` (v1.34's ``selectHost(list, 3)``)."""

ScoreKey = tuple[int, int]
"""A node's (total score, randomizer): what the heap orders by, larger first."""
Key = TypeVar("Key", ScoreKey, int)
"""A heap key: a :data:`ScoreKey`, or the total score alone where every randomizer is 0 (it orders the same)."""


def total_of(key: ScoreKey | int) -> int:
    """The total score of a heap key."""
    return key if isinstance(key, int) else key[0]


def num_feasible_nodes_to_find(
    num_all_nodes: int, profile_percentage: int | None = None, global_percentage: int = 0
) -> int:
    """``numFeasibleNodesToFind``: how many feasible nodes the filter stops after.

    pre: num_all_nodes >= 0
    pre: profile_percentage is None or 0 <= profile_percentage <= 100
    pre: 0 <= global_percentage <= 100
    post: num_all_nodes >= MIN_FEASIBLE_NODES_TO_FIND or __return__ == num_all_nodes
    post: num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND or MIN_FEASIBLE_NODES_TO_FIND <= __return__ <= num_all_nodes
    """
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    percentage = profile_percentage if profile_percentage is not None else global_percentage
    if percentage == 0:
        percentage = 50 - num_all_nodes // 125
        if percentage < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND:
            percentage = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
    num_nodes = num_all_nodes * percentage // 100
    if num_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return MIN_FEASIBLE_NODES_TO_FIND
    return num_nodes


# --------------------------------------------------------------------------------------------
# Go's container/heap over score keys (max-heap: Less(i, j) = key[i] > key[j])
# --------------------------------------------------------------------------------------------


def _down(keys: Sequence[Key], order: list[int], i0: int, n: int) -> None:
    """``heap.down`` on ``order`` (indices into ``keys``)."""
    i = i0
    while True:
        j1 = 2 * i + 1
        if j1 >= n:
            break
        j = j1
        j2 = j1 + 1
        if j2 < n and keys[order[j2]] > keys[order[j1]]:
            j = j2
        if not keys[order[j]] > keys[order[i]]:
            break
        order[i], order[j] = order[j], order[i]
        i = j


def heap_init(keys: Sequence[Key]) -> list[int]:
    """``heap.Init``: the heap of the indices of ``keys``, in their given order."""
    order = list(range(len(keys)))
    n = len(order)
    for i in range(n // 2 - 1, -1, -1):
        _down(keys, order, i, n)
    return order


def heap_pop(keys: Sequence[Key], order: list[int]) -> int:
    """``heap.Pop``: remove and return the index at the top of the heap ``order``. Fails on an empty heap."""
    n = len(order) - 1
    order[0], order[n] = order[n], order[0]
    _down(keys, order, 0, n)
    return order.pop()


def heap_top(keys: Sequence[Key]) -> int:
    """The index ``heap.Init`` leaves at the top of the heap of ``keys``, found without building the heap.

    ``down`` moves a child up only if it is strictly larger than its parent (the left child when both children
    are equal), and ``Init`` calls it from the last parent to the root, each node's subtrees already done. So a
    node that holds a largest key keeps it, and any other node takes the top of the subtree that holds a largest
    key, the left one if both do: the top is the first index with a largest key in the preorder of the heap's tree
    (node, left subtree, right subtree). In preorder, heap index ``i`` comes where the binary digits of ``i + 1``
    after the leading 1 (its path: 0 left, 1 right) come in lexicographic order, a path before its extensions;
    ``bin(i + 1)`` strings compare the same way. Fails with ``ValueError`` on no keys. (tests/refimpl/scheduler/
    test_select_host.py compares it with :func:`tie_break_heap` on every short list of keys.)
    """
    top = max(keys)
    if keys[0] == top:
        return 0
    ties = compress(count(1), map(eq, keys, repeat(top)))  # i + 1 for each i with a largest key
    return int(min(map(bin, ties)), 2) - 1


def tie_break_heap(keys: list[ScoreKey]) -> int:
    """v1.35's choice: the index of the node the max-heap pops first.

    pre: len(keys) > 0
    post: 0 <= __return__ < len(keys)
    post: keys[__return__] == max(keys)
    """
    return heap_pop(keys, heap_init(keys))


def reservoir_select(keys: list[ScoreKey], draws: Sequence[int]) -> int:
    """v1.34's choice with its random draws given: pop the heap; the k-th node popped with the top total score
    (k >= 2) replaces the candidate when ``draws[k-2] % k == 0`` (``rand.Intn(k) == 0``).

    pre: len(keys) > 0
    pre: len(draws) >= len(keys)
    pre: all(d >= 0 for d in draws)
    post: 0 <= __return__ < len(keys)
    post: keys[__return__][0] == max(k[0] for k in keys)
    """
    order = heap_init(keys)
    chosen = heap_pop(keys, order)
    top = keys[chosen][0]
    count = 1
    while order:
        index = heap_pop(keys, order)
        if keys[index][0] != top:
            break
        count += 1
        if draws[count - 2] % count == 0:
            chosen = index
    return chosen


# --------------------------------------------------------------------------------------------
# Host selection over scored nodes
# --------------------------------------------------------------------------------------------


class SortedScoredNodes(Generic[Key]):
    """``SortedScoredNodes``: the scored nodes not chosen, popped best first (the batching hint list).

    ``order`` None stands for the heap of every key after one ``Pop``, built on the first :meth:`pop`: most lists
    are never popped (only opportunistic batching pops them), and building a heap of hundreds of nodes was a
    tenth of a scheduling cycle's work."""

    __slots__ = ("_keys", "_names", "_order")

    def __init__(self, keys: Sequence[Key], names: list[str], order: list[int] | None) -> None:
        self._keys: Sequence[Key] = keys
        self._names = names
        self._order = order

    def pop(self) -> str:
        """``Pop``: the best remaining node. Fails with ``IndexError`` when empty."""
        order = self._order
        if order is None:
            order = self._order = heap_init(self._keys)
            heap_pop(self._keys, order)  # the chosen node
        if not order:
            raise IndexError("pop from an empty list of scored nodes")
        return self._names[heap_pop(self._keys, order)]

    def __len__(self) -> int:
        """``Len``."""
        return len(self._keys) - 1 if self._order is None else len(self._order)


ScoredNodes = SortedScoredNodes[ScoreKey] | SortedScoredNodes[int]
"""A :class:`SortedScoredNodes` over either kind of key."""

IntN = Callable[[int], int]
"""``rand.Intn``: a uniform integer in [0, n)."""


def select_host(
    names: list[str],
    keys: Sequence[Key],
    *,
    reservoir_sampling: bool,
    intn: IntN | None = None,
) -> tuple[str, SortedScoredNodes[Key]]:
    """The chosen node and the others as a heap. ``reservoir_sampling`` picks v1.34's rule with ``intn`` (default:
    ``random.randrange``); otherwise v1.35's heap top. ``keys`` may be the total scores alone when every randomizer
    is 0 (integers compare faster than pairs, in the same order). Fails with ``ValueError`` on an empty list
    ("empty priorityList")."""
    if not names:
        raise ValueError("empty priorityList")
    if len(names) != len(keys):
        raise ValueError(f"{len(names)} node names but {len(keys)} scores")
    if not reservoir_sampling:  # heap.Init, then Pop: the top (the rest of the heap is built if it is popped)
        return names[heap_top(keys)], SortedScoredNodes(keys, names, None)
    order = heap_init(keys)
    draw = intn if intn is not None else random.randrange
    chosen = heap_pop(keys, order)
    top = total_of(keys[chosen])
    count = 1
    popped: list[int] = []
    while order and total_of(keys[order[0]]) == top:
        index = heap_pop(keys, order)
        popped.append(index)
        count += 1
        if draw(count) == 0:
            chosen, popped[-1] = index, chosen
    rest = order + popped
    return names[chosen], SortedScoredNodes(keys, names, heap_init_from(keys, rest))


def heap_init_from(keys: Sequence[Key], indices: list[int]) -> list[int]:
    """``heap.Init`` over the given indices (in their given order)."""
    order = list(indices)
    n = len(order)
    for i in range(n // 2 - 1, -1, -1):
        _down(keys, order, i, n)
    return order
