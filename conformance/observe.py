"""Canonical observations: what any implementation reports after a step, computed here from the spec.

An observation is plain JSON with no ``null`` anywhere, so that vectors can store each step's expectation as a
JSON merge patch (RFC 7396) of the previous one (:func:`diff` and :func:`merge_patch`).

Cache and snapshot areas, after every step::

    {"nodes": {name: NODE, ...},          # Dump(): every NodeInfo, placeholders and ghosts included
     "assumed": [uid, ...],               # sorted
     "recency": [name, ...],              # NodeInfo names by generation, newest first
     "snapshot": {"list": [name, ...],    # the snapshot's node list, in its own order
                  "affinity": [...], "anti_affinity": [...],   # HavePodsWith(Required Anti)AffinityList, in order
                  "used_pvcs": [...],     # sorted namespace/claim keys
                  "nodes": {name: NODE}},  # every entry of the snapshot's NodeInfo map
     "metrics": {"assumed_pods": n, "pods": n, "nodes": n},  # the scheduler_cache_size gauge as last published
     "returned": NODE or "none"}          # what this step's call returned (see below)

``returned`` is what the cache call of this step returned besides an error: ``AddNode`` and ``UpdateNode`` return
a clone of the node's NodeInfo (``n.info.Snapshot()``) up to v1.36 and nothing from v1.37
(``VersionProfile.node_operations_return_node_info``); every other operation returns nothing (``"none"``). The
gauge is published by ``cleanup_assumed_pods`` (at its end) and ``update_metrics``; before the first publication
every value is 0.

Generations are not observed as numbers: Kubernetes' counter is process-global, so its values depend on
everything else the process did. Their order is what the snapshot algorithm relies on, and it is ``recency``.

``NODE`` is ``{"node": name or "" (placeholder, ghost), "pods": [uid in order], "requested": {"milli_cpu",
"memory", "ephemeral_storage", "scalars": {name: non-zero quantity}}, "non_zero_requested": {"milli_cpu",
"memory"}, "allocatable": {"milli_cpu", "memory", "ephemeral_storage", "pods", "scalars"}, "used_ports": [[ip,
protocol, port], ...] sorted, "pvc_ref_counts": {key: count}, "pods_with_affinity": [uid in order],
"pods_with_required_anti_affinity": [uid in order], "image_states": {name: {"size", "num_nodes"}}}``.

Cycle area (:mod:`conformance.operations`), after every step::

    {"nodes": {name: NODE}, "assumed": [uid], "recency": [name],   # the cache, as above
     "metrics": {...},                    # as above (published by the cleanup in ``tick`` where expiry exists)
     "pending": [uid, ...],               # sorted: the scheduling queue
     "binding": {uid: node},              # binding cycles in flight, with the node the pod was assumed on
     "api_pods": {uid: node or ""},       # the API server's pods and the node each is bound to
     "unconfirmed": [uid, ...],           # sorted: bound pods whose informer event has not reached the cache
     "now": ns,                           # the cluster's clock
     "filters": {node: {"plugin": filter, "code": code}}}   # this step's scheduling cycle: each node a filter
                                          # rejected, the first filter (default profile order) that did, and its
                                          # status code: "Unschedulable" or "UnschedulableAndUnresolvable"
     "decision": {                        # only after a step that ran a scheduling cycle (schedulePod):
       "feasible": [name, ...],           #   sorted: the nodes every filter passed
       "scores": {name: {"plugins": {plugin: weighted score}, "total": n}},   # with 2+ feasible nodes: each
                                          #   Score plugin PreScore did not skip, times its weight, and the sum
       "allowed": [name, ...],            #   sorted: the nodes selectHost may return (the highest total)
       "message": text,                   #   FitError.Error() / ErrNoNodesAvailable; "" if a node was chosen
       "chosen": name or "",              #   implementations only: the node their selection returned, judged
                                          #   by the runner as one of "allowed" (the spec states the set)
       "preemption": {"outcome": code,    #   vectors with "preemption" only, after a cycle that found no feasible
         "node": name or "",              #   node: PostFilter's status code, the node the pod is nominated to,
         "victims": [uid, ...]}},         #   and the pods deleted at the API server (sorted)
     "nominated": {node: [uid, ...]},     # vectors with "preemption" only: the nominator, node -> pods in the order
                                          # nominated; only while some pod is nominated
     "failures": {uid: {"type": t,        # what the failure handler last wrote for each pod the API server has
       "status": s, "reason": r,          #   (format 4.6.0): the condition it patched, its type ("PodScheduled")
       "message": text,                   #   and status ("False", both format 4.7.0), its reason ("Unschedulable"
       "event": note}}}                   #   or "SchedulerError") and full message, and the FailedScheduling
                                          #   event's note (truncateMessage: 1,024 bytes at most); only while some
                                          #   pod has one

Dispatcher area, after every step::

    {"fifo": [uid, ...], "in_flight": [uid, ...] (sorted), "closed": bool,
     "calls": {uid: {"caller": n, "call": CALL}},   # the one call tracked per object
     "told": [[caller, outcome kind], ...],         # values sent to callers during this step, in order
     "metrics": {"pending_calls": {call_type: n}}}  # scheduler_pending_async_api_calls for pod_binding and
                                                    # pod_status_patch (format 4.0.0)

Queue area (:mod:`spec.queue.queue`), after every step::

    {"now": ns,                                   # the queue's clock
     "active": [uid, ...],                        # activeQ in QueueSort order: priority, then timestamp
     "backoff": [[uid, expiry], ...],             # podBackoffQ by expiry (with PopFromBackoffQ: then QueueSort)
     "error_backoff": [[uid, expiry], ...],       # podErrorBackoffQ by expiry
     "unschedulable": {uid: timestamp},           # unschedulablePods, with when each was last handed back
     "pods": {uid: POD},                          # every queued pod's QueuedPodInfo
     "in_flight": [uid, ...],                     # sorted: popped, Done not called (QueueingHints on)
     "in_flight_events": [{"pod": uid} | {"event": EVENT, "target": uid}, ...],   # inFlightEvents, in order
     "cycle": n, "move_request_cycle": n, "closed": bool,
     "popped": uid or "none",                     # what this step's Pop returned
     "went": "Active" | "Backoff" | "Unschedulable" | "none",   # where this step's hand-back sent the pod
     "nominated": {node: [uid, ...]}}             # the nominator, node -> pods in the order nominated; only while
                                                  # some pod is nominated (a failed preemption nominates to "")

Pods that compare equal in an order (same keys) are listed by UID; an expiry or first-attempt time the pod does
not have is -1. ``POD`` is ``{"timestamp", "first_attempt", "attempts", "unschedulable_count",
"consecutive_errors_count", "plugins": [unschedulable plugins, sorted], "pending": [pending plugins, sorted]}``.
``EVENT`` is ``{"resource", "action_type": Kubernetes' v1.37 bits, "custom_label" (absent when empty)}``; an event's
``target`` (absent when none) is the pod that is its new object (an update of that pod, ``ForceActivate``).

A caller is numbered by the order of the ``add_call`` steps, from 0. ``CALL`` is ``{"call_type": "pod_binding",
"uid", "node_name"}`` or ``{"call_type": "pod_status_patch", "uid", "status": {"conditions": [CONDITION sorted
by type], "nominated_node_name"}, "condition": CONDITION (absent if none), "nominating_info": {"mode",
"nominated_node_name"} (absent if none), "executed": bool}`` with ``CONDITION`` = ``{"type", "status", "reason",
"message"}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from conformance.codec import encode
from spec.cache.cache import CacheSizeMetrics, CacheState, clone_node_info
from spec.cache.nodeinfo import NodeInfo
from spec.cache.operations import World
from spec.cache.snapshot import Snapshot
from spec.cycle.cycle import Cluster
from spec.cycle.filters import Rejection
from spec.cycle.preemption import PreemptionResult
from spec.cycle.select import Decision
from spec.dispatcher.api_calls import (
    POD_BINDING,
    POD_STATUS_PATCH,
    APICall,
    NominatingInfo,
    PodBindingCall,
    PodCondition,
    PodStatus,
)
from spec.dispatcher.call_queue import CallQueue
from spec.queue.events import ClusterEvent
from spec.queue.state import PodPopped, QueuedPod, SchedulingQueue, backoff_time
from spec.resources import Resource
from spec.valuetypes import remember_by_identity

JSON = Any


# --------------------------------------------------------------------------------------------
# Building blocks shared with adapters written in Python
# --------------------------------------------------------------------------------------------


def requested_json(milli_cpu: int, memory: int, ephemeral_storage: int, scalars: Mapping[str, int] | None) -> JSON:
    """The ``requested`` object: zero scalar entries are left out (Kubernetes keeps them at 0)."""
    return {
        "milli_cpu": milli_cpu,
        "memory": memory,
        "ephemeral_storage": ephemeral_storage,
        "scalars": {k: v for k, v in sorted((scalars or {}).items()) if v != 0},
    }


def allocatable_json(
    milli_cpu: int, memory: int, ephemeral_storage: int, pods: int, scalars: Mapping[str, int] | None
) -> JSON:
    """The ``allocatable`` object."""
    return {
        "milli_cpu": milli_cpu,
        "memory": memory,
        "ephemeral_storage": ephemeral_storage,
        "pods": pods,
        "scalars": {k: v for k, v in sorted((scalars or {}).items()) if v != 0},
    }


def ports_json(ports: Iterable[tuple[str, str, int]]) -> JSON:
    """``used_ports`` as sorted [ip, protocol, port] triples."""
    return [list(p) for p in sorted(ports)]


def condition_json(condition: PodCondition | Any) -> JSON:
    """A condition with all four fields (a spec ``PodCondition`` or any object with the same attributes)."""
    c = condition
    return {"type": c.type, "status": c.status, "reason": c.reason, "message": c.message}


def nominating_json(info: NominatingInfo | Any) -> JSON:
    """A nominating info with both fields."""
    return {"mode": str(info.mode.value), "nominated_node_name": info.nominated_node_name}


# --------------------------------------------------------------------------------------------
# The spec's observations
# --------------------------------------------------------------------------------------------


def _resource(r: Resource) -> JSON:
    return requested_json(r.milli_cpu, r.memory, r.ephemeral_storage, r.scalar_resources)


@remember_by_identity(maxsize=4096)
def node_info_json(info: NodeInfo) -> JSON:
    """A NodeInfo clone (images materialised) as the canonical ``NODE`` object. Remembered per NodeInfo object: a
    step leaves most NodeInfos as they were, and the cache's clone and the snapshot's are often one object (the
    sampling scenarios have hundreds of nodes). The observations share the JSON, which nothing changes."""
    a = info.allocatable
    return {
        "node": info.name,
        "pods": [p.uid for p in info.pods],
        "requested": _resource(info.requested),
        "non_zero_requested": {"milli_cpu": info.non_zero_requested.milli_cpu,
                               "memory": info.non_zero_requested.memory},
        "allocatable": allocatable_json(a.milli_cpu, a.memory, a.ephemeral_storage, a.allowed_pod_number,
                                        a.scalar_resources),
        "used_ports": ports_json((p.ip, p.protocol, p.port) for p in info.used_ports),
        "pvc_ref_counts": dict(sorted(info.pvc_ref_counts.items())),
        "pods_with_affinity": [p.uid for p in info.pods_with_affinity],
        "pods_with_required_anti_affinity": [p.uid for p in info.pods_with_required_anti_affinity],
        "image_states": {name: {"size": s.size, "num_nodes": s.num_nodes}
                         for name, s in sorted(info.image_states.items())},
    }


def snapshot_json(snapshot: Snapshot) -> JSON:
    """The snapshot's lists, used claims and every NodeInfo in its map."""
    return {
        "list": list(snapshot.node_info_list),
        "affinity": list(snapshot.have_pods_with_affinity_list),
        "anti_affinity": list(snapshot.have_pods_with_required_anti_affinity_list),
        "used_pvcs": sorted(snapshot.used_pvc_set),
        "nodes": {name: node_info_json(info) for name, info in sorted(snapshot.node_info_map.items())},
    }


