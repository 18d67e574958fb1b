"""A malformed argument to a ``Cache`` method is an ``InvalidArgument`` naming the field, and leaves the cache
exactly as it was (refimpl/cache/validation.py).

Before the checks, ``assume_pod`` of a pod whose container had ``requests=None`` left the pod on its NodeInfo but
not in the pod states, and ``add_node`` of a node with ``images=None`` left it in the node tree but not in its
NodeInfo. Each case here is applied to a cache holding nodes, assumed, binding-finished and added pods, a ghost
and image states, and the whole state (as the spec reads it) and the operation hook are compared before and after.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.adapters.refimpl_abstraction import abstract_cache_state, state_differences
from refimpl.cache import Cache, FakeClock, GenerationCounter, Snapshot
from refimpl.cache.validation import InvalidArgument
from spec.errors import CacheError, ErrorKind
from spec.frozenmap import FrozenMap
from spec.objects import (
    LABEL_TOPOLOGY_ZONE,
    AffinityTerms,
    Container,
    ContainerImage,
    ContainerPort,
    Node,
    Pod,
)
from spec.quantities import SECOND, resource_list
from spec.versions import V1_35
from tests.support import strategies

MB = 2**20


def node(name: str, zone: str = "z1", images: tuple[ContainerImage, ...] = ()) -> Node:
    return Node(name, allocatable=resource_list(cpu=4000, memory=8192 * MB, pods=10),
                labels=FrozenMap({LABEL_TOPOLOGY_ZONE: zone}), images=images)


def pod(uid: str, node_name: str = "n1", cpu: int = 100, **fields: Any) -> Pod:
    container = Container("c", requests=resource_list(cpu=cpu, memory=64 * MB), ports=(ContainerPort(80, 8080),))
    return Pod(uid=uid, name=uid, node_name=node_name, containers=(container,), pvc_claims=("data",), **fields)


def populated() -> Cache:
    """Two nodes with images, an assumed pod, a binding-finished one, an added one, a ghost with a pod."""
    cache = Cache(profile=V1_35, ttl=30 * SECOND, clock=FakeClock(0), generations=GenerationCounter())
    image = ContainerImage(("registry/app:v1",), 100 * MB)
    cache.add_node(node("n1", images=(image,)))
    cache.add_node(node("n2", zone="z2", images=(image,)))
    cache.add_node(node("gone"))
    cache.assume_pod(pod("assumed", pod_anti_affinity=AffinityTerms(required=1)))
    cache.assume_pod(pod("finished", "n2"))
    cache.finish_binding(pod("finished", "n2"), 5 * SECOND)
    cache.add_pod(pod("added", "n2", pod_affinity=AffinityTerms(preferred=1)))
    cache.add_pod(pod("ghost-pod", "gone"))
    cache.remove_node(node("gone"))
    cache.update_snapshot(Snapshot())
    return cache


def container(**fields: Any) -> Any:
    return replace(Container("c", requests=resource_list(cpu=100)), **fields)


def bad(value: Any, **fields: Any) -> Any:
    """``value`` with ``fields`` replaced, whatever their types (the point of these tests)."""
    return replace(value, **fields)


def make(cls: Any, *args: Any, **fields: Any) -> Any:
    """``cls(*args, **fields)``, whatever their types."""
    return cls(*args, **fields)


BAD_PODS: dict[str, tuple[Any, str]] = {
    # what is wrong: (the malformed pod, the field the message names)
    "not a pod": ("pod-1", "pod must be a Pod, got str"),
    "uid None": (bad(pod("x"), uid=None), "pod.uid must be a str"),
    "uid an int": (bad(pod("x"), uid=7), "pod.uid must be a str"),
    "node name None": (bad(pod("x"), node_name=None), "pod.node_name must be a str"),
    "containers None": (bad(pod("x"), containers=None), "pod.containers must be a tuple of Container"),
    "a container None": (bad(pod("x"), containers=(None,)), "pod.containers[0] must be a Container"),
    "requests None": (bad(pod("x"), containers=(container(requests=None),)), "pod.containers[0].requests must "
                      "be a mapping"),
    "string quantity": (bad(pod("x"), containers=(container(requests={"cpu": "100m"}),)),
                        "pod.containers[0].requests['cpu'] must be an int quantity, got str '100m'"),
    "float quantity": (bad(pod("x"), containers=(container(requests={"memory": 1.5}),)),
                       "pod.containers[0].requests['memory'] must be an int quantity, got float"),
    "scalar float": (bad(pod("x"), containers=(container(requests={"example.com/gpu": 0.5}),)),
                     "requests['example.com/gpu'] must be an int quantity"),
    "name an int": (bad(pod("x"), containers=(container(requests={7: 1}),)), "requests key must be a str"),
    "ports None": (bad(pod("x"), containers=(container(ports=None),)), "pod.containers[0].ports must be a tuple"),
    "a port not a ContainerPort": (bad(pod("x"), containers=(container(ports=(8080,)),)),
                                   "pod.containers[0].ports[0] must be a ContainerPort"),
    "host port a str": (bad(pod("x"), containers=(container(ports=(make(ContainerPort, 80, "8080"),)),)),
                        "pod.containers[0].ports[0].host_port must be an int"),
    "host port a float": (bad(pod("x"), containers=(container(ports=(make(ContainerPort, 80, 8080.0),)),)),
                          "pod.containers[0].ports[0].host_port must be an int"),
    "host IP a list": (bad(pod("x"), containers=(container(ports=(make(ContainerPort, 80, 8080, "TCP", ["a"]),)),)),
                       "pod.containers[0].ports[0].host_ip must be a str, got list"),
    "host IP a dict": (bad(pod("x"), containers=(container(ports=(make(ContainerPort, 80, 8080, "", {"ip": 1}),)),)),
                       "pod.containers[0].ports[0].host_ip must be a str, got dict"),
    "protocol a list": (bad(pod("x"), containers=(container(ports=(make(ContainerPort, 80, 1, ["UDP"]),)),)),
                        "pod.containers[0].ports[0].protocol must be a str, got list"),
    "init container quantity": (bad(pod("x"), init_containers=(container(requests={"cpu": "1"}),)),
                                "pod.init_containers[0].requests['cpu'] must be an int quantity"),
    "overhead a str": (bad(pod("x"), overhead={"cpu": "10m"}), "pod.overhead['cpu'] must be an int quantity"),
    "pod-level requests a list": (bad(pod("x"), pod_level_requests=["cpu"]),
                                  "pod.pod_level_requests must be a mapping"),
    "pod-level quantity": (bad(pod("x"), pod_level_requests={"cpu": "1"}),
                           "pod.pod_level_requests['cpu'] must be an int quantity"),
    "claims None": (bad(pod("x"), pvc_claims=None), "pod.pvc_claims must be a tuple of str"),
    "anti-affinity terms a str": (bad(pod("x"), pod_anti_affinity=make(AffinityTerms, required="1")),
                                  "pod.pod_anti_affinity must be None or an AffinityTerms"),
    "affinity a bool": (bad(pod("x"), pod_affinity=True), "pod.pod_affinity must be None or an AffinityTerms"),
}

BAD_NODES: dict[str, tuple[Any, str]] = {
    "not a node": (pod("x"), "must be a Node, got Pod"),
    "images None": (bad(node("n3"), images=None), "images must be a tuple of ContainerImage"),
    "an image None": (bad(node("n3"), images=(None,)), "images[0] must be a ContainerImage"),
    "image names None": (bad(node("n3"), images=(make(ContainerImage, None, 1),)), "images[0].names must be a tuple"),
    "image size a str": (bad(node("n3"), images=(make(ContainerImage, ("a",), "1GB"),)),
                         "images[0].size_bytes must be an int"),
    "labels None": (bad(node("n3"), labels=None), "labels must be a mapping of str to str"),
    "a label an int": (bad(node("n3"), labels=make(FrozenMap, {LABEL_TOPOLOGY_ZONE: 3})), "must be a str under a str "
                                                                                        "key"),
    "allocatable None": (bad(node("n3"), allocatable=None), "allocatable must be a mapping"),
    "allocatable a str": (bad(node("n3"), allocatable={"cpu": "4"}), "allocatable['cpu'] must be an int"),
    "name None": (bad(node("n3"), name=None), "name must be a str"),
}

# Each operation given a malformed argument; ``bad`` is the malformed pod or node.
POD_OPERATIONS: dict[str, Callable[[Cache, Any], object]] = {
    "assume_pod": lambda cache, bad: cache.assume_pod(bad),
    "add_pod": lambda cache, bad: cache.add_pod(bad),
    "update_pod: new": lambda cache, bad: cache.update_pod(pod("added", "n2"), bad),
}
KEY_OPERATIONS: dict[str, Callable[[Cache, Any], object]] = {
    "get_pod": lambda cache, bad: cache.get_pod(bad),
    "is_assumed_pod": lambda cache, bad: cache.is_assumed_pod(bad),
    "finish_binding": lambda cache, bad: cache.finish_binding(bad, 0),
    "forget_pod": lambda cache, bad: cache.forget_pod(bad),
    "remove_pod": lambda cache, bad: cache.remove_pod(bad),
    "update_pod: old": lambda cache, bad: cache.update_pod(bad, pod("added", "n2")),
}
NODE_OPERATIONS: dict[str, Callable[[Cache, Any], object]] = {
    "add_node": lambda cache, bad: cache.add_node(bad),
    "update_node: old": lambda cache, bad: cache.update_node(bad, node("n1")),
    "update_node: new": lambda cache, bad: cache.update_node(node("n1"), bad),
    "remove_node": lambda cache, bad: cache.remove_node(bad),
}
KEY_PROBLEMS = ("not a pod", "uid None", "uid an int", "node name None")
AFFINITY_PROBLEMS = ("anti-affinity terms a str", "affinity a bool")


class Unchanged:
    """The cache's state and admitted operations, to compare after an operation that must change nothing."""

    def __init__(self, cache: Cache) -> None:
        self.cache = cache
        self.admitted: list[str] = []
        cache.set_operation_hook(lambda name, args: self.admitted.append(name))
        self.before = abstract_cache_state(cache)
        self.tree = cache.internals().node_tree_num_nodes

    def check(self) -> None:
        after = abstract_cache_state(self.cache)
        assert state_differences(after, self.before) == []
        assert after == self.before  # image serials too
        assert self.cache.internals().node_tree_num_nodes == self.tree
        assert self.admitted == []  # the operation was refused before the lock admitted it


