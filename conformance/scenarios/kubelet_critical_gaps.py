"""Curated kubelet vectors for the critical-pod admission path (issues 24 and 25): the cases mutation/equivalents.toml
listed as gaps in ``refimpl.kubelet``.

``CriticalPodAdmissionHandler.HandleAdmissionFailure`` (pkg/kubelet/preemption/preemption.go, v1.35.8) evicts pods
for a critical pod only when every failure ``generalFilter`` (pkg/kubelet/lifecycle/predicate.go) found is an
``InsufficientResourceError``; any other failure (NodeAffinity, NodePorts, TaintToleration) is returned as the
rejection and nothing is evicted (``TestHandleAdmissionFailure``, "... - with other failure reason", in
pkg/kubelet/preemption/preemption_test.go). The amounts it asks ``getPodsToPreempt`` to free come from
``InsufficientResourceError.GetInsufficientAmount``, extended resources included; and the victims are taken by QoS
class (``GetPodQOS``, pkg/apis/core/v1/helper/qos/qos.go: any non-zero cpu or memory request makes a pod without
limits Burstable, even 1m). The pods reach the node while it is large; the node then shrinks or changes
(``ClusterUpdateNode``) before its kubelet handles them, or a crashed scheduler's late bind lands on a node
another pod took meanwhile. As everywhere, the expected outcomes come from the spec
(:func:`conformance.traces.expand`, :func:`spec.cluster.kubelet.handle_admission_failure`), never from here.
"""

from __future__ import annotations

from typing import Final

from conformance.operations import (
    AdmitPod,
    ClusterAddNode,
    ClusterUpdateNode,
    ConfirmBinding,
    CrashScheduler,
    CreatePod,
    CycleOperation,
    LandOrphanedBind,
    RestartScheduler,
    SchedulePod,
)
from conformance.scenarios.cycle import MIB, _cy, placed
from conformance.traces import Scenario
from spec.cluster.kubelet import SYSTEM_CRITICAL_PRIORITY
from spec.frozenmap import FrozenMap
from spec.objects import Container, ContainerPort, Node, Pod, Taint, Toleration
from spec.quantities import resources_from

PREEMPTION_TEST: Final = "pkg/kubelet/preemption/preemption_test.go"
GPU: Final = "example.com/gpu"
"""An extended resource (``OutOfexample.com/gpu``)."""
NO_EXECUTE_TAINT: Final = Taint("maintenance", "on", "NoExecute")
TOLERATES_MAINTENANCE: Final = Toleration("maintenance", "Equal", "on", "NoExecute")


def _node(cpu: int, pods: int = 10, gpu: int = 0, **fields: object) -> Node:
    """Node k1: ``cpu`` millicores, 1 GiB, room for ``pods`` pods, ``gpu`` of :data:`GPU`."""
    amounts = {"cpu": cpu, "memory": 1024 * MIB, "pods": pods, GPU: gpu}
    return Node("k1", resources_from({k: v for k, v in amounts.items() if v}), **fields)  # type: ignore[arg-type]


def _pod(uid: str, priority: int = 0, ports: tuple[ContainerPort, ...] = (), **requests: int) -> Pod:
    """Pod ``uid`` with one container asking for ``requests`` (``gpu`` stands for :data:`GPU`)."""
    asks = resources_from({(GPU if k == "gpu" else k): v for k, v in requests.items()})
    return Pod(uid, f"pod-{uid}", containers=(Container("c", asks, ports),), priority=priority)


def _on_k1_then(large: Node, changed: Node, pods: list[Pod], crit: Pod) -> list[CycleOperation]:
    """Every pod of ``pods`` and ``crit`` placed on ``large`` (k1), k1 then becomes ``changed``, and its kubelet
    admits ``pods`` in order before it handles ``crit``."""
    ops: list[CycleOperation] = [ClusterAddNode(large)]
    for p in (*pods, crit):
        ops += [CreatePod(p), *placed(p.uid, "k1")]
    return [*ops, ClusterUpdateNode(changed), *(AdmitPod(p.uid) for p in pods), AdmitPod(crit.uid)]


def _gap(sid: str, description: str, ops: list[CycleOperation]) -> Scenario:
    return _cy(f"kubelet.critical.gap.{sid}", description, ops, "kubelet", "critical-pod")