def cache_json(state: CacheState) -> JSON:
    """The cache part of the observation: dump, assumed pods and recency."""
    return {
        "nodes": {name: node_info_json(clone_node_info(state, name)) for name in sorted(state.nodes)},
        "assumed": sorted(state.assumed_pods),
        "recency": sorted(state.nodes, key=lambda name: -state.nodes[name].generation),
    }


def metrics_json(metrics: CacheSizeMetrics | Any) -> JSON:
    """The ``scheduler_cache_size`` gauge (a spec ``CacheSizeMetrics`` or any object with the same attributes)."""
    return {"assumed_pods": metrics.assumed_pods, "pods": metrics.pods, "nodes": metrics.nodes}


NOTHING_RETURNED: Final = "none"
"""``returned`` of a step whose call returned nothing besides its error."""


def observe_world(world: World, returned: JSON = NOTHING_RETURNED) -> JSON:
    """The full observation of a cache-area step; ``returned`` is what the step's call returned."""
    return {**cache_json(world.cache), "snapshot": snapshot_json(world.snapshot),
            "metrics": metrics_json(world.cache.metrics), "returned": returned}


def cluster_json(
    cache: JSON, metrics: JSON, pending: Iterable[str], binding: Mapping[str, Any], api_pods: Mapping[str, Any],
    unconfirmed: Iterable[str], now: int, filters: Iterable[tuple[str, tuple[str, str]]], *, running: bool = True,
    orphaned: Mapping[str, Any] | None = None, admitted: Iterable[str] = (), failed: Mapping[str, str] | None = None,
    decision: JSON | None = None, nominated: Mapping[str, Iterable[str]] | None = None,
    failures: Mapping[str, tuple[str, str, str, str, str]] | None = None,
) -> JSON:
    """The cycle-area observation from its parts: the cache part (:func:`cache_json`'s shape), the gauge, and the
    cluster (``binding``, ``api_pods`` and ``orphaned`` map UIDs to pod objects with a ``node_name``). ``scheduler``
    and ``kubelet`` appear only once they differ from a running scheduler with no orphaned request and kubelets
    that handled nothing, so traces without crashes and kubelets observe what they always did. ``decision``
    (:func:`decision_json`) is present only for a step that ran a scheduling cycle; ``nominated`` (the nominator:
    node -> UIDs in the order nominated) only while some pod is nominated; ``failures`` (UID -> the type, status,
    reason and message of the condition the failure handler last patched, and its event's note) only while some pod
    has one."""
    extra: dict[str, JSON] = {}
    if decision is not None:
        extra["decision"] = decision
    if nominated:
        extra["nominated"] = {node: list(uids) for node, uids in sorted(nominated.items())}
    if failures:
        extra["failures"] = {uid: {"type": kind, "status": status, "reason": reason, "message": message,
                                   "event": event}
                             for uid, (kind, status, reason, message, event) in sorted(failures.items())}
    if not running or orphaned:
        extra["scheduler"] = {"running": running,
                              "orphaned": {uid: pod.node_name for uid, pod in sorted((orphaned or {}).items())}}
    admitted = sorted(admitted)
    if admitted or failed:
        extra["kubelet"] = {"admitted": admitted, "failed": dict(sorted((failed or {}).items()))}
    return {
        **extra,
        **cache,
        "metrics": metrics,
        "pending": sorted(pending),
        "binding": {uid: pod.node_name for uid, pod in sorted(binding.items())},
        "api_pods": {uid: pod.node_name for uid, pod in sorted(api_pods.items())},
        "unconfirmed": sorted(unconfirmed),
        "now": now,
        "filters": {node: {"plugin": plugin, "code": code} for node, (plugin, code) in sorted(filters)},
    }


