"""The abstraction function of the scheduling queue: refimpl's ``SchedulingQueue`` read as the spec's value.

Shared by the refinement test (``tests/refimpl/scheduler/test_queue_refinement.py``) and the reference adapter's
queue area (:mod:`conformance.adapters.refimpl_queue`). It also translates the spec's event vocabulary
(:mod:`spec.queue.events`) to refimpl's (:mod:`refimpl.scheduler.events`) and back: the two are independent
statements of the same Kubernetes types, so action types are matched by name (refimpl has no
``UpdateNodeDeclaredFeature`` or ``UpdateNodePreemptionPolicy`` bit; the spec none for refimpl's internal
``updatePodOther``).
"""

from __future__ import annotations

import enum
from typing import TypeVar

from refimpl.scheduler import events as ref
from refimpl.scheduler.active_queue import RecordedEvent as RefRecordedEvent
from refimpl.scheduler.queue import SchedulingQueue as RefQueue
from refimpl.scheduler.queued_pod_info import QueuedPodInfo
from spec.frozenmap import FrozenMap
from spec.objects import Pod
from spec.queue import events as spec
from spec.queue.nominator import Nominator
from spec.queue.state import InFlightEntry, PodPopped, QueueConfig, QueuedPod, RecordedEvent, SchedulingQueue

_Flag = TypeVar("_Flag", bound=enum.Flag)


def _same_bits(action: enum.Flag, target: type[_Flag], target_name: str) -> _Flag:
    """``action`` as ``target``'s flag with the same named bits (``All`` and ``Update``, the combinations, by name)."""
    source = type(action)
    for combination in ("ALL", "UPDATE"):
        if action == source[combination]:
            return target[combination]
    result = target["NONE"]
    for flag in source:  # the single bits
        if flag.name and action & flag:
            if flag.name not in target.__members__:
                raise ValueError(f"{target_name} has no action type {flag.name}")
            result |= target[flag.name]
    return result


def ref_action(action: spec.ActionType) -> ref.ActionType:
    """The refimpl action type with the same named bits (``All`` and ``Update`` as refimpl's own)."""
    return _same_bits(action, ref.ActionType, "refimpl")


def spec_action(action: ref.ActionType) -> spec.ActionType:
    """The spec action type with the same named bits."""
    return _same_bits(action, spec.ActionType, "the spec")


def ref_event(event: spec.ClusterEvent) -> ref.ClusterEvent:
    return ref.ClusterEvent(ref.EventResource(event.resource.value), ref_action(event.action_type), event.custom_label)


def spec_event(event: ref.ClusterEvent) -> spec.ClusterEvent:
    resource = spec.EventResource(event.resource.value)
    return spec.ClusterEvent(resource, spec_action(event.action_type), event.custom_label)


def _constant(hint: spec.QueueingHint) -> ref.QueueingHintFn:
    answer = ref.QueueingHint.QUEUE if hint is spec.QueueingHint.QUEUE else ref.QueueingHint.QUEUE_SKIP

    def fn(pod: Pod, old: object | None, new: object | None) -> ref.QueueingHint:
        return answer

    return fn


def _own_update(hint: spec.HintFunction) -> ref.QueueingHintFn:
    def fn(pod: Pod, old: object | None, new: object | None) -> ref.QueueingHint:
        target = new.uid if isinstance(new, Pod) else None
        return _constant(hint.answer(pod.uid, target))(pod, old, new)

    return fn


def _ref_function(hint: spec.HintFunction) -> ref.QueueingHintFunction:
    """A spec hint function as refimpl's: a constant, or one that reads the event's pod."""
    if isinstance(hint, spec.OwnUpdateHintFunction):
        return ref.QueueingHintFunction(hint.plugin, _own_update(hint))
    return ref.QueueingHintFunction(hint.plugin, _constant(hint.hint))


def ref_hint_map(config: QueueConfig, without: frozenset[str] = frozenset()) -> ref.QueueingHintMapPerProfile:
    """The spec queue's hint map as refimpl's, one per profile in ``scheduler_names``, leaving out the functions of
    the plugins named in ``without``."""
    hint_map: dict[ref.ClusterEvent, list[ref.QueueingHintFunction]] = {}
    for registration in config.hints:
        functions = [_ref_function(f) for f in registration.functions if f.plugin not in without]
        if functions:
            hint_map.setdefault(ref_event(registration.event), []).extend(functions)
    return {name: hint_map for name in config.scheduler_names}


def abstract_pod_info(pinfo: QueuedPodInfo) -> QueuedPod:
    """A refimpl pod info as the spec's (its cached backoff expiry is not state: the spec recomputes it)."""
    return QueuedPod(
        pod=pinfo.pod,
        timestamp=pinfo.timestamp,
        initial_attempt_timestamp=pinfo.initial_attempt_timestamp,
        attempts=pinfo.attempts,
        unschedulable_count=pinfo.unschedulable_count,
        consecutive_errors_count=pinfo.consecutive_errors_count,
        unschedulable_plugins=frozenset(pinfo.unschedulable_plugins),
        pending_plugins=frozenset(pinfo.pending_plugins),
        gating_plugin=pinfo.gating_plugin,
    )


def abstract_recorded(recorded: RefRecordedEvent) -> RecordedEvent:
    target = recorded.new.uid if isinstance(recorded.new, Pod) else None
    return RecordedEvent(spec_event(recorded.event), target)


def abstract_scheduling_queue(queue: RefQueue, config: QueueConfig) -> SchedulingQueue:
    """``queue`` as a spec :class:`~spec.queue.state.SchedulingQueue` with ``config`` (refimpl does not keep one)."""
    parts = queue.sub_queues()

    def pods(name: str) -> FrozenMap[str, QueuedPod]:
        return FrozenMap({p.uid: abstract_pod_info(p) for p in parts[name]})

    entries: list[InFlightEntry] = [
        PodPopped(e) if isinstance(e, str) else abstract_recorded(e) for e in queue.in_flight_entries()
    ]
    return SchedulingQueue(
        config=config,
        now=queue.clock.now(),
        active_q=pods("active"),
        backoff_q=pods("backoff"),
        error_backoff_q=pods("error_backoff"),
        unschedulable_pods=pods("unschedulable"),
        in_flight_pods=FrozenMap({p.uid: p for p in queue.in_flight_pods()}),
        in_flight_events=tuple(entries),
        scheduling_cycle=queue.scheduling_cycle(),
        move_request_cycle=queue.move_request_cycle(),
        closed=queue.closed,
        nominator=Nominator(
            FrozenMap({node: tuple(ref.uid for ref in refs) for node, refs in queue.nominator.nominated_pods.items()}),
            FrozenMap(queue.nominator.pod_to_node),
        ),
    )
