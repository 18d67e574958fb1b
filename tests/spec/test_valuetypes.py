"""spec.valuetypes.replace gives exactly what dataclasses.replace gives, for every spec value type."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest

from spec.cache.cache import new_cache
from spec.cache.nodeinfo import NodeInfo
from spec.cache.operations import AddNode, AssumePod, UpdateSnapshot, World, apply
from spec.cache.snapshot import EMPTY_SNAPSHOT, update_snapshot
from spec.cycle.filters import pre_filter
from spec.objects import Container, Node, Pod
from spec.quantities import resource_list
from spec.valuetypes import remember_by_identity, replace
from spec.verify.fingerprint import fingerprint


def _world() -> World:
    world = World(new_cache())
    pod = Pod("p0", "p0", node_name="n0", containers=(Container("c", requests=resource_list(cpu=100)),))
    for op in (AddNode(Node("n0", allocatable=resource_list(cpu=1000))), AssumePod(pod), UpdateSnapshot()):
        world, _ = apply(world, op)
    return world


def test_replace_equals_dataclasses_replace_and_keeps_field_order() -> None:
    world = _world()
    info = world.cache.nodes["n0"]
    hash(info), fingerprint(info)  # remembered values must not travel to the copy
    cases: list[tuple[Any, dict[str, Any]]] = [
        (world.cache, {"generation": 99}),
        (info, {"generation": 7, "pods": ()}),
        (info.pods[0], {"uid": "p1", "node_name": ""}),
        (world.snapshot, {"generation": 3}),
        (world, {}),
    ]
    for obj, changes in cases:
        ours, theirs = replace(obj, **changes), dataclasses.replace(obj, **changes)
        assert list(vars(ours)) == [f.name for f in dataclasses.fields(obj)]  # field order, nothing remembered
        assert ours == theirs and hash(ours) == hash(theirs) and repr(ours) == repr(theirs)
        assert ours is not obj and type(ours) is type(obj)
        assert pickle.loads(pickle.dumps(ours)) == theirs
    assert replace(info, generation=7) != info


def test_replace_fails_like_dataclasses_replace_on_a_name_that_is_not_a_field() -> None:
    with pytest.raises(TypeError):
        replace(NodeInfo(), no_such_field=1)


@dataclass(frozen=True)
class _Checked:
    value: int
    derived: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        if self.value < 0:
            raise ValueError("negative")
        object.__setattr__(self, "derived", self.value * 2)


def test_types_with_post_init_or_non_init_fields_go_through_dataclasses_replace() -> None:
    assert replace(_Checked(1), value=2).derived == 4
    with pytest.raises(ValueError, match="negative"):
        replace(_Checked(1), value=-1)


# remember_by_identity: what the cycle's PreFilter and PreScore states are remembered with ----------------------


def test_remember_by_identity_returns_what_the_function_returns_and_recomputes_for_an_equal_copy() -> None:
    calls: list[tuple[int, ...]] = []

    @remember_by_identity(maxsize=2)
    def total(values: tuple[int, ...]) -> int:
        calls.append(values)
        return sum(values)

    first = (1, 2, 3)
    copy = tuple([1, 2, 3])
    assert copy == first and copy is not first
    assert total(first) == 6 and total(first) == 6
    assert len(calls) == 1, "the same object a second time is remembered"
    assert total(copy) == 6
    assert len(calls) == 2, "an equal but distinct object is computed afresh, not compared field by field"
    assert total((4,)) == 4 and len(calls) == 3  # a third argument tuple: the least recently used, first, is forgotten
    assert total(copy) == 6 and len(calls) == 3
    assert total(first) == 6 and len(calls) == 4


def test_the_cycle_states_are_the_same_for_a_rebuilt_snapshot() -> None:
    """A snapshot rebuilt from the same cache is a distinct object: PreFilter's states computed for it equal those
    remembered for the first one (what the remembered values may not change: the spec's answer)."""
    world = _world()
    pod = Pod("p1", "p1", containers=(Container("c", requests=resource_list(cpu=100)),))
    one = update_snapshot(world.cache, EMPTY_SNAPSHOT)
    two = update_snapshot(world.cache, EMPTY_SNAPSHOT)
    assert one == two and one is not two
    assert pre_filter(pod, one) == pre_filter(pod, two) == pre_filter.__wrapped__(pod, two)  # type: ignore[attr-defined]