def decision_json(feasible: Iterable[str], scores: Iterable[tuple[str, Iterable[tuple[str, int]], int]],
                  allowed: Iterable[str], message: str, chosen: str | None = None) -> JSON:
    """A scheduling cycle's ``decision``: the feasible nodes (sorted); each scored node's weighted plugin scores (the
    plugins PreScore did not skip) and total, from ``(node, plugin scores, total)``; the nodes ``selectHost`` may
    return (sorted); the failure message ("" if a node was chosen); and, from an implementation, the node it
    ``chosen`` ("" if none), which the runner judges against ``allowed`` instead of comparing."""
    out: JSON = {
        "feasible": sorted(feasible),
        "scores": {node: {"plugins": dict(plugins), "total": total} for node, plugins, total in sorted(scores)},
        "allowed": sorted(allowed),
        "message": message,
    }
    if chosen is not None:
        out["chosen"] = chosen
    return out


def preemption_json(outcome: str, node: str, victims: Iterable[str]) -> JSON:
    """A decision's ``preemption``: PostFilter's status code, the node the pod is nominated to ("" if none), and the
    UIDs of the pods it deleted (sorted)."""
    return {"outcome": outcome, "node": node, "victims": sorted(victims)}


def spec_decision_json(decision: Decision, preemption: PreemptionResult | None = None) -> JSON:
    """:func:`decision_json` of the spec's :class:`spec.cycle.select.Decision` (without ``chosen``: the spec states
    the set), with PostFilter's ``preemption`` result if it ran."""
    out = decision_json(decision.feasible, ((s.node, s.plugins, s.total) for s in decision.scores),
                        decision.allowed, decision.message)
    if preemption is not None:
        out["preemption"] = preemption_json(str(preemption.outcome), preemption.nominated_node or "",
                                            (p.uid for p in preemption.deleted))
    return out


