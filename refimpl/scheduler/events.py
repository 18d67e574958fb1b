"""Cluster events: what happened in the cluster, and which plugins care (the scheduling queue's event vocabulary).

This is ``fwk.ClusterEvent`` / ``ActionType`` / ``EventResource`` (staging kube-scheduler framework/types.go),
``MatchClusterEvents`` (pkg/scheduler/framework/types.go), the event constants and
``PodSchedulingPropertiesChange`` / ``NodeSchedulingPropertiesChange`` (pkg/scheduler/framework/events.go), and
``QueueingHint`` with the per-profile hint maps (scheduling_queue.go), as of v1.35.

Only what :mod:`spec.objects` models can change: pod labels, annotations, scheduling gates, resource-claim
statuses and node conditions / annotations are not modelled, so their extractors never fire.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, IntFlag, StrEnum
from typing import Final

from refimpl.cache.resources import pod_requests
from spec.objects import Node, Pod


class ActionType(IntFlag):
    """``fwk.ActionType``: what happened to an object; bit values in Kubernetes' declaration order."""

    NONE = 0
    ADD = 1 << 0
    DELETE = 1 << 1
    UPDATE_NODE_ALLOCATABLE = 1 << 2
    UPDATE_NODE_LABEL = 1 << 3
    UPDATE_NODE_TAINT = 1 << 4
    UPDATE_NODE_CONDITION = 1 << 5
    UPDATE_NODE_ANNOTATION = 1 << 6
    UPDATE_POD_LABEL = 1 << 7
    UPDATE_POD_SCALE_DOWN = 1 << 8
    UPDATE_POD_SCALE_UP = 1 << 9
    """v1.37: a request raised or added (``extractPodScaleUp``)."""
    UPDATE_POD_TOLERATION = 1 << 10
    UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1 << 11
    UPDATE_POD_GENERATED_RESOURCE_CLAIM = 1 << 12
    UPDATE_POD_OTHER = 1 << 13
    """``updatePodOther`` (unexported): a pod update none of the specific kinds describes."""
    ALL = (1 << 14) - 1
    UPDATE = (
        UPDATE_NODE_ALLOCATABLE
        | UPDATE_NODE_LABEL
        | UPDATE_NODE_TAINT
        | UPDATE_NODE_CONDITION
        | UPDATE_NODE_ANNOTATION
        | UPDATE_POD_LABEL
        | UPDATE_POD_SCALE_DOWN
        | UPDATE_POD_SCALE_UP
        | UPDATE_POD_TOLERATION
        | UPDATE_POD_SCHEDULING_GATES_ELIMINATED
        | UPDATE_POD_GENERATED_RESOURCE_CLAIM
        | UPDATE_POD_OTHER
    )


class EventResource(StrEnum):
    """``fwk.EventResource``. ``ASSIGNED_POD`` / ``UNSCHEDULABLE_POD`` / ``TARGET_POD`` (v1.37: the queued pod's own
    update) are internal: only incoming events use them, and a registration for ``POD`` matches all three."""

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
        """``Label()``: the custom label, else ``<Resource><Action>`` as Kubernetes' metrics print it."""
        if self.custom_label:
            return self.custom_label
        return f"{self.resource.value}{_action_name(self.action_type)}"

    @property
    def is_wildcard(self) -> bool:
        """``ClusterEventIsWildCard``: resource ``*`` and action ``All``; such an event moves every pod."""
        return self.resource is EventResource.WILDCARD and self.action_type == ActionType.ALL


def _action_name(action: ActionType) -> str:
    if action == ActionType.ALL:
        return "All"
    if action == ActionType.UPDATE:
        return "Update"
    return "".join(part.title() for part in (action.name or "").lower().split("_"))


# Special event labels (pkg/scheduler/framework/events.go).
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
EVENT_FORCE_ACTIVATE: Final = ClusterEvent(EventResource.WILDCARD, ActionType.ALL, FORCE_ACTIVATE)


def _match_event_resources(registered: EventResource, incoming: EventResource) -> bool:
    return (
        registered is EventResource.WILDCARD
        or registered is incoming
        or (
            registered is EventResource.POD
            and incoming in (EventResource.ASSIGNED_POD, EventResource.UNSCHEDULABLE_POD, EventResource.TARGET_POD)
        )
    )


def match_cluster_events(registered: ClusterEvent, incoming: ClusterEvent) -> bool:
    """``MatchClusterEvents``: whether an event a plugin registered for covers an incoming event.

    A wildcard registration matches everything. Otherwise the resources must match (``Pod`` covers assigned and
    unschedulable pods), the actions must overlap, and the incoming action must not be more general than the
    registered one (Kubernetes compares the bit patterns as integers: ``incoming <= registered``), so a
    registration for ``Update`` matches ``UpdateNodeLabel`` but one for ``UpdateNodeLabel`` does not match a
    generic ``Update``. An incoming wildcard matches only a wildcard registration.
    """
    return registered.is_wildcard or (
        _match_event_resources(registered.resource, incoming.resource)
        and registered.action_type & incoming.action_type != 0
        and incoming.action_type <= registered.action_type
    )


