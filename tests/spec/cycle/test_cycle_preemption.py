"""DefaultPreemption in the cycle transition system (spec/cycle/cycle.py: ``fail_scheduling`` with a cluster's
``preemption``), its invariants, and the model checker's preemption universe.

The expected values follow Kubernetes v1.35: ``schedulingCycle`` runs ``RunPostFilterPlugins`` after a ``FitError``
(schedule_one.go), ``Evaluator.Preempt`` deletes the victims and clears the nominations of lower-priority pods on the
chosen node (preemption.go), ``handleSchedulingFailure`` records the nomination, and ``assume`` / ``deletePod`` remove
it; ``RunFilterPluginsWithNominatedPods`` counts the nominated pods of equal or higher priority (framework.go).
"""

from __future__ import annotations

import dataclasses

import pytest

from conformance.scenarios.cycle import node, pod
from spec.cluster import restart
from spec.cycle import cycle
from spec.cycle import preemption as preemption_module
from spec.cycle.cycle import Cluster, CycleNotEnabled, FailurePoint, new_cluster
from spec.cycle.invariants import (
    inv_nominations_in_the_queue,
    trans_failed_scheduling_keeps_the_cache,
    trans_preemption_evicts_only_lower_priority,
)
from spec.cycle.preemption import PreemptionResult
from spec.frozenmap import FrozenMap
from spec.objects import PREEMPT_NEVER, Pod
from spec.queue.nominator import EMPTY_NOMINATOR, add_nominated_pod
from spec.valuetypes import replace
from spec.verify.checker import explore
from spec.verify.cycle.system import FAILED_KEEPS_CACHE, PREEMPTS_LOWER, CycleSystem, CycleUniverse
from spec.versions import V1_35, V1_37


def _pod(uid: str, cpu: int, priority: int) -> Pod:
    return replace(pod(uid, cpu), priority=priority)


def placed(cluster: Cluster, p: Pod, name: str) -> Cluster:
    cluster = cycle.create_pod(cluster, p)
    cluster = cycle.schedule_pod(cluster, p.uid, name)
    return cycle.confirm_binding(cycle.bind_pod(cluster, p.uid), p.uid)


def one_full_node(preemption: bool = True) -> Cluster:
    """Node n1 (1000m) with pod "low" (600m, priority 1) bound there."""
    cluster = cycle.add_node(new_cluster(preemption=preemption), node("n1"))
    return placed(cluster, _pod("low", 600, 1), "n1")


def test_preemption_deletes_the_victim_and_nominates_the_pod() -> None:
    before = cycle.create_pod(one_full_node(), _pod("high", 600, 10))
    after = cycle.fail_scheduling(before, "high", None, None)
    assert "low" not in after.api_pods and "low" in after.deleted
    assert "low" not in after.cache.pod_states  # the informer's delete event: RemovePod
    assert dict(after.nominator.pod_to_node.items()) == {"high": "n1"}
    assert trans_failed_scheduling_keeps_the_cache(before, after)
    assert trans_preemption_evicts_only_lower_priority(before, after, "high")
    bound = cycle.schedule_pod(after, "high", "n1")
    assert not bound.nominator.pod_to_node  # assume removes the nomination


def test_without_preemption_the_cache_is_untouched_and_nothing_is_nominated() -> None:
    before = cycle.create_pod(one_full_node(preemption=False), _pod("high", 600, 10))
    after = cycle.fail_scheduling(before, "high", None, None)
    assert "low" in after.api_pods and not after.nominator.pod_to_node


def test_nominated_pod_holds_its_node_against_lower_and_equal_priority_only() -> None:
    cluster = cycle.fail_scheduling(cycle.create_pod(one_full_node(), _pod("m", 600, 5)), "m", None, None)
    for uid, priority, fits in (("lower", 4, False), ("equal", 5, False), ("higher", 6, True)):
        cluster = cycle.create_pod(cluster, _pod(uid, 600, priority))
        feasible = cycle.feasible_nodes(cycle.refreshed_snapshot(cluster), cluster.pending[uid], cluster.namespaces,
                                        cycle.nominated_pods(cluster))
        assert (feasible == ("n1",)) is fits, uid


