"""The scheduler cache: pod states, NodeInfos in most-recently-updated order, the node tree and image states.

This is ``cacheImpl`` (pkg/scheduler/backend/cache/cache.go) as of Kubernetes v1.35, with the differences between
releases taken from a :class:`~spec.versions.VersionProfile`. One lock guards everything, as Kubernetes' single
mutex does; the pod key is computed before the lock is taken. Errors are :class:`~spec.errors.CacheError` with the
normalised kinds of :mod:`spec.errors`; where Kubernetes returns an error after changing the cache, this raises it
after the same change. Where the Kubernetes process would exit, this raises :class:`~spec.errors.SchedulerExit`
and the cache must not be used afterwards.

Every public method checks its arguments' shapes first (:mod:`refimpl.cache.validation`): a malformed object is
an ``InvalidArgument`` (a ``TypeError``) and changes nothing.

Pod states: *absent*; *assumed* (in ``_pod_states`` and ``_assumed_pods``), with the binding in flight or finished
(then with a deadline unless the TTL is 0); *added* (in ``_pod_states`` only).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import suppress
from types import TracebackType

from refimpl.cache import snapshot as snapshots
from refimpl.cache.cleanup import DEFAULT_CLEANUP_PERIOD, CleanupWorker
from refimpl.cache.clock import Clock, SystemClock
from refimpl.cache.generation import DEFAULT_GENERATIONS, GenerationCounter
from refimpl.cache.image_states import ImageStates
from refimpl.cache.metrics import CacheMetrics, CacheSize
from refimpl.cache.node_info import NodeInfo, PodInfo
from refimpl.cache.node_list import NodeInfoList
from refimpl.cache.node_tree import NodeTree
from refimpl.cache.snapshot import Snapshot
from refimpl.cache.validation import (
    check_node,
    check_pod_affinity,
    check_pod_key,
    check_snapshot,
    check_time,
    pod_info,
)
from refimpl.cache.views import CacheDump, CacheInternals, PodStateView
from spec.errors import CacheError, ErrorKind, FatalKind, SchedulerExit
from spec.objects import Node, Pod, klog_kobj
from spec.versions import DEFAULT_PROFILE, VersionProfile

OperationHook = Callable[[str, tuple[object, ...]], None]
"""Called, under the cache lock, with each state-changing call's name and arguments as it is admitted."""


def get_pod_key(pod: Pod) -> str:
    """``GetPodKey``: the pod's UID. Fails with ``InvalidPodKey`` when it is empty."""
    if not pod.uid:
        raise CacheError(ErrorKind.INVALID_POD_KEY, "cannot get cache key for pod with empty UID")
    return pod.uid


def _checked_key(pod: Pod, where: str) -> str:
    """:func:`get_pod_key` of a pod :func:`~refimpl.cache.validation.check_pod_key` accepts (one call on the hot
    path); fails with ``InvalidArgument`` naming ``where``, or ``InvalidPodKey``."""
    if isinstance(pod, Pod):
        uid = pod.uid
        if uid and type(uid) is str and type(pod.node_name) is str:
            return uid
    check_pod_key(pod, where)
    return get_pod_key(pod)


class PodState:
    """``podState``: the cached pod object and, for an assumed pod, whether its binding finished and when it
    expires (a deadline only after ``finish_binding`` with a non-zero TTL)."""

    __slots__ = ("binding_finished", "deadline", "pod")

    def __init__(self, pod: Pod) -> None:
        self.pod = pod
        self.deadline: int | None = None
        self.binding_finished = False


