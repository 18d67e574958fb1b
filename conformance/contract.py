"""The adapter contract as data: each area's operations, observation shape and the rules that hold for them.

One source for three readers: the contract pages of the documentation (``docs/_ext/adapter_contract.py`` renders
them), the JSON Schemas (:mod:`conformance.schemas` writes ``conformance/schema/vector.schema.json`` and
``protocol.schema.json`` from it) and the tests that keep both in step with the code that computes observations
(:mod:`conformance.observe`) and decodes arguments (:mod:`conformance.codec`).

An observation's shape is built from a handful of :class:`Shape` constructors, each field carrying its meaning.
Named shapes (``NODE``, ``CALL``, ...) are defined once in :data:`DEFINITIONS` and referred to by :class:`Ref`.
The operations of an area come from :data:`conformance.codec.OPERATIONS` (their arguments are the fields of the
operation's dataclass); the result kinds an area's vectors expect, per profile, are read off the vectors
(:func:`conformance.contract_kinds.result_kinds`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from conformance.codec import (
    CACHE_OPERATIONS,
    CYCLE_OPERATION_NAMES,
    DISPATCHER_OPERATION_NAMES,
    QUEUE_OPERATION_NAMES,
    operation_name,
)

# --------------------------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """A JSON value's shape; ``note`` says how to read it (units, order) where the field's meaning does not."""

    note: str = ""


@dataclass(frozen=True)
class Integer(Shape):
    """A JSON integer."""

    minimum: int | None = None


@dataclass(frozen=True)
class String(Shape):
    """A JSON string, one of ``enum`` when it is not empty."""

    enum: tuple[str, ...] = ()


@dataclass(frozen=True)
class Boolean(Shape):
    """``true`` or ``false``."""


@dataclass(frozen=True)
class Const(Shape):
    """Exactly ``value``."""

    value: str = ""


@dataclass(frozen=True)
class ArrayOf(Shape):
    """An array of ``item`` values; ``note`` says their order."""

    item: Shape = Shape()


@dataclass(frozen=True)
class Tuple(Shape):
    """A fixed-length array: one value of each shape, in order."""

    items: tuple[Shape, ...] = ()


@dataclass(frozen=True)
class MapOf(Shape):
    """An object whose keys are data (``key`` says what they are) and whose values have one shape."""

    key: str = ""
    value: Shape = Shape()


@dataclass(frozen=True)
class Field:
    """A field of a :class:`Record`: its name, shape and meaning; ``optional`` fields are present only when the
    meaning says so."""

    name: str
    shape: Shape
    meaning: str
    optional: bool = False


@dataclass(frozen=True)
class Record(Shape):
    """An object with fixed keys; no other key is allowed."""

    fields: tuple[Field, ...] = ()


@dataclass(frozen=True)
class Either(Shape):
    """One of several shapes."""

    options: tuple[Shape, ...] = ()


@dataclass(frozen=True)
class Ref(Shape):
    """The named shape ``name`` of :data:`DEFINITIONS`."""

    name: str = ""


UID = String(note="a pod's UID")
NODE_NAME = String(note="a node's name")
NS = Integer(note="nanoseconds")


def _uids(order: str) -> ArrayOf:
    return ArrayOf(order, item=UID)


# --------------------------------------------------------------------------------------------
# Named shapes
# --------------------------------------------------------------------------------------------

_RESOURCES = (
    Field("milli_cpu", Integer(), "CPU in millicores"),
    Field("memory", Integer(), "memory in bytes"),
    Field("ephemeral_storage", Integer(), "ephemeral storage in bytes"),
)
_SCALARS = Field("scalars", MapOf(key="an extended or hugepages resource name", value=Integer()),
                 "extended resources (and hugepages) by name; entries whose quantity is 0 are left out")
_CONDITION = Record(fields=(
    Field("type", String(), "the condition's type (`PodScheduled`)"),
    Field("status", String(), "`True`, `False` or `Unknown`"),
    Field("reason", String(), "the condition's reason, `\"\"` if none"),
    Field("message", String(), "the condition's message, `\"\"` if none"),
))

DEFINITIONS: Final[dict[str, Shape]] = {
    "NODE": Record(fields=(
        Field("node", String(), "the node's name; `\"\"` for a placeholder NodeInfo (pods, no node object yet) "
                                "and a ghost (the node was removed while pods remained)"),
        Field("pods", _uids("in the NodeInfo's own order (Kubernetes' slice order, which removal changes)"),
              "the pods of the NodeInfo, assumed ones included"),
        Field("requested", Record(fields=(*_RESOURCES, _SCALARS)),
              "the sum of the pods' requests as `computePodResourceRequest` computes them (init containers, "
              "sidecars, overhead, pod-level resources)"),
        Field("non_zero_requested", Record(fields=_RESOURCES[:2]),
              "the same with Kubernetes' non-zero defaults (100 millicores, 200 MiB) for a container that requests "
              "none"),
        Field("allocatable", Record(fields=(*_RESOURCES, Field("pods", Integer(), "the `pods` allocatable: how "
                                                                "many pods the node admits"), _SCALARS)),
              "the node's `Status.Allocatable` (all zero for a placeholder or ghost)"),
        Field("used_ports", ArrayOf("sorted", item=Tuple(items=(String(note="host IP, 0.0.0.0 when empty"),
                                                                String(note="protocol, TCP when empty"),
                                                                Integer(note="host port")))),
              "the host ports the pods occupy, as `[ip, protocol, port]` triples"),
        Field("pvc_ref_counts", MapOf(key="`namespace/claim`", value=Integer(minimum=1)),
              "how many pods of the node use each persistent volume claim"),
        Field("pods_with_affinity", _uids("in the NodeInfo's own order"),
              "pods with a non-nil pod affinity or anti-affinity"),
        Field("pods_with_required_anti_affinity", _uids("in the NodeInfo's own order"),
              "pods with required anti-affinity terms"),
        Field("image_states", MapOf(key="an image name", value=Record(fields=(
            Field("size", Integer(), "the image's size in bytes on this node"),
            Field("num_nodes", Integer(), "how many nodes of the cache have the image"))),
        ), "the images of the node that its pods use, with the cache's count of nodes that have each"),
    )),
    "SNAPSHOT": Record(fields=(
        Field("list", ArrayOf("the snapshot's own order (the node tree's zone round robin)", item=NODE_NAME),
              "the snapshot's node list (`nodeInfoList`)"),
        Field("affinity", ArrayOf("the snapshot's own order", item=NODE_NAME),
              "`havePodsWithAffinityNodeInfoList`"),
        Field("anti_affinity", ArrayOf("the snapshot's own order", item=NODE_NAME),
              "`havePodsWithRequiredAntiAffinityNodeInfoList`"),
        Field("used_pvcs", ArrayOf("sorted", item=String(note="`namespace/claim`")),
              "`usedPVCSet`: the claims pods of the snapshot's nodes use"),
        Field("nodes", MapOf(key="a node name", value=Ref(name="NODE")), "every NodeInfo of the snapshot's map"),
    )),
    "METRICS": Record(fields=(
        Field("assumed_pods", Integer(minimum=0), "assumed pods"),
        Field("pods", Integer(minimum=0), "pods, assumed ones included"),
        Field("nodes", Integer(minimum=0), "NodeInfos, placeholders and ghosts included"),
    )),
    "CONDITION": _CONDITION,
    "CALL": Either(options=(
        Record(fields=(
            Field("call_type", Const(value="pod_binding"), "a binding call"),
            Field("uid", UID, "the pod the call is for"),
            Field("node_name", NODE_NAME, "the node to bind it to"),
        )),
        Record(fields=(
            Field("call_type", Const(value="pod_status_patch"), "a status patch"),
            Field("uid", UID, "the pod the call is for"),
            Field("status", Record(fields=(
                Field("conditions", ArrayOf("sorted by type", item=_CONDITION), "the pod's conditions"),
                Field("nominated_node_name", String(), "the pod's nominated node, `\"\"` if none"))),
                "the pod status the patch starts from"),
            Field("condition", _CONDITION, "the condition the patch sets; absent if none", optional=True),
            Field("nominating_info", Record(fields=(
                Field("mode", String(), "`Override` or `Noop`"),
                Field("nominated_node_name", String(), "the node to nominate"))),
                "the nomination the patch sets; absent if none", optional=True),
            Field("executed", Boolean(), "whether the call has been executed (popped)"),
        )),
    )),
    "QUEUED_POD": Record(fields=(
        Field("timestamp", NS, "when the pod was last added to a queue (`QueuedPodInfo.Timestamp`)"),
        Field("first_attempt", Integer(note="ns, -1 if never in activeQ"), "`InitialAttemptTimestamp`"),
        Field("attempts", Integer(minimum=0), "scheduling attempts so far"),
        Field("unschedulable_count", Integer(minimum=0), "failed attempts that found the pod unschedulable"),
        Field("consecutive_errors_count", Integer(minimum=0), "attempts in a row that ended in an error"),
        Field("plugins", ArrayOf("sorted", item=String()), "`UnschedulablePlugins` of the last attempt"),
        Field("pending", ArrayOf("sorted", item=String()), "`PendingPlugins` of the last attempt"),
    )),
    "EVENT": Record(fields=(
        Field("resource", String(), "the event's resource (`Pod`, `Node`, `AssignedPod`, ...)"),
        Field("action_type", Integer(minimum=0), "Kubernetes' v1.37 `ActionType` bits"),
        Field("custom_label", String(), "the event's custom label; absent when empty", optional=True),
    )),
}
"""Shapes used in several places, by name."""


def _in_flight_entry() -> Either:
    return Either(options=(
        Record(fields=(Field("pod", UID, "a pod popped while events were recorded"),)),
        Record(fields=(Field("event", Ref(name="EVENT"), "a cluster event recorded while pods were in flight"),
                       Field("target", UID, "the pod that is the event's new object; absent when none",
                             optional=True))),
    ))


# --------------------------------------------------------------------------------------------
# Observations per area
# --------------------------------------------------------------------------------------------

_CACHE_PART = (
    Field("nodes", MapOf(key="a NodeInfo's name (a node's name, also for its placeholder or ghost)",
                         value=Ref(name="NODE")),
          "the cache's `Dump()`: every NodeInfo, placeholders and ghosts included"),
    Field("assumed", _uids("sorted"), "the assumed pods"),
    Field("recency", ArrayOf("newest first", item=NODE_NAME),
          "NodeInfo names by generation: generations themselves are not compared (Kubernetes' counter is "
          "process-global), their order is what the snapshot algorithm relies on"),
)
_METRICS = Field("metrics", Ref(name="METRICS"),
                 "the `scheduler_cache_size` gauge as last published (by `cleanup_assumed_pods` at its end, and by "
                 "`update_metrics`); every value is 0 before the first publication")

CACHE_OBSERVATION: Final = Record(fields=(
    *_CACHE_PART,
    Field("snapshot", Ref(name="SNAPSHOT"), "the scheduler's snapshot, as the last `update_snapshot` left it"),
    _METRICS,
    Field("returned", Either(options=(Ref(name="NODE"), Const(value="none"))),
          "what this step's cache call returned besides its error: `add_node` and `update_node` return a clone of "
          "the node's NodeInfo (`n.info.Snapshot()`) in profiles whose `node_operations_return_node_info` holds "
          "(up to v1.36); every other call, and these from v1.37, return nothing: `\"none\"`"),
))

CYCLE_OBSERVATION: Final = Record(fields=(
    Field("scheduler", Record(fields=(
        Field("running", Boolean(), "whether a scheduler process runs"),
        Field("orphaned", MapOf(key="a pod's UID", value=String(note="the node")),
              "bind requests a crashed process left, with the node each names"))),
        "present only while the scheduler is not running or has orphaned bind requests", optional=True),
    Field("kubelet", Record(fields=(
        Field("admitted", _uids("sorted"), "pods a kubelet admitted"),
        Field("failed", MapOf(key="a pod's UID", value=String(note="the reason")),
              "pods a kubelet rejected, with the reason"))),
        "present only once a kubelet handled a pod", optional=True),
    *_CACHE_PART,
    _METRICS,
    Field("pending", _uids("sorted"), "the pods in the scheduling queue"),
    Field("binding", MapOf(key="a pod's UID", value=NODE_NAME),
          "binding cycles in flight, with the node each pod was assumed on"),
    Field("api_pods", MapOf(key="a pod's UID", value=String(note="the node, \"\" if unbound")),
          "the API server's pods and the node each is bound to"),
    Field("unconfirmed", _uids("sorted"), "bound pods whose informer event has not reached the cache"),
    Field("now", NS, "the cluster's clock"),
    Field("filters", MapOf(key="a node's name", value=Record(fields=(
        Field("plugin", String(), "the first filter (in the default profile's order) that rejected the node"),
        Field("code", String(enum=("Unschedulable", "UnschedulableAndUnresolvable")), "its status code")))),
        "this step's scheduling cycle: every node a filter rejected (empty for a step without a cycle)"),
    Field("decision", Record(fields=(
        Field("feasible", ArrayOf("sorted", item=NODE_NAME), "the nodes every filter passed"),
        Field("scores", MapOf(key="a node's name", value=Record(fields=(
            Field("plugins", MapOf(key="a Score plugin's name", value=Integer()),
                  "each Score plugin PreScore did not skip: its normalized score times its weight"),
            Field("total", Integer(), "the sum of the weighted scores")))),
            "with two or more feasible nodes: each scored node (`prioritizeNodes`); empty otherwise"),
        Field("allowed", ArrayOf("sorted", item=NODE_NAME),
              "the nodes `selectHost` may return: every node with the highest total"),
        Field("message", String(), "`FitError.Error()` (or `ErrNoNodesAvailable`), the text of the pod's "
                                   "`PodScheduled` condition; `\"\"` if a node was chosen"),
        Field("chosen", NODE_NAME, "implementations only: the node their own selection returned (`\"\"` if none), "
                                   "which the runner accepts if it is one of `allowed`", optional=True),
        Field("preemption", Record(fields=(
            Field("outcome", String(enum=("Success", "Unschedulable")), "the code of PostFilter's status"),
            Field("node", String(note="a node's name, or \"\""),
                  "the node the pod is nominated to (`\"\"`: none was chosen, or the result left the nomination "
                  "as it was)"),
            Field("victims", _uids("sorted"), "the pods preemption deleted at the API server"))),
              "vectors with `preemption` only: what DefaultPreemption's PostFilter did in a cycle that found no "
              "feasible node (its message is in `message`)", optional=True))),
        "only after a step that ran a scheduling cycle (`schedule_pod`, `fail_scheduling`): what it decided",
        optional=True),
    Field("nominated", MapOf(key="a node's name (`\"\"` after a failure that cleared the nomination)",
                             value=_uids("in the order nominated")),
          "vectors with `preemption` only: the scheduling queue's nominator, the pods nominated to each node; present "
          "only while some pod is nominated", optional=True),
    Field("failures", MapOf(key="a pod's UID", value=Record(fields=(
        Field("type", String(enum=("PodScheduled",)),
              "the type of the condition the failure handler patched, `PodScheduled` (format 4.7.0)"),
        Field("status", String(enum=("False",)), "the condition's status, `False` (format 4.7.0)"),
        Field("reason", String(enum=("Unschedulable", "SchedulerError")),
              "the reason of the `PodScheduled` condition (status False) the failure handler patched"),
        Field("message", String(), "the condition's message, in full"),
        Field("event", String(), "the note of the `FailedScheduling` event it recorded (`truncateMessage`: at most "
                                 "1,024 bytes, ending in \" ...\" when cut)")))),
          "what the failure handler last wrote for each pod the API server has (format 4.6.0); present only while "
          "some pod has one", optional=True),
))

DISPATCHER_OBSERVATION: Final = Record(fields=(
    Field("fifo", _uids("the queue's order"), "objects whose call waits to be popped"),
    Field("in_flight", _uids("sorted"), "objects whose call executes"),
    Field("closed", Boolean(), "whether the dispatcher was closed"),
    Field("calls", MapOf(key="a pod's UID", value=Record(fields=(
        Field("caller", Integer(minimum=0), "the caller: the n-th `add_call` step of the vector, from 0"),
        Field("call", Ref(name="CALL"), "the call, merged with those it absorbed")))),
        "the one call tracked per object"),
    Field("told", ArrayOf("the order sent", item=Tuple(items=(
        Integer(note="caller"), String(note="outcome kind: Success, ExecutionError, Skipped, Overwritten, "
                                            "MergeFailed, Closed"))),
          ), "the values sent to callers during this step"),
    Field("can_pop", Boolean(), "whether the run loop would pop now (v1.34 allows 16 calls executing at once)"),
    Field("metrics", Record(fields=(
        Field("pending_calls", MapOf(key="a call type (`pod_binding`, `pod_status_patch`)", value=Integer(minimum=0)),
              "the `scheduler_pending_async_api_calls` gauge per in-tree call type"),)),
        "the dispatcher's metrics after the step"),
))

QUEUE_OBSERVATION: Final = Record(fields=(
    Field("now", NS, "the queue's clock"),
    Field("active", _uids("QueueSort order: priority, then timestamp, then UID"), "activeQ"),
    Field("backoff", ArrayOf("by expiry (with PopFromBackoffQ: then QueueSort order), then UID",
                             item=Tuple(items=(UID, NS))), "podBackoffQ: `[uid, expiry]`"),
    Field("error_backoff", ArrayOf("by expiry, then UID", item=Tuple(items=(UID, NS))),
          "podErrorBackoffQ: `[uid, expiry]`"),
    Field("unschedulable", MapOf(key="a pod's UID", value=NS),
          "unschedulablePods, with when each was last handed back"),
    Field("pods", MapOf(key="a pod's UID", value=Ref(name="QUEUED_POD")), "every queued pod's QueuedPodInfo"),
    Field("in_flight", _uids("sorted"), "popped pods whose `Done` has not been called (QueueingHints on)"),
    Field("in_flight_events", ArrayOf("in order", item=_in_flight_entry()), "`inFlightEvents`"),
    Field("cycle", Integer(minimum=0), "the scheduling cycle counter"),
    Field("move_request_cycle", Integer(), "the cycle of the last move request (-1: none)"),
    Field("closed", Boolean(), "whether the queue was closed"),
    Field("popped", String(note="a UID or \"none\""), "what this step's `Pop` returned"),
    Field("went", String(enum=("Active", "Backoff", "Unschedulable", "none")),
          "where this step's hand-back sent the pod"),
    Field("nominated", MapOf(key="a node's name (`\"\"` after a failed preemption)",
                             value=_uids("in the order nominated")),
          "the nominator: the pods nominated to each node; present only while some pod is nominated", optional=True),
))

# --------------------------------------------------------------------------------------------
# Areas
# --------------------------------------------------------------------------------------------

CACHE_FAMILY_OPERATIONS: Final = tuple(operation_name(t) for t in CACHE_OPERATIONS)


@dataclass(frozen=True)
class Area:
    """One area of the suite: what an adapter that declares it must implement."""

    name: str
    title: str
    summary: str
    operations: tuple[str, ...]
    observation: Record
    guide: str
    """The page of the spec that explains the area's behaviour."""