def test_a_higher_preemptor_clears_the_lower_nomination() -> None:
    cluster = cycle.add_node(new_cluster(preemption=True), node("n1"))
    cluster = placed(placed(cluster, _pod("l", 600, 1), "n1"), _pod("x", 400, 3), "n1")
    cluster = cycle.fail_scheduling(cycle.create_pod(cluster, _pod("m", 600, 5)), "m", None, None)
    assert dict(cluster.nominator.pod_to_node.items()) == {"m": "n1"}
    before = cycle.create_pod(cluster, _pod("h", 1000, 10))
    after = cycle.fail_scheduling(before, "h", None, None)
    assert dict(after.nominator.pod_to_node.items()) == {"h": "n1"} and "x" in after.deleted
    assert trans_preemption_evicts_only_lower_priority(before, after, "h")


def test_policy_never_and_no_victims() -> None:
    never = cycle.create_pod(one_full_node(), replace(_pod("p", 600, 10), preemption_policy=PREEMPT_NEVER))
    after = cycle.fail_scheduling(never, "p", None, None)
    assert "low" in after.api_pods and not after.nominator.pod_to_node  # a nil result: nothing to nominate
    tied = cycle.create_pod(one_full_node(), _pod("p", 600, 1))
    after = cycle.fail_scheduling(tied, "p", None, None)
    assert dict(after.nominator.pod_to_node.items()) == {"p": ""}  # nominated to no node (Override "")


def test_deletion_crash_and_reserve_failure_remove_the_nomination() -> None:
    nominated = cycle.fail_scheduling(cycle.create_pod(one_full_node(), _pod("m", 600, 5)), "m", None, None)
    assert not cycle.delete_pod(nominated, "m").nominator.pod_to_node
    assert not restart.crash_scheduler(nominated).nominator.pod_to_node
    assert nominated.api_pods["m"].nominated_node_name == "n1"  # the failure handler's status patch
    rejected = cycle.fail_scheduling(nominated, "m", "n1", FailurePoint.RESERVE)
    # clearNominatedNode nominates m to "" (stored under "" before v1.37); the patch clearing NominatedNodeName
    # then reaches the nominator as the informer's update, which drops it (UpdateNominatedPod): Kubernetes v1.34.12
    # to v1.36.5 do so in the Go adapter (cycle.preemption.nominated.reserve_failure_clears)
    assert rejected.api_pods["m"].nominated_node_name == "" and not rejected.nominator.pod_to_node


def test_a_tie_among_best_nodes_needs_the_node_named() -> None:
    cluster = cycle.add_node(cycle.add_node(new_cluster(preemption=True), node("n1")), node("n2"))
    cluster = placed(placed(cluster, _pod("a", 600, 1), "n1"), _pod("b", 600, 1), "n2")
    cluster = cycle.create_pod(cluster, _pod("p", 600, 10))
    with pytest.raises(CycleNotEnabled, match="may choose any of"):
        cycle.fail_scheduling(cluster, "p", None, None)
    for name, victim in (("n1", "a"), ("n2", "b")):
        after = cycle.fail_scheduling(cluster, "p", None, None, name)
        assert after.nominator.pod_to_node["p"] == name and victim in after.deleted


def test_nominations_invariant_rejects_a_nominated_pod_in_the_cache_or_without_preemption() -> None:
    cluster = cycle.create_pod(one_full_node(), _pod("m", 600, 5))
    nominated = cycle.fail_scheduling(cluster, "m", None, None)
    assert inv_nominations_in_the_queue(nominated)
    assumed = replace(cycle.schedule_pod(nominated, "m", "n1"), nominator=nominated.nominator)
    assert not inv_nominations_in_the_queue(assumed)
    off = replace(one_full_node(preemption=False), nominator=add_nominated_pod(
        EMPTY_NOMINATOR, _pod("low", 600, 1), None, _pod("low", 600, 1), False))
    assert inv_nominations_in_the_queue(off)  # a nominated node "" on the pod: nothing nominated
    off = replace(off, nominator=add_nominated_pod(EMPTY_NOMINATOR, replace(_pod("q", 1, 1), nominated_node_name="n1"),
                                                   None, _pod("q", 1, 1), False))
    assert not inv_nominations_in_the_queue(off)