def cases() -> list[tuple[str, str, Callable[[Cache, Any], object], Any, str]]:
    table = []
    for problem, (bad, message) in BAD_PODS.items():
        for operation, call in POD_OPERATIONS.items():
            table.append((operation, problem, call, bad, message))
        if problem in KEY_PROBLEMS + AFFINITY_PROBLEMS:
            for operation, call in KEY_OPERATIONS.items():
                if problem in KEY_PROBLEMS or operation in ("forget_pod", "update_pod: old"):
                    table.append((operation, problem, call, bad, message))
    for problem, (bad, message) in BAD_NODES.items():
        for operation, call in NODE_OPERATIONS.items():
            table.append((operation, problem, call, bad, message))
    table.append(("finish_binding", "now a str", lambda cache, _: cache.finish_binding(pod("assumed"), make(str, "5s")),
                  None, "finish_binding: now must be an int (nanoseconds) or None, got str '5s'"))
    table.append(("cleanup_assumed_pods", "now a float", lambda cache, _: cache.cleanup_assumed_pods(make(float, 1.5)),
                  None, "cleanup_assumed_pods: now must be an int"))
    table.append(("update_snapshot", "not a snapshot", lambda cache, _: cache.update_snapshot(make(type(None))), None,
                  "update_snapshot: snapshot must be a Snapshot, got NoneType None"))
    return table


