"""The simulated nodes' kubelets: each admits or rejects the pods bound to its node, the cluster's last word.

The kubelets watch the API server like the schedulers do (:meth:`~refimpl.simulator.world.World.watch`). A pod newly
bound to a node reaches that node's kubelet after a delay drawn from the RNG; the kubelet then runs the predicate
admit handler (:func:`refimpl.kubelet.can_admit_pod`) against the pods it admitted before and that still exist. A
pod it admits runs (the model keeps it in :attr:`Kubelets.admitted`); one it rejects becomes ``Failed`` with the
reason (``OutOfcpu``, ...) at the API server (:meth:`~refimpl.simulator.world.World.fail_pod`). With a pod
``lifetime``, an admitted pod's containers finish that long after its admission: its kubelet sets its phase to
``Succeeded`` (:meth:`~refimpl.simulator.world.World.succeed_pod`) and stops counting it, which frees its room on the
node; every scheduler's informer then delivers it as deleted and its cache lets it go.

Kubernetes: `Kubelet.HandlePodAdditions` (pkg/kubelet/kubelet.go) admits each batch in creation order; here each
pod is its own batch, in the order the deliveries fall due. A pod whose node is gone when its delivery falls due
has no kubelet to run it and is left bound and unadmitted (as until the pod GC deletes it). Not modelled: eviction,
a node's allocatable shrinking under its pods, static pods.
"""

from __future__ import annotations

import heapq
import random
from collections import Counter
from dataclasses import dataclass

from refimpl.kubelet.admission import can_admit_pod
from refimpl.kubelet.preemption import PREEMPTING
from refimpl.simulator.informer import EventType, Kind
from refimpl.simulator.world import World
from spec.objects import Node, Pod


@dataclass(frozen=True)
class Admission:
    """What a kubelet decided about one pod: ``reason`` is empty when it admitted it."""

    uid: str
    node: str
    scheduler_name: str
    reason: str = ""

    @property
    def admitted(self) -> bool:
        """The kubelet admitted the pod."""
        return not self.reason


class Kubelets:
    """The kubelet of every node of ``world``; registers itself as a watcher of ``world``."""

    def __init__(self, world: World, rng: random.Random, min_delay: int = 0, max_delay: int = 0,
                 lifetime: int = 0) -> None:
        """Each bound pod reaches its kubelet ``min_delay``..``max_delay`` ns after its binding; an admitted pod
        finishes ``lifetime`` ns after its admission (0: never). Fails with ``ValueError`` if the bounds are negative
        or reversed, or the lifetime negative."""
        if min_delay < 0 or max_delay < min_delay:
            raise ValueError(f"kubelet delay bounds must satisfy 0 <= min <= max, got {min_delay}..{max_delay} ns")
        if lifetime < 0:
            raise ValueError(f"the pod lifetime must not be negative, got {lifetime} ns")
        self.lifetime = lifetime
        self._finishing: list[tuple[int, int, str]] = []  # (when, admission number, UID) of admitted pods
        self.world = world
        self._rng = rng
        self._min_delay = min_delay
        self._max_delay = max_delay
        self._due: list[tuple[int, int, str]] = []
        self._seq = 0
        self.admitted: dict[str, dict[str, Pod]] = {}
        """Per node name: the pods its kubelet admitted that still exist, by UID."""
        self.admitted_total = 0
        self.rejected: Counter[str] = Counter()
        """Rejections by reason."""
        self.rejected_by_scheduler: Counter[str] = Counter()
        """Rejections by the rejected pod's scheduler name."""
        self.without_node = 0
        """Bound pods whose node was gone when their kubelet would have seen them."""
        self.finished = 0
        """Admitted pods whose containers finished (``Succeeded``)."""
        world.watch(self)

    def emit(self, now: int, kind: Kind, type_: EventType, key: str, old: Pod | Node | None,
             new: Pod | Node | None) -> None:
        """The watch: a newly bound pod is queued for its node's kubelet; a deleted or failed pod stops running."""
        if kind is not Kind.POD or not isinstance(new, Pod):
            return
        if type_ is EventType.MODIFIED and new.node_name and not (isinstance(old, Pod) and old.node_name):
            delay = self._rng.randint(self._min_delay, self._max_delay) if self._max_delay > self._min_delay else (
                self._min_delay)
            heapq.heappush(self._due, (now + delay, self._seq, new.uid))
            self._seq += 1
        elif type_ is EventType.DELETED:
            self.admitted.get(new.node_name, {}).pop(new.uid, None)

    def pending(self) -> int:
        """Bound pods on their way to their kubelet."""
        return len(self._due)

    def next_due(self) -> int | None:
        """When the next bound pod reaches its kubelet, or None."""
        return self._due[0][0] if self._due else None

    def admit_next(self) -> Admission | None:
        """The next bound pod reaches its kubelet, which admits or rejects it; None if the pod was deleted meanwhile
        or its node is gone. Fails with ``IndexError`` if nothing is pending.

        Kubernetes: `Kubelet.HandlePodAdditions` (pkg/kubelet/kubelet.go), `Kubelet.rejectPod`
        """
        due, _, uid = heapq.heappop(self._due)
        pod = self.world.pods.get(uid)
        if pod is None:
            return None
        node = self.world.nodes.get(pod.node_name)
        if node is None:
            self.without_node += 1
            return None
        running = self.admitted.setdefault(node.name, {})
        result = can_admit_pod(pod, node, running.values())
        if result.admit:
            for victim in result.evicted:  # killed to admit a critical pod
                running.pop(victim.uid, None)
                self.rejected[PREEMPTING] += 1
                self.world.fail_pod(victim.uid, PREEMPTING)
            running[uid] = pod
            self.admitted_total += 1
            if self.lifetime:
                heapq.heappush(self._finishing, (due + self.lifetime, self.admitted_total, uid))
            return Admission(uid, node.name, pod.scheduler_name)
        self.rejected[result.reason] += 1
        self.rejected_by_scheduler[pod.scheduler_name] += 1
        self.world.fail_pod(uid, result.reason)
        return Admission(uid, node.name, pod.scheduler_name, result.reason)

    def finishing(self) -> int:
        """Admitted pods whose containers have not finished yet (or that were deleted before they could)."""
        return len(self._finishing)

    def next_finish(self) -> int | None:
        """When the next admitted pod's containers finish, or None."""
        return self._finishing[0][0] if self._finishing else None

    def finish_next(self) -> Pod | None:
        """The next admitted pod's containers finish: its kubelet stops counting it and sets its phase to
        ``Succeeded``. Returns the pod; None if it was deleted meanwhile. Fails with ``IndexError`` if no pod
        is running with a lifetime.

        Kubernetes: `getPhase` (pkg/kubelet/kubelet_pods.go): a pod whose containers all exited 0 under
        ``restartPolicy: Never`` is ``Succeeded``; `Kubelet.filterOutInactivePods` (same file) leaves it out of
        later admissions.
        """
        _, _, uid = heapq.heappop(self._finishing)
        pod = self.world.pods.get(uid)
        if pod is None:
            return None
        self.admitted.get(pod.node_name, {}).pop(uid, None)
        self.finished += 1
        self.world.succeed_pod(uid)
        return pod

    def admitted_pods(self) -> dict[str, list[Pod]]:
        """Per node name, the pods its kubelet runs, by UID."""
        return {name: [pods[u] for u in sorted(pods)] for name, pods in sorted(self.admitted.items())}
