"""The nominator: which pending pods preemption made room for, on which node.

This is ``nominator`` (pkg/scheduler/backend/queue/nominator.go, v1.35) and the queue methods around it
(``PriorityQueue.AddNominatedPod``, ``NominatedPodsForNode``, ``nominatedPodToInfo``; scheduling_queue.go). A pod is
*nominated* to a node when preemption evicted pods there for it (the failure handler records the PostFilter result)
or when the informer delivers an unscheduled pod whose ``Status.NominatedNodeName`` is set. Until it is bound,
every Filter of a pod of lower or equal priority counts it on that node (:mod:`spec.cycle.nominated`), so that the
room made for it is not taken by another.

Kubernetes keeps a pod at most once: adding a pod first deletes its old entry. The nominated node of a pod comes
from a :class:`NominatingInfo`: ``Override`` names the node (``""`` clears), ``Noop`` (or no info) keeps the node the
pod object carries. A pod that the informer no longer has, or that is bound, is not nominated (the pod lister
check). An update with no nominated node on either side keeps the node the nominator holds (a nomination made in
memory before the API server's update arrives). Assuming a pod, binding it and deleting it remove it.

Entries are UIDs; each node's list keeps insertion order (``NominatedPodsForNode`` returns it in that order).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spec.dispatcher.api_calls import NominatingInfo, NominatingMode
from spec.frozenmap import FrozenMap
from spec.objects import Pod
from spec.valuetypes import replace

CLEAR_NOMINATED_NODE = NominatingInfo(NominatingMode.OVERRIDE, "")
"""``clearNominatedNode`` (pkg/scheduler/schedule_one.go): every scheduling failure but a PostFilter's result."""


@dataclass(frozen=True)
class Nominator:
    """``nominator``. ``pod_to_node`` and ``nominated_pods`` describe the same pairs, each UID once
    (:func:`spec.queue.invariants.nominator_consistent`)."""

    nominated_pods: FrozenMap[str, tuple[str, ...]] = field(default_factory=FrozenMap)
    """``nominatedPods``: node name -> UIDs nominated there, in the order they were added; no empty list."""
    pod_to_node: FrozenMap[str, str] = field(default_factory=FrozenMap)
    """``nominatedPodToNode``: UID -> node name."""


EMPTY_NOMINATOR = Nominator()


def nominated_node_of(nominator: Nominator, uid: str) -> str | None:
    """The node ``uid`` is nominated to, or None.

    Kubernetes: none (a read of ``nominatedPodToNode``, which Go's callers index directly)
    """
    return nominator.pod_to_node.get(uid)


def nominated_pods_for_node(nominator: Nominator, node: str) -> tuple[str, ...]:
    """The UIDs nominated to ``node``, in the order they were added.

    Kubernetes: `nominator.nominatedPodsForNode` (pkg/scheduler/backend/queue/nominator.go)
    """
    return nominator.nominated_pods.get(node, ())


def delete_nominated_pod_if_exists(nominator: Nominator, uid: str) -> Nominator:
    """Forget ``uid``'s nomination (nothing happens if it has none). Called when the pod is assumed, deleted, or
    leaves the queue bound.

    Kubernetes: `nominator.deleteUnlocked` (pkg/scheduler/backend/queue/nominator.go)
    """
    node = nominator.pod_to_node.get(uid)
    if node is None:
        return nominator
    left = tuple(u for u in nominator.nominated_pods.get(node, ()) if u != uid)
    pods = nominator.nominated_pods.set(node, left) if left else nominator.nominated_pods.remove(node)
    return Nominator(pods, nominator.pod_to_node.remove(uid))


def add_nominated_pod(
    nominator: Nominator, pod: Pod, info: NominatingInfo | None, listed: Pod | None, empty_clears: bool
) -> Nominator:
    """Nominate ``pod`` as ``info`` says; ``listed`` is the pod as the informer's lister has it now (None: gone);
    ``empty_clears`` is the release's :attr:`spec.versions.VersionProfile.empty_nomination_clears`.

    The pod's old entry goes first. ``Override`` nominates to the node it names; ``""`` is a nomination to no node,
    which Kubernetes stores under the empty name (no Filter reads it) through v1.36 and drops from v1.37
    (``empty_clears``). ``Noop`` or no info nominates to the pod object's ``nominated_node_name`` and does nothing if
    that is empty. A pod the lister does not have, or has bound, is not nominated.

    Kubernetes: `nominator.addNominatedPodUnlocked` (pkg/scheduler/backend/queue/nominator.go)
    """
    nominator = delete_nominated_pod_if_exists(nominator, pod.uid)
    if info is not None and info.mode is NominatingMode.OVERRIDE:
        node = info.nominated_node_name
        if node == "" and empty_clears:
            return nominator
    else:
        if pod.nominated_node_name == "":
            return nominator
        node = pod.nominated_node_name
    if listed is None or listed.node_name != "":
        return nominator
    pods = nominator.nominated_pods.set(node, (*nominator.nominated_pods.get(node, ()), pod.uid))
    return Nominator(pods, nominator.pod_to_node.set(pod.uid, node))


def update_nominated_pod(
    nominator: Nominator, old: Pod, new: Pod, listed: Pod | None, empty_clears: bool
) -> Nominator:
    """An unscheduled pod in the queue was updated from ``old`` to ``new``: re-add it (:func:`add_nominated_pod`,
    with ``empty_clears``). When neither version names a nominated node, the node the nominator holds is kept
    (``Override`` with it); otherwise the new object's.

    Kubernetes: `nominator.UpdateNominatedPod` (pkg/scheduler/backend/queue/nominator.go)
    """
    info: NominatingInfo | None = None
    held = nominator.pod_to_node.get(old.uid)
    if old.nominated_node_name == "" and new.nominated_node_name == "" and held is not None:
        info = NominatingInfo(NominatingMode.OVERRIDE, held)
    nominator = delete_nominated_pod_if_exists(nominator, old.uid)
    return add_nominated_pod(nominator, new, info, listed, empty_clears)


def with_nominated_node(pod: Pod, node: str) -> Pod:
    """``pod`` with ``Status.NominatedNodeName`` set to ``node`` (what the status patch writes).

    Kubernetes: `updatePod` (pkg/scheduler/schedule_one.go)
    """
    return replace(pod, nominated_node_name=node)