@pytest.mark.parametrize(("operation", "problem", "call", "bad", "message"), cases(),
                         ids=[f"{c[0]} / {c[1]}" for c in cases()])
def test_a_malformed_argument_is_refused_and_changes_nothing(operation: str, problem: str,
                                                             call: Callable[[Cache, Any], object], bad: Any,
                                                             message: str) -> None:
    cache = populated()
    unchanged = Unchanged(cache)
    with pytest.raises(InvalidArgument) as refused:
        call(cache, bad)
    assert isinstance(refused.value, TypeError)
    where, _, argument = operation.partition(": ")
    assert str(refused.value).startswith(f"{where}: "), refused.value
    if argument and message.startswith("pod"):  # update_pod names its arguments old and new
        message = argument + message.removeprefix("pod")
    assert message in str(refused.value), refused.value
    unchanged.check()


def test_an_empty_uid_is_still_the_specs_invalid_pod_key() -> None:
    cache = populated()
    unchanged = Unchanged(cache)
    with pytest.raises(CacheError) as refused:
        cache.assume_pod(pod(""))
    assert refused.value.kind is ErrorKind.INVALID_POD_KEY
    unchanged.check()


def test_nil_maps_and_fields_the_cache_does_not_read_are_accepted() -> None:
    """Go's nil ResourceList is an empty one; a pod's name and a container's image are not the cache's business."""
    cache = populated()
    cache.assume_pod(bad(pod("nil"), overhead=None, name=None,
                             containers=(container(image=None, restart_policy=None),)))
    assert cache.is_assumed_pod(pod("nil"))