_CACHE_SUMMARY = ("Kubernetes' scheduler cache (`pkg/scheduler/backend/cache`): pods assumed, added, updated and "
                  "removed, nodes added, updated and removed, and the snapshot the scheduling cycle reads.")

AREAS: Final[dict[str, Area]] = {a.name: a for a in (
    Area("cache", "Cache", _CACHE_SUMMARY + " Cache vectors check the cache's bookkeeping: pod states, expiry, "
         "NodeInfo accounting, errors and fatal paths.", CACHE_FAMILY_OPERATIONS, CACHE_OBSERVATION, "cache"),
    Area("snapshot", "Snapshot", _CACHE_SUMMARY + " Snapshot vectors check `UpdateSnapshot`: which NodeInfos are "
         "re-cloned, when the lists are rebuilt, the used claims and the consistency error.",
         CACHE_FAMILY_OPERATIONS, CACHE_OBSERVATION, "snapshot"),
    Area("node_tree", "Node tree", _CACHE_SUMMARY + " Node-tree vectors check the zones of the node tree and the "
         "order it gives the snapshot's node list.", CACHE_FAMILY_OPERATIONS, CACHE_OBSERVATION, "snapshot"),
    Area("dispatcher", "API dispatcher", "The API dispatcher's call queue (`pkg/scheduler/backend/api_dispatcher`): "
         "calls added, merged, skipped or overwritten per object, popped, finished, synced, and the dispatcher "
         "closed.", tuple(sorted(DISPATCHER_OPERATION_NAMES)), DISPATCHER_OBSERVATION, "dispatcher"),
    Area("queue", "Scheduling queue", "The scheduling queue (`pkg/scheduler/backend/queue`): activeQ, the backoff "
         "queues, unschedulablePods, in-flight pods and events, QueueingHints.",
         tuple(sorted(QUEUE_OPERATION_NAMES)), QUEUE_OBSERVATION, "queue"),
    Area("cycle", "Scheduling cycle", "ScheduleOne in a small cluster the adapter plays (the API server and the "
         "informer as well as the scheduler): scheduling and binding cycles, the event handlers, crashes and "
         "restarts, kubelet admission.", tuple(sorted(CYCLE_OPERATION_NAMES)), CYCLE_OBSERVATION, "cycle"),
)}
"""Every area, by the name vectors tag it with and adapters declare."""


