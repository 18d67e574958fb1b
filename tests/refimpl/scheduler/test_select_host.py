"""How many nodes a cycle searches, and which scored node it picks (schedule_one.go numFeasibleNodesToFind and
selectHost; digest §C.2g, §G.8-9)."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from refimpl.scheduler.select_host import (
    heap_init,
    heap_pop,
    heap_top,
    num_feasible_nodes_to_find,
    reservoir_select,
    select_host,
    tie_break_heap,
)


@pytest.mark.parametrize(
    ("profile_percentage", "global_percentage", "num_all_nodes", "expected"),
    [
        # schedule_one_test.go TestNumFeasibleNodesToFind
        (None, 0, 10, 10),  # "not set percentageOfNodesToScore and nodes number not more than 50"
        (None, 40, 10, 10),  # "set percentageOfNodesToScore and nodes number not more than 50"
        (None, 0, 1000, 420),  # "not set ... more than 50": 50 - 1000/125 = 42 %
        (None, 40, 1000, 400),  # "set percentageOfNodesToScore and nodes number more than 50"
        (None, 0, 6000, 300),  # "not set ... more than 50*125": 50 - 48 = 2 %, floored at 5 %
        (None, 40, 6000, 2400),  # "set percentageOfNodesToScore and nodes number more than 50*125"
        # the profile's percentage wins over the global one
        (40, 0, 1000, 400),
        (40, 10, 6000, 2400),
        # at least 100 once there are 100 nodes
        (None, 0, 100, 100),
        (None, 1, 5000, 100),
        (None, 0, 5000, 500),  # the benchmark's cluster: 50 - 40 = 10 %
    ],
)
def test_num_feasible_nodes_to_find_table(
    profile_percentage: int | None, global_percentage: int, num_all_nodes: int, expected: int
) -> None:
    assert num_feasible_nodes_to_find(num_all_nodes, profile_percentage, global_percentage) == expected


def go_heap_pop_order(keys: list[tuple[int, int]]) -> list[int]:
    order = heap_init(keys)
    return [heap_pop(keys, order) for _ in range(len(keys))]


def test_heap_pops_best_first() -> None:
    keys = [(3, 0), (7, 0), (5, 0), (7, 1), (1, 0)]
    assert [keys[i] for i in go_heap_pop_order(keys)] == sorted(keys, reverse=True)


def test_v135_tie_break_follows_the_go_heap_structure() -> None:
    # Five nodes with the same total score and Randomizer 0. Go's heap.Init swaps nothing; heap.Pop swaps the top
    # with the last element, sifts the new top down (equal keys never move) and returns the old top. So the
    # first node wins, and the hint list then pops e, d, c, b: each Pop brings the current last node to the top.
    # Kubernetes' heap does exactly this (digest §C.2g: "arbitrary but not uniform").
    keys = [(10, 0)] * 5
    assert tie_break_heap(keys) == 0
    name, rest = select_host(["a", "b", "c", "d", "e"], keys, reservoir_sampling=False)
    assert name == "a"
    assert [rest.pop() for _ in range(len(rest))] == ["e", "d", "c", "b"]


def test_v135_randomizer_breaks_ties_between_equal_totals() -> None:
    name, _ = select_host(["a", "b", "c"], [(10, 5), (10, 9), (9, 100)], reservoir_sampling=False)
    assert name == "b"


def test_select_host_refuses_an_empty_list() -> None:
    with pytest.raises(ValueError, match="empty priorityList"):
        select_host([], [], reservoir_sampling=False)


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 2)), min_size=1, max_size=12))
def test_tie_break_picks_a_maximum(keys: list[tuple[int, int]]) -> None:
    assert keys[tie_break_heap(keys)] == max(keys)


@given(st.lists(st.integers(0, 3), min_size=1, max_size=12), st.randoms(use_true_random=False))
def test_reservoir_choice_has_the_top_score_and_matches_the_pure_function(
    scores: list[int], rng: random.Random
) -> None:
    keys = [(s, 0) for s in scores]
    draws = [rng.randrange(1 << 30) for _ in keys]
    # select_host's rand.Intn(k) for the k-th top-scored node popped (k >= 2) is draws[k-2] % k
    name, _ = select_host([str(i) for i in range(len(keys))], keys, reservoir_sampling=True,
                          intn=lambda k: draws[k - 2] % k)
    assert int(name) == reservoir_select(keys, draws)
    assert scores[int(name)] == max(scores)


def test_v134_reservoir_sampling_is_roughly_uniform_among_ties() -> None:
    # Four nodes tie at the top score and one scores lower. Reservoir sampling picks each tied node with
    # probability 1/4; 4000 draws put each count within 1000 +- 150 (more than 5 standard deviations).
    names = ["a", "b", "c", "d", "low"]
    keys = [(50, 0), (50, 0), (50, 0), (50, 0), (10, 0)]
    rng = random.Random(7)
    counts = Counter(select_host(names, keys, reservoir_sampling=True, intn=rng.randrange)[0] for _ in range(4000))
    assert set(counts) == {"a", "b", "c", "d"}
    assert all(850 <= counts[n] <= 1150 for n in "abcd"), counts


def test_v134_leftover_heap_still_pops_in_score_order() -> None:
    names = ["a", "b", "c", "d"]
    keys = [(50, 0), (50, 0), (40, 0), (30, 0)]
    chosen, rest = select_host(names, keys, reservoir_sampling=True, intn=lambda k: 0)
    leftovers = [rest.pop() for _ in range(len(rest))]
    assert chosen in ("a", "b") and leftovers[1:] == ["c", "d"]
    assert {chosen, leftovers[0]} == {"a", "b"}


def test_heap_top_is_the_top_of_the_heap_for_every_short_list() -> None:
    """``heap_top`` finds without a heap what ``heap.Init`` puts on top: every list of up to 8 keys from 3 values."""
    for length in range(1, 9):
        for values in itertools.product(range(3), repeat=length):
            keys = list(values)
            assert heap_top(keys) == tie_break_heap([(key, 0) for key in keys]), keys


@given(st.lists(st.integers(0, 6), min_size=1, max_size=600))
def test_heap_top_is_the_top_of_the_heap(keys: list[int]) -> None:
    assert heap_top(keys) == tie_break_heap([(key, 0) for key in keys])


@given(st.lists(st.integers(0, 4), min_size=1, max_size=80))
def test_the_unchosen_nodes_pop_as_from_the_full_heap(keys: list[int]) -> None:
    """v1.35's list of the other nodes, built on its first pop, pops as the heap popped once does."""
    names = [f"n{i}" for i in range(len(keys))]
    chosen, rest = select_host(names, keys, reservoir_sampling=False)
    order = heap_init([(key, 0) for key in keys])
    assert chosen == names[heap_pop([(key, 0) for key in keys], order)]
    assert len(rest) == len(order)
    popped = [rest.pop() for _ in range(len(order))]
    assert popped == [names[heap_pop([(key, 0) for key in keys], order)] for _ in range(len(popped))]
    with pytest.raises(IndexError):
        rest.pop()
