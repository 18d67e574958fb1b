"""The simulated cluster outside the scheduler: the API server's objects, its faults, and the watch it feeds.

:class:`World` holds the truth (every pod and node the API server has), accepts what users do (create and delete
pods, add, change and delete nodes) and serves the scheduler's API requests as its
:class:`~refimpl.dispatcher.api_calls.APIClient`. Requests go to a :class:`~refimpl.dispatcher.fake_api_server.
FakeAPIServer` (which applies bindings with the registry's conflict rules and logs every request) after the world
has injected its faults:

- a bind fails with an internal error with probability ``bind_failure_rate``;
- a bind fails with a ``Conflict`` ("the object has been modified") with probability ``conflict_rate``;
- a request for a deleted pod fails with ``NotFound`` (the fake server has no delete, so the world answers it).

Every change is emitted to the :class:`~refimpl.simulator.informer.Informer` as a watch event, and to every other
watcher (:meth:`World.watch`: the informers of further schedulers, the nodes' kubelets). A pod a kubelet rejects
(:meth:`World.fail_pod`) becomes ``Failed``, and one whose containers finish (:meth:`World.succeed_pod`)
``Succeeded``. Both phases are terminal: the pod leaves ``pods`` and, as the scheduler's pod informer lists only
non-terminal pods, reaches every watcher as a deletion. The API server keeps a terminated pod until the pod garbage
collector deletes it: once more than ``terminated_pod_gc_threshold`` pods are terminated, the oldest (by creation)
go, as ``PodGCController.gcTerminated`` (pkg/controller/podgc/gc_controller.go) does every 20 s; here at once. A
status patch changes nothing the scheduler's objects model (:class:`spec.objects.Pod` has no status), so it emits no
event. Latency is the dispatcher driver's business (:mod:`refimpl.simulator.dispatch`): a request here is instantaneous.
"""

from __future__ import annotations

import heapq
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

from refimpl.dispatcher.api_calls import Binding, PodStatus
from refimpl.dispatcher.context import Context
from refimpl.dispatcher.fake_api_server import VERB_BIND, FakeAPIServer, Request, conflict, internal_error, not_found
from refimpl.simulator.informer import EventType, Informer, Kind, pod_key
from spec.objects import Node, Pod


class Watcher(Protocol):
    """Whatever watches the API server: an :class:`~refimpl.simulator.informer.Informer`, the kubelets."""

    def emit(self, now: int, kind: Kind, type_: EventType, key: str, old: Pod | Node | None,
             new: Pod | Node | None) -> object:
        """Receive the change the API server made at ``now``."""
        ...


class InstantSleeper:
    """A :class:`~refimpl.dispatcher.sleeper.Sleeper` that never waits: latency is simulated outside the server."""

    def sleep(self, seconds: float, ctx: Context) -> bool:
        """Return at once; True unless ``ctx`` is cancelled."""
        return not ctx.cancelled


@dataclass(frozen=True)
class Faults:
    """What the API server does wrong, as probabilities per bind request."""

    bind_failure_rate: float = 0.0
    conflict_rate: float = 0.0

    def __post_init__(self) -> None:
        for name in ("bind_failure_rate", "conflict_rate"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name.replace('_', ' ')} must be between 0 and 1, got {value}")


TERMINATED_POD_GC_THRESHOLD = 12_500
"""kube-controller-manager's ``--terminated-pod-gc-threshold`` default (pkg/controller/podgc/config/v1alpha1/
defaults.go): how many terminated pods the API server keeps before the pod garbage collector deletes the oldest (0
turns the collector off)."""
INJECTED_BIND_FAILURE = "injected bind failure"
INJECTED_CONFLICT = "the object has been modified; please apply your changes to the latest version and try again"