# --------------------------------------------------------------------------------------------
# Rules
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """A rule of the contract, stated once; ``areas`` empty means every area. ``tests/conformance/
    test_contract.py`` checks each against the vectors."""

    id: str
    text: str
    areas: tuple[str, ...] = ()


CACHE_FAMILY: Final = ("cache", "snapshot", "node_tree")

RULES: Final[tuple[Rule, ...]] = (
    Rule("full_observation", "After every step that is not `fatal`, the adapter reports the full observation "
         "(every field of the area's shape), never a patch; the vector stores patches, the runner rebuilds the "
         "full expected observation and compares all of it."),
    Rule("error_observation", "An `error` result carries the full observation after the call, which includes "
         "whatever the call changed before it failed (Kubernetes does not roll back): `update_pod` to a pod "
         "with an empty UID removes the old pod, then fails with `InvalidPodKey`; `remove_node` of a node missing "
         "from the node tree deletes its NodeInfo, then fails with `NodeNotInTree`; `update_snapshot` that finds "
         "the snapshot inconsistent reports the snapshot as its recovery left it; an `add_call` answered `Skipped` "
         "may have dropped the call it merged with. Most errors change nothing."),
    Rule("fatal_result", "A `fatal` result (the Kubernetes process exits: `klog.FlushAndExit` or a nil "
         "dereference) carries a `kind` and no observation; the vector ends there. Answer it rather than exiting, "
         "so the run can go on."),
    Rule("kinds_not_messages", "Results are compared on `status` and `kind`; `message` is information only "
         "(Kubernetes' text differs between versions)."),
    Rule("returned_on_error", "`returned` is what the call returned besides its error, so on an `error` step it "
         "is `\"none\"`: the calls that return a NodeInfo (`add_node`, `update_node`) never return an error, "
         "only `fatal`.", CACHE_FAMILY),
    Rule("update_snapshot_steps", "Vectors of the cache, snapshot and node_tree areas contain `update_snapshot` "
         "steps: every adapter of these areas keeps a snapshot and updates it from the cache when asked, and "
         "reports it under `snapshot`.", CACHE_FAMILY),
    Rule("unsupported_operation", "An operation that does not exist in the profile (`finish_binding` and "
         "`cleanup_assumed_pods` where assumed pods do not expire) is an `error` of kind `UnsupportedOperation` "
         "that changes nothing.", ("cache",)),
    Rule("defaults", "Arguments are the spec's objects as JSON with the spec's field names; a field equal to its "
         "default is left out and the adapter fills the default in (the tables below give each); an optional "
         "struct that is absent is left out, one present but empty is `{}` (nil versus empty affinity matters)."),
    Rule("enabled_steps", "Vectors contain only steps that can happen (their guard holds); an adapter asked for a "
         "step whose guard it finds false answers `error` with kind `NotEnabled` (no vector expects it). The one "
         "exception is a `schedule_pod` onto a node that does not fit, whose expected result is the rejection.",
         ("cycle",)),
    Rule("no_null", "Observations contain no `null` anywhere: an absent optional part is left out."),
)
