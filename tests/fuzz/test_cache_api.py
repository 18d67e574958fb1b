"""A fuzz target for the reference cache's public API, run by ``make test`` with a fixed budget.

A sequence of calls to :class:`refimpl.cache.Cache`, each with a well-formed argument or one where a single field,
at any depth (pod, container, port, image, node), holds a value of another type: None, a list, a dict, a string, a
float, a big integer, a set. Every call must either do its work, fail with the spec's :class:`CacheError`, or be
refused with :class:`InvalidArgument` leaving the cache exactly as it was, or end the
sequence with the spec's :class:`SchedulerExit` (Kubernetes' ``klog.Fatal``) (the state as the spec reads it, the
node tree, the operations admitted). Any other exception, or a refused call that changed something, fails. This is
how the half-done ``add_pod`` of a pod whose port's ``host_ip`` was a list was found (issue 30).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.adapters.refimpl_abstraction import abstract_cache_state
from refimpl.cache import Cache, FakeClock, GenerationCounter, Snapshot
from refimpl.cache.validation import InvalidArgument
from spec.errors import CacheError, SchedulerExit
from spec.objects import Container, ContainerPort, Node, Pod
from spec.quantities import SECOND
from spec.versions import V1_35
from tests.refimpl.test_cache_validation import Unchanged, container
from tests.support import strategies

EXAMPLES = 200
"""Call sequences per run, in every Hypothesis profile (a fixed budget for CI)."""

HOSTILE: st.SearchStrategy[Any] = st.sampled_from(
    [None, [], ["10.0.0.1"], [None], {}, {"a": 1}, {"k": []}, "x", "", 1.5, -1, 10**30, frozenset({1}), object()])
"""Values of the wrong type for some field of a pod or node."""


def _fields(value: Any) -> list[str]:
    return [field.name for field in dataclasses.fields(value)]


@st.composite
def corrupted(draw: st.DrawFn, value: Any) -> Any:
    """``value`` (a pod or node) with one field replaced by a hostile value: a field of its own, or (each as likely)
    of a container it gains with one host port, or of that port; of a node's first image."""
    level = draw(st.sampled_from(["own", "inner", "inner", "inner"]))
    if isinstance(value, Pod) and level == "inner":
        port = ContainerPort(80, draw(st.integers(1, 3)))
        inner = container(ports=(port,))
        if draw(st.booleans()):
            inner = dataclasses.replace(inner, ports=(dataclasses.replace(port, **{
                draw(st.sampled_from(_fields(ContainerPort))): draw(HOSTILE)}),))
        else:
            inner = dataclasses.replace(inner, **{draw(st.sampled_from(_fields(Container))): draw(HOSTILE)})
        where = draw(st.sampled_from(["containers", "init_containers"]))
        grown: dict[str, Any] = {where: (*getattr(value, where), inner)}
        return dataclasses.replace(value, **grown)
    if isinstance(value, Node) and value.images and level == "inner":
        image = dataclasses.replace(value.images[0], **{draw(st.sampled_from(["names", "size_bytes"])): draw(HOSTILE)})
        return dataclasses.replace(value, images=(image, *value.images[1:]))
    return dataclasses.replace(value, **{draw(st.sampled_from(_fields(value))): draw(HOSTILE)})


POD_CALLS = ("assume_pod", "add_pod", "forget_pod", "remove_pod", "finish_binding", "update_pod", "get_pod")
CHARGING = ("assume_pod", "add_pod", "update_pod")
"""The calls that charge a pod to a node, drawn twice as often: where a half-done change can happen."""
NODE_CALLS = ("add_node", "update_node", "remove_node")


@st.composite
def calls(draw: st.DrawFn) -> tuple[str, tuple[Any, ...]]:
    name = draw(st.sampled_from(POD_CALLS + CHARGING + NODE_CALLS + ("update_snapshot", "cleanup_assumed_pods")))
    if name in POD_CALLS:
        pod = draw(strategies.placed_pods)
        arg = draw(corrupted(pod)) if draw(st.integers(0, 2)) else pod  # two in three corrupted
        if name == "finish_binding":
            return name, (arg, draw(st.one_of(st.integers(0, 60 * SECOND), HOSTILE)))
        if name == "update_pod":
            old = draw(strategies.placed_pods)
            return name, ((old, arg) if draw(st.booleans()) else (arg, old))
        return name, (arg,)
    if name in NODE_CALLS:
        node = draw(strategies.nodes)
        arg = draw(corrupted(node)) if draw(st.booleans()) else node
        return name, ((draw(strategies.nodes), arg) if name == "update_node" else (arg,))
    if name == "update_snapshot":
        return name, (Snapshot(),)
    return name, (draw(st.one_of(st.integers(0, 120 * SECOND), HOSTILE)),)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(calls(), min_size=5, max_size=30))
def test_every_call_works_fails_as_the_spec_says_or_changes_nothing(sequence: list[tuple[str, tuple[Any, ...]]]) \
        -> None:
    cache = Cache(profile=V1_35, ttl=30 * SECOND, clock=FakeClock(0), generations=GenerationCounter())
    for name, args in sequence:
        unchanged = Unchanged(cache)
        try:
            getattr(cache, name)(*args)
        except CacheError:
            pass
        except SchedulerExit:  # Kubernetes' klog.Fatal: the scheduler exits, and its cache with it
            return
        except InvalidArgument:
            unchanged.check()
        cache.set_operation_hook(None)
        abstract_cache_state(cache)  # whatever was accepted, the cache still reads as a spec state
