"""``nominator``: the pods preemption nominated to a node, by node and by UID (pkg/scheduler/backend/queue/
nominator.go, v1.35). The queue owns one and takes its lock around every call (Kubernetes' lock order puts the
queue's lock before ``nLock``), so this class needs none of its own."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from refimpl.dispatcher import NominatingInfo, NominatingMode
from spec.objects import Pod

PodLister = Callable[[str, str], Pod | None]
"""The informer's lister: the current pod ``namespace/name``, or None."""


@dataclass(frozen=True)
class PodRef:
    """``podRef``: what the nominator keeps of a pod (the queue resolves it to the pod it holds)."""

    name: str
    namespace: str
    uid: str

    def to_pod(self) -> Pod:
        """``podRef.toPod``: a pod with only its name, namespace and UID (priority 0, no requests)."""
        return Pod(self.uid, self.name, self.namespace)


class Nominator:
    """``nominator``: ``nominated_pods`` node -> refs in insertion order; ``pod_to_node`` UID -> node."""

    def __init__(self, pod_lister: PodLister | None, *, empty_nomination_clears: bool) -> None:
        self.pod_lister = pod_lister
        """Checked before nominating: a pod gone, or bound, is not nominated (None: no check, as in queue tests)."""
        self.empty_nomination_clears = empty_nomination_clears
        """v1.37's ``addNominatedPodUnlocked``: a nomination to "" only removes the old one (earlier releases store
        the pod under the node name ""); :attr:`spec.versions.VersionProfile.empty_nomination_clears`."""
        self.nominated_pods: dict[str, list[PodRef]] = {}
        self.pod_to_node: dict[str, str] = {}

    def add_nominated_pod(self, pod: Pod, info: NominatingInfo | None) -> None:
        """``addNominatedPodUnlocked``: drop the pod's old entry; nominate it to ``info``'s node (Override), or to
        the node its object names (Noop or None; nothing if it names none). With ``empty_nomination_clears`` a
        nomination to "" stores nothing."""
        self.delete_nominated_pod_if_exists(pod)
        if info is not None and info.mode is NominatingMode.OVERRIDE:
            node = info.nominated_node_name
            if not node and self.empty_nomination_clears:
                return
        else:
            if not pod.nominated_node_name:
                return
            node = pod.nominated_node_name
        if self.pod_lister is not None:
            listed = self.pod_lister(pod.namespace, pod.name)
            if listed is None or listed.node_name:
                return
        self.pod_to_node[pod.uid] = node
        refs = self.nominated_pods.setdefault(node, [])
        if all(ref.uid != pod.uid for ref in refs):
            refs.append(PodRef(pod.name, pod.namespace, pod.uid))

    def update_nominated_pod(self, old: Pod, new: Pod) -> None:
        """``UpdateNominatedPod``: re-add the pod; with no nominated node on either version, keep the one held."""
        info: NominatingInfo | None = None
        if not old.nominated_node_name and not new.nominated_node_name:
            held = self.pod_to_node.get(old.uid)
            if held is not None:
                info = NominatingInfo(NominatingMode.OVERRIDE, held)
        self.delete_nominated_pod_if_exists(old)
        self.add_nominated_pod(new, info)

    def delete_nominated_pod_if_exists(self, pod: Pod) -> None:
        """``deleteUnlocked``."""
        node = self.pod_to_node.pop(pod.uid, None)
        if node is None:
            return
        refs = self.nominated_pods.get(node, [])
        for index, ref in enumerate(refs):
            if ref.uid == pod.uid:
                del refs[index]
                break
        if not refs:
            self.nominated_pods.pop(node, None)

    def nominated_pods_for_node(self, node: str) -> list[PodRef]:
        """``nominatedPodsForNode``: a copy of the node's refs, in insertion order."""
        return list(self.nominated_pods.get(node, ()))