def match_any_cluster_event(incoming: ClusterEvent, registered: Iterable[ClusterEvent]) -> bool:
    """``MatchAnyClusterEvent``: whether any of ``registered`` covers ``incoming``."""
    return any(match_cluster_events(r, incoming) for r in registered)


# ============================================================================================
# Interpreting updates
# ============================================================================================


def _scaled_down(new: Mapping[str, int], old: Mapping[str, int]) -> bool:
    return any(name not in new or new[name] < quantity for name, quantity in old.items())


def pod_scheduling_properties_change(
    new: Pod, old: Pod, target_pod: bool = False, scale_up: bool = False
) -> list[ClusterEvent]:
    """``PodSchedulingPropertiesChange``: the specific update events an update of a pod stands for.

    The resource is ``AssignedPod`` when ``new`` is bound, else ``TargetPod`` for the queue's own update of the pod
    in a release that has it (``target_pod``: v1.37's ``isTargetPod``), else ``UnschedulablePod``. Modelled
    extractors, in Kubernetes' order: labels changed, requests scaled down (a resource removed or lowered in
    ``resource.PodRequests``: :func:`refimpl.cache.resources.pod_requests` with pod-level resources), requests
    scaled up (a resource added or raised; ``scale_up``: v1.37's ``extractPodScaleUp``), the last scheduling gate
    removed, tolerations added (the API only allows adding, so a length change). When none fires, the generic
    ``Update`` event is returned.
    """
    if new.node_name:
        resource = EventResource.ASSIGNED_POD
    else:
        resource = EventResource.TARGET_POD if target_pod else EventResource.UNSCHEDULABLE_POD
    events: list[ClusterEvent] = []
    if new.labels != old.labels:
        events.append(ClusterEvent(resource, ActionType.UPDATE_POD_LABEL))
    new_requests = pod_requests(new, pod_level_resources=True)
    old_requests = pod_requests(old, pod_level_resources=True)
    if _scaled_down(new_requests, old_requests):
        events.append(ClusterEvent(resource, ActionType.UPDATE_POD_SCALE_DOWN))
    if scale_up and _scaled_down(old_requests, new_requests):  # extractPodScaleUp: the same test, old and new swapped
        events.append(ClusterEvent(resource, ActionType.UPDATE_POD_SCALE_UP))
    if old.scheduling_gates and not new.scheduling_gates:
        events.append(ClusterEvent(resource, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED))
    if len(new.tolerations) != len(old.tolerations):
        events.append(ClusterEvent(resource, ActionType.UPDATE_POD_TOLERATION))
    if not events:
        events.append(ClusterEvent(resource, ActionType.UPDATE))
    return events


def node_scheduling_properties_change(new: Node, old: Node) -> list[ClusterEvent]:
    """``NodeSchedulingPropertiesChange``: the specific update events an update of a node stands for, in
    Kubernetes' order: spec.unschedulable cleared (reported as ``UpdateNodeTaint``), allocatable changed, labels
    changed, taints changed. May be empty (then no event is sent at all)."""
    actions: list[ActionType] = []
    if new.unschedulable != old.unschedulable and not new.unschedulable:
        actions.append(ActionType.UPDATE_NODE_TAINT)
    if new.allocatable != old.allocatable:
        actions.append(ActionType.UPDATE_NODE_ALLOCATABLE)
    if new.labels != old.labels:
        actions.append(ActionType.UPDATE_NODE_LABEL)
    if new.taints != old.taints:
        actions.append(ActionType.UPDATE_NODE_TAINT)
    return [ClusterEvent(EventResource.NODE, action) for action in actions]


# ============================================================================================
# Queueing hints
# ============================================================================================


class QueueingHint(Enum):
    """``fwk.QueueingHint``: whether an event may make a pod rejected by a plugin schedulable."""

    QUEUE_SKIP = 0
    QUEUE = 1


QueueingHintFn = Callable[[Pod, object | None, object | None], QueueingHint]
"""``QueueingHintFn(logger, pod, oldObj, newObj)``; raising an exception counts as ``QUEUE``."""


@dataclass(frozen=True)
class QueueingHintFunction:
    """``QueueingHintFunction``: a plugin's hint for one registered event; ``fn`` None means always ``QUEUE``
    (the framework's ``defaultQueueingHintFn`` for registrations without a hint)."""

    plugin_name: str
    fn: QueueingHintFn | None = None

    def hint(self, pod: Pod, old: object | None, new: object | None) -> QueueingHint:
        """Run the hint; an exception is treated as ``QUEUE`` so the pod is not stuck (as Kubernetes does)."""
        if self.fn is None:
            return QueueingHint.QUEUE
        try:
            return self.fn(pod, old, new)
        except Exception:  # Kubernetes logs the hint's error and queues the pod.
            return QueueingHint.QUEUE


