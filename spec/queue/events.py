"""Cluster events and queueing hints: what happened in the cluster, and which plugins care.

This is the scheduling queue's event vocabulary: ``fwk.ActionType``, ``fwk.EventResource``,
``fwk.ClusterEvent`` and ``fwk.QueueingHint`` (staging k8s.io/kube-scheduler framework/types.go,
v0.35.0), ``MatchClusterEvents`` and the special events and labels
(pkg/scheduler/framework/types.go and events.go, v1.35), and the ``EventsToRegister`` of the
default filter plugins (``pkg/scheduler/framework/plugins/*``, v1.35).

A plugin registers the events that may make a pod it rejected schedulable, each with a
*queueing hint*: a function of the pod and the changed objects that answers ``Queue`` or
``QueueSkip``. The spec's hints are constants per registration (:class:`HintFunction`), which is
what Kubernetes' own queue tests use (``queueHintReturnQueue``, ``queueHintReturnSkip``) and what
the framework installs for a registration without a hint function (always ``Queue``). The default
plugins' real hint functions look at the changed node or pod (whether the pod now fits it); they
are not modelled, so :func:`default_hint_map` queues on every registered event, which over-approximates
them: a spec pod is woken at least as often as a Kubernetes one.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntFlag, StrEnum
from typing import Final

from spec.objects import Pod
from spec.resources import pod_requests


class ActionType(IntFlag):
    """``fwk.ActionType``: what happened to an object. The bits are Kubernetes' v1.37 values, the union of the four
    releases' in declaration order: v1.34 has no ``UpdateNodeDeclaredFeature``, and v1.34 to v1.36 have neither
    ``UpdateNodePreemptionPolicy`` nor ``UpdatePodScaleUp`` (a release without a bit never sends it, and its
    ``Update`` and ``All`` cover the bits it has; the integer comparison of :func:`match_cluster_events` orders the
    bits a release has as that release does)."""

    NONE = 0
    ADD = 1 << 0
    DELETE = 1 << 1
    UPDATE_NODE_ALLOCATABLE = 1 << 2
    UPDATE_NODE_LABEL = 1 << 3
    UPDATE_NODE_TAINT = 1 << 4
    """A change of the node's taints or of ``spec.unschedulable``."""
    UPDATE_NODE_CONDITION = 1 << 5
    UPDATE_NODE_ANNOTATION = 1 << 6
    UPDATE_NODE_DECLARED_FEATURE = 1 << 7
    UPDATE_NODE_PREEMPTION_POLICY = 1 << 8
    """A change of the node's ``spec.podPreemptionPolicy`` (v1.37; not modelled: :class:`spec.objects.Node` has no
    such field, so no update of a spec node is one)."""
    UPDATE_POD_LABEL = 1 << 9
    UPDATE_POD_SCALE_DOWN = 1 << 10
    """A resource request of the pod was lowered or removed."""
    UPDATE_POD_SCALE_UP = 1 << 11
    """A resource request of the pod was raised or added (v1.37:
    :attr:`spec.versions.VersionProfile.pod_scale_up_event`)."""
    UPDATE_POD_TOLERATION = 1 << 12
    """A toleration was added (the API allows no other change of tolerations)."""
    UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1 << 13
    UPDATE_POD_GENERATED_RESOURCE_CLAIM = 1 << 14
    ALL = (1 << 15) - 1
    UPDATE = ALL & ~(ADD | DELETE)
    """Any update: every ``Update*`` bit."""


ACTION_NAMES: Final = {
    ActionType.ADD: "Add",
    ActionType.DELETE: "Delete",
    ActionType.UPDATE_NODE_ALLOCATABLE: "UpdateNodeAllocatable",
    ActionType.UPDATE_NODE_LABEL: "UpdateNodeLabel",
    ActionType.UPDATE_NODE_TAINT: "UpdateNodeTaint",
    ActionType.UPDATE_NODE_CONDITION: "UpdateNodeCondition",
    ActionType.UPDATE_NODE_ANNOTATION: "UpdateNodeAnnotation",
    ActionType.UPDATE_NODE_DECLARED_FEATURE: "UpdateNodeDeclaredFeature",
    ActionType.UPDATE_NODE_PREEMPTION_POLICY: "UpdateNodePreemptionPolicy",
    ActionType.UPDATE_POD_LABEL: "UpdatePodLabel",
    ActionType.UPDATE_POD_SCALE_DOWN: "UpdatePodScaleDown",
    ActionType.UPDATE_POD_SCALE_UP: "UpdatePodScaleUp",
    ActionType.UPDATE_POD_TOLERATION: "UpdatePodToleration",
    ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED: "UpdatePodSchedulingGatesEliminated",
    ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM: "UpdatePodGeneratedResourceClaim",
    ActionType.ALL: "All",
    ActionType.UPDATE: "Update",
}
"""``ActionType.String()``; a combination not listed prints as the empty string, as in Go."""