def observe_cluster(cluster: Cluster, filters: Iterable[tuple[str, Rejection]] = (),
                    decision: Decision | None = None, preemption: PreemptionResult | None = None) -> JSON:
    """The full observation of a cycle-area step; ``filters`` are the step's rejections (node, first filter and
    its code), ``decision`` what its scheduling cycle decided, if it ran one, ``preemption`` what its PostFilter
    did, if it ran."""
    statuses = ((node, (rejection.plugin, str(rejection.code))) for node, rejection in filters)
    return cluster_json(cache_json(cluster.cache), metrics_json(cluster.cache.metrics), cluster.pending,
                        cluster.binding, cluster.api_pods, cluster.unconfirmed, cluster.now, statuses,
                        running=cluster.running, orphaned=cluster.orphaned, admitted=cluster.admitted,
                        failed=cluster.failed,
                        decision=None if decision is None else spec_decision_json(decision, preemption),
                        nominated=dict(cluster.nominator.nominated_pods.items()),
                        failures={uid: (f.condition.type, f.condition.status, f.condition.reason,
                                        f.condition.message, f.event_message)
                                  for uid, f in cluster.failures.items()})


def status_json(status: PodStatus) -> JSON:
    return {
        "conditions": [condition_json(c) for _, c in sorted(status.conditions.items())],
        "nominated_node_name": status.nominated_node_name,
    }


