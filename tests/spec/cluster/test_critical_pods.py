"""Critical pods at the kubelet (spec/cluster/kubelet.py, pkg/kubelet/preemption/preemption.go, v1.35).

Kubernetes' ``TestGetPodsToPreempt`` cases whose pods the model has (it has no limits, so no guaranteed pods):
``clusterCritical`` at ``SystemCriticalPriority`` requesting 100m/100Mi, ``burstable`` 100m/100Mi,
``highRequestBurstable`` 300m/300Mi, ``bestEffort`` with no request, and requirements of cpu (millicores), memory
(MiB) and pods; and ``TestHandleAdmissionFailure``'s rule that only a critical pod lacking nothing but resources
evicts. The refinement test (tests/refimpl/test_kubelet_preemption.py) ties refimpl to these functions.
"""

from __future__ import annotations

import pytest

from spec.cluster.invariants import inv_admitted_pods_fit_nodes
from spec.cluster.kubelet import (
    PREEMPTING,
    SYSTEM_CRITICAL_PRIORITY,
    UNEXPECTED_ADMISSION_ERROR,
    Requirements,
    admit_pod,
    handle_admission_failure,
    pods_to_preempt,
)
from spec.cycle import cycle
from spec.cycle.cycle import new_cluster
from spec.objects import Container, Node, Pod, with_node_name
from spec.quantities import resource_list
from spec.valuetypes import replace

MI = 2**20


def pod(name: str, cpu: int = 0, memory_mi: int = 0, priority: int = 0, node: str = "") -> Pod:
    requests = resource_list(cpu=cpu, memory=memory_mi * MI) if cpu or memory_mi else resource_list()
    return Pod(name, name, node_name=node, priority=priority, containers=(Container("c", requests),))


CRITICAL = pod("cluster-critical", 100, 100, SYSTEM_CRITICAL_PRIORITY)
NODE_CRITICAL = pod("node-critical", 100, 100, SYSTEM_CRITICAL_PRIORITY + 100)
BURSTABLE, HIGH = pod("burstable", 100, 100), pod("high-request-burstable", 300, 300)
BEST_EFFORT = pod("bestEffort")


def req(cpu: int, memory_mi: int, pods: int) -> Requirements:
    """``getAdmissionRequirementList(cpu, memory, pods)``."""
    pairs = (("cpu", cpu), ("memory", memory_mi * MI), ("pods", pods))
    return tuple((name, quantity) for name, quantity in pairs if quantity > 0)


@pytest.mark.parametrize(("name", "running", "requirements", "expected"), [
    ("no requirements", [], req(0, 0, 0), []),
    ("no pods", [], req(0, 0, 1), None),
    ("equal pods and resources requirements", [BURSTABLE], req(100, 100, 1), [BURSTABLE]),
    ("higher requirements than pod requests", [BURSTABLE], req(200, 200, 2), None),
    ("choose between bestEffort and burstable", [BURSTABLE, BEST_EFFORT], req(0, 0, 1), [BEST_EFFORT]),
    ("choose lower request burstable if it meets requirements", [BEST_EFFORT, HIGH, BURSTABLE], req(100, 100, 0),
     [BURSTABLE]),
    ("choose higher request burstable if lower does not meet requirements", [BEST_EFFORT, BURSTABLE, HIGH],
     req(150, 150, 0), [HIGH]),
    ("can not evict node critical pod for cluster critical pod", [NODE_CRITICAL], req(100, 100, 0), None),
])
def test_get_pods_to_preempt(name: str, running: list[Pod], requirements: Requirements,
                             expected: list[Pod] | None) -> None:
    """TestGetPodsToPreempt."""
    assert pods_to_preempt(CRITICAL, running, requirements) == expected


def test_evict_cluster_critical_pod_for_node_critical_pod() -> None:
    """TestGetPodsToPreempt: "evict cluster critical pod for node critical pod" (higher priority wins)."""
    assert pods_to_preempt(NODE_CRITICAL, [CRITICAL], req(100, 100, 0)) == [CRITICAL]


def test_only_a_critical_pod_lacking_only_resources_evicts() -> None:
    """TestHandleAdmissionFailure: a non-critical pod is rejected; a critical pod with another failure too is
    rejected with that failure; a critical pod lacking only cpu evicts and is admitted."""
    node = Node("n1", resource_list(cpu=300, memory=1024 * MI, pods=10))
    running = [pod("a", 200, 10, node="n1"), pod("b", 100, 10, node="n1")]
    assert handle_admission_failure(pod("x", 200, 10, node="n1"), node, running) == ("OutOfcpu", ())
    critical = pod("c", 200, 10, SYSTEM_CRITICAL_PRIORITY, node="n1")
    assert handle_admission_failure(critical, node, running) == (None, (running[0],))
    other_node = pod("c", 200, 10, SYSTEM_CRITICAL_PRIORITY, node="n2")
    reason, victims = handle_admission_failure(other_node, node, running)
    assert reason == "NodeName" and victims == ()
    too_big = pod("c", 400, 10, SYSTEM_CRITICAL_PRIORITY, node="n1")
    assert handle_admission_failure(too_big, node, running) == (UNEXPECTED_ADMISSION_ERROR, ())


def test_admit_pod_kills_the_victims_and_admits_the_critical_pod() -> None:
    n1 = Node("n1", resource_list(cpu=300, memory=1024 * MI, pods=10))
    cluster = cycle.add_node(new_cluster(), n1)
    low = pod("low", 200, 10)
    critical = pod("crit", 200, 10, SYSTEM_CRITICAL_PRIORITY)
    for p in (low, critical):
        cluster = cycle.create_pod(cluster, p)
    cluster = cycle.confirm_binding(cycle.bind_pod(cycle.schedule_pod(cluster, "low", "n1"), "low"), "low")
    cluster = admit_pod(cluster, "low")
    # the critical pod is bound to n1 behind the scheduler's back (as a static or a DaemonSet pod might be)
    cluster = cycle.api_bind(cluster, with_node_name(critical, "n1"))
    cluster = replace(cluster, pending=cluster.pending.remove("crit"), unconfirmed=cluster.unconfirmed | {"crit"})
    cluster = cycle.confirm_binding(cluster, "crit")
    cluster = admit_pod(cluster, "crit")
    assert cluster.admitted == {"crit"}
    assert cluster.failed.get("low") == PREEMPTING
    assert "low" not in cluster.api_pods and "low" not in cluster.cache.pod_states
    assert inv_admitted_pods_fit_nodes(cluster)