# --------------------------------------------------------------------------------------------
# Hypothesis: any cache state the valid operations reach, any malformation, any operation
# --------------------------------------------------------------------------------------------


def _build(steps: list[tuple[str, Any]]) -> Cache:
    cache = Cache(profile=V1_35, ttl=30 * SECOND, clock=FakeClock(0), generations=GenerationCounter())
    for name, argument in steps:
        with contextlib.suppress(CacheError):
            getattr(cache, name)(argument)
    return cache


valid_steps = st.lists(st.one_of(
    st.tuples(st.just("add_node"), strategies.nodes),
    st.tuples(st.just("remove_node"), strategies.nodes),
    st.tuples(st.just("assume_pod"), strategies.placed_pods),
    st.tuples(st.just("add_pod"), strategies.placed_pods),
    st.tuples(st.just("forget_pod"), strategies.placed_pods),
), max_size=12)

POD_CORRUPTIONS: list[Callable[[Pod], Any]] = [
    lambda p: bad(p, containers=(*p.containers, container(requests=None))),
    lambda p: bad(p, containers=(*p.containers, container(requests={"cpu": "100m"}))),
    lambda p: bad(p, containers=(container(requests={"memory": 2.5}), *p.containers)),
    lambda p: bad(p, containers=(*p.containers, container(ports=(make(ContainerPort, 1, "80"),)))),
    lambda p: bad(p, containers=(*p.containers, container(ports=(make(ContainerPort, 1, 80, "TCP", ["0.0.0.0"]),)))),
    lambda p: bad(p, containers=(*p.containers, container(ports=(make(ContainerPort, 1, 80, {"TCP": 1}),)))),
    lambda p: bad(p, init_containers=(*p.init_containers, None)),
    lambda p: bad(p, overhead={"cpu": "1"}),
    lambda p: bad(p, pvc_claims=None),
    lambda p: bad(p, pod_anti_affinity=make(AffinityTerms, required=None)),
    lambda p: bad(p, uid=None),
    lambda p: bad(p, node_name=7),
]
NODE_CORRUPTIONS: list[Callable[[Node], Any]] = [
    lambda n: bad(n, images=None),
    lambda n: bad(n, images=(*n.images, make(ContainerImage, ("x",), "big"))),
    lambda n: bad(n, labels=None),
    lambda n: bad(n, allocatable={**dict(n.allocatable), "cpu": "4"}),
    lambda n: bad(n, images=(None, *n.images)),
]


@settings(deadline=None)
@given(steps=valid_steps, base=strategies.placed_pods, other=strategies.placed_pods,
       corrupt=st.sampled_from(POD_CORRUPTIONS), operation=st.sampled_from(sorted(POD_OPERATIONS)))
def test_any_malformed_pod_leaves_any_cache_as_it_was(steps: list[tuple[str, Any]], base: Pod, other: Pod,
                                                      corrupt: Callable[[Pod], Any], operation: str) -> None:
    cache = _build(steps)
    unchanged = Unchanged(cache)
    bad = corrupt(base)
    with pytest.raises(InvalidArgument):
        if operation == "update_pod: new":
            cache.update_pod(other, bad)
        else:
            POD_OPERATIONS[operation](cache, bad)
    unchanged.check()


@settings(deadline=None)
@given(steps=valid_steps, base=strategies.nodes, corrupt=st.sampled_from(NODE_CORRUPTIONS),
       operation=st.sampled_from(sorted(NODE_OPERATIONS)))
def test_any_malformed_node_leaves_any_cache_as_it_was(steps: list[tuple[str, Any]], base: Node,
                                                       corrupt: Callable[[Node], Any], operation: str) -> None:
    cache = _build(steps)
    unchanged = Unchanged(cache)
    with pytest.raises(InvalidArgument):
        NODE_OPERATIONS[operation](cache, corrupt(base))
    unchanged.check()