def call_json(call: APICall) -> JSON:
    """The canonical ``CALL`` object."""
    if isinstance(call, PodBindingCall):
        return {"call_type": call.call_type, "uid": call.uid, "node_name": call.node_name}
    out: dict[str, JSON] = {"call_type": call.call_type, "uid": call.uid, "status": status_json(call.status)}
    if call.condition is not None:
        out["condition"] = condition_json(call.condition)
    if call.nominating_info is not None:
        out["nominating_info"] = nominating_json(call.nominating_info)
    out["executed"] = call.executed
    return out


CALL_TYPES: Final = (POD_BINDING, POD_STATUS_PATCH)
"""The in-tree call types, the labels of the pending-calls gauge an observation reports."""


def pending_calls(queue: CallQueue) -> dict[str, int]:
    """``scheduler_pending_async_api_calls`` by call type: how many FIFO entries hold a call of that type.

    Kubernetes moves the gauge where the FIFO changes: ``enqueue`` of a new UID and ``finalize`` re-queueing one
    increment the new call's type, ``pop`` and ``removePending`` of a call that is not in flight decrement its type,
    and ``merge`` overwriting a pending call of another type moves one from the old type to the new (the only
    change of a queued UID's type; a call waiting behind an in-flight one is not in the FIFO and not counted until
    ``finalize`` queues it). So the gauge is the FIFO counted by type, which is what the spec reports; an
    implementation reads its own gauge.

    Kubernetes: `callQueue.enqueue`, `merge`, `removePending`, `pop`, `finalize`
    (pkg/scheduler/backend/api_dispatcher/call_queue.go; ``metrics.AsyncAPIPendingCalls``)
    """
    counts = dict.fromkeys(CALL_TYPES, 0)
    for uid in queue.fifo:
        call_type = queue.calls[uid].call.call_type
        counts[call_type] = counts.get(call_type, 0) + 1
    return counts