def non_resource_scenarios() -> list[Scenario]:
    """A critical pod rejected for a reason other than resources: the handler returns it and evicts nothing."""
    crit_ssd = Pod("crit", "pod-crit", containers=(Container("c", resources_from({"cpu": 300})),),
                   node_selector=FrozenMap({"disk": "ssd"}), priority=SYSTEM_CRITICAL_PRIORITY)
    ssd = FrozenMap({"disk": "ssd"})
    tolerant = Pod("v", "pod-v", containers=(Container("c", resources_from({"cpu": 300})),),
                   tolerations=(TOLERATES_MAINTENANCE,))
    port = (ContainerPort(8080, host_port=8080),)
    crit_port, holder = _pod("crit", SYSTEM_CRITICAL_PRIORITY, port, cpu=300), _pod("q", 0, port, cpu=300)
    late_bind: list[CycleOperation] = [
        ClusterAddNode(_node(2000)), CreatePod(crit_port), CreatePod(holder), SchedulePod("crit", "k1"),
        CrashScheduler(), RestartScheduler(), *placed("q", "k1"), AdmitPod("q"), LandOrphanedBind("crit"),
        ConfirmBinding("crit"), AdmitPod("crit")]
    return [
        _gap("node_selector_beside_out_of_cpu",
             f"TestHandleAdmissionFailure ({PREEMPTION_TEST}) 'critical pods cannot be preempted - with other "
             "failure reason', through generalFilter: k1 lost the disk=ssd label the critical pod selects and "
             "shrank to 500m, so the pod lacks cpu (v could free it) and fails NodeAffinity; "
             "HandleAdmissionFailure returns the non-resource reason only: the pod is rejected (NodeAffinity) and "
             "v keeps running",
             _on_k1_then(_node(2000, labels=ssd), _node(500), [_pod("v", cpu=300)], crit_ssd)),
        _gap("no_execute_taint_beside_out_of_pods",
             f"TestHandleAdmissionFailure ({PREEMPTION_TEST}) with an insufficient pod count and another failure "
             "reason: k1 now holds one pod and carries a NoExecute taint that v tolerates and the critical pod does "
             "not, so the pod lacks a pod slot (evicting v would free it) and fails TaintToleration (generalFilter's "
             "NoExecute check): it is rejected with TaintToleration and v keeps running",
             _on_k1_then(_node(2000), _node(2000, pods=1, taints=(NO_EXECUTE_TAINT,)), [tolerant],
                         _pod("crit", SYSTEM_CRITICAL_PRIORITY, cpu=300))),
        _gap("host_port_taken",
             "HandleAdmissionFailure with NodePorts as the only failure: a crashed scheduler's bind of the critical "
             "pod lands after the restarted one put q, asking for the same host port 8080, on k1; the kubelet "
             "rejects the critical pod (NodePorts) instead of evicting q, which keeps running",
             late_bind),
    ]


def extended_resource_scenarios() -> list[Scenario]:
    """A critical pod asking for an extended resource beside cpu the node lacks (``GetInsufficientAmount`` of each
    ``InsufficientResourceError``; no running pod uses the extended resource, so its in-use amount is 0)."""
    return [
        _gap("unused_extended_resource_fits",
             f"HandleAdmissionFailure ({PREEMPTION_TEST}): the critical pod asks for 300m and both {GPU} of k1, "
             "which no running pod uses; k1 shrank to 500m, so only cpu is lacking (100m) and evicting v frees it: "
             "v fails (Preempting) and the critical pod is admitted",
             _on_k1_then(_node(2000, gpu=2), _node(500, gpu=2), [_pod("v", cpu=300)],
                         _pod("crit", SYSTEM_CRITICAL_PRIORITY, cpu=300, gpu=2))),
        _gap("extended_resource_no_pod_frees",
             f"getPodsToPreempt ({PREEMPTION_TEST}, 'higher requirements than pod requests'): the critical pod "
             f"asks for 300m and 2 {GPU}; k1 shrank to 500m and 1 {GPU}, so it lacks 100m (GetInsufficientAmount) "
             "and 1 gpu, which no running pod holds: no set of pods frees enough, the pod is rejected "
             "(UnexpectedAdmissionError) and v, which could free the cpu, keeps running",
             _on_k1_then(_node(2000, gpu=2), _node(500, gpu=1), [_pod("v", cpu=300)],
                         _pod("crit", SYSTEM_CRITICAL_PRIORITY, cpu=300, gpu=2))),
    ]