class EventResource(StrEnum):
    """``fwk.EventResource``. ``AssignedPod`` and ``UnschedulablePod`` are Kubernetes' unexported
    resources of incoming pod events, and from v1.37 ``TargetPod`` that of the queued pod's own update
    (:attr:`spec.versions.VersionProfile.target_pod_update_events`); a registration for ``Pod`` matches all three."""

    POD = "Pod"
    ASSIGNED_POD = "AssignedPod"
    UNSCHEDULABLE_POD = "UnschedulablePod"
    TARGET_POD = "TargetPod"
    NODE = "Node"
    PERSISTENT_VOLUME = "PersistentVolume"
    PERSISTENT_VOLUME_CLAIM = "PersistentVolumeClaim"
    CSI_NODE = "storage.k8s.io/CSINode"
    STORAGE_CLASS = "storage.k8s.io/StorageClass"
    WILDCARD = "*"


@dataclass(frozen=True)
class ClusterEvent:
    """``fwk.ClusterEvent``: a resource, an action, and an optional label replacing the generated one."""

    resource: EventResource
    action_type: ActionType
    custom_label: str = ""

    @property
    def label(self) -> str:
        """``Label()``: the custom label, else ``<Resource><Action>``."""
        return self.custom_label or f"{self.resource.value}{ACTION_NAMES.get(self.action_type, '')}"


def is_wildcard(event: ClusterEvent) -> bool:
    """``ClusterEventIsWildCard``: resource ``*`` and action ``All``; such an event is for every pod
    (or, with a pod as its new object, for that pod only).

    Kubernetes: `ClusterEventIsWildCard` (pkg/scheduler/framework/types.go)
    """
    return event.resource is EventResource.WILDCARD and event.action_type == ActionType.ALL


_POD_RESOURCES: Final = (EventResource.ASSIGNED_POD, EventResource.UNSCHEDULABLE_POD, EventResource.TARGET_POD)


def _match_event_resources(registered: EventResource, incoming: EventResource) -> bool:
    return (
        registered is EventResource.WILDCARD
        or registered is incoming
        or (registered is EventResource.POD and incoming in _POD_RESOURCES)
    )


def match_cluster_events(registered: ClusterEvent, incoming: ClusterEvent) -> bool:
    """Whether a registration covers an incoming event: the incoming event is the same or more specific.

    A wildcard registration matches everything. Otherwise the resources must match (``Pod`` covers
    assigned and unschedulable pods), the actions must overlap, and the incoming action must not be
    more general than the registered one: Kubernetes compares the bit patterns as integers, so a
    registration for ``Update`` matches ``UpdateNodeLabel`` but one for ``UpdateNodeLabel`` does not
    match a generic ``Update``. An incoming wildcard event matches only a wildcard registration.

    Kubernetes: `MatchClusterEvents` (pkg/scheduler/framework/types.go)
    """
    return is_wildcard(registered) or (
        _match_event_resources(registered.resource, incoming.resource)
        and registered.action_type & incoming.action_type != 0
        and incoming.action_type <= registered.action_type
    )


# ============================================================================================
# The special events (pkg/scheduler/framework/events.go)
# ============================================================================================

SCHEDULE_ATTEMPT_FAILURE: Final = "ScheduleAttemptFailure"
BACKOFF_COMPLETE: Final = "BackoffComplete"
POP_FROM_BACKOFF_Q: Final = "PopFromBackoffQ"
FORCE_ACTIVATE: Final = "ForceActivate"
UNSCHEDULABLE_TIMEOUT: Final = "UnschedulableTimeout"