def observe_queue(queue: CallQueue, sends_before: int) -> JSON:
    """The full observation of a dispatcher step; ``sends_before`` is how many values were sent before it."""
    return {
        "fifo": list(queue.fifo),
        "in_flight": sorted(queue.in_flight),
        "closed": queue.closed,
        "calls": {uid: {"caller": q.call_id, "call": call_json(q.call)} for uid, q in sorted(queue.calls.items())},
        "told": [[n.call_id, str(n.kind.value)] for n in queue.sends[sends_before:]],
        "metrics": {"pending_calls": pending_calls(queue)},
    }


# --------------------------------------------------------------------------------------------
# The scheduling queue
# --------------------------------------------------------------------------------------------

NO_TIME: Final = -1
"""A time the queue does not have (Go's zero time): a pod without backoff, or never in activeQ."""
NOTHING: Final = "none"
"""``popped`` / ``went`` of a step that popped nothing or handed nothing back."""


@dataclass(frozen=True)
class QueuedPodView:
    """What the queue observation shows of a queued pod; adapters build one per pod from their own state."""

    uid: str
    priority: int
    timestamp: int
    first_attempt: int
    attempts: int
    unschedulable_count: int
    consecutive_errors_count: int
    plugins: tuple[str, ...]
    pending: tuple[str, ...]
    expiry: int
    """When its backoff ends (:data:`NO_TIME` if it has none)."""


def _order(view: QueuedPodView) -> tuple[int, int, str]:
    return (-view.priority, view.timestamp, view.uid)


def queue_json(
    now: int, active: Iterable[QueuedPodView], backoff: Iterable[QueuedPodView], error_backoff: Iterable[QueuedPodView],
    unschedulable: Iterable[QueuedPodView], in_flight: Iterable[str], in_flight_events: Iterable[JSON], cycle: int,
    move_request_cycle: int, closed: bool, pop_from_backoff_q: bool, popped: str = NOTHING, went: str = NOTHING,
    nominated: Mapping[str, Iterable[str]] | None = None,
) -> JSON:
    """The queue-area observation from its parts (see the module docstring for the orders it prints); ``nominated``
    (node -> UIDs in the order nominated) appears only while some pod is nominated."""
    active, backoff, errors, waiting = list(active), list(backoff), list(error_backoff), list(unschedulable)

    def backoff_key(v: QueuedPodView) -> tuple[int, int, int, str]:
        return (v.expiry, *_order(v)) if pop_from_backoff_q else (v.expiry, 0, 0, v.uid)

    extra: dict[str, JSON] = {}
    if nominated:
        extra["nominated"] = {node: list(uids) for node, uids in sorted(nominated.items())}
    return {
        **extra,
        "now": now,
        "active": [v.uid for v in sorted(active, key=_order)],
        "backoff": [[v.uid, v.expiry] for v in sorted(backoff, key=backoff_key)],
        "error_backoff": [[v.uid, v.expiry] for v in sorted(errors, key=lambda v: (v.expiry, v.uid))],
        "unschedulable": {v.uid: v.timestamp for v in sorted(waiting, key=lambda v: v.uid)},
        "pods": {v.uid: {"timestamp": v.timestamp, "first_attempt": v.first_attempt, "attempts": v.attempts,
                         "unschedulable_count": v.unschedulable_count,
                         "consecutive_errors_count": v.consecutive_errors_count, "plugins": list(v.plugins),
                         "pending": list(v.pending)}
                 for v in sorted([*active, *backoff, *errors, *waiting], key=lambda v: v.uid)},
        "in_flight": sorted(in_flight),
        "in_flight_events": list(in_flight_events),
        "cycle": cycle,
        "move_request_cycle": move_request_cycle,
        "closed": closed,
        "popped": popped,
        "went": went,
    }