def qos_scenarios() -> list[Scenario]:
    """A victim asking for exactly 1m of cpu and no memory: Burstable (``GetPodQOS``), not BestEffort."""
    victims = [_pod("be"), _pod("x", cpu=1), _pod("b1", cpu=100), _pod("b2", cpu=200)]
    return [
        _gap("one_millicore_victim_is_burstable",
             f"getPodsToPreempt ({PREEMPTION_TEST}, 'choose higher request burstable if lower does not meet "
             "requirements') with GetPodQOS: x asks for 1m of cpu and no memory, which makes it Burstable; k1 "
             "shrank to 400m, so the critical pod (200m) lacks 101m. be (BestEffort) frees no cpu; among the "
             "burstable x, b1 (100m) and b2 (200m) the closest to 101m is b2 alone, which is evicted. Were x "
             "BestEffort it would count as freed first, b1 would then cover the remaining 100m, and x and b1 "
             "would be evicted instead",
             _on_k1_then(_node(2000), _node(400), victims, _pod("crit", SYSTEM_CRITICAL_PRIORITY, cpu=200))),
    ]


def _tiny(uid: str, resource: str, pod_level: bool = False) -> Pod:
    """Pod ``uid`` asking for the least non-zero amount of ``resource`` (1m of cpu, 1 byte of memory), in its
    container or, with ``pod_level``, at pod level only (its container asks for nothing)."""
    asks = resources_from({resource: 1})
    if pod_level:
        return Pod(uid, f"pod-{uid}", containers=(Container("c"),), pod_level_requests=asks)
    return Pod(uid, f"pod-{uid}", containers=(Container("c", asks),))


def tiny_victim_scenarios() -> list[Scenario]:
    """The same shape as :func:`qos_scenarios` for each way a pod is Burstable by a minimal request (``GetPodQOS``
    counts any non-zero cpu or memory request, of a container or of the pod): a tiny victim t and two larger
    Burstable ones, l1 and l2 (twice l1), the critical pod lacking l1's request plus t's. Burstable, t is the
    farthest from covering it and l2 alone is evicted; were t BestEffort, it would count as freed first, l1 would
    cover the rest, and t and l1 would be evicted."""
    scenarios = []
    for sid, resource, pod_level in (("cpu_only_victim", "cpu", False), ("memory_one_byte_victim", "memory", False),
                                     ("pod_level_cpu_victim", "cpu", True),
                                     ("pod_level_memory_victim", "memory", True)):
        unit = 1 if resource == "cpu" else MIB
        # l1 and l2 also ask for 10Mi of memory beside cpu (or 10m of cpu beside memory), so that they stay
        # Burstable whatever GetPodQOS reads of t's resource.
        other = "memory" if resource == "cpu" else "cpu"
        extra = 10 * MIB if other == "memory" else 10
        large = [Pod(uid, f"pod-{uid}", containers=(Container("c", resources_from(
            {resource: n * 100 * unit, other: extra})),)) for uid, n in (("l1", 1), ("l2", 2))]
        crit = Pod("crit", "pod-crit", containers=(Container("c", resources_from({resource: 200 * unit})),),
                   priority=SYSTEM_CRITICAL_PRIORITY)
        amounts = {"cpu": 4000, "memory": 4096 * MIB, "pods": 10}
        shrunk = {**amounts, resource: 400 * unit}
        ops = _on_k1_then(Node("k1", resources_from(amounts)), Node("k1", resources_from(shrunk)),
                          [_tiny("t", resource, pod_level), *large], crit)
        where = "pod-level" if pod_level else "container"
        least = "1m of cpu" if resource == "cpu" else "1 byte of memory"
        shrunk_to = "400m" if resource == "cpu" else "400Mi"
        scenarios.append(_gap(
            f"{sid}_is_burstable",
            f"getPodsToPreempt ({PREEMPTION_TEST}) with GetPodQOS: t's only request is {least} ({where}), which "
            f"makes it Burstable; k1's {resource} shrank to {shrunk_to}, so the critical pod lacks l1's request and "
            "that least amount more; among the burstable t, l1 and l2, l2 alone covers that (distance 0) and is "
            "evicted. Were t BestEffort, l1 would cover what t leaves and both would be evicted",
            ops))
    return scenarios