EVENT_ASSIGNED_POD_ADD: Final = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD)
EVENT_ASSIGNED_POD_UPDATE: Final = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.UPDATE)
EVENT_ASSIGNED_POD_DELETE: Final = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)
EVENT_UNSCHEDULED_POD_ADD: Final = ClusterEvent(EventResource.UNSCHEDULABLE_POD, ActionType.ADD)
EVENT_UNSCHEDULED_POD_UPDATE: Final = ClusterEvent(EventResource.UNSCHEDULABLE_POD, ActionType.UPDATE)
EVENT_UNSCHEDULED_POD_DELETE: Final = ClusterEvent(EventResource.UNSCHEDULABLE_POD, ActionType.DELETE)
EVENT_NODE_ADD: Final = ClusterEvent(EventResource.NODE, ActionType.ADD)
EVENT_NODE_DELETE: Final = ClusterEvent(EventResource.NODE, ActionType.DELETE)
EVENT_UNSCHEDULABLE_TIMEOUT: Final = ClusterEvent(EventResource.WILDCARD, ActionType.ALL, UNSCHEDULABLE_TIMEOUT)
"""The leftover flush moves a pod with this event."""
EVENT_FORCE_ACTIVATE: Final = ClusterEvent(EventResource.WILDCARD, ActionType.ALL, FORCE_ACTIVATE)
"""``Activate`` records this event, for the activated pod only, when that pod is in flight."""


def pod_scheduling_properties_change(
    new: Pod, old: Pod, target_pod: bool = False, scale_up: bool = False
) -> tuple[ClusterEvent, ...]:
    """The specific update events an update of a pod stands for, in Kubernetes' extractor order.

    The resource is ``AssignedPod`` when ``new`` is bound, else ``TargetPod`` when the queue derives the events of
    the pod it updates and the release has that resource (``target_pod``, v1.37's ``isTargetPod``), else
    ``UnschedulablePod``. Of the
    extractors only those whose fields :class:`spec.objects.Pod` has can fire: labels changed, requests scaled down
    (a resource's request lowered or removed, ``resource.PodRequests`` with pod-level resources), requests scaled up
    (a resource's request raised or added; only where the release has the extractor, ``scale_up``: v1.37's
    ``extractPodScaleUp``, :attr:`spec.versions.VersionProfile.pod_scale_up_event`), the last scheduling gate
    removed, and tolerations added (a change of their number). Resource-claim statuses are not modelled. When no
    extractor fires the generic ``Update`` event is returned.

    Kubernetes: `PodSchedulingPropertiesChange` (pkg/scheduler/framework/events.go)
    """
    if new.node_name:
        resource = EventResource.ASSIGNED_POD
    else:
        resource = EventResource.TARGET_POD if target_pod else EventResource.UNSCHEDULABLE_POD
    actions: list[ActionType] = []
    new_requests = pod_requests(new, pod_level_resources=True)
    old_requests = pod_requests(old, pod_level_resources=True)
    if new.labels != old.labels:
        actions.append(ActionType.UPDATE_POD_LABEL)
    if any(name not in new_requests or new_requests[name] < quantity for name, quantity in old_requests.items()):
        actions.append(ActionType.UPDATE_POD_SCALE_DOWN)
    if scale_up and any(name not in old_requests or old_requests[name] < quantity
                        for name, quantity in new_requests.items()):
        actions.append(ActionType.UPDATE_POD_SCALE_UP)
    if not new.scheduling_gates and old.scheduling_gates:
        actions.append(ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)
    if len(new.tolerations) != len(old.tolerations):
        actions.append(ActionType.UPDATE_POD_TOLERATION)
    return tuple(ClusterEvent(resource, action) for action in actions or [ActionType.UPDATE])


# ============================================================================================
# Queueing hints
# ============================================================================================


class QueueingHint(Enum):
    """``fwk.QueueingHint``: whether an event may make a pod a plugin rejected schedulable."""

    QUEUE_SKIP = "QueueSkip"
    QUEUE = "Queue"


