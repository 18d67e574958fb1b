"""A Hypothesis state machine over the scheduling queue: random interleavings of adds, pops, failures, successes,
cluster events, updates, deletes, activations, clock advances and flushes, with the queue's invariants checked
after every step:

- every live pod is in exactly one place: activeQ, backoffQ, unschedulablePods, or in flight (popped, not done);
- pop returns a pod no other pod in activeQ precedes (priority, then timestamp);
- a pod is never popped while backing off, except by the two Kubernetes paths that allow it: ``Activate``
  (ForceActivate) and SchedulerPopFromBackoffQ when activeQ is empty (only pods of podBackoffQ);
- a pod waits in unschedulablePods only with a rejector plugin; the counts and listings agree;
- the in-flight event list is empty when nothing is in flight (it cannot grow without bound).
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from refimpl.cache.clock import FakeClock
from refimpl.scheduler.backoff import SECOND
from refimpl.scheduler.events import (
    EVENT_ASSIGNED_POD_DELETE,
    EVENT_NODE_ADD,
    ActionType,
    ClusterEvent,
    EventResource,
)
from refimpl.scheduler.queue import QueuedPodInfo, QueueName, SchedulingQueue
from spec.objects import Container, Pod, Toleration
from spec.quantities import resource_list

EVENTS = [
    EVENT_NODE_ADD,
    EVENT_ASSIGNED_POD_DELETE,
    ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL),
    ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_ALLOCATABLE),
    ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT),
]
REJECTIONS = [(), ("NodeResourcesFit",), ("TaintToleration",), ("NodeAffinity",), ("NodePorts", "NodeName")]
STEPS = [0, 1, SECOND // 2, SECOND, 3 * SECOND, 11 * SECOND, 301 * SECOND]

PENDING, IN_FLIGHT, DELETED_IN_FLIGHT = "pending", "in flight", "deleted in flight"


class QueueMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.clock = FakeClock(1_000 * SECOND)
        self.queue = SchedulingQueue(self.clock)
        self.live: dict[str, str] = {}  # uid -> PENDING / IN_FLIGHT / DELETED_IN_FLIGHT
        self.popped: dict[str, QueuedPodInfo] = {}  # uid -> its QueuedPodInfo while in flight
        self.force_activated: set[str] = set()  # activated since their last failure: may be popped backing off
        self.next_uid = 0

    @initialize(hints=st.booleans(), pop_from_backoff=st.booleans())
    def configure(self, hints: bool, pop_from_backoff: bool) -> None:
        self.queue = SchedulingQueue(self.clock, queueing_hints_enabled=hints, pop_from_backoff_q=pop_from_backoff)

    def _uids(self, state: str) -> list[str]:
        return sorted(uid for uid, s in self.live.items() if s == state)

    # --- rules --------------------------------------------------------------------------------

    @rule(priority=st.integers(0, 3), cpu=st.integers(1, 4))
    def add(self, priority: int, cpu: int) -> None:
        uid = f"p{self.next_uid}"
        self.next_uid += 1
        self.queue.add(Pod(uid=uid, name=uid, priority=priority, containers=(Container("c", resource_list(cpu=cpu)),)))
        self.live[uid] = PENDING

    @rule()
    def pop(self) -> None:
        active = {uid: self.queue.get(uid) for uid in (p.uid for p in self.queue.pods_in_active_q())}
        keys = {uid: (-i.pod.priority, i.timestamp) for uid, i in active.items() if i is not None}
        before = {uid: self.queue.where(uid) for uid in self._uids(PENDING)}
        rejectors = {uid: bool(i.rejector_plugins()) for uid in before if (i := self.queue.get(uid)) is not None}
        pinfo = self.queue.pop()
        if pinfo is None:
            assert not active, "pop returned nothing although activeQ holds pods"
            return
        uid = pinfo.uid
        if active:
            assert uid in active, f"{uid} popped from outside a non-empty activeQ"
            assert all(keys[uid] <= k for k in keys.values()), f"{uid} popped before a pod that precedes it"
            if uid not in self.force_activated:
                assert not self.queue.is_pod_backing_off(pinfo), f"{uid} popped while backing off"
        else:
            assert self.queue.pop_from_backoff_q, f"{uid} popped from backoffQ with PopFromBackoffQ off"
            assert before[uid] is QueueName.BACKOFF and rejectors[uid], f"{uid}: only podBackoffQ pops early"
        self.live[uid] = IN_FLIGHT
        self.popped[uid] = pinfo

    @precondition(lambda self: self._uids(IN_FLIGHT))
    @rule(data=st.data(), plugins=st.sampled_from(REJECTIONS))
    def fail(self, data: st.DataObject, plugins: tuple[str, ...]) -> None:
        uid = data.draw(st.sampled_from(self._uids(IN_FLIGHT)))
        pinfo = self.popped.pop(uid)
        pinfo.unschedulable_plugins.update(plugins)
        where = self.queue.add_unschedulable_if_not_present(pinfo, self.queue.scheduling_cycle())
        if not plugins:
            assert where is QueueName.BACKOFF, "a pod that failed with an error must back off"
        self.live[uid] = PENDING
        self.force_activated.discard(uid)

    @precondition(lambda self: self._uids(IN_FLIGHT) or self._uids(DELETED_IN_FLIGHT))
    @rule(data=st.data())
    def succeed(self, data: st.DataObject) -> None:
        uid = data.draw(st.sampled_from(self._uids(IN_FLIGHT) + self._uids(DELETED_IN_FLIGHT)))
        self.queue.done(uid)
        self.popped.pop(uid, None)
        del self.live[uid]

    @rule(event=st.sampled_from(EVENTS))
    def cluster_event(self, event: ClusterEvent) -> None:
        self.queue.move_all_to_active_or_backoff_queue(event)

    @rule(step=st.sampled_from(STEPS))
    def advance(self, step: int) -> None:
        self.clock.advance(step)

    @rule()
    def flush_backoff(self) -> None:
        for uid in self.queue.flush_backoff_q_completed():
            assert self.queue.where(uid) is QueueName.ACTIVE

    @rule()
    def flush_leftover(self) -> None:
        self.queue.flush_unschedulable_pods_leftover()

    @precondition(lambda self: self._uids(PENDING))
    @rule(data=st.data(), change=st.sampled_from(["scale-down", "toleration", "priority", "same"]))
    def update(self, data: st.DataObject, change: str) -> None:
        uid = data.draw(st.sampled_from(self._uids(PENDING)))
        info = self.queue.get(uid)
        assert info is not None
        old = info.pod
        if change == "scale-down":
            new = replace(old, containers=(Container("c", resource_list(cpu=0)),))
        elif change == "toleration":
            new = replace(old, tolerations=(*old.tolerations, Toleration(key="k")))
        elif change == "priority":
            new = replace(old, priority=old.priority + 1)
        else:
            new = old
        self.queue.update(old, new)

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def delete(self, data: st.DataObject) -> None:
        uid = data.draw(st.sampled_from(sorted(self.live)))
        self.queue.delete(Pod(uid=uid, name=uid))
        if self.live[uid] == PENDING:
            del self.live[uid]
            self.force_activated.discard(uid)
        else:
            self.live[uid] = DELETED_IN_FLIGHT

    @precondition(lambda self: self._uids(PENDING))
    @rule(data=st.data())
    def activate(self, data: st.DataObject) -> None:
        uid = data.draw(st.sampled_from(self._uids(PENDING)))
        if self.queue.activate([Pod(uid=uid, name=uid)]):
            self.force_activated.add(uid)

    # --- invariants ---------------------------------------------------------------------------

    @invariant()
    def each_pod_in_exactly_one_place(self) -> None:
        active = [p.uid for p in self.queue.pods_in_active_q()]
        backing = [p.uid for p in self.queue.pods_in_backoff_q()]
        unschedulable = [p.uid for p in self.queue.unschedulable_pods()]
        in_flight = [p.uid for p in self.queue.in_flight_pods()]
        queued = active + backing + unschedulable
        assert len(queued) == len(set(queued)), f"a pod is in two sub-queues: {sorted(queued)}"
        assert set(queued) == set(self._uids(PENDING)), "the sub-queues do not hold exactly the pending pods"
        popped = set(self._uids(IN_FLIGHT)) | set(self._uids(DELETED_IN_FLIGHT))
        assert set(in_flight) == (popped if self.queue.queueing_hints_enabled else set())
        for uid, state in self.live.items():
            where = self.queue.where(uid)
            if state == PENDING:
                assert where in (QueueName.ACTIVE, QueueName.BACKOFF, QueueName.UNSCHEDULABLE)
            elif self.queue.queueing_hints_enabled:
                assert where is QueueName.IN_FLIGHT

    @invariant()
    def counts_are_consistent(self) -> None:
        counts = self.queue.counts()
        pods, summary = self.queue.pending_pods()
        assert counts[QueueName.ACTIVE] == len(self.queue.pods_in_active_q())
        assert counts[QueueName.BACKOFF] == len(self.queue.pods_in_backoff_q())
        assert counts[QueueName.UNSCHEDULABLE] == len(self.queue.unschedulable_pods())
        assert len(self.queue) == len(pods) == sum(v for k, v in counts.items() if k is not QueueName.IN_FLIGHT)
        assert summary == (
            f"activeQ:{counts[QueueName.ACTIVE]}; backoffQ:{counts[QueueName.BACKOFF]}; "
            f"unschedulablePods:{counts[QueueName.UNSCHEDULABLE]}"
        )

    @invariant()
    def unschedulable_pods_have_a_rejector(self) -> None:
        for p in self.queue.unschedulable_pods():
            info = self.queue.get(p.uid)
            assert info is not None and info.rejector_plugins(), f"{p.uid} waits without a plugin to wake it"

    @invariant()
    def queue_reports_no_violation(self) -> None:
        assert self.queue.invariant_violations() == []

    @invariant()
    def in_flight_events_do_not_leak(self) -> None:
        if not self.queue.in_flight_pods():
            assert self.queue.in_flight_event_count() == 0


TestQueueMachine = QueueMachine.TestCase
