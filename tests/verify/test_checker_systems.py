"""The model checker over the dispatcher's call queue and over the scheduling pipeline: default
universes exhausted without violation, broken transitions caught with a shortest trace, and the
known violations found when asked for."""

from __future__ import annotations

from dataclasses import replace

import pytest

from spec.cache import cache as spec_cache
from spec.cycle import cycle
from spec.cycle.cycle import Cluster
from spec.dispatcher import call_queue
from spec.dispatcher.call_queue import AddError, CallQueue
from spec.dispatcher.operations import AddCall, CallQueueOperation, FinishCall, apply_call_queue
from spec.frozenmap import FrozenMap
from spec.objects import with_node_name
from spec.quantities import SECOND
from spec.verify.checker import explore
from spec.verify.cycle.system import (
    DEFAULT_CYCLE_UNIVERSE,
    CycleStep,
    CycleSystem,
    CycleUniverse,
    apply_step,
)
from spec.verify.dispatcher.system import (
    DEFAULT_DISPATCHER_UNIVERSE,
    DispatcherSystem,
    DispatcherUniverse,
    call_variant,
    rename_queue,
)
from spec.verify.exploration import Report
from spec.versions import PR_141745, V1_34

# ============================================================================================
# Dispatcher
# ============================================================================================


def test_default_dispatcher_universe_is_exhausted_without_violation() -> None:
    report = explore(DispatcherSystem(DEFAULT_DISPATCHER_UNIVERSE))
    assert report.violations == [] and report.exhausted
    assert report.states > 1000 and report.transitions > report.states and report.max_depth >= 6
    for key in (
        "AddCall binding: kept",
        "AddCall status patch: kept",
        "AddCall status patch: Skipped",
        "PopCall: ok",
        "FinishCall: success",
        "FinishCall: error",
        "SyncObject: ok",
        "CloseDispatcher: ok",
    ):
        assert report.coverage[key] > 0, key  # fmt: skip


@pytest.mark.parametrize(
    "profile", [PR_141745, replace(V1_34, dispatcher_max_in_flight=1)], ids=["pr141745", "v1.34-limit1"]
)
def test_other_dispatcher_profiles_are_exhausted_without_violation(profile: object) -> None:
    universe = DispatcherUniverse(uids=2, adds=2, call_variants=4, profile=profile)  # type: ignore[arg-type]
    report = explore(DispatcherSystem(universe))
    assert report.violations == [] and report.exhausted


def test_dispatcher_symmetry_only_merges_states() -> None:
    universe = DispatcherUniverse(uids=2, adds=2)
    reduced, full = explore(DispatcherSystem(universe)), explore(DispatcherSystem(universe, symmetry=False))
    assert reduced.violations == full.violations == []
    assert reduced.states < full.states and reduced.max_depth == full.max_depth


def test_uid_renaming_is_consistent() -> None:
    queue, _ = call_queue.add(call_queue.new_call_queue(), call_variant("u1", 0))
    renamed = rename_queue(queue, FrozenMap({"u1": "u0", "u0": "u1"}))
    assert renamed.fifo == ("u0",) and renamed.calls["u0"].call.uid == "u0"


def finish_keeping_the_call(queue: CallQueue, op: CallQueueOperation) -> tuple[CallQueue, AddError | None]:
    after, error = apply_call_queue(queue, op)
    if isinstance(op, FinishCall):
        after = replace(after, calls=queue.calls)
    return after, error


def add_ignoring_relevance(queue: CallQueue, op: CallQueueOperation) -> tuple[CallQueue, AddError | None]:
    if isinstance(op, AddCall):
        queue = replace(queue, relevances=FrozenMap())  # every type has relevance 0
    after, error = apply_call_queue(queue, op)
    return replace(after, relevances=call_queue.new_call_queue().relevances), error


def test_broken_finalize_is_caught_with_a_shortest_trace() -> None:
    report = explore(DispatcherSystem(DispatcherUniverse(uids=2, adds=2), step=finish_keeping_the_call))
    [violation] = report.violations
    assert violation.property == "inv_one_call_per_uid"
    assert [s.action.split("(")[0] for s in violation.trace] == ["Add", "PopCall", "Finish"]
    assert "NOT reproduced" not in violation.final_state


def test_ignored_relevance_is_caught() -> None:
    report = explore(DispatcherSystem(DispatcherUniverse(uids=1, adds=2), step=add_ignoring_relevance))
    assert {v.property for v in report.violations} == {
        "trans_more_relevant_call_never_dropped",
        "trans_add_keeps_the_more_relevant_call",
    }  # both, on the same Add: a status patch replaced the binding
    for violation in report.violations:
        assert len(violation.trace) == 2 and "bind" in violation.trace[0].action


def test_known_dispatcher_violations_are_found_with_shortest_traces() -> None:
    report = explore(DispatcherSystem(DEFAULT_DISPATCHER_UNIVERSE, known_violations=True), stop_at_first=False)
    lengths = {v.property: len(v.trace) for v in report.violations}
    assert lengths == {"liveness_every_caller_told": 2, "inv_no_caller_told_twice": 4}


# ============================================================================================
# Scheduling pipeline
# ============================================================================================


def run_cycle(universe: CycleUniverse = DEFAULT_CYCLE_UNIVERSE, **options: object) -> Report:
    known = bool(options.pop("known_violations", False))
    step = options.pop("step", apply_step)
    symmetry = bool(options.pop("symmetry", True))
    system = CycleSystem(universe, step=step, known_violations=known, symmetry=symmetry)  # type: ignore[arg-type]
    return explore(system, **options)  # type: ignore[arg-type]


