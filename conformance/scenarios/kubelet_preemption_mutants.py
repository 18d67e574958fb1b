"""Curated kubelet vectors for the critical pod's choice of victims (issues 24 and 25): the mutants of
``refimpl.kubelet.preemption`` the full mutation run found that no vector killed.

``getPodsToPreempt`` and ``getPodsToPreemptByDistance`` (pkg/kubelet/preemption/preemption.go, v1.35.8) pick, in
each QoS class, the pod whose requests leave the least of what is missing (``admissionRequirementList.distance``:
the sum over the missing resources of the squared fraction the pod leaves), equal distances going to the pod with
the smaller request (``smallerResourceRequest``: memory, then cpu), and repeat until nothing is missing; every pod
frees one pod slot (``GetResourceRequest``). The pods reach k1 while it is large, k1 then shrinks
(``ClusterUpdateNode``), and the critical pod comes last. As everywhere, the expected outcomes come from the spec
(:func:`conformance.traces.expand`, :func:`spec.cluster.kubelet.pods_to_preempt`), never from here.
"""

from __future__ import annotations

from typing import Final

from conformance.operations import AdmitPod, ClusterAddNode, ClusterUpdateNode, CreatePod, CycleOperation
from conformance.scenarios.cycle import MIB, _cy, placed
from conformance.scenarios.kubelet_critical_gaps import PREEMPTION_TEST, _on_k1_then, _pod
from conformance.traces import Scenario
from spec.cluster.kubelet import SYSTEM_CRITICAL_PRIORITY
from spec.objects import Node
from spec.quantities import resources_from

PREEMPTION_GO: Final = "pkg/kubelet/preemption/preemption.go"


def _k1(cpu: int, memory_mib: int, pods: int = 10) -> Node:
    """Node k1: ``cpu`` millicores, ``memory_mib`` MiB, room for ``pods`` pods."""
    return Node("k1", resources_from({"cpu": cpu, "memory": memory_mib * MIB, "pods": pods}))


def _mutant(sid: str, description: str, ops: list[CycleOperation]) -> Scenario:
    return _cy(f"kubelet.critical.mutation.{sid}", description, ops, "kubelet", "critical-pod")


def distance_scenarios() -> list[Scenario]:
    """Two missing resources, where the sum of the squared fractions ranks the pods otherwise than the last term
    alone or a sum of cubes would."""
    a = _pod("a", cpu=300, memory=1000 * MIB)
    b = _pod("b", cpu=500, memory=500 * MIB)
    c = _pod("c", cpu=1000)
    crit = _pod("crit", SYSTEM_CRITICAL_PRIORITY, cpu=1000, memory=1000 * MIB)
    return [
        _mutant("distance_sums_squared_fractions",
                f"admissionRequirementList.distance and getPodsToPreemptByDistance ({PREEMPTION_GO}; "
                f"TestAdmissionRequirementsDistance and TestGetPodsToPreempt 'multiple pods required', "
                f"{PREEMPTION_TEST}, with two resources missing in different shares): k1 shrank to 1800m and 1500Mi, "
                "just what a (300m, 1000Mi), b (500m, 500Mi) and c (1000m) ask for, so the critical pod (1000m, "
                "1000Mi) lacks 1000m and 1000Mi. Distances: a 0.7^2 = 0.49, b 0.5^2 + 0.5^2 = 0.5, c 1 (it leaves all "
                "the memory): a is evicted first; then only 700m is missing, which c covers (distance 0): a and c "
                "fail (Preempting), b keeps running, the critical pod is admitted. Counting only the last term (b "
                "0.25) or cubes (a 0.343, b 0.25) would pick b first, then a and c: all three evicted",
                _on_k1_then(_k1(4000, 4096), _k1(1800, 1500), [a, b, c], crit)),
    ]


def pod_slot_scenarios() -> list[Scenario]:
    """k1 shrinks to one pod slot while two pods run there: the critical pod lacks 1 - (1 - 2) = 2 slots."""
    v1, v2 = _pod("v1", cpu=100), _pod("v2", cpu=100)
    crit = _pod("crit", SYSTEM_CRITICAL_PRIORITY, cpu=100)
    return [
        _mutant("each_pod_frees_one_slot",
                f"GetResourceRequest (pkg/api/v1/resource/helpers.go: 1 for pods) in "
                f"admissionRequirementList.subtract ({PREEMPTION_GO}; TestAdmissionRequirementsSubtract 'equal "
                f"requests and requirements', {PREEMPTION_TEST}, with a pod requirement of 2): v1 and v2 run on k1, "
                "which then shrinks to 1 pod slot (its kubelet evicts nothing for that); the critical pod lacks "
                "GetInsufficientAmount = 1 - (1 - 2) = 2 slots, each pod frees one, so both v1 and v2 fail "
                "(Preempting) and the critical pod is admitted. Were a pod counted as 2 slots, one would do",
                [ClusterAddNode(_k1(4000, 4096)), CreatePod(v1), *placed("v1", "k1"), CreatePod(v2),
                 *placed("v2", "k1"), AdmitPod("v1"), AdmitPod("v2"), CreatePod(crit), *placed("crit", "k1"),
                 ClusterUpdateNode(_k1(4000, 4096, pods=1)), AdmitPod("crit")]),
    ]


def smaller_request_scenarios() -> list[Scenario]:
    """Two pods equally close to the missing memory, with equal memory requests: the lower cpu request decides."""
    s = _pod("s", cpu=100, memory=200 * MIB)
    t = _pod("t", cpu=300, memory=200 * MIB)
    crit = _pod("crit", SYSTEM_CRITICAL_PRIORITY, cpu=100, memory=200 * MIB)
    return [
        _mutant("equal_memory_lower_cpu_wins",
                f"smallerResourceRequest ({PREEMPTION_GO}; TestSmallerResourceRequest, {PREEMPTION_TEST}, with "
                "equal memory and different cpu, which its cases leave out) in getPodsToPreemptByDistance: s (100m, "
                "200Mi) and t (300m, 200Mi) run on k1, whose memory then shrinks to 400Mi, so the critical pod "
                "(100m, 200Mi) lacks 200Mi, which each covers (distance 0). Memory ties, cpu decides: s has the "
                "smaller request and is evicted (Preempting), whatever their order; t keeps running and the critical "
                "pod is admitted. Were equal memory taken as smaller, or cpu not compared, the later pod t would "
                "win the tie when s comes first",
                _on_k1_then(_k1(4000, 4096), _k1(4000, 400), [s, t], crit)),
    ]


def kubelet_preemption_mutant_scenarios() -> list[Scenario]:
    """Every scenario of this module, for every profile."""
    return [*distance_scenarios(), *pod_slot_scenarios(), *smaller_request_scenarios()]