PREEMPTION_UNIVERSE = CycleUniverse(nodes=1, pods=2, ttls=(0,), preemption=True)


def test_the_cycle_system_with_preemption_is_exhausted_without_violation() -> None:
    report = explore(CycleSystem(PREEMPTION_UNIVERSE), name="cycle", stop_at_first=False)
    assert report.exhausted and report.violations == []
    assert report.coverage["fail_scheduling: preempted"] > 0


def test_a_preemption_of_an_equal_priority_pod_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(preemption_module, "is_preemption_allowed", lambda victim, p: victim.priority <= p.priority)
    report = explore(CycleSystem(PREEMPTION_UNIVERSE), name="cycle", stop_at_first=False)
    assert PREEMPTS_LOWER in {v.property for v in report.violations}


def test_a_victim_left_in_the_cache_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    original = cycle.apply_post_filter

    def delete_at_the_api_server_only(cluster: Cluster, uid: str, result: PreemptionResult) -> Cluster:
        gone = {v.uid for v in result.deleted}
        if gone & cluster.unconfirmed:
            raise CycleNotEnabled("as the spec: a victim's binding has not reached the informer")
        after = original(cluster, uid, dataclasses.replace(result, deleted=()))
        return replace(after, api_pods=FrozenMap({u: p for u, p in after.api_pods.items() if u not in gone}),
                       deleted=after.deleted | gone)

    monkeypatch.setattr(cycle, "apply_post_filter", delete_at_the_api_server_only)
    report = explore(CycleSystem(PREEMPTION_UNIVERSE), name="cycle", stop_at_first=False)
    assert FAILED_KEEPS_CACHE in {v.property for v in report.violations}


def test_an_assume_that_keeps_the_nomination_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    original = cycle._forget_nomination
    monkeypatch.setattr(cycle, "_forget_nomination",
                        lambda cluster, uid: cluster.nominator if uid in cluster.pending else original(cluster, uid))
    report = explore(CycleSystem(PREEMPTION_UNIVERSE), name="cycle", stop_at_first=False)
    assert inv_nominations_in_the_queue.__name__ in {v.property for v in report.violations}


def test_the_post_filter_message_joins_dynamic_resources_reason_up_to_v1_36() -> None:
    """RunPostFilterPlugins joins the reasons of DynamicResources (first) and DefaultPreemption when preemption does
    not succeed: v1.35.8 says "no new claims to deallocate, preemption: ..."; v1.37.2's DynamicResources gives none;
    a successful preemption's message is empty through v1.36 and names the node and the victims in v1.37.2
    (``Evaluator.Preempt``: "found a potential placement for pod on node n1, preempting 1 victims")."""
    placement = "preemption: found a potential placement for pod on node n1, preempting 1 victims"
    for profile, prefix, success_message in ((V1_35, "no new claims to deallocate, ", ""), (V1_37, "", placement)):
        cluster = cycle.add_node(new_cluster(profile, preemption=True), node("n1"))
        cluster = cycle.create_pod(placed(cluster, _pod("low", 600, 1), "n1"), _pod("p", 600, 1))
        cluster = replace(cluster, snapshot=cycle.refreshed_snapshot(cluster))
        (result,) = cycle.post_filter(cluster, "p")
        assert cycle.post_filter_message(cluster, "p", result) == (
            prefix + "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.")
        higher = cycle.create_pod(cluster, _pod("h", 600, 10))
        (success,) = cycle.post_filter(higher, "h")
        assert cycle.post_filter_message(higher, "h", success) == success_message
