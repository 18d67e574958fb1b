"""The scheduler cache: the pod state machine and the node lifecycle, as pure transitions.

This is ``cacheImpl`` (k8s.io/kubernetes pkg/scheduler/backend/cache/cache.go) at v1.35.0.
The scheduler decides optimistically: once it has chosen a node it *assumes* the pod there
(:func:`assume_pod`), so the next scheduling cycle already sees the resources as used, and binds
in the background. The informer later confirms the pod (:func:`add_pod`); a failed binding
*forgets* it (:func:`forget_pod`); in the TTL era an assumed pod whose binding finished
(:func:`finish_binding`) but was never confirmed *expires* (:func:`cleanup_assumed_pods`).

Pod states (digest §3): **Absent** (not in ``pod_states``); **Assumed** (in ``pod_states`` and
``assumed_pods``), with binding not finished or finished (then with a deadline unless the TTL is
0); **Added** (in ``pod_states`` only). Pods are identified by UID.

Every transition takes a :class:`CacheState` and returns the next one. Preconditions are checked
first, in the order Kubernetes checks them, each failing with :class:`~spec.errors.CacheError`,
which leaves the state unchanged. Two Kubernetes paths return an error *after* changing the
cache; they raise :class:`CacheErrorAfterChange`, which carries the changed state. Paths where
the scheduler process exits raise :class:`~spec.errors.SchedulerExit`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spec.cache import imagestates, nodeinfo, nodetree
from spec.cache.imagestates import ImageRefs, ImageStates
from spec.cache.nodeinfo import NodeInfo, PodNotInNodeInfo
from spec.cache.nodetree import NodeTree
from spec.errors import CacheError, ErrorKind, FatalKind, SchedulerExit
from spec.frozenmap import FrozenMap
from spec.objects import Node, Pod, klog_kobj
from spec.quantities import Duration, Timestamp
from spec.valuetypes import cached_hash, replace
from spec.versions import DEFAULT_PROFILE, VersionProfile

# ============================================================================================
# State
# ============================================================================================


@cached_hash
@dataclass(frozen=True)
class PodState:
    """``podState``: the cached pod object and, for an assumed pod, its binding progress."""

    pod: Pod
    deadline: Timestamp | None = None
    """Set only by :func:`finish_binding`, to ``now + ttl``; None while the TTL is 0."""
    binding_finished: bool = False


@cached_hash
@dataclass(frozen=True)
class CacheSizeMetrics:
    """The ``scheduler_cache_size`` gauge (label ``type``), as last published."""

    assumed_pods: int = 0
    pods: int = 0
    nodes: int = 0


@cached_hash
@dataclass(frozen=True)
class CacheState:
    """The whole cache. Fields mirror ``cacheImpl``; their invariants are in :mod:`spec.cache.invariants`."""

    profile: VersionProfile = DEFAULT_PROFILE
    ttl: Duration = 0
    """How long a binding-finished assumed pod may stay unconfirmed; 0 means forever (the
    scheduler's production value since Kubernetes issue #106361)."""
    pod_states: FrozenMap[str, PodState] = field(default_factory=FrozenMap)
    """Every pod in the cache, assumed or added, by key (UID)."""
    assumed_pods: frozenset[str] = frozenset()
    """Keys of the assumed pods; always a subset of ``pod_states``."""
    nodes: FrozenMap[str, NodeInfo] = field(default_factory=FrozenMap)
    """NodeInfo by node name, including placeholders and ghosts (node None)."""
    node_list: tuple[str, ...] = ()
    """The names in ``nodes``, most recently updated first (Kubernetes' doubly linked list)."""
    node_tree: NodeTree = nodetree.EMPTY_NODE_TREE
    image_states: ImageStates = field(default_factory=FrozenMap)
    image_refs: FrozenMap[str, ImageRefs] = field(default_factory=FrozenMap)
    """Per node name, its NodeInfo's pointers into ``image_states``."""
    generation: int = 0
    """The last value of the global generation counter (``nextGeneration``)."""
    next_image_serial: int = 0
    metrics: CacheSizeMetrics = CacheSizeMetrics()
    pvc_ref_counts_total: FrozenMap[str, int] = field(default_factory=FrozenMap)
    """Profiles with ``incremental_pvc_ref_counts``: the sum of every change ``refreshPVCRefCountsDelta`` has added to
    ``pvcRefCountsDelta`` (zero entries dropped). Kubernetes clears its delta in each ``UpdateSnapshot``; the spec's
    update leaves the cache unchanged, so the snapshot keeps the sum it last consumed
    (:attr:`spec.cache.snapshot.Snapshot.pvc_ref_counts_consumed`) and the delta is the difference: the same value for
    the one snapshot a scheduler keeps per cache."""


def new_cache(profile: VersionProfile = DEFAULT_PROFILE, ttl: Duration = 0) -> CacheState:
    """``newCache(ttl, period)``: an empty cache. Fails with ``ValueError`` on a negative TTL, or a
    non-zero TTL in a profile without assumed-pod expiry.

    Kubernetes: `newCache` (pkg/scheduler/backend/cache/cache.go)
    """
    if ttl < 0:
        raise ValueError(f"ttl must not be negative, got {ttl}")
    if ttl != 0 and not profile.assumed_pod_expiry:
        raise ValueError(f"profile {profile.name} has no assumed-pod expiry, so the ttl must be 0, got {ttl}")
    return CacheState(profile=profile, ttl=ttl)


class CacheErrorAfterChange(CacheError):
    """An error Kubernetes returns after it has already changed the cache; carries that state."""

    def __init__(self, kind: ErrorKind, message: str, state_after: CacheState) -> None:
        super().__init__(kind, message)
        self.state_after = state_after


# ============================================================================================
# Queries
# ============================================================================================


def get_pod_key(pod: Pod) -> str:
    """``GetPodKey``: the pod's UID. Fails with ``InvalidPodKey`` when the UID is empty.

    Kubernetes: `framework.GetPodKey` (pkg/scheduler/framework/types.go)
    """
    if pod.uid == "":
        raise CacheError(ErrorKind.INVALID_POD_KEY, "cannot get cache key for pod with empty UID")
    return pod.uid


def get_pod(state: CacheState, pod: Pod) -> Pod:
    """``GetPod``: the cached object for the pod's UID (the last one assumed, added or updated).

    Fails with ``InvalidPodKey`` or ``PodNotFound``.

    Kubernetes: `cacheImpl.GetPod` (pkg/scheduler/backend/cache/cache.go)
    """
    key = get_pod_key(pod)
    current = state.pod_states.get(key)
    if current is None:
        raise CacheError(ErrorKind.POD_NOT_FOUND, f"pod {key}({klog_kobj(pod)}) does not exist in scheduler cache")
    return current.pod


def is_assumed_pod(state: CacheState, pod: Pod) -> bool:
    """``IsAssumedPod``: whether the pod's UID is assumed. Fails only with ``InvalidPodKey``.

    Kubernetes: `cacheImpl.IsAssumedPod` (pkg/scheduler/backend/cache/cache.go)
    """
    return get_pod_key(pod) in state.assumed_pods


def node_count(state: CacheState) -> int:
    """``NodeCount``: NodeInfos in the cache, placeholders and ghosts included.

    Kubernetes: `cacheImpl.NodeCount` (pkg/scheduler/backend/cache/cache.go)
    """
    return len(state.nodes)


def pod_count(state: CacheState) -> int:
    """``PodCount``: pods on all NodeInfos, assumed pods and pods on ghosts included.

    Kubernetes: `cacheImpl.PodCount` (pkg/scheduler/backend/cache/cache.go)
    """
    return sum(len(info.pods) for info in state.nodes.values())


def clone_node_info(state: CacheState, name: str) -> NodeInfo:
    """``NodeInfo.SnapshotConcrete``: the named NodeInfo with its image summaries materialised.

    Kubernetes: `NodeInfo.SnapshotConcrete` (pkg/scheduler/framework/types.go)
    """
    refs = state.image_refs.get(name, FrozenMap())
    summaries = imagestates.summarize_image_refs(refs, state.image_states)
    info = state.nodes[name]
    if info.image_states == summaries:
        return info  # values are immutable: a NodeInfo whose summaries are current is its own clone
    return replace(info, image_states=summaries)


@dataclass(frozen=True)
class CacheDump:
    """``Dump()``: a clone of every NodeInfo (ghosts included) and the assumed set."""

    nodes: FrozenMap[str, NodeInfo]
    assumed_pods: frozenset[str]


def dump(state: CacheState) -> CacheDump:
    """``Dump``: what the cache holds, for debugging and for comparing implementations.

    Kubernetes: `cacheImpl.Dump` (pkg/scheduler/backend/cache/cache.go)
    """
    nodes = FrozenMap({name: clone_node_info(state, name) for name in state.nodes})
    return CacheDump(nodes, state.assumed_pods)


# ============================================================================================
# Internal helpers (Kubernetes' lower-case methods, called with the lock held)
# ============================================================================================


def _next_generation(state: CacheState) -> tuple[CacheState, int]:
    """``nextGeneration``: take the next value of the global counter."""
    generation = state.generation + 1
    return replace(state, generation=generation), generation


def _move_node_info_to_head(state: CacheState, name: str) -> CacheState:
    """``moveNodeInfoToHead``: the node becomes the most recently updated one."""
    if name not in state.nodes:
        return state  # Kubernetes logs "No node info with given name found in the cache".
    return replace(state, node_list=(name, *(n for n in state.node_list if n != name)))


def _remove_node_info_from_list(state: CacheState, name: str) -> CacheState:
    """``removeNodeInfoFromList``: unlink the item and delete the NodeInfo (and its image pointers)."""
    return replace(
        state,
        node_list=tuple(n for n in state.node_list if n != name),
        nodes=state.nodes.remove(name),
        image_refs=state.image_refs.remove(name),
    )


def _refresh_pvc_ref_counts_delta(
    state: CacheState, before: FrozenMap[str, int], after: FrozenMap[str, int]
) -> CacheState:
    """``refreshPVCRefCountsDelta(before, -1)`` and ``(after, +1)`` around a NodeInfo change: add the change of its
    ``PVCRefCounts`` to the delta (only in profiles with ``incremental_pvc_ref_counts``).

    Kubernetes: `cacheImpl.refreshPVCRefCountsDelta` (pkg/scheduler/backend/cache/cache.go, v1.37)
    """
    if not state.profile.incremental_pvc_ref_counts:
        return state
    total = dict(state.pvc_ref_counts_total)
    for key, count in before.items():
        total[key] = total.get(key, 0) - count
    for key, count in after.items():
        total[key] = total.get(key, 0) + count
    return replace(state, pvc_ref_counts_total=FrozenMap({k: v for k, v in total.items() if v != 0}))


def _add_pod(state: CacheState, pod: Pod, assume: bool) -> CacheState:
    """``addPod``: charge the pod to ``pod.node_name``, creating a placeholder NodeInfo if needed.

    Fails with ``InvalidPodKey`` (before any change).
    """
    key = get_pod_key(pod)
    name = pod.node_name
    if name not in state.nodes:
        state, generation = _next_generation(state)
        state = replace(state, nodes=state.nodes.set(name, nodeinfo.new_node_info(generation)))
    state, generation = _next_generation(state)
    before = state.nodes[name]
    info = nodeinfo.add_pod(before, pod, generation, pod_level_resources=state.profile.pod_level_resources)
    state = _refresh_pvc_ref_counts_delta(state, before.pvc_ref_counts, info.pvc_ref_counts)
    state = _move_node_info_to_head(replace(state, nodes=state.nodes.set(name, info)), name)
    return replace(
        state,
        pod_states=state.pod_states.set(key, PodState(pod)),
        assumed_pods=state.assumed_pods | {key} if assume else state.assumed_pods,
    )


def _remove_pod(state: CacheState, pod: Pod) -> CacheState:
    """``removePod``: release the pod from the NodeInfo of ``pod.node_name`` and drop its state.

    A missing NodeInfo is tolerated (Kubernetes logs "Node not found"). A NodeInfo left with no
    pods and no node is deleted. Fails with ``PodNotInNodeInfo`` when the NodeInfo lacks the pod:
    then the pod state is kept, but the NodeInfo's affinity lists may already have been pruned
    (:class:`CacheErrorAfterChange`).
    """
    key = get_pod_key(pod)
    name = pod.node_name
    info = state.nodes.get(name)
    if info is not None:
        generation = state.generation + 1
        try:
            updated = nodeinfo.remove_pod(
                info, pod, generation, pod_level_resources=state.profile.pod_level_resources
            )
        except PodNotInNodeInfo as error:
            if error.info_after == info:
                raise CacheError(error.kind, error.message) from None
            after = replace(state, nodes=state.nodes.set(name, error.info_after))
            raise CacheErrorAfterChange(error.kind, error.message, after) from None
        state = replace(state, generation=generation, nodes=state.nodes.set(name, updated))
        state = _refresh_pvc_ref_counts_delta(state, info.pvc_ref_counts, updated.pvc_ref_counts)
        if len(updated.pods) == 0 and updated.node is None:
            state = _remove_node_info_from_list(state, name)
        else:
            state = _move_node_info_to_head(state, name)
    return replace(
        state,
        pod_states=state.pod_states.remove(key),
        assumed_pods=state.assumed_pods - {key},
    )


def _update_pod(state: CacheState, old: Pod, new: Pod) -> CacheState:
    """``updatePod``: ``removePod(old)`` then ``addPod(new)`` as an added (not assumed) pod.

    Fails as :func:`_remove_pod` does; if the add then fails (``InvalidPodKey`` for ``new``),
    the removal has already happened (:class:`CacheErrorAfterChange`).
    """
    removed = _remove_pod(state, old)
    try:
        return _add_pod(removed, new, assume=False)
    except CacheError as error:
        raise CacheErrorAfterChange(error.kind, error.message, removed) from None


# ============================================================================================
# Pod transitions
# ============================================================================================


def assume_pod(state: CacheState, pod: Pod) -> CacheState:
    """``AssumePod``: charge the pod to ``pod.node_name`` before the binding is confirmed.

    The scheduler has already set ``pod.node_name`` to the chosen node. Fails with
    ``InvalidPodKey``, or ``PodAlreadyInCache`` if the pod is assumed or added already.

    Kubernetes: `cacheImpl.AssumePod` (pkg/scheduler/backend/cache/cache.go)
    """
    key = get_pod_key(pod)
    if key in state.pod_states:
        raise CacheError(
            ErrorKind.POD_ALREADY_IN_CACHE, f"pod {key}({klog_kobj(pod)}) is in the cache, so can't be assumed"
        )
    return _add_pod(state, pod, assume=True)


def finish_binding(state: CacheState, pod: Pod, now: Timestamp) -> CacheState:
    """``FinishBinding``: the binding call returned; from now on the assumed pod may expire.

    Starts the expiry clock: deadline ``now + ttl`` (none if the TTL is 0). Calling it again
    restarts the clock. For a pod that is absent or added it changes nothing. Fails with
    ``InvalidPodKey``, or ``UnsupportedOperation`` in a profile without expiry.

    Kubernetes: `cacheImpl.FinishBinding` (pkg/scheduler/backend/cache/cache.go)
    """
    if not state.profile.assumed_pod_expiry:
        raise CacheError(
            ErrorKind.UNSUPPORTED_OPERATION, f"FinishBinding does not exist in profile {state.profile.name}"
        )
    key = get_pod_key(pod)
    current = state.pod_states.get(key)
    if current is None or key not in state.assumed_pods:
        return state
    deadline = None if state.ttl == 0 else now + state.ttl
    finished = PodState(current.pod, deadline=deadline, binding_finished=True)
    return replace(state, pod_states=state.pod_states.set(key, finished))


def forget_pod(state: CacheState, pod: Pod) -> CacheState:
    """``ForgetPod``: undo :func:`assume_pod` after a failed scheduling or binding step.

    A pod the cache does not know is a no-op from v1.35 on (profile
    ``forget_unknown_pod_is_error``). Fails with ``InvalidPodKey``; ``PodAssumedOnOtherNode``
    if the pod object names another node than the cached one (checked first, so an added pod
    on another node gets this error too); ``PodNotAssumed`` if the pod is added, not assumed.

    Kubernetes: `cacheImpl.ForgetPod` (pkg/scheduler/backend/cache/cache.go)
    """
    key = get_pod_key(pod)
    current = state.pod_states.get(key)
    not_assumed = CacheError(
        ErrorKind.POD_NOT_ASSUMED, state.profile.not_assumed_message.format(key=key, obj=klog_kobj(pod))
    )
    if current is None:
        if state.profile.forget_unknown_pod_is_error:
            raise not_assumed
        return state
    if current.pod.node_name != pod.node_name:
        raise CacheError(
            ErrorKind.POD_ASSUMED_ON_OTHER_NODE,
            f"pod {key}({klog_kobj(pod)}) was assumed on {pod.node_name} but assigned to {current.pod.node_name}",
        )
    if key not in state.assumed_pods:
        raise not_assumed
    return _remove_pod(state, pod)


def add_pod(state: CacheState, pod: Pod) -> CacheState:
    """``AddPod``: the informer reports a pod bound to a node.

    An assumed pod is *confirmed*: the cached (assumed) object is removed from its node and the
    new object is added, as added, to ``pod.node_name``, which may be another node. A pod the
    cache does not know (never seen, forgotten, expired, removed) is added. Errors inside these
    steps are only logged by Kubernetes, so the result is the state they left. Fails with
    ``InvalidPodKey``, or ``PodAlreadyAdded`` for a pod that is already added.

    Kubernetes: `cacheImpl.AddPod` (pkg/scheduler/backend/cache/cache.go)
    """
    key = get_pod_key(pod)
    current = state.pod_states.get(key)
    if current is not None and key in state.assumed_pods:
        try:
            return _update_pod(state, current.pod, pod)
        except CacheErrorAfterChange as error:
            return error.state_after  # Kubernetes logs "Error occurred while updating pod".
        except CacheError:
            return state
    if current is None:
        return _add_pod(state, pod, assume=False)
    raise CacheError(ErrorKind.POD_ALREADY_ADDED, f"pod {key}({klog_kobj(pod)}) was already in added state")


def update_pod(state: CacheState, old: Pod, new: Pod) -> CacheState:
    """``UpdatePod``: the informer reports a change to an added pod; the key is ``old``'s UID.

    ``old`` is removed from its node and ``new`` added. Fails with ``InvalidPodKey``;
    ``PodNotAdded`` if the pod is not in the cache; ``AssumedPodUpdate`` if it is assumed (an
    assumed pod must be added before it is updated); ``PodNotInNodeInfo`` if ``old``'s node does
    not hold it. Exits (``PodUpdatedOnOtherNode``) if ``new`` names another node than the cache.

    Kubernetes: `cacheImpl.UpdatePod` (pkg/scheduler/backend/cache/cache.go)
    """
    key = get_pod_key(old)
    current = state.pod_states.get(key)
    if current is None:
        raise CacheError(
            ErrorKind.POD_NOT_ADDED,
            f"pod {key}({klog_kobj(old)}) is not added to scheduler cache, so cannot be updated",
        )
    if key in state.assumed_pods:
        raise CacheError(ErrorKind.ASSUMED_POD_UPDATE, f"assumed pod {key}({klog_kobj(old)}) should not be updated")
    if current.pod.node_name != new.node_name:
        raise SchedulerExit(
            FatalKind.POD_UPDATED_ON_OTHER_NODE,
            f"pod {key}({klog_kobj(old)}) updated on a different node than previously added to; "
            "scheduler cache is corrupted and can badly affect scheduling decisions",
        )
    return _update_pod(state, old, new)


def remove_pod(state: CacheState, pod: Pod) -> CacheState:
    """``RemovePod``: the informer reports a pod deleted; assumed pods may be removed too.

    The *cached* object is removed, so its node is used. A pod object with an empty node name
    (a stale object after a missed delete) is accepted. Fails with ``InvalidPodKey`` or
    ``PodNotFoundForRemoval``. Exits (``PodRemovedFromOtherNode``) if the object names another,
    non-empty node than the cache.

    Kubernetes: `cacheImpl.RemovePod` (pkg/scheduler/backend/cache/cache.go)
    """
    key = get_pod_key(pod)
    current = state.pod_states.get(key)
    if current is None:
        raise CacheError(
            ErrorKind.POD_NOT_FOUND_FOR_REMOVAL,
            f"pod {key}({klog_kobj(pod)}) is not found in scheduler cache, so cannot be removed from it",
        )
    if current.pod.node_name != pod.node_name and pod.node_name != "":
        raise SchedulerExit(
            FatalKind.POD_REMOVED_FROM_OTHER_NODE,
            f"pod {key}({klog_kobj(pod)}) was added to {current.pod.node_name} but removed from {pod.node_name}; "
            "scheduler cache is corrupted and can badly affect scheduling decisions",
        )
    return _remove_pod(state, current.pod)


# ============================================================================================
# Node transitions
# ============================================================================================


def _set_node(state: CacheState, node: Node) -> CacheState:
    """The tail of AddNode / UpdateNode: ``addNodeImageStates`` then ``SetNode``."""
    image_states, refs, serial = imagestates.add_node_image_states(
        state.image_states, state.next_image_serial, node
    )
    state, generation = _next_generation(state)
    info = nodeinfo.set_node(state.nodes[node.name], node, generation)
    return replace(
        state,
        nodes=state.nodes.set(node.name, info),
        image_states=image_states,
        image_refs=state.image_refs.set(node.name, refs),
        next_image_serial=serial,
    )


def _node_info_for(state: CacheState, name: str) -> tuple[CacheState, bool]:
    """Create an empty NodeInfo for ``name`` unless one exists; say whether it was created."""
    if name in state.nodes:
        return state, False
    state, generation = _next_generation(state)
    return replace(state, nodes=state.nodes.set(name, nodeinfo.new_node_info(generation))), True


def add_node(state: CacheState, node: Node) -> CacheState:
    """``AddNode``: the informer reports a node. Never fails.

    An existing NodeInfo (a placeholder, or a ghost whose pods remain) is reused with its pods;
    its old node's images are released first. The node enters the node tree; if it is already
    there under another zone it is entered a second time (errata quirk).

    Kubernetes: `cacheImpl.AddNode` (pkg/scheduler/backend/cache/cache.go)
    """
    state, created = _node_info_for(state, node.name)
    if not created:
        state = replace(
            state,
            image_states=imagestates.remove_node_image_states(state.image_states, state.nodes[node.name].node),
        )
    state = _move_node_info_to_head(state, node.name)
    state = replace(state, node_tree=nodetree.add_node(state.node_tree, node))
    return _set_node(state, node)


def update_node(state: CacheState, old: Node | None, new: Node) -> CacheState:
    """``UpdateNode``: the informer reports a changed node; a zone change moves it in the tree.

    A node the cache does not know is created and entered in the tree. Never fails. Exits
    (``NilNodeDereference``) when ``old`` is None and ``new`` has a zone.

    Kubernetes: `cacheImpl.UpdateNode` (pkg/scheduler/backend/cache/cache.go)
    """
    state, created = _node_info_for(state, new.name)
    if created:
        state = replace(state, node_tree=nodetree.add_node(state.node_tree, new))
    else:
        state = replace(
            state,
            image_states=imagestates.remove_node_image_states(state.image_states, state.nodes[new.name].node),
        )
    state = _move_node_info_to_head(state, new.name)
    state = replace(state, node_tree=nodetree.update_node(state.node_tree, old, new))
    return _set_node(state, new)


def remove_node(state: CacheState, node: Node) -> CacheState:
    """``RemoveNode``: the informer reports a node deleted.

    A NodeInfo with no pods is deleted; one with pods stays as a *ghost* (node None) because the
    pods' delete events may still be on their way (v1.37 first subtracts the node's PVC counts from the delta,
    so a later removal of one of those pods subtracts its claims a second time). Then the node leaves the tree
    and its images (as listed by *this* node object) are released. Fails with ``NodeNotFound`` (no change), or
    with ``NodeNotInTree`` after the NodeInfo has already been changed
    (:class:`CacheErrorAfterChange`; reached when the object's zone is not the cached one, or
    on a second removal of a ghost).

    Kubernetes: `cacheImpl.RemoveNode` (pkg/scheduler/backend/cache/cache.go)
    """
    info = state.nodes.get(node.name)
    if info is None:
        raise CacheError(ErrorKind.NODE_NOT_FOUND, f"node {node.name} is not found")
    # v1.37: "only subtract the PVCRefCount into the delta map" (the node's pods stay on the ghost)
    state = _refresh_pvc_ref_counts_delta(state, info.pvc_ref_counts, FrozenMap())
    state, generation = _next_generation(state)
    state = replace(state, nodes=state.nodes.set(node.name, nodeinfo.remove_node(info, generation)))
    if len(info.pods) == 0:
        state = _remove_node_info_from_list(state, node.name)
    else:
        state = _move_node_info_to_head(state, node.name)
    try:
        tree = nodetree.remove_node(state.node_tree, node)
    except CacheError as error:
        raise CacheErrorAfterChange(error.kind, error.message, state) from None
    return replace(
        state,
        node_tree=tree,
        image_states=imagestates.remove_node_image_states(state.image_states, node),
    )


# ============================================================================================
# Expiry and metrics
# ============================================================================================


def update_metrics(state: CacheState) -> CacheState:
    """``updateMetrics``: publish the ``scheduler_cache_size`` gauges (nodes include ghosts).

    Kubernetes: `cacheImpl.updateMetrics` (pkg/scheduler/backend/cache/cache.go)
    """
    metrics = CacheSizeMetrics(len(state.assumed_pods), len(state.pod_states), len(state.nodes))
    return replace(state, metrics=metrics)


def is_expired(state: CacheState, pod_state: PodState, now: Timestamp) -> bool:
    """Whether ``cleanupAssumedPods`` at ``now`` expires an assumed pod in ``pod_state``.

    Only after :func:`finish_binding`, only with a non-zero TTL, and only strictly after the
    deadline (``now.After(*deadline)``).

    Kubernetes: `cacheImpl.cleanupAssumedPods` (pkg/scheduler/backend/cache/cache.go)
    """
    return (
        pod_state.binding_finished
        and state.ttl != 0
        and pod_state.deadline is not None
        and now > pod_state.deadline
    )


def cleanup_assumed_pods(state: CacheState, now: Timestamp) -> CacheState:
    """``cleanupAssumedPods``: expire each assumed pod that :func:`is_expired`, then publish metrics.

    Expiring has the effect of :func:`forget_pod`; an error while expiring is only logged.
    Kubernetes visits the assumed pods in Go's random map order; the spec visits them in key
    order, so the generations given to the nodes touched by one cleanup are fixed here but are
    an unspecified permutation in Kubernetes. Fails with ``UnsupportedOperation`` in a profile
    without expiry. Exits (``AssumedPodWithoutState``) if an assumed key has no pod state.

    Kubernetes: `cacheImpl.cleanupAssumedPods` (pkg/scheduler/backend/cache/cache.go)
    """
    if not state.profile.assumed_pod_expiry:
        raise CacheError(
            ErrorKind.UNSUPPORTED_OPERATION, f"cleanupAssumedPods does not exist in profile {state.profile.name}"
        )
    for key in sorted(state.assumed_pods):
        pod_state = state.pod_states.get(key)
        if pod_state is None:
            raise SchedulerExit(
                FatalKind.ASSUMED_POD_WITHOUT_STATE, f"key {key} found in assumed set but not in podStates"
            )
        if is_expired(state, pod_state, now):
            try:
                state = _remove_pod(state, pod_state.pod)
            except CacheErrorAfterChange as error:
                state = error.state_after  # Kubernetes logs "ExpirePod failed".
            except CacheError:
                pass
    return update_metrics(state)
