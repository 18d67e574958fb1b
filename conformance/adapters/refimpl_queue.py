"""The queue area on the reference implementation: :class:`refimpl.scheduler.queue.SchedulingQueue` driven as the
scheduler drives it.

The harness plays the scheduler's side of :mod:`spec.queue.operations`: it keeps the ``QueuedPodInfo`` each pop
returned and hands it back on failure with the plugins the step names, passes the current ``SchedulingCycle()``
unless the step names a cycle, steps a fake clock, and plays ``Run``'s two loops for ``queue_run_for`` (the backoff
flush at every whole second, the leftover flush every flush period from time 0, as :func:`spec.queue.queue.run_for`).
Observations are built from refimpl's own pod infos and backoff expiries (:func:`conformance.observe.queue_json`).

Subclasses override one method each to introduce a bug (``tests/conformance/gallery``).
"""

from __future__ import annotations

from typing import Any, Final

from conformance.adapters.refimpl_queue_abstraction import ref_event, ref_hint_map, spec_event
from conformance.observe import NO_TIME, NOTHING, QueuedPodView, event_json, queue_json
from refimpl.cache import FakeClock
from refimpl.dispatcher import NominatingInfo, NominatingMode
from refimpl.scheduler.events import QueueingHintMap, QueueingHintMapPerProfile
from refimpl.scheduler.plugins.scheduling_gates import SchedulingGates
from refimpl.scheduler.queue import QueueError, SchedulingQueue
from refimpl.scheduler.queued_pod_info import QueuedPodInfo
from spec.objects import Pod, with_node_name
from spec.queue.backoff import BACKOFF_Q_ORDERING_WINDOW
from spec.queue.events import SCHEDULING_GATES
from spec.queue.operations import (
    NewQueue,
    QueueActivate,
    QueueAdd,
    QueueAddNominatedPod,
    QueueAddUnschedulable,
    QueueClose,
    QueueDelete,
    QueueDeleteNominatedPod,
    QueueDone,
    QueueFlushBackoff,
    QueueFlushUnschedulable,
    QueueMoveAll,
    QueuePop,
    QueueRunFor,
    QueueStepClock,
    QueueUpdate,
)
from spec.queue.state import QueueConfig, new_scheduling_queue
from spec.versions import VersionProfile

JSON = Any
ERROR_KINDS: Final = {
    "unschedulable queue": "PodAlreadyUnschedulable",
    "active queue": "PodAlreadyActive",
    "backoff queue": "PodAlreadyBackingOff",
}
"""refimpl's ``QueueError`` messages (Kubernetes') and the spec's error kinds."""


def error_kind(error: QueueError) -> str:
    """The normalised kind of a refused hand-back."""
    for text, kind in ERROR_KINDS.items():
        if text in str(error):
            return kind
    return "QueueError"