def event_json(event: ClusterEvent, target: str | None = None) -> JSON:
    """An in-flight event: ``{"event": {"resource", "action_type"[, "custom_label"]}[, "target": uid]}``."""
    out: JSON = {"event": encode(event)}
    if target is not None:
        out["target"] = target
    return out


def _view(queue: SchedulingQueue, pinfo: QueuedPod) -> QueuedPodView:
    expiry = backoff_time(queue, pinfo)
    first = pinfo.initial_attempt_timestamp
    return QueuedPodView(
        pinfo.uid, pinfo.pod.priority, pinfo.timestamp, NO_TIME if first is None else first, pinfo.attempts,
        pinfo.unschedulable_count, pinfo.consecutive_errors_count, tuple(sorted(pinfo.unschedulable_plugins)),
        tuple(sorted(pinfo.pending_plugins)), NO_TIME if expiry is None else expiry,
    )


def observe_scheduling_queue(queue: SchedulingQueue, popped: str = NOTHING, went: str = NOTHING) -> JSON:
    """The full observation of a queue-area step; ``popped`` and ``went`` are what the step's call returned."""
    entries = [{"pod": e.uid} if isinstance(e, PodPopped) else event_json(e.event, e.target)
               for e in queue.in_flight_events]
    active, backoff, errors, waiting = (
        [_view(queue, p) for p in pods.values()]
        for pods in (queue.active_q, queue.backoff_q, queue.error_backoff_q, queue.unschedulable_pods)
    )
    return queue_json(
        queue.now, active, backoff, errors, waiting, queue.in_flight_pods, entries, queue.scheduling_cycle,
        queue.move_request_cycle, queue.closed, queue.config.pop_from_backoff_q, popped, went,
        dict(queue.nominator.nominated_pods.items()),
    )


INITIAL_METRICS: Final[JSON] = {"assumed_pods": 0, "pods": 0, "nodes": 0}
INITIAL_CACHE_OBSERVATION: Final[JSON] = {
    "nodes": {}, "assumed": [], "recency": [],
    "snapshot": {"list": [], "affinity": [], "anti_affinity": [], "used_pvcs": [], "nodes": {}},
    "metrics": INITIAL_METRICS, "returned": NOTHING_RETURNED,
}
INITIAL_CYCLE_OBSERVATION: Final[JSON] = {
    "nodes": {}, "assumed": [], "recency": [], "metrics": INITIAL_METRICS, "pending": [], "binding": {},
    "api_pods": {}, "unconfirmed": [], "now": 0, "filters": {},
}
INITIAL_DISPATCHER_OBSERVATION: Final[JSON] = {
    "fifo": [], "in_flight": [], "closed": False, "calls": {}, "told": [],
    "metrics": {"pending_calls": dict.fromkeys(CALL_TYPES, 0)},
}
INITIAL_QUEUE_OBSERVATION: Final[JSON] = queue_json(0, (), (), (), (), (), (), 0, -1, False, True)


# --------------------------------------------------------------------------------------------
# JSON merge patch (RFC 7396)
# --------------------------------------------------------------------------------------------


def diff(before: JSON, after: JSON) -> JSON:
    """The merge patch that turns ``before`` into ``after`` (both objects without nulls)."""
    patch: dict[str, JSON] = {}
    for key, value in after.items():
        old = before.get(key)
        if old == value and key in before:
            continue
        if isinstance(value, dict) and isinstance(old, dict):
            patch[key] = diff(old, value)
        else:
            patch[key] = value
    for key in before:
        if key not in after:
            patch[key] = None
    return patch


def merge_patch(target: JSON, patch: JSON) -> JSON:
    """RFC 7396: apply ``patch`` to ``target`` (a new value; neither argument is changed)."""
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result