class Cache:
    """``cacheImpl``: safe to use from several threads; the snapshot passed to :meth:`update_snapshot` is not."""

    def __init__(
        self,
        profile: VersionProfile = DEFAULT_PROFILE,
        ttl: int = 0,
        clock: Clock | None = None,
        generations: GenerationCounter | None = None,
    ) -> None:
        """``newCache``. ``ttl`` (nanoseconds) is how long a binding-finished assumed pod may stay unconfirmed;
        0, the scheduler's production value, means forever. Fails with ``ValueError`` on a negative TTL, or a
        non-zero one in a profile without assumed-pod expiry."""
        if ttl < 0:
            raise ValueError(f"ttl must not be negative, got {ttl}")
        if ttl != 0 and not profile.assumed_pod_expiry:
            raise ValueError(f"profile {profile.name} has no assumed-pod expiry, so the ttl must be 0, got {ttl}")
        self.profile = profile
        self.ttl = ttl
        self.clock: Clock = clock if clock is not None else SystemClock()
        self._generations = generations if generations is not None else DEFAULT_GENERATIONS
        self._pod_level_resources = profile.pod_level_resources
        self._lock = threading.Lock()
        self._pod_states: dict[str, PodState] = {}  # every pod in the cache, by key
        self._assumed_pods: set[str] = set()  # always a subset of _pod_states' keys
        self._nodes = NodeInfoList()  # NodeInfos by name, placeholders and ghosts included
        self._node_tree = NodeTree()  # names of the nodes received, by zone
        self._image_states = ImageStates()
        self._pvc_delta: dict[str, int] | None = {} if profile.incremental_pvc_ref_counts else None
        """v1.37: ``pvcRefCountsDelta``, the change of the NodeInfos' claim counts since the last snapshot update."""
        self.metrics = CacheMetrics()
        self._hook: OperationHook | None = None
        self._checked: PodInfo | None = None
        """Set under the lock just before ``_add_pod``: the PodInfo the public method built from the pod (so
        validated) before taking the lock, which ``_add_pod`` then adds instead of building another."""
        self._worker: CleanupWorker | None = None

    # ========================================================================================
    # Queries (Kubernetes takes the read lock)
    # ========================================================================================

    def get_pod(self, pod: Pod) -> Pod:
        """``GetPod``: the cached object for the pod's key. Fails with ``InvalidPodKey`` or ``PodNotFound``."""
        key = _checked_key(pod, "get_pod: pod")
        with self._lock:
            state = self._pod_states.get(key)
            if state is None:
                raise CacheError(
                    ErrorKind.POD_NOT_FOUND, f"pod {key}({klog_kobj(pod)}) does not exist in scheduler cache"
                )
            return state.pod

    def is_assumed_pod(self, pod: Pod) -> bool:
        """``IsAssumedPod``. Fails only with ``InvalidPodKey``."""
        key = _checked_key(pod, "is_assumed_pod: pod")
        with self._lock:
            return key in self._assumed_pods

    def node_count(self) -> int:
        """``NodeCount``: NodeInfos, placeholders and ghosts included."""
        with self._lock:
            return len(self._nodes)

    def pod_count(self) -> int:
        """``PodCount``: pods on all NodeInfos, assumed ones and those on ghosts included."""
        with self._lock:
            return sum(len(item.info.pods) for item in self._nodes.items.values())

    def dump(self) -> CacheDump:
        """``Dump``: clones of every NodeInfo and the assumed keys."""
        with self._lock:
            nodes = {name: item.info.snapshot() for name, item in self._nodes.items.items()}
            return CacheDump(nodes, frozenset(self._assumed_pods))

    def internals(self) -> CacheInternals:
        """All internal state, for tests and debugging (the ``cache.nodes`` reads of Kubernetes' own tests)."""
        with self._lock:
            return CacheInternals(
                pod_states={
                    key: PodStateView(s.pod, s.deadline, s.binding_finished) for key, s in self._pod_states.items()
                },
                assumed_pods=frozenset(self._assumed_pods),
                node_infos={name: item.info for name, item in self._nodes.items.items()},
                names_by_recency=self._nodes.names_by_recency(),
                node_tree_zones=self._node_tree.zones_view(),
                node_tree_num_nodes=self._node_tree.num_nodes,
                image_states=dict(self._image_states.states),
                generation=self._generations.last,
                pvc_ref_counts_delta=(
                    None if self._pvc_delta is None else {k: v for k, v in self._pvc_delta.items() if v != 0}
                ),
            )

    # ========================================================================================
    # Internal helpers (Kubernetes' lower-case methods; the lock is held)
    # ========================================================================================

    def _admit(self, operation: str, *args: object) -> None:
        if self._hook is not None:
            self._hook(operation, args)

    def _add_pod(self, pod: Pod, assume: bool) -> None:
        """``addPod``: charge the pod to ``pod.node_name``, creating a placeholder NodeInfo if needed."""
        info, self._checked = self._checked, None
        key = get_pod_key(pod)
        name = pod.node_name
        item = self._nodes.get(name)
        if item is None:
            item = self._nodes.add(name, NodeInfo(self._generations))
        if info is None or info.pod is not pod:  # an internal caller: no PodInfo was built at the boundary
            info = PodInfo(pod, pod_level_resources=self._pod_level_resources)
        if self._pvc_delta is not None:  # refreshPVCRefCountsDelta(n.info, -1), then +1 after the change
            before = dict(item.info.pvc_ref_counts)
            item.info.add_pod_info(info)
            self._refresh_pvc_delta(before, item.info.pvc_ref_counts)
        else:
            item.info.add_pod_info(info)
        self._nodes.move_to_head(name)
        self._pod_states[key] = PodState(pod)
        if assume:
            self._assumed_pods.add(key)

    def _remove_pod(self, pod: Pod) -> None:
        """``removePod``: release the pod from the NodeInfo of ``pod.node_name`` and drop its state.

        A missing NodeInfo is tolerated. A NodeInfo left without pods and node is deleted. If the NodeInfo lacks
        the pod, its error propagates and the pod state is kept.
        """
        key = get_pod_key(pod)
        name = pod.node_name
        item = self._nodes.get(name)
        if item is not None:
            info = item.info
            if self._pvc_delta is not None:
                before = dict(info.pvc_ref_counts)
                info.remove_pod(pod)  # on an error the counts are unchanged: nothing to add
                self._refresh_pvc_delta(before, info.pvc_ref_counts)
            else:
                info.remove_pod(pod)
            if not info.pods and info.node is None:
                self._nodes.remove(name)
            else:
                self._nodes.move_to_head(name)
        self._pod_states.pop(key, None)
        self._assumed_pods.discard(key)

    def _refresh_pvc_delta(self, before: dict[str, int], after: dict[str, int]) -> None:
        """``refreshPVCRefCountsDelta``: add the change from ``before`` to ``after`` to the delta (v1.37)."""
        delta = self._pvc_delta
        assert delta is not None
        for key, count in before.items():
            delta[key] = delta.get(key, 0) - count
        for key, count in after.items():
            delta[key] = delta.get(key, 0) + count

    def _update_pod(self, old: Pod, new: Pod) -> None:
        """``updatePod``: ``removePod(old)`` then ``addPod(new)`` as added."""
        self._remove_pod(old)
        self._add_pod(new, assume=False)

    # ========================================================================================
    # Pod transitions
    # ========================================================================================

    def assume_pod(self, pod: Pod) -> None:
        """``AssumePod``: charge the pod to ``pod.node_name`` before its binding is confirmed.

        Fails with ``InvalidPodKey``, or ``PodAlreadyInCache`` if the pod is assumed or added already.
        """
        key = _checked_key(pod, "assume_pod: pod")
        info = pod_info(pod, "assume_pod: pod", self._pod_level_resources)
        with self._lock:
            self._admit("assume_pod", pod)
            if key in self._pod_states:
                raise CacheError(
                    ErrorKind.POD_ALREADY_IN_CACHE, f"pod {key}({klog_kobj(pod)}) is in the cache, so can't be assumed"
                )
            self._checked = info
            self._add_pod(pod, assume=True)

    def finish_binding(self, pod: Pod, now: int | None = None) -> None:
        """``FinishBinding``: the bind call returned; the assumed pod may expire from ``now`` (default: the clock)
        plus the TTL. Calling it again restarts the clock; absent and added pods are left alone.

        Fails with ``UnsupportedOperation`` in a profile without expiry, or ``InvalidPodKey``.
        """
        if not isinstance(pod, Pod) or type(pod.uid) is not str or type(pod.node_name) is not str:
            check_pod_key(pod, "finish_binding: pod")
        if now is not None and type(now) is not int:
            check_time(now, "finish_binding: now")
        if not self.profile.assumed_pod_expiry:
            raise CacheError(
                ErrorKind.UNSUPPORTED_OPERATION, f"FinishBinding does not exist in profile {self.profile.name}"
            )
        key = get_pod_key(pod)
        with self._lock:  # Kubernetes takes only the read lock, yet writes the pod state.
            if now is None:
                now = self.clock.now()
            self._admit("finish_binding", pod, now)
            state = self._pod_states.get(key)
            if state is not None and key in self._assumed_pods:
                state.deadline = None if self.ttl == 0 else now + self.ttl
                state.binding_finished = True

    def forget_pod(self, pod: Pod) -> None:
        """``ForgetPod``: undo ``assume_pod`` after a failed scheduling or binding step.

        A pod the cache does not know is a no-op from v1.35 on. Fails with ``InvalidPodKey``;
        ``PodAssumedOnOtherNode`` if the object names another node than the cached one (checked first);
        ``PodNotAssumed`` if the pod is added, or unknown in v1.34.
        """
        key = _checked_key(pod, "forget_pod: pod")
        check_pod_affinity(pod, "forget_pod: pod")
        with self._lock:
            self._admit("forget_pod", pod)
            state = self._pod_states.get(key)
            if state is None:
                if self.profile.forget_unknown_pod_is_error:
                    raise self._not_assumed(key, pod)
                return
            if state.pod.node_name != pod.node_name:
                raise CacheError(
                    ErrorKind.POD_ASSUMED_ON_OTHER_NODE,
                    f"pod {key}({klog_kobj(pod)}) was assumed on {pod.node_name} but assigned to "
                    f"{state.pod.node_name}",
                )
            if key not in self._assumed_pods:
                raise self._not_assumed(key, pod)
            self._remove_pod(pod)

    def _not_assumed(self, key: str, pod: Pod) -> CacheError:
        return CacheError(
            ErrorKind.POD_NOT_ASSUMED, self.profile.not_assumed_message.format(key=key, obj=klog_kobj(pod))
        )

    def add_pod(self, pod: Pod) -> None:
        """``AddPod``: the informer reports a bound pod.

        An assumed pod is confirmed: the cached object leaves its node and ``pod`` is added, as added, on
        ``pod.node_name`` (possibly another node); a failure there is only logged, as in Kubernetes. An unknown pod
        is added. Fails with ``InvalidPodKey``, or ``PodAlreadyAdded``.
        """
        key = _checked_key(pod, "add_pod: pod")
        info = pod_info(pod, "add_pod: pod", self._pod_level_resources)
        with self._lock:
            self._admit("add_pod", pod)
            state = self._pod_states.get(key)
            if state is not None and key in self._assumed_pods:
                self._checked = info
                with suppress(CacheError):  # Kubernetes logs "Error occurred while updating pod", returns nil.
                    self._update_pod(state.pod, pod)
                return
            if state is None:
                self._checked = info
                self._add_pod(pod, assume=False)
                return
            raise CacheError(ErrorKind.POD_ALREADY_ADDED, f"pod {key}({klog_kobj(pod)}) was already in added state")

    def update_pod(self, old: Pod, new: Pod) -> None:
        """``UpdatePod``: the informer reports a change to an added pod (the key is ``old``'s).

        Fails with ``InvalidPodKey``; ``PodNotAdded``; ``AssumedPodUpdate``; or, after removing ``old``,
        ``PodNotInNodeInfo`` or ``new``'s ``InvalidPodKey``. Exits if ``new`` names another node than the cache.
        """
        key = _checked_key(old, "update_pod: old")
        check_pod_affinity(old, "update_pod: old")
        check_pod_key(new, "update_pod: new")  # an empty UID fails later, after old is removed, as in Kubernetes
        info = pod_info(new, "update_pod: new", self._pod_level_resources)
        with self._lock:
            self._admit("update_pod", old, new)
            state = self._pod_states.get(key)
            if state is None:
                raise CacheError(
                    ErrorKind.POD_NOT_ADDED,
                    f"pod {key}({klog_kobj(old)}) is not added to scheduler cache, so cannot be updated",
                )
            if key in self._assumed_pods:
                raise CacheError(
                    ErrorKind.ASSUMED_POD_UPDATE, f"assumed pod {key}({klog_kobj(old)}) should not be updated"
                )
            if state.pod.node_name != new.node_name:
                raise SchedulerExit(
                    FatalKind.POD_UPDATED_ON_OTHER_NODE,
                    f"pod {key}({klog_kobj(old)}) updated on a different node than previously added to; "
                    "scheduler cache is corrupted and can badly affect scheduling decisions",
                )
            self._checked = info
            self._update_pod(old, new)

    def remove_pod(self, pod: Pod) -> None:
        """``RemovePod``: the informer reports a pod deleted; assumed pods may be removed too.

        The *cached* object is removed. An object with an empty node name (stale) is accepted. Fails with
        ``InvalidPodKey`` or ``PodNotFoundForRemoval``; exits if the object names another, non-empty node.
        """
        key = _checked_key(pod, "remove_pod: pod")
        with self._lock:
            self._admit("remove_pod", pod)
            state = self._pod_states.get(key)
            if state is None:
                raise CacheError(
                    ErrorKind.POD_NOT_FOUND_FOR_REMOVAL,
                    f"pod {key}({klog_kobj(pod)}) is not found in scheduler cache, so cannot be removed from it",
                )
            if state.pod.node_name != pod.node_name and pod.node_name != "":
                raise SchedulerExit(
                    FatalKind.POD_REMOVED_FROM_OTHER_NODE,
                    f"pod {key}({klog_kobj(pod)}) was added to {state.pod.node_name} but removed from "
                    f"{pod.node_name}; scheduler cache is corrupted and can badly affect scheduling decisions",
                )
            self._remove_pod(state.pod)

    # ========================================================================================
    # Node transitions
    # ========================================================================================

    def _node_result(self, info: NodeInfo) -> NodeInfo | None:
        return info.snapshot() if self.profile.node_operations_return_node_info else None

    def add_node(self, node: Node) -> NodeInfo | None:
        """``AddNode``: the informer reports a node. Never fails; returns a clone of its NodeInfo where the
        profile's release does.

        An existing NodeInfo (placeholder or ghost) is reused with its pods; its previous node's images are
        released first. A node already in the tree under another zone is entered a second time (Kubernetes quirk).
        """
        check_node(node, "add_node: node")
        with self._lock:
            self._admit("add_node", node)
            item = self._nodes.get(node.name)
            if item is None:
                item = self._nodes.add(node.name, NodeInfo(self._generations))
            else:
                self._image_states.remove_node(item.info.node)
            self._nodes.move_to_head(node.name)
            self._node_tree.add_node(node)
            item.info.image_states = self._image_states.add_node(node)
            item.info.set_node(node)
            return self._node_result(item.info)

    def update_node(self, old: Node | None, new: Node) -> NodeInfo | None:
        """``UpdateNode``: the informer reports a changed node; a zone change moves it in the tree.

        An unknown node is created and entered in the tree. Never fails; exits when ``old`` is None and ``new``
        has a zone (nil dereference in Go). Returns a clone as :meth:`add_node` does.
        """
        if old is not None:
            check_node(old, "update_node: old")
        check_node(new, "update_node: new")
        with self._lock:
            self._admit("update_node", old, new)
            item = self._nodes.get(new.name)
            if item is None:
                item = self._nodes.add(new.name, NodeInfo(self._generations))
                self._node_tree.add_node(new)
            else:
                self._image_states.remove_node(item.info.node)
            self._nodes.move_to_head(new.name)
            self._node_tree.update_node(old, new)
            item.info.image_states = self._image_states.add_node(new)
            item.info.set_node(new)
            return self._node_result(item.info)

    def remove_node(self, node: Node) -> None:
        """``RemoveNode``: the informer reports a node deleted.

        A NodeInfo without pods is deleted; one with pods stays as a ghost. Then the node leaves the tree and the
        images *this object* lists are released. Fails with ``NodeNotFound`` (no change), or ``NodeNotInTree``
        after the NodeInfo was already changed (and without releasing the images).
        """
        check_node(node, "remove_node: node")
        with self._lock:
            self._admit("remove_node", node)
            item = self._nodes.get(node.name)
            if item is None:
                raise CacheError(ErrorKind.NODE_NOT_FOUND, f"node {node.name} is not found")
            if self._pvc_delta is not None:  # v1.37: "only subtract the PVCRefCount into the delta map"
                self._refresh_pvc_delta(item.info.pvc_ref_counts, {})
            item.info.remove_node()
            if not item.info.pods:
                self._nodes.remove(node.name)
            else:
                self._nodes.move_to_head(node.name)
            self._node_tree.remove_node(node)
            self._image_states.remove_node(node)

    # ========================================================================================
    # Snapshot
    # ========================================================================================

    def update_snapshot(self, snapshot: Snapshot) -> None:
        """``UpdateSnapshot``: bring the scheduling cycle's snapshot up to date (see :mod:`refimpl.cache.snapshot`).

        Fails with ``SnapshotInconsistent``, after rebuilding the snapshot's lists for the next cycle.
        """
        if type(snapshot) is Snapshot:
            # Nothing changed: decided without the lock, as the locked path would decide it (no write, no error).
            # Linearizable under the GIL (each read atomic): a generation that left the head never returns to it
            # (later ones are larger), so the head item at the snapshot's generation on the first and the last read
            # held it throughout; and the writes that keep the head (a pod-less node's removal, a ghost's last
            # pod's) only move the values read in between away from passing.
            nodes = self._nodes
            head = nodes.head
            generation = snapshot.generation
            if head is not None and head.info.generation == generation:
                tree_nodes = self._node_tree.num_nodes
                if (
                    not self._pvc_delta
                    and self._hook is None
                    and len(snapshot.refreshed) <= len(snapshot.node_info_map) <= tree_nodes
                    and len(snapshot.node_info_list) == tree_nodes
                    and nodes.head is head
                    and head.info.generation == generation
                ):
                    return
        else:
            check_snapshot(snapshot, "update_snapshot: snapshot")
        with self._lock:
            if self._hook is not None:
                self._hook("update_snapshot", (snapshot,))
            snapshots.update_snapshot(
                self._nodes, self._node_tree, snapshot, self._image_states.version, self._pvc_delta
            )

    # ========================================================================================
    # Expiry, metrics and the background worker
    # ========================================================================================

    def cleanup_assumed_pods(self, now: int | None = None) -> None:
        """``cleanupAssumedPods``: expire each assumed pod whose binding finished and whose deadline ``now``
        (default: the clock) is strictly after, then publish the metrics.

        Expiry has the effect of ``forget_pod``; its errors are only logged. Kubernetes visits the assumed pods in
        Go's random map order; this visits them in key order, as the spec does. Fails with
        ``UnsupportedOperation`` in a profile without expiry; exits if an assumed key has no pod state.
        """
        if now is not None and type(now) is not int:
            check_time(now, "cleanup_assumed_pods: now")
        if not self.profile.assumed_pod_expiry:
            raise CacheError(
                ErrorKind.UNSUPPORTED_OPERATION, f"cleanupAssumedPods does not exist in profile {self.profile.name}"
            )
        with self._lock:
            if now is None:
                now = self.clock.now()
            self._admit("cleanup_assumed_pods", now)
            ttl = self.ttl
            for key in sorted(self._assumed_pods):
                state = self._pod_states.get(key)
                if state is None:
                    raise SchedulerExit(
                        FatalKind.ASSUMED_POD_WITHOUT_STATE, f"key {key} found in assumed set but not in podStates"
                    )
                if not state.binding_finished:
                    continue  # Binding still in progress: never expire it (kubernetes#106361).
                if ttl != 0 and state.deadline is not None and now > state.deadline:
                    with suppress(CacheError):  # Kubernetes logs "ExpirePod failed".
                        self._remove_pod(state.pod)
            self._update_metrics()

    def _update_metrics(self) -> None:
        self.metrics.set(len(self._assumed_pods), len(self._pod_states), len(self._nodes))

    def update_metrics(self) -> None:
        """``updateMetrics``: publish the ``scheduler_cache_size`` gauge (releases after v1.35 do only this)."""
        with self._lock:
            self._update_metrics()

    @property
    def cache_size(self) -> CacheSize:
        """The gauge as last published."""
        return self.metrics.cache_size

    def cleanup_tick(self) -> None:
        """One cycle of the background worker: expiry at the clock's time, or (without expiry) the metrics."""
        if self.profile.assumed_pod_expiry:
            self.cleanup_assumed_pods(self.clock.now())
        else:
            self.update_metrics()

    def start_cleanup(self, period: float = DEFAULT_CLEANUP_PERIOD) -> CleanupWorker:
        """``New``'s goroutine: run :meth:`cleanup_tick` every ``period`` seconds of the cache's clock until
        :meth:`stop`. Fails with ``RuntimeError`` if a worker is running already."""
        if self._worker is not None and self._worker.running:
            raise RuntimeError("the cleanup worker is already running; stop() it first")
        self._worker = CleanupWorker(self.cleanup_tick, self.clock, period)
        self._worker.start()
        return self._worker

    def stop(self) -> None:
        """Stop the background worker, if any, and wait for its thread to end."""
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.stop()

    def __enter__(self) -> Cache:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()

    # ========================================================================================
    # Debugging
    # ========================================================================================

    def set_operation_hook(self, hook: OperationHook | None) -> None:
        """Record state-changing calls: ``hook(name, args)`` runs under the lock as each call is admitted, so
        the calls it sees are in the order the lock admitted them (calls rejected before the lock, for an
        invalid pod key, change nothing and are not seen). ``finish_binding`` and ``cleanup_assumed_pods``
        report the time they resolved."""
        with self._lock:
            self._hook = hook