class RefimplQueue:
    """One scheduling queue and the pod infos of the attempts it handed out."""

    def __init__(self, profile: VersionProfile) -> None:
        self.config = new_scheduling_queue(profile).config
        self.default_hints = True
        """Whether the queue's hint map is the default plugins' (no ``NewQueue.hints`` given)."""
        self.clock = FakeClock(0)
        self.queue = self.new_queue(self.config)
        self.held: dict[str, QueuedPodInfo] = {}

    def hint_map(self, config: QueueConfig) -> QueueingHintMapPerProfile:
        """The queue's hint map: the vector's own (``NewQueue.hints``, as ``WithQueueingHintMapPerProfile``), or the
        default plugins' from the spec with each PreEnqueue plugin's own ``EventsToRegister`` in place of the spec's
        statement of it (``buildQueueingHintMap``: SchedulingGates registers its events and hint itself)."""
        if not self.default_hints or SCHEDULING_GATES not in config.pre_enqueue_plugins:
            return ref_hint_map(config)
        per_profile = ref_hint_map(config, without=frozenset({SCHEDULING_GATES}))
        plugin = SchedulingGates(config.target_pod_update_events)
        result: dict[str, QueueingHintMap] = {}
        for name, defaults in per_profile.items():
            merged = {event: list(functions) for event, functions in defaults.items()}
            for event, functions in plugin.events_to_register(config.queueing_hints).items():
                merged.setdefault(event, []).extend(functions)
            result[name] = merged
        return result

    def new_queue(self, config: QueueConfig) -> SchedulingQueue:
        return SchedulingQueue(
            self.clock,
            queueing_hints=self.hint_map(config),
            pod_initial_backoff=config.pod_initial_backoff,
            pod_max_backoff=config.pod_max_backoff,
            pod_max_in_unschedulable_pods_duration=config.pod_max_in_unschedulable_pods_duration,
            queueing_hints_enabled=config.queueing_hints,
            pop_from_backoff_q=config.pop_from_backoff_q,
            activate_moves_from_backoff_q=config.activate_moves_from_backoff_q,
            keeps_move_request_cycle=config.keeps_move_request_cycle,
            target_pod_update_events=config.target_pod_update_events,
            update_requires_same_uid=config.update_requires_same_uid,
            empty_nomination_clears=config.empty_nomination_clears,
            add_leaves_backoff_entry=config.add_leaves_backoff_entry,
            gated_add_updates_unschedulable_entry=config.gated_add_updates_unschedulable_entry,
            add_pod_nominates=config.add_pod_nominates,
            pod_scale_up_event=config.pod_scale_up_event,
            pre_enqueue_plugins={name: [SchedulingGates(config.target_pod_update_events)]
                                 for name in config.scheduler_names}
            if SCHEDULING_GATES in config.pre_enqueue_plugins else None,
        )

    # -- the step loop ---------------------------------------------------------------------------

    def step(self, op: Any) -> JSON:
        """Apply a decoded queue-area operation: ``{"status", "kind"?, "message"?, "observation"}``."""
        try:
            popped, went = self.apply(op)
        except QueueError as error:
            return {"status": "error", "kind": error_kind(error), "message": str(error), "observation": self.observe()}
        except ValueError as error:
            return {"status": "error", "kind": "BadRequest", "message": str(error), "observation": self.observe()}
        return {"status": "ok", "observation": self.observe(popped, went)}

    def apply(self, op: Any) -> tuple[str, str]:
        """Apply ``op``; returns what a pop returned and where a hand-back sent the pod ("none" otherwise)."""
        queue = self.queue
        match op:
            case NewQueue():
                self.new_config(op)
            case QueueAdd(pod):
                queue.add(pod)
            case QueuePop():
                pinfo = queue.pop()
                if pinfo is None:
                    return NOTHING, NOTHING
                self.held[pinfo.uid] = pinfo
                return pinfo.uid, NOTHING
            case QueueDone(uid):
                queue.done(uid)
            case QueueAddUnschedulable(pod, unschedulable, pending, cycle):
                return NOTHING, self.hand_back(pod, unschedulable, pending, cycle)
            case QueueMoveAll(event, pre_check):
                check = None if pre_check is None else (lambda p: p.uid in pre_check)
                queue.move_all_to_active_or_backoff_queue(ref_event(event), None, None, check)
            case QueueActivate(pod):
                queue.activate([pod])
            case QueueUpdate(old, new):
                queue.update(old, new)
            case QueueDelete(pod):
                queue.delete(pod)
            case QueueFlushBackoff():
                queue.flush_backoff_q_completed()
            case QueueFlushUnschedulable():
                queue.flush_unschedulable_pods_leftover()
            case QueueStepClock(elapsed):
                if elapsed < 0:
                    raise ValueError(f"time does not go back: elapsed {elapsed} ns")
                self.clock.advance(elapsed)
            case QueueRunFor(elapsed):
                self.run_for(elapsed)
            case QueueClose():
                queue.close()
            case QueueAddNominatedPod(pod, node, gone, bound_to):
                listed = None if gone else with_node_name(pod, bound_to)
                queue.nominator.pod_lister = lambda namespace, name: listed  # the informer as the step describes it
                try:
                    info = None if node is None else NominatingInfo(NominatingMode.OVERRIDE, node)
                    queue.add_nominated_pod(pod, info)
                finally:
                    queue.nominator.pod_lister = None
            case QueueDeleteNominatedPod(uid):
                queue.delete_nominated_pod_if_exists(Pod(uid))
            case _:
                raise TypeError(f"not a queue operation: {op!r}")
        return NOTHING, NOTHING

    def new_config(self, op: NewQueue) -> None:
        base = self.config
        self.config = new_scheduling_queue(
            queueing_hints=base.queueing_hints if op.queueing_hints is None else op.queueing_hints,
            pop_from_backoff_q=base.pop_from_backoff_q if op.pop_from_backoff_q is None else op.pop_from_backoff_q,
            pod_initial_backoff=op.pod_initial_backoff,
            pod_max_backoff=op.pod_max_backoff,
            pod_max_in_unschedulable_pods_duration=op.pod_max_in_unschedulable_pods_duration,
            hints=op.hints,
            scheduler_names=op.scheduler_names,
            unschedulable_flush_period=op.unschedulable_flush_period,
            pre_enqueue_plugins=op.pre_enqueue_plugins,
            activate_moves_from_backoff_q=base.activate_moves_from_backoff_q,
            keeps_move_request_cycle=base.keeps_move_request_cycle,
            target_pod_update_events=base.target_pod_update_events,
            update_requires_same_uid=base.update_requires_same_uid,
            empty_nomination_clears=base.empty_nomination_clears,
            add_leaves_backoff_entry=base.add_leaves_backoff_entry,
            gated_add_updates_unschedulable_entry=base.gated_add_updates_unschedulable_entry,
            add_pod_nominates=base.add_pod_nominates,
            pod_scale_up_event=base.pod_scale_up_event,
        ).config
        self.default_hints = op.hints is None
        self.queue, self.held = self.new_queue(self.config), {}

    def hand_back(self, pod: Pod, unschedulable: frozenset[str], pending: frozenset[str], cycle: int | None) -> str:
        """``handleSchedulingFailure``: the popped pod info with the informer's pod and the failure's plugins."""
        pinfo = self.held.pop(pod.uid, None) or QueuedPodInfo(pod, self.clock.now())
        pinfo.pod = pod
        pinfo.unschedulable_plugins = set(unschedulable)
        pinfo.pending_plugins = set(pending)
        given = self.queue.scheduling_cycle() if cycle is None else cycle
        return str(self.queue.add_unschedulable_if_not_present(pinfo, given).value)

    def run_for(self, elapsed: int) -> None:
        """``Run``'s loops from time 0 for ``elapsed``: the leftover flush every flush period, the backoff flush every
        whole window (leftover first where both fall)."""
        if elapsed < 0:
            raise ValueError(f"time does not go back: elapsed {elapsed} ns")
        end, window = self.clock.now() + elapsed, BACKOFF_Q_ORDERING_WINDOW
        period = self.config.unschedulable_flush_period
        while True:
            now = self.clock.now()
            next_backoff, next_leftover = (now // window + 1) * window, (now // period + 1) * period
            instant = min(next_backoff, next_leftover)
            if instant > end:
                self.clock.advance(end - now)
                return
            self.clock.advance(instant - now)
            if instant == next_leftover:
                self.queue.flush_unschedulable_pods_leftover()
            if instant == next_backoff:
                self.queue.flush_backoff_q_completed()

    # -- observation ------------------------------------------------------------------------------

    def view(self, pinfo: QueuedPodInfo) -> QueuedPodView:
        expiry = self.queue.backoff_time(pinfo)
        first = pinfo.initial_attempt_timestamp
        return QueuedPodView(
            pinfo.uid, pinfo.pod.priority, pinfo.timestamp, NO_TIME if first is None else first, pinfo.attempts,
            pinfo.unschedulable_count, pinfo.consecutive_errors_count, tuple(sorted(pinfo.unschedulable_plugins)),
            tuple(sorted(pinfo.pending_plugins)), NO_TIME if expiry is None else expiry,
        )

    def observe(self, popped: str = NOTHING, went: str = NOTHING) -> JSON:
        queue = self.queue
        parts = queue.sub_queues()
        entries = [{"pod": e} if isinstance(e, str) else
                   event_json(spec_event(e.event), e.new.uid if isinstance(e.new, Pod) else None)
                   for e in queue.in_flight_entries()]
        return queue_json(
            self.clock.now(), map(self.view, parts["active"]), map(self.view, parts["backoff"]),
            map(self.view, parts["error_backoff"]), map(self.view, parts["unschedulable"]),
            (p.uid for p in queue.in_flight_pods()), entries, queue.scheduling_cycle(), queue.move_request_cycle(),
            queue.closed, self.config.pop_from_backoff_q, popped, went,
            {node: [ref.uid for ref in refs] for node, refs in queue.nominator.nominated_pods.items()},
        )
