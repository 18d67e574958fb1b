"""Value types stay value objects when they remember their hash, and fingerprints follow equality."""

from __future__ import annotations

import copy
import dataclasses
import os
import pickle
import subprocess
import sys

import pytest

from spec.cache.cache import CacheState, PodState, new_cache
from spec.cache.nodeinfo import NodeInfo
from spec.cache.operations import AddNode, AssumePod, UpdateSnapshot, World, apply
from spec.frozenmap import FrozenMap
from spec.objects import Container, Node, Pod
from spec.quantities import resource_list
from spec.valuetypes import CACHED_ATTRIBUTES, VALUE_TYPES, cached_hash
from spec.verify.cache.universe import DEFAULT_UNIVERSE, node_variant, pod_variant
from spec.verify.fingerprint import collision_probability, fingerprint


def a_world() -> World:
    world = DEFAULT_UNIVERSE.initial_worlds()[1]
    for op in (AddNode(node_variant("n0", 0)), AssumePod(pod_variant("p0", 0, "n0")), UpdateSnapshot()):
        world, _ = apply(world, op)
    return world


def test_remembered_hash_is_the_dataclass_hash_and_equality_is_unchanged() -> None:
    pod = pod_variant("p0", 1, "n0")
    twin = dataclasses.replace(pod)
    assert pod is not twin and pod == twin and hash(pod) == hash(twin)
    assert hash(pod) == hash(tuple(getattr(pod, f.name) for f in dataclasses.fields(pod)))
    assert pod != dataclasses.replace(pod, priority=1)
    assert repr(pod) == repr(twin) and dataclasses.asdict(pod) == dataclasses.asdict(twin)
    with pytest.raises(dataclasses.FrozenInstanceError):
        pod.uid = "p1"  # type: ignore[misc]


def test_pickles_and_copies_carry_no_remembered_values() -> None:
    world = a_world()
    hash(world), fingerprint(world)
    assert CACHED_ATTRIBUTES & set(vars(world))
    for clone in (pickle.loads(pickle.dumps(world)), copy.copy(world), copy.deepcopy(world)):
        assert clone == world and not CACHED_ATTRIBUTES & set(vars(clone))
        assert fingerprint(clone) == fingerprint(world) and hash(clone) == hash(world)
    frozen = FrozenMap({"a": 1})
    hash(frozen)
    assert pickle.loads(pickle.dumps(frozen))._hash is None


def test_cached_hash_rejects_what_is_not_a_frozen_dataclass() -> None:
    with pytest.raises(TypeError):

        @cached_hash
        @dataclasses.dataclass
        class Mutable:
            x: int

    assert {Pod, Node, NodeInfo, CacheState, PodState, World} <= VALUE_TYPES


def test_fingerprints_follow_equality() -> None:
    assert fingerprint(FrozenMap({"a": 1, "b": 2})) == fingerprint(FrozenMap({"b": 2, "a": 1}))
    assert fingerprint(frozenset({"x", "y"})) == fingerprint(frozenset({"y", "x"}))
    assert fingerprint(True) == fingerprint(1) and fingerprint(1.0) == fingerprint(1)
    assert fingerprint(("a", "b")) != fingerprint(("b", "a"))
    assert fingerprint(("a",)) != fingerprint(frozenset({"a"})) != fingerprint("a")
    c = Container("c", resource_list(cpu=1))
    assert fingerprint(c) != fingerprint(dataclasses.replace(c, name="d"))
    assert fingerprint(new_cache()) != fingerprint(new_cache(ttl=1))
    with pytest.raises(TypeError, match="no canonical encoding"):
        fingerprint([1, 2])


def test_fingerprints_are_the_same_in_another_process() -> None:
    """Unlike Python's string hashes, which are salted per process: parts of a split run agree."""
    code = (
        "from spec.verify.fingerprint import fingerprint; from tests.verify.test_fingerprint import a_world; "
        "print(fingerprint(a_world()))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, check=True, text=True,
        env={**os.environ, "PYTHONHASHSEED": "7"},
    )  # fmt: skip
    assert int(out.stdout) == fingerprint(a_world())


def test_collision_probability_is_tlc_optimistic_estimate() -> None:
    assert collision_probability(27_176, 712_720) == pytest.approx(27_176 * (712_720 - 27_176) / 2**64)
    assert collision_probability(10, 5) == 0.0


def test_pods_remember_hash_once() -> None:
    pod = Pod("p", containers=(Container("c"),))
    assert hash(pod) == hash(pod) and vars(pod)["_cached_hash"] == hash(pod)