QueueingHintMap = Mapping[ClusterEvent, Sequence[QueueingHintFunction]]
"""``QueueingHintMap``: for each registered event, the hints of the plugins that registered it."""
QueueingHintMapPerProfile = Mapping[str, QueueingHintMap]
"""``QueueingHintMapPerProfile``: keyed by profile (scheduler) name."""


@dataclass(frozen=True)
class ClusterEventWithHint:
    """``fwk.ClusterEventWithHint``: one entry of a plugin's ``EventsToRegister``; ``fn`` None means always
    ``QUEUE``."""

    event: ClusterEvent
    fn: QueueingHintFn | None = None


_POD = EventResource.POD
_NODE = EventResource.NODE
_PRE_CHECK_EXTRA: Final = ActionType.UPDATE_NODE_TAINT | ActionType.UPDATE_NODE_LABEL
"""Without QueueingHints every plugin registering Node/Add also registers these (issue #109437: a Node/Add
filtered out by preCheck must not be missed)."""

DEFAULT_PLUGIN_EVENTS: Final[Mapping[str, tuple[ClusterEvent, ...]]] = {
    "NodeResourcesFit": (
        ClusterEvent(_POD, ActionType.DELETE | ActionType.UPDATE_POD_SCALE_DOWN),
        ClusterEvent(_NODE, ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE),
    ),
    "NodePorts": (ClusterEvent(_POD, ActionType.DELETE), ClusterEvent(_NODE, ActionType.ADD)),
    "NodeName": (ClusterEvent(_NODE, ActionType.ADD),),
    "NodeUnschedulable": (
        ClusterEvent(_NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
        ClusterEvent(_POD, ActionType.UPDATE_POD_TOLERATION),
    ),
    "TaintToleration": (
        ClusterEvent(_NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
        ClusterEvent(_POD, ActionType.UPDATE_POD_TOLERATION),
    ),
    "NodeAffinity": (ClusterEvent(_NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),),
}
"""``EventsToRegister`` of the default filter plugins with QueueingHints on (v1.35; noderesources/fit.go,
nodeports, nodename, nodeunschedulable, tainttoleration, nodeaffinity). ImageLocality only scores, so it never
rejects a pod and registers nothing."""


def default_plugin_events(name: str, queueing_hints_enabled: bool = True) -> tuple[ClusterEvent, ...]:
    """A default plugin's registrations; with QueueingHints off each Node/Add registration also covers taint and
    label updates (and Pod updates are not registered: the queue's ``Update`` re-activates changed pods itself).
    Fails with ``ValueError`` naming an unknown plugin."""
    if name not in DEFAULT_PLUGIN_EVENTS:
        raise ValueError(
            f"no default event registrations for plugin {name!r}; known: {', '.join(DEFAULT_PLUGIN_EVENTS)}"
        )
    events = DEFAULT_PLUGIN_EVENTS[name]
    if queueing_hints_enabled:
        return events
    widened = []
    for event in events:
        if event.resource is _NODE and event.action_type & ActionType.ADD:
            widened.append(ClusterEvent(_NODE, event.action_type | _PRE_CHECK_EXTRA))
        elif not (event.resource is _POD and event.action_type == ActionType.UPDATE_POD_TOLERATION):
            widened.append(event)
    return tuple(widened)


def default_queueing_hint_map(
    plugin_names: Iterable[str] | None = None, queueing_hints_enabled: bool = True
) -> dict[ClusterEvent, list[QueueingHintFunction]]:
    """A hint map in which the named default plugins (all of :data:`DEFAULT_PLUGIN_EVENTS` when None) queue a pod
    on every event they registered, as the framework does for registrations without a hint function (and for all
    of them when QueueingHints are off). Fails with ``ValueError`` naming an unknown plugin."""
    names = list(DEFAULT_PLUGIN_EVENTS) if plugin_names is None else list(plugin_names)
    result: dict[ClusterEvent, list[QueueingHintFunction]] = {}
    for name in names:
        for event in default_plugin_events(name, queueing_hints_enabled):
            result.setdefault(event, []).append(QueueingHintFunction(name))
    return result


def build_queueing_hint_map(
    registrations: Mapping[str, Iterable[ClusterEventWithHint]], queueing_hints_enabled: bool = True
) -> dict[ClusterEvent, list[QueueingHintFunction]]:
    """The queue's hint map from each plugin's ``EventsToRegister`` (plugin name -> registrations), as the
    framework builds it; with QueueingHints off every hint is replaced by always ``QUEUE``."""
    result: dict[ClusterEvent, list[QueueingHintFunction]] = {}
    for name, events in registrations.items():
        for registration in events:
            fn = registration.fn if queueing_hints_enabled else None
            result.setdefault(registration.event, []).append(QueueingHintFunction(name, fn))
    return result