@dataclass(frozen=True)
class HintFunction:
    """``QueueingHintFunction``: plugin ``plugin`` registered an event with a hint that always
    answers ``hint`` (a hint function returning an error counts as ``Queue`` in Kubernetes)."""

    plugin: str
    hint: QueueingHint = QueueingHint.QUEUE

    def answer(self, pod_uid: str, target: str | None) -> QueueingHint:
        """The hint for the pod ``pod_uid`` about an event whose new object is the pod ``target`` (None: no pod):
        ``hint``, whatever the event's objects."""
        return self.hint


@dataclass(frozen=True)
class OwnUpdateHintFunction(HintFunction):
    """A hint function that reads the event's new pod: ``hint`` for an update of the pod being requeued itself,
    ``QueueSkip`` for another pod's: SchedulingGates' ``isSchedulableAfterUpdatePodSchedulingGatesEliminated``
    (pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go, v1.34 to v1.36).

    An event with no pod object gets ``QueueSkip`` here. Kubernetes never asks this hint about one: the scheduler
    sends a pod update with its pods (``Update``, and ``AssignedPodUpdated``'s ``AssignedPod`` events, which this
    registration's ``Pod`` resource would also match, are never gates-eliminated: a bound pod has no gates), and
    its hint would dereference the missing pod. The queue world refuses a move that could reach this hint
    (:func:`spec.queue.operations.apply_queue_operation`), so no vector contains one.
    """

    def answer(self, pod_uid: str, target: str | None) -> QueueingHint:
        """``hint`` when ``target`` is ``pod_uid``, else ``QueueSkip``."""
        return self.hint if target == pod_uid else QueueingHint.QUEUE_SKIP


@dataclass(frozen=True)
class HintRegistration:
    """One entry of a ``QueueingHintMap``: the hints registered for ``event``, in order."""

    event: ClusterEvent
    functions: tuple[HintFunction, ...]


HintMap = tuple[HintRegistration, ...]
"""``QueueingHintMap`` of one profile: each registered event with its hint functions."""

_POD, _NODE = EventResource.POD, EventResource.NODE
_A = ActionType

DEFAULT_PLUGIN_EVENTS: Final = {
    "NodeResourcesFit": (
        ClusterEvent(_POD, _A.DELETE | _A.UPDATE_POD_SCALE_DOWN),
        ClusterEvent(_NODE, _A.ADD | _A.UPDATE_NODE_ALLOCATABLE),
    ),
    "NodePorts": (ClusterEvent(_POD, _A.DELETE), ClusterEvent(_NODE, _A.ADD)),
    "NodeName": (ClusterEvent(_NODE, _A.ADD),),
    "NodeUnschedulable": (
        ClusterEvent(_NODE, _A.ADD | _A.UPDATE_NODE_TAINT),
        ClusterEvent(_POD, _A.UPDATE_POD_TOLERATION),
    ),
    "TaintToleration": (
        ClusterEvent(_NODE, _A.ADD | _A.UPDATE_NODE_TAINT),
        ClusterEvent(_POD, _A.UPDATE_POD_TOLERATION),
    ),
    "NodeAffinity": (ClusterEvent(_NODE, _A.ADD | _A.UPDATE_NODE_LABEL),),
}
"""``EventsToRegister`` of the default filter plugins with QueueingHints on (v1.35;
noderesources/fit.go with InPlacePodVerticalScaling, nodeports, nodename, nodeunschedulable,
tainttoleration, nodeaffinity). ImageLocality only scores, so it never rejects a pod."""

_OFF_EXTRA: Final = _A.UPDATE_NODE_TAINT | _A.UPDATE_NODE_LABEL


def default_plugin_events(plugin: str, queueing_hints: bool = True) -> tuple[ClusterEvent, ...]:
    """A default plugin's registrations. With QueueingHints off every Node/Add registration also
    covers taint and label updates (the plugins register more coarsely without hints), and the
    Pod/UpdatePodToleration registrations are absent. Fails with ``ValueError`` naming an unknown plugin.

    Kubernetes: `Fit.EventsToRegister` (pkg/scheduler/framework/plugins/noderesources/fit.go)
    Kubernetes: `NodeAffinity.EventsToRegister` (pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go)
    """
    if plugin not in DEFAULT_PLUGIN_EVENTS:
        raise ValueError(f"no default registrations for plugin {plugin!r}; known: {', '.join(DEFAULT_PLUGIN_EVENTS)}")
    events = DEFAULT_PLUGIN_EVENTS[plugin]
    if queueing_hints:
        return events
    widened = []
    for event in events:
        if event.resource is _NODE and event.action_type & _A.ADD:
            widened.append(ClusterEvent(_NODE, event.action_type | _OFF_EXTRA))
        elif event.action_type != _A.UPDATE_POD_TOLERATION:
            widened.append(event)
    return tuple(widened)