def best_effort_tier_scenarios() -> list[Scenario]:
    """A BestEffort victim that holds an extended resource: ``GetPodQOS`` reads only cpu and memory, so a pod asking
    for a gpu alone is BestEffort, and ``getPodsToPreempt`` counts the BestEffort tier as freed before it picks
    Burstable victims by distance. Were that pod Burstable, the greedy pick over one merged tier would choose
    differently."""
    be = _pod("be", gpu=1)
    b_mem = _pod("bm", memory=400 * MIB)
    b_both = _pod("bb", gpu=1, memory=200 * MIB)
    crit = _pod("crit", SYSTEM_CRITICAL_PRIORITY, gpu=1, memory=400 * MIB)
    large = Node("k1", resources_from({"cpu": 2000, "memory": 1024 * MIB, "pods": 10, GPU: 3}))
    shrunk = Node("k1", resources_from({"cpu": 2000, "memory": 600 * MIB, "pods": 10, GPU: 2}))
    return [
        _gap("best_effort_gpu_victim_counted_first",
             f"getPodsToPreempt ({PREEMPTION_TEST}) with GetPodQOS: be asks for 1 {GPU} and no cpu or memory, so it "
             "is BestEffort; k1 shrank to 600Mi and 2 gpus, so the critical pod (1 gpu, 400Mi) lacks 400Mi and 1 "
             "gpu. The Burstable victims are picked as if every BestEffort pod were gone (be covers the gpu): bm "
             "(400Mi) is the closest to 400Mi; then the BestEffort pods cover what bm leaves (the gpu): be. Evicted: "
             "be and bm. Were be Burstable, bb (1 gpu, 200Mi, the closest to both) would be picked first, then bm",
             _on_k1_then(large, shrunk, [be, b_mem, b_both], crit)),
    ]


def absent_resource_scenarios() -> list[Scenario]:
    """A node that no longer has a hugepages resource at all: ``GetInsufficientAmount`` reads its capacity as 0.
    (An *extended* resource the node lacks would not do: the kubelet's admission drops such requests first,
    ``removeMissingExtendedResources`` in pkg/kubelet/lifecycle/predicate.go; hugepages are not extended resources.)"""
    pages = "hugepages-2Mi"
    large = Node("k1", resources_from({"cpu": 2000, "memory": 1024 * MIB, "pods": 10, pages: 4 * MIB}))
    gone = Node("k1", resources_from({"cpu": 2000, "memory": 1024 * MIB, "pods": 10}))
    crit = Pod("crit", "pod-crit", containers=(Container("c", resources_from({"cpu": 300, pages: 2 * MIB})),),
               priority=SYSTEM_CRITICAL_PRIORITY)
    holder = Pod("h", "pod-h", containers=(Container("c", resources_from({"cpu": 300, pages: 2 * MIB})),))
    one_byte = Pod("crit", "pod-crit", containers=(Container("c", resources_from({"cpu": 300, pages: 1})),),
                   priority=SYSTEM_CRITICAL_PRIORITY)
    return [
        _gap("hugepages_gone_from_node",
             f"HandleAdmissionFailure ({PREEMPTION_TEST}) with GetInsufficientAmount: the critical pod asks for 300m "
             f"and 2Mi of {pages}; k1 then loses its hugepages (its allocatable no longer names {pages}), so the pod "
             "lacks 2Mi - (0 - 0) = 2Mi, which no running pod holds: no set of pods frees it, the pod is rejected "
             "(UnexpectedAdmissionError) and v keeps running",
             _on_k1_then(large, gone, [_pod("v", cpu=300)], crit)),
        _gap("hugepages_gone_one_byte_short",
             f"HandleAdmissionFailure ({PREEMPTION_TEST}) with GetInsufficientAmount at the boundary: h (2Mi of "
             f"{pages}) runs on k1; the critical pod asks for 1 byte of {pages} (the API server refuses such a pod "
             "on create since v1.19, ValidatePodSpec's AllowIndivisibleHugePagesValues, but still updates one made "
             "before: a pod that old reaches the kubelet as written); k1 then loses its hugepages, so the pod lacks "
             "1 - (0 - 2Mi) = 2Mi + 1 byte, one byte more than h frees: no set of pods frees it, the pod is rejected "
             "(UnexpectedAdmissionError) and h keeps running. Read as 1 instead of 0, the missing capacity would "
             "make it exactly 2Mi and h would be evicted",
             [ClusterAddNode(large), CreatePod(holder), *placed("h", "k1"), AdmitPod("h"), CreatePod(one_byte),
              *placed("crit", "k1"), ClusterUpdateNode(gone), AdmitPod("crit")]),
    ]


def kubelet_critical_gap_scenarios() -> list[Scenario]:
    """Every scenario of this module, for every profile."""
    return [*non_resource_scenarios(), *extended_resource_scenarios(), *qos_scenarios(), *tiny_victim_scenarios(),
            *best_effort_tier_scenarios(), *absent_resource_scenarios()]