class World:
    """The API server and its users. ``clock`` gives the virtual time (ns) at which events are emitted."""

    def __init__(self, informer: Informer, clock: Callable[[], int], rng: random.Random,
                 faults: Faults = Faults(), terminated_pod_gc_threshold: int = TERMINATED_POD_GC_THRESHOLD) -> None:
        """Fails with ``ValueError`` if ``terminated_pod_gc_threshold`` is negative."""
        if terminated_pod_gc_threshold < 0:
            raise ValueError(f"the terminated pod GC threshold must not be negative, got {terminated_pod_gc_threshold}")
        self.informer = informer
        self.watchers: list[Watcher] = [informer]
        """Everyone the watch events go to, the first scheduler's informer first."""
        self._clock = clock
        self._rng = rng
        self.faults = faults
        self.server = FakeAPIServer(sleeper=InstantSleeper(), keep_log=False)  # a long run would keep every request
        self.server.fail(lambda r: internal_error(INJECTED_BIND_FAILURE), when=self._draw(faults.bind_failure_rate),
                         times=None)
        self.server.fail(lambda r: conflict("pods/binding", r.name, INJECTED_CONFLICT),
                         when=self._draw(faults.conflict_rate), times=None)
        self.pods: dict[str, Pod] = {}
        """Pods the API server has, by UID; a bound pod carries its node name."""
        self.nodes: dict[str, Node] = {}
        """Nodes the API server has, by name."""
        self.deleted_pods: dict[str, Pod] = {}
        """Deleted pods as they last were, by UID, until every informer that was watching when the pod went has
        delivered its deletion (:meth:`forget_deleted`) or stopped watching: until then some scheduler may still
        hold them. Failed and Succeeded pods too."""
        self._undelivered: dict[str, set[Informer]] = {}
        """Per pod of ``deleted_pods``: the informers whose deletion event of it is not delivered yet."""
        self.failed_pods: dict[str, str] = {}
        """Pods a kubelet rejected (phase ``Failed``) that the API server still has, with the reason, by UID."""
        self.terminated_pod_gc_threshold = terminated_pod_gc_threshold
        self.terminated = 0
        """How many pods the API server has in a terminal phase (``Failed`` or ``Succeeded``)."""
        self._terminated: list[tuple[int, str, Pod]] = []  # (creation number, UID, pod): a heap, oldest first
        self._created = 0
        self._creation: dict[str, int] = {}  # the creation number of every pod the API server has
        self.bind_counts: Counter[str] = Counter()
        """How many bindings of each pod the API server has accepted (never more than one: the registry's rule),
        while it has the pod; a pod bound more than once stays in ``bound_twice`` once it is gone."""
        self.bound_twice: Counter[str] = Counter()
        """Pods the API server no longer has that it had bound more than once (none, if the registry's rule holds)."""
        self.pods_succeeded = 0
        self.pods_collected = 0
        """Terminated pods the pod garbage collector deleted."""
        self.bind_requests = 0
        self.binds_applied = 0
        self.binds_failed = 0

    def _draw(self, rate: float) -> Callable[[Request], bool]:
        rng = self._rng

        def matches(request: Request) -> bool:
            return rate > 0.0 and request.verb == VERB_BIND and rng.random() < rate

        return matches

    def watch(self, watcher: Watcher) -> None:
        """``watcher`` receives every later change (a scheduler's informers start; a kubelet registers)."""
        self.watchers.append(watcher)

    def unwatch(self, watcher: Watcher) -> None:
        """``watcher`` receives nothing more (its scheduler process died), and its undelivered deletions no longer
        keep their pods in ``deleted_pods``. Fails with ``ValueError`` if unknown."""
        self.watchers.remove(watcher)
        if isinstance(watcher, Informer):
            for uid in [uid for uid, informers in self._undelivered.items() if watcher in informers]:
                self.forget_deleted(uid, watcher)

    def _emit(self, kind: Kind, type_: EventType, key: str, old: Pod | Node | None, new: Pod | Node | None) -> None:
        now = self._clock()
        for watcher in list(self.watchers):
            watcher.emit(now, kind, type_, key, old, new)

    # -- users ---------------------------------------------------------------------------

    def create_pod(self, pod: Pod) -> None:
        """A user creates a pod (unscheduled unless it names a node). Fails with ``ValueError`` for a UID in use,
        or of a pod whose deletion is not delivered yet (the workloads never reuse a UID)."""
        if pod.uid in self.pods or pod.uid in self.deleted_pods or not pod.uid:
            raise ValueError(f"pod UID {pod.uid!r} is empty or was used before")
        self.pods[pod.uid] = pod
        self._creation[pod.uid] = self._created
        self._created += 1
        self.server.create_pod(pod.namespace, pod.name, pod.uid, pod.node_name)
        self._emit(Kind.POD, EventType.ADDED, pod_key(pod), None, pod)

    def delete_pod(self, uid: str) -> Pod:
        """A user deletes a pod (no grace period); returns it. Fails with ``KeyError`` if there is no such pod."""
        pod = self.pods.pop(uid)
        self._retire(pod)
        self._remove_from_server(pod)
        self._emit(Kind.POD, EventType.DELETED, pod_key(pod), pod, pod)
        return pod

    def fail_pod(self, uid: str, reason: str) -> Pod:
        """The kubelet of the pod's node rejects it: its phase becomes ``Failed`` with ``reason``; a terminal pod
        is no longer listed, so it leaves ``pods`` and every watcher sees it deleted. Returns the pod. Fails with
        ``KeyError`` if there is no such pod.

        Kubernetes: `Kubelet.rejectPod` (pkg/kubelet/kubelet.go); `newPodInformer`'s field selector
        ``status.phase!=Failed,Succeeded`` (pkg/scheduler/scheduler.go)
        """
        pod = self._terminate(uid)
        self.failed_pods[uid] = reason
        self._emit(Kind.POD, EventType.DELETED, pod_key(pod), pod, pod)
        self._collect_terminated()
        return pod

    def succeed_pod(self, uid: str) -> Pod:
        """The pod's containers finished: its kubelet sets its phase to ``Succeeded``, which is terminal, so it
        leaves ``pods`` and every watcher sees it deleted, as with :meth:`fail_pod`. Returns the pod. Fails with
        ``KeyError`` if there is no such pod.

        Kubernetes: `Kubelet.generateAPIPodStatus`, `getPhase` (pkg/kubelet/kubelet_pods.go); `newPodInformer`'s
        field selector ``status.phase!=Failed,Succeeded`` (pkg/scheduler/scheduler.go)
        """
        pod = self._terminate(uid)
        self.pods_succeeded += 1
        self._emit(Kind.POD, EventType.DELETED, pod_key(pod), pod, pod)
        self._collect_terminated()
        return pod

    def _terminate(self, uid: str) -> Pod:
        pod = self.pods.pop(uid)
        self._retire(pod)
        heapq.heappush(self._terminated, (self._creation[uid], uid, pod))
        self.terminated += 1
        return pod

    def _collect_terminated(self) -> None:
        """The pod garbage collector: while more than the threshold of pods are terminated, the oldest by creation
        is deleted (no watcher hears of it: the schedulers' informers stopped listing it when it terminated). A
        threshold of 0 turns the collector off.

        Kubernetes: `PodGCController.gcTerminated` (pkg/controller/podgc/gc_controller.go)
        """
        while 0 < self.terminated_pod_gc_threshold < self.terminated:
            _, uid, pod = heapq.heappop(self._terminated)
            self.terminated -= 1
            self.failed_pods.pop(uid, None)
            self._remove_from_server(pod)
            self.pods_collected += 1

    def _remove_from_server(self, pod: Pod) -> None:
        """The API server forgets ``pod``: later requests for it are ``NotFound``; only a pod bound more than once
        is remembered (``bound_twice``)."""
        self.server.delete_pod(pod.namespace, pod.name)
        self._creation.pop(pod.uid, None)
        count = self.bind_counts.pop(pod.uid, 0)
        if count > 1:
            self.bound_twice[pod.uid] = count

    def _retire(self, pod: Pod) -> None:
        """``pod`` leaves the API server's list: keep it in ``deleted_pods`` until every informer watching now has
        delivered its deletion."""
        informers = {w for w in self.watchers if isinstance(w, Informer)}
        if informers:
            self.deleted_pods[pod.uid] = pod
            self._undelivered[pod.uid] = informers

    def forget_deleted(self, uid: str, informer: Informer) -> None:
        """``informer`` has delivered pod ``uid``'s deletion (or stopped watching); once every informer that was
        watching when the pod went has, nothing refers to the deleted pod any more and it leaves ``deleted_pods``.

        With several schedulers, each informer delivers the deletion in its own time: the first to deliver it must
        not make the others' pod vanish (their scheduler may still hold it, e.g. assumed, its binding not yet
        delivered)."""
        informers = self._undelivered.get(uid)
        if informers is None:
            return
        informers.discard(informer)
        if not informers:
            del self._undelivered[uid]
            self.deleted_pods.pop(uid, None)

    def add_node(self, node: Node) -> None:
        """A node joins. Fails with ``ValueError`` if a node of that name exists."""
        if node.name in self.nodes:
            raise ValueError(f"node {node.name} exists")
        self.nodes[node.name] = node
        self._emit(Kind.NODE, EventType.ADDED, node.name, None, node)

    def update_node(self, node: Node) -> None:
        """A node changes (labels, taints, allocatable, cordon). Fails with ``KeyError`` for an unknown node."""
        old = self.nodes[node.name]
        self.nodes[node.name] = node
        self._emit(Kind.NODE, EventType.MODIFIED, node.name, old, node)

    def delete_node(self, name: str) -> Node:
        """A node leaves (its pods stay bound to it, as until the pod GC runs). Fails with ``KeyError``."""
        node = self.nodes.pop(name)
        self._emit(Kind.NODE, EventType.DELETED, name, node, node)
        return node

    # -- the API client ------------------------------------------------------------------

    def bind(self, binding: Binding, ctx: Context) -> None:
        """``POST pods/{name}/binding``: injected faults first, then the registry's rules; on success the pod is
        bound and the watch emits the update."""
        self.bind_requests += 1
        pod = self.pods.get(binding.uid)
        try:
            if pod is None or (pod.namespace, pod.name) != (binding.namespace, binding.name):
                raise not_found(binding.name)
            self.server.bind(binding, ctx)
        except Exception:
            self.binds_failed += 1
            raise
        bound = replace(pod, node_name=binding.node_name)
        self.pods[pod.uid] = bound
        self.binds_applied += 1
        self.bind_counts[pod.uid] += 1
        self._emit(Kind.POD, EventType.MODIFIED, pod_key(pod), pod, bound)

    def patch_pod_status(self, namespace: str, name: str, old: PodStatus, new: PodStatus, ctx: Context) -> None:
        """``PATCH pods/{name}/status``; ``NotFound`` for a deleted pod."""
        if not any((p.namespace, p.name) == (namespace, name) for p in self._by_name(namespace, name)):
            raise not_found(name)
        self.server.patch_pod_status(namespace, name, old, new, ctx)

    def _by_name(self, namespace: str, name: str) -> list[Pod]:
        stored = self.server.get_pod(namespace, name)
        if stored is None or stored.uid not in self.pods:
            return []
        return [self.pods[stored.uid]]

    # -- observation ---------------------------------------------------------------------

    def unbound_pods(self) -> list[Pod]:
        """Pods that exist and are not bound, in UID order."""
        return [p for _, p in sorted(self.pods.items()) if not p.node_name]

    def bound_pods(self) -> list[Pod]:
        """Pods bound to a node, in UID order."""
        return [p for _, p in sorted(self.pods.items()) if p.node_name]
