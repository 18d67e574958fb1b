"""The kubelet's admission (spec.cluster.kubelet): its reasons, their order, and its place in the cluster."""

from __future__ import annotations

import pytest

from spec.cluster.invariants import inv_admitted_pods_fit_nodes
from spec.cluster.kubelet import admission_failures, admission_reason, admit_pod
from spec.cycle import cycle
from spec.cycle.cycle import Cluster, CycleNotEnabled, new_cluster
from spec.frozenmap import FrozenMap
from spec.objects import Container, ContainerPort, Node, Pod, Taint, Toleration
from spec.quantities import resource_list

GPU = "example.com/gpu"


def node(name: str = "n1", cpu: int = 1000, pods: int = 4, **fields: object) -> Node:
    return Node(name, resource_list(cpu=cpu, memory=2**30, pods=pods, **{GPU: 1}), **fields)  # type: ignore[arg-type]


def pod(uid: str, cpu: int = 600, memory: int = 0, port: int = 0, **fields: object) -> Pod:
    ports = (ContainerPort(80, host_port=port),) if port else ()
    fields.setdefault("containers", (Container("c", resource_list(cpu=cpu, memory=memory), ports),))
    return Pod(uid, f"pod-{uid}", node_name="n1", **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("candidate", "admitted", "target", "reasons"),
    [
        (pod("b"), [pod("a")], node(), ["OutOfcpu"]),
        (pod("b", 100, memory=2**31), [], node(), ["OutOfmemory"]),
        (pod("b", 100), [pod("a", 100)], node(pods=1), ["OutOfpods"]),  # the pod count comes first ...
        (pod("b", 900), [pod("a", 600)], node(pods=1), ["OutOfpods", "OutOfcpu"]),  # ... then cpu
        (pod("b", 0, containers=(Container("c", resource_list(**{GPU: 2})),)), [], node(), [f"OutOf{GPU}"]),
        (pod("b", 100, node_selector=FrozenMap({"disk": "ssd"})), [], node(), ["NodeAffinity"]),
        (pod("b", 100, port=8080), [pod("a", 100, port=8080)], node(), ["NodePorts"]),
        (pod("b", 100), [], node(taints=(Taint("k", "v", "NoExecute"),)), ["TaintToleration"]),
        (pod("b", 700, port=8080, node_selector=FrozenMap({"x": "y"})), [pod("a", 600, port=8080)], node(),
         ["OutOfcpu", "NodeAffinity", "NodePorts"]),
    ],
)
def test_admission_reasons_in_generalfilter_order(candidate: Pod, admitted: list[Pod], target: Node,
                                                   reasons: list[str]) -> None:
    assert admission_failures(candidate, target, admitted) == reasons
    assert admission_reason(candidate, target, admitted) == reasons[0]


def test_what_the_kubelet_does_not_check() -> None:
    """Only NoExecute taints, not NoSchedule ones or the cordon (a pod bound there runs); an extended resource the
    node lacks entirely is dropped (removeMissingExtendedResources); requests the node has room for are admitted."""
    target = node(taints=(Taint("k", "v", "NoSchedule"),), unschedulable=True)
    assert admission_reason(pod("b", 400), target, [pod("a")]) is None
    tolerant = pod("b", 100, tolerations=(Toleration(operator="Exists"),))
    assert admission_reason(tolerant, node(taints=(Taint("k", "v", "NoExecute"),)), []) is None
    unknown = pod("b", 0, containers=(Container("c", resource_list(**{"vendor.example/fpga": 5})),))
    assert admission_reason(unknown, node(), []) is None


def bound(cluster: Cluster, uid: str, cpu: int) -> Cluster:
    c = cycle.create_pod(cluster, Pod(uid, f"pod-{uid}", containers=(Container("c", resource_list(cpu=cpu)),)))
    return cycle.bind_pod(cycle.schedule_pod(c, uid, "n1"), uid)


def test_admit_pod_admits_a_fitting_pod_and_rejects_one_that_does_not_fit() -> None:
    c = bound(cycle.add_node(new_cluster(), node(cpu=2000)), "a", 600)
    c = admit_pod(c, "a")
    assert c.admitted == {"a"}
    with pytest.raises(CycleNotEnabled):
        admit_pod(c, "a")  # handled once
    c = bound(c, "b", 600)
    c = cycle.update_node(c, node(cpu=1000))  # allocatable shrinks: the kubelet now has room for 400m only
    assert dict(admit_pod(cycle.confirm_binding(c, "b"), "b").failed) == {"b": "OutOfcpu"}
    with pytest.raises(CycleNotEnabled):
        admit_pod(c, "b")  # the rejection waits for the binding to reach the scheduler
    c = admit_pod(cycle.confirm_binding(c, "b"), "b")
    assert "b" not in c.api_pods and "b" not in c.cache.pod_states and dict(c.failed) == {"b": "OutOfcpu"}
    assert inv_admitted_pods_fit_nodes(c)
    with pytest.raises(CycleNotEnabled):
        cycle.create_pod(c, Pod("b", "again"))  # a Failed pod keeps its UID
    c = cycle.delete_pod(cycle.confirm_binding(c, "a"), "a")
    assert c.admitted == frozenset()


def test_the_kubelet_invariant_catches_an_admission_that_does_not_check() -> None:
    c = bound(bound(cycle.add_node(new_cluster(), node(cpu=2000)), "a", 600), "b", 600)
    c = cycle.update_node(c, node(cpu=1000))
    broken = c.__class__(**{**c.__dict__, "admitted": frozenset({"a", "b"})})
    assert not inv_admitted_pods_fit_nodes(broken)
    assert inv_admitted_pods_fit_nodes(c.__class__(**{**c.__dict__, "admitted": frozenset({"a"})}))
