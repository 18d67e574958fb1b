"""refimpl's ``skipPodSchedule`` (:func:`refimpl.scheduler.schedule_one.skip_pod_schedule`) refines the spec's
(:func:`spec.cycle.cycle.skip_pod_schedule`): for a pod the cache has not assumed, refimpl skips exactly the pods the
spec skips (those being deleted); an assumed pod, which the spec's atomic steps never pop, is skipped too. And the
spec's cycle never assumes or binds a terminating pod (:func:`spec.cycle.invariants.inv_no_terminating_pod_scheduled`):
every sequence of graceful deletions, skips and cycles keeps it."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from refimpl.scheduler.schedule_one import skip_pod_schedule
from spec.cycle import cycle
from spec.cycle.cycle import CycleNotEnabled, new_cluster
from spec.cycle.invariants import CYCLE_INVARIANTS, inv_no_terminating_pod_scheduled
from spec.objects import Container, Node, Pod
from spec.quantities import resource_list


def _pod(uid: str, terminating: bool = False, node_name: str = "") -> Pod:
    return Pod(uid, f"pod-{uid}", node_name=node_name, terminating=terminating,
               containers=(Container("c", resource_list(cpu=400)),))


@given(terminating=st.booleans(), assumed=st.booleans(), bound=st.booleans())
def test_refimpl_skips_what_the_spec_skips(terminating: bool, assumed: bool, bound: bool) -> None:
    pod = _pod("p", terminating, "n1" if bound else "")
    assert skip_pod_schedule(pod, assumed) is (cycle.skip_pod_schedule(pod) or assumed)
    assert skip_pod_schedule(pod, False) is terminating


_STEPS = st.lists(st.tuples(st.sampled_from(["create", "terminate", "skip", "schedule", "fail", "bind", "confirm",
                                             "delete"]), st.sampled_from(["a", "b", "c"])), max_size=14)


@given(steps=_STEPS)
def test_no_terminating_pod_is_ever_assumed_or_bound(steps: list[tuple[str, str]]) -> None:
    c = cycle.add_node(new_cluster(preemption=True), Node("n1", resource_list(cpu=1000, memory=2**30, pods=10)))
    for action, uid in steps:
        try:
            match action:
                case "create":
                    c = cycle.create_pod(c, _pod(uid))
                case "terminate":
                    c = cycle.terminate_pod(c, uid)
                case "skip":
                    c = cycle.skip_pod(c, uid)
                case "schedule":
                    c = cycle.schedule_pod(c, uid, "n1")
                case "fail":
                    c = cycle.fail_scheduling(c, uid, None, None)
                case "bind":
                    c = cycle.bind_pod(c, uid)
                case "confirm":
                    c = cycle.confirm_binding(c, uid)
                case _:
                    c = cycle.delete_pod(c, uid)
        except CycleNotEnabled:
            continue
        for predicate in CYCLE_INVARIANTS:
            assert predicate(c), predicate.__name__


def test_the_invariant_catches_a_terminating_pod_in_a_binding_cycle() -> None:
    c = cycle.add_node(new_cluster(), Node("n1", resource_list(cpu=1000, memory=2**30, pods=10)))
    c = cycle.schedule_pod(cycle.create_pod(c, _pod("a")), "a", "n1")
    assert inv_no_terminating_pod_scheduled(c)
    broken = replace(c, binding=c.binding.set("a", _pod("a", True, "n1")))
    assert not inv_no_terminating_pod_scheduled(broken)


def test_a_terminating_pod_gets_no_scheduling_cycle() -> None:
    c = cycle.add_node(new_cluster(), Node("n1", resource_list(cpu=1000, memory=2**30, pods=10)))
    c = cycle.terminate_pod(cycle.create_pod(c, _pod("a")), "a")
    with pytest.raises(CycleNotEnabled, match="ScheduleOne skips it"):
        cycle.schedule_pod(c, "a", "n1")
    with pytest.raises(CycleNotEnabled, match="ScheduleOne skips it"):
        cycle.fail_scheduling(c, "a", None, None)
    skipped = cycle.skip_pod(c, "a")
    assert "a" not in skipped.pending and skipped.api_pods["a"].terminating
