"""Filter with nominated pods: the room preemption made for a pod is not given to a pod of lower or equal priority.

This is ``frameworkImpl.RunFilterPluginsWithNominatedPods`` and ``addGENominatedPods``
(pkg/scheduler/framework/runtime/framework.go, v1.35). Every Filter of a scheduling cycle, and every Filter
preemption runs while it selects victims, goes through it. The pods nominated to the node (:mod:`spec.queue.nominator`)
whose priority is at least the pod's, other than the pod itself, are added to a copy of the node's NodeInfo and
the filters run on it; if they pass, and some pod was added, the filters run a second time on the NodeInfo as it
is, because some filters (inter-pod affinity) may fail without the nominated pods. The pod must pass both: a
conservative decision, since the nominated pods are not running yet and may end up elsewhere. Pods of lower
priority nominated there are ignored: the pod may take the room made for them.

The filters that read the whole snapshot (InterPodAffinity, PodTopologySpread) are run on the cycle's snapshot with
this node's NodeInfo replaced by the changed one (:func:`snapshot_with`): what Kubernetes' PreFilter extensions
(``RunPreFilterExtensionAddPod`` / ``RemovePod``) make of their cycle state for each pod added or removed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from spec.cache.nodeinfo import NodeInfo, add_pod
from spec.cache.snapshot import Snapshot
from spec.cycle.filters import Rejection, first_rejection
from spec.cycle.interpodaffinity import NO_NAMESPACES, Namespaces
from spec.frozenmap import FrozenMap
from spec.objects import Pod
from spec.valuetypes import replace

NominatedPods = Callable[[str], Sequence[Pod]]
"""The pods nominated to a node, by its name, as the queue gives them (``PodNominator.NominatedPodsForNode``)."""


def snapshot_with(snapshot: Snapshot | None, info: NodeInfo) -> Snapshot:
    """The cycle's ``snapshot`` with the node of ``info`` seen as ``info`` (a pod added or removed there); with no
    snapshot, one of that node alone (the snapshot-wide filters then see no other node). Fails with ``AssertionError``
    for a NodeInfo without a Node object (the snapshot lists only nodes with one).

    Kubernetes: none (Go updates CycleState through `RunPreFilterExtensionAddPod`; the spec recomputes from this)
    """
    assert info.node is not None, "the snapshot's list has only nodes with a Node object"
    name = info.node.name
    if snapshot is None:
        return Snapshot(FrozenMap({name: info}), (name,), (name,) if info.pods_with_affinity else (),
                        (name,) if info.pods_with_required_anti_affinity else ())
    order = snapshot.node_info_list
    return replace(
        snapshot, node_info_map=snapshot.node_info_map.set(name, info),
        have_pods_with_affinity_list=_listed(snapshot.have_pods_with_affinity_list, order, name,
                                             bool(info.pods_with_affinity)),
        have_pods_with_required_anti_affinity_list=_listed(
            snapshot.have_pods_with_required_anti_affinity_list, order, name,
            bool(info.pods_with_required_anti_affinity)))


def _listed(names: tuple[str, ...], order: tuple[str, ...], name: str, holds: bool) -> tuple[str, ...]:
    """``names`` (a snapshot's list of the nodes holding pods with (anti-)affinity) with node ``name`` listed
    if and only if it now ``holds`` such a pod, in ``order`` (the snapshot's node order). A nominated pod with a
    required anti-affinity term added to a node that had none must be seen: Kubernetes' InterPodAffinity AddPod
    (``preFilterState.updateWithPod``, interpodaffinity/filtering.go) counts its terms whatever the node held."""
    if holds == (name in names):
        return names
    if not holds:
        return tuple(n for n in names if n != name)
    listed = set(names) | {name}
    ordered = tuple(n for n in order if n in listed)
    return ordered if name in ordered else (*ordered, name)


def higher_or_equal_nominated(pod: Pod, nominated: Sequence[Pod]) -> tuple[Pod, ...]:
    """The pods of ``nominated`` that ``pod`` must yield to: priority at least ``pod``'s, and not ``pod`` itself.

    Kubernetes: `addGENominatedPods` (pkg/scheduler/framework/runtime/framework.go)
    """
    return tuple(p for p in nominated if p.priority >= pod.priority and p.uid != pod.uid)


def with_nominated_pods(info: NodeInfo, pods: Sequence[Pod]) -> NodeInfo:
    """A copy of ``info`` with ``pods`` added (``NodeInfo.AddPodInfo`` on a snapshot of it); the generation is kept,
    as the copy is never stored.

    Kubernetes: `addGENominatedPods` (pkg/scheduler/framework/runtime/framework.go)
    """
    for nominated in pods:
        info = add_pod(info, nominated, info.generation)
    return info


def nominated_rejection(
    pod: Pod, info: NodeInfo, nominated: Sequence[Pod], snapshot: Snapshot | None = None,
    namespaces: Namespaces = NO_NAMESPACES,
) -> tuple[Rejection, NodeInfo, Snapshot] | None:
    """:func:`filter_with_nominated_pods` with what the rejecting pass saw: the rejection, and the NodeInfo and
    snapshot its filters ran on (with the nominated pods added in pass 1, as it is in pass 2), so that a caller can
    read the rejecting filter's reasons there (:func:`spec.cycle.messages.filter_reasons`). None if the pod passes.

    Kubernetes: `frameworkImpl.RunFilterPluginsWithNominatedPods` (pkg/scheduler/framework/runtime/framework.go)
    """
    added = higher_or_equal_nominated(pod, nominated)
    if added:
        with_added = with_nominated_pods(info, added)
        seen = snapshot_with(snapshot, with_added)
        rejection = first_rejection(pod, with_added, seen, namespaces)
        if rejection is not None:
            return rejection, with_added, seen
    seen = snapshot_with(snapshot, info)
    rejection = first_rejection(pod, info, seen, namespaces)
    return None if rejection is None else (rejection, info, seen)


def filter_with_nominated_pods(
    pod: Pod, info: NodeInfo, nominated: Sequence[Pod], snapshot: Snapshot | None = None,
    namespaces: Namespaces = NO_NAMESPACES,
) -> Rejection | None:
    """The status of Filter for ``pod`` on the node of ``info`` when ``nominated`` are the pods nominated there (as
    the queue gives them: :func:`spec.queue.nominator.nominated_pods_for_node`), with the cluster's ``namespaces``:
    None if the pod passes.

    Pass 1 runs the filters with the nominated pods of higher or equal priority added; pass 2, only if pass 1
    passed and added a pod, runs them on ``info`` itself. The first rejection is the result.

    Kubernetes: `frameworkImpl.RunFilterPluginsWithNominatedPods` (pkg/scheduler/framework/runtime/framework.go)
    """
    found = nominated_rejection(pod, info, nominated, snapshot, namespaces)
    return None if found is None else found[0]
