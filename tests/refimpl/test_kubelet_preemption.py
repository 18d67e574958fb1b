"""refimpl's kubelet admission (refimpl/kubelet) refines the spec's (spec/cluster/kubelet.py), critical pods
included: for random nodes, running pods and a pod to admit, ``can_admit_pod`` admits exactly when
:func:`spec.cluster.kubelet.handle_admission_failure` does, with the same reason, and evicts the same pods."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from refimpl.kubelet.admission import can_admit_pod
from spec.cluster.kubelet import SYSTEM_CRITICAL_PRIORITY, handle_admission_failure
from spec.objects import Container, Node, Pod
from spec.quantities import resource_list

PRIORITIES = st.sampled_from([0, 10, SYSTEM_CRITICAL_PRIORITY, SYSTEM_CRITICAL_PRIORITY + 100])


def _pod(uid: str, cpu: int, memory: int, priority: int, node: str = "n1") -> Pod:
    requests = resource_list(cpu=cpu, memory=memory) if cpu or memory else resource_list()
    return Pod(uid, uid, node_name=node, priority=priority, containers=(Container("c", requests),))


@given(
    cpu=st.sampled_from([200, 500, 1000]),
    pods_cap=st.integers(1, 4),
    running=st.lists(st.tuples(st.sampled_from([0, 100, 300]), st.sampled_from([0, 64, 256]), PRIORITIES),
                     max_size=4),
    incoming=st.tuples(st.sampled_from([0, 100, 300, 600, 1200]), st.sampled_from([0, 64, 512, 2048]), PRIORITIES,
                       st.sampled_from(["n1", "n2"])),
)
def test_admission_agrees_with_the_spec(cpu: int, pods_cap: int, running: list[tuple[int, int, int]],
                                        incoming: tuple[int, int, int, str]) -> None:
    node = Node("n1", resource_list(cpu=cpu, memory=1024, pods=pods_cap))
    admitted = [_pod(f"r{i}", c, m, p) for i, (c, m, p) in enumerate(running)][:pods_cap]
    pod = _pod("x", *incoming[:3], node=incoming[3])
    reason, victims = handle_admission_failure(pod, node, admitted)
    result = can_admit_pod(pod, node, admitted)
    assert result.admit == (reason is None)
    assert (result.reason or None) == reason
    assert [v.uid for v in result.evicted] == [v.uid for v in victims]