def hint_map(registrations: dict[str, tuple[ClusterEvent, ...]], hint: QueueingHint = QueueingHint.QUEUE) -> HintMap:
    """The hint map in which each plugin of ``registrations`` answers ``hint`` for each event it
    registered, grouped by event in order of first registration (as the framework builds it)."""
    grouped: dict[ClusterEvent, list[HintFunction]] = {}
    for plugin, events in registrations.items():
        for event in events:
            grouped.setdefault(event, []).append(HintFunction(plugin, hint))
    return tuple(HintRegistration(event, tuple(functions)) for event, functions in grouped.items())


def default_hint_map(queueing_hints: bool = True, plugins: tuple[str, ...] | None = None) -> HintMap:
    """The hint map of the default plugins (all of :data:`DEFAULT_PLUGIN_EVENTS` when None): each
    queues the pod on every event it registered. Fails with ``ValueError`` naming an unknown plugin.

    Kubernetes: `frameworkImpl.EventsToRegister` (pkg/scheduler/framework/runtime/framework.go)
    """
    names = tuple(DEFAULT_PLUGIN_EVENTS) if plugins is None else plugins
    return hint_map({name: default_plugin_events(name, queueing_hints) for name in names})


SCHEDULING_GATES: Final = "SchedulingGates"
"""``names.SchedulingGates``: the PreEnqueue plugin the spec models (:mod:`spec.queue.gates`)."""
SCHEDULING_GATES_HINTS: Final[HintMap] = (
    HintRegistration(
        ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED),
        (OwnUpdateHintFunction(SCHEDULING_GATES),),
    ),
)
"""``SchedulingGates.EventsToRegister`` with QueueingHints on, v1.34 to v1.36: ``Pod`` gates-eliminated updates, with
a hint that queues the pod for its own update only (:class:`OwnUpdateHintFunction`; another pod's update reaches
it through the events recorded while pods are in flight). With QueueingHints off it registers nothing."""
SCHEDULING_GATES_TARGET_POD_HINTS: Final[HintMap] = (
    HintRegistration(
        ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED),
        (HintFunction(SCHEDULING_GATES),),
    ),
)
"""``SchedulingGates.EventsToRegister`` from v1.37 (:attr:`spec.versions.VersionProfile.target_pod_update_events`):
``TargetPod`` gates-eliminated updates with a hint that always answers Queue
(``isSchedulableAfterUpdateTargetPodSchedulingGatesEliminated``), registered whatever the gates (v1.37 has no
SchedulerQueueingHints gate)."""


def scheduling_gates_hints(queueing_hints: bool, target_pod: bool) -> HintMap:
    """SchedulingGates' registrations for the hint map: :data:`SCHEDULING_GATES_TARGET_POD_HINTS` in a release whose
    pod updates are ``TargetPod`` events (``target_pod``, v1.37), else :data:`SCHEDULING_GATES_HINTS` with
    QueueingHints on and none with them off.

    Kubernetes: `SchedulingGates.EventsToRegister` (pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go)
    """
    if target_pod:
        return SCHEDULING_GATES_TARGET_POD_HINTS
    return SCHEDULING_GATES_HINTS if queueing_hints else ()


def matching_hints(hints: HintMap, event: ClusterEvent) -> tuple[HintFunction, ...]:
    """The hint functions of every registration that covers ``event``, in map order."""
    return tuple(f for r in hints if match_cluster_events(r.event, event) for f in r.functions)


def is_event_of_interest(hints: HintMap, event: ClusterEvent) -> bool:
    """``isEventOfInterest``: a wildcard event, or one some registration covers.

    Kubernetes: `PriorityQueue.isEventOfInterest` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    return is_wildcard(event) or any(match_cluster_events(r.event, event) for r in hints)