def test_default_cycle_universe_is_exhausted_without_violation() -> None:
    report = run_cycle()
    assert report.violations == [] and report.exhausted
    assert report.states > 300 and report.max_depth >= 8
    for key in (
        "create_pod: ok",
        "schedule_pod: ok",
        "fail_scheduling: at Reserve",
        "fail_scheduling: unschedulable",
        "bind_pod: ok",
        "fail_binding: at PreBind",
        "fail_binding: at Bind",
        "confirm_binding: ok",
        "delete_pod: ok",
        "add_node: ok",
        "remove_node: ok",
        "tick: ok",
    ):
        assert report.coverage[key] > 0, key  # fmt: skip


def test_cycle_with_node_updates_and_v1_34_is_exhausted_without_violation() -> None:
    universe = CycleUniverse(nodes=1, pods=2, node_variants=2, ttls=(0,), profile=V1_34)
    report = run_cycle(universe)
    assert report.violations == [] and report.exhausted and report.coverage["update_node: ok"] > 0


@pytest.mark.parametrize("profile", [V1_34, DEFAULT_CYCLE_UNIVERSE.profile], ids=lambda p: p.name)
def test_cycle_with_graceful_deletions_is_exhausted_without_violation(profile: object) -> None:
    """terminate_pod at every stage it is enabled in (a binding in flight and an orphaned request included, with
    crashes) and skip_pod: every invariant holds, and the graceful deletions reach states the run without them does
    not."""
    universe = CycleUniverse(ttls=(0,), crashes=True, profile=profile)  # type: ignore[arg-type]
    without = run_cycle(universe)
    report = run_cycle(replace(universe, terminations=True))
    assert report.violations == [] and report.exhausted
    assert report.coverage["terminate_pod: ok"] > 0 and report.coverage["skip_pod: ok"] > 0
    assert "terminate_pod: ok" not in without.coverage and report.states > without.states


def test_cycle_symmetry_only_merges_states() -> None:
    universe = CycleUniverse(nodes=2, pods=1, ttls=(0,))
    reduced, full = run_cycle(universe), run_cycle(universe, symmetry=False)
    assert reduced.violations == full.violations == []
    assert reduced.states < full.states and reduced.max_depth == full.max_depth


def schedule_without_filters(cluster: Cluster, step: CycleStep) -> Cluster:
    """``schedule_pod`` that assumes the pod wherever it is told, feasible or not."""
    if step.name != "schedule_pod":
        return apply_step(cluster, step)
    uid, node = step.args
    cycle._require(uid in cluster.pending and node in cluster.cache.nodes, "not pending")
    assumed = with_node_name(cluster.pending[uid], node)
    return replace(
        cluster,
        cache=spec_cache.assume_pod(cluster.cache, assumed),
        pending=cluster.pending.remove(uid),
        binding=cluster.binding.set(uid, assumed),
    )


def fail_binding_without_forget(cluster: Cluster, step: CycleStep) -> Cluster:
    """A failed binding cycle that requeues the pod but leaves it assumed."""
    after = apply_step(cluster, step)
    if step.name == "fail_binding":
        after = replace(after, cache=cluster.cache)
    return after


def test_scheduling_without_filters_overcommits_with_a_shortest_trace() -> None:
    report = run_cycle(CycleUniverse(ttls=(0,)), step=schedule_without_filters)
    [violation] = report.violations
    assert violation.property == "inv_no_node_overcommitted"
    names = sorted(s.action.split("(")[0] for s in violation.trace)
    assert names == ["add_node", "create_pod", "create_pod", "schedule_pod", "schedule_pod"]


def test_binding_failure_that_keeps_the_assumption_is_caught() -> None:
    report = run_cycle(CycleUniverse(pods=1, ttls=(0,)), step=fail_binding_without_forget)
    [violation] = report.violations
    assert violation.property == "inv_assumed_pods_have_a_binding"
    assert [s.action.split("(")[0] for s in violation.trace][-1] == "fail_binding"


def test_known_overcommit_with_a_ttl_is_found_with_a_shortest_trace() -> None:
    """The expired assumption over-commits the node in the cache (the late confirmation) and at the API server
    (the second pod's bind), both in 9 steps."""
    report = run_cycle(known_violations=True, stop_at_first=False)
    found = {v.property: v for v in report.violations}
    assert set(found) == {"inv_no_node_overcommitted", "inv_bindings_fit_nodes"}
    for prop, last in (("inv_no_node_overcommitted", "confirm_binding"), ("inv_bindings_fit_nodes", "bind_pod")):
        assert "ttl=1s" in found[prop].initial
        actions = [s.action.split("(")[0] for s in found[prop].trace]
        assert len(actions) == 9 and actions[-1] == last and actions.count("tick") == 2


def test_a_late_confirmation_also_breaks_the_host_port_contract() -> None:
    """With a TTL, the late confirmation puts two pods with host port 8080 on one node; when one of
    them leaves, the node forgets the port the other still uses. Found by this checker."""
    universe = CycleUniverse(pods=2, pod_variants=2, ttls=(1 * SECOND,))
    report = run_cycle(universe, known_violations=True, stop_at_first=False)
    found = {v.property: v for v in report.violations}
    assert set(found) == {"inv_no_node_overcommitted", "inv_bindings_fit_nodes", "inv_used_ports_are_union_of_pods"}
    ports = [s.action for s in found["inv_used_ports_are_union_of_pods"].trace]
    assert len(ports) == 10 and ports[-2].startswith("confirm_binding") and "300m" in ports[0]
    assert run_cycle(universe).violations == []  # without known violations: only ALWAYS cache invariants
