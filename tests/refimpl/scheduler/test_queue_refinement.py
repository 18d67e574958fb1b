"""Refinement: refimpl's scheduling queue does exactly what the spec's does (:mod:`spec.queue.queue`).

A Hypothesis state machine applies every drawn operation of :mod:`spec.queue.operations` to the spec's
:class:`~spec.queue.operations.QueueWorld` and to :class:`conformance.adapters.refimpl_queue.RefimplQueue` (refimpl's
``SchedulingQueue`` with the scheduler's side played as the spec plays it), then requires

- the same outcome: the pod a pop returned (refimpl's heap chooses among pods the spec says compare equal, and the
  spec follows its choice), the queue a hand-back chose, the error kind of a refused hand-back;
- the same state: the abstraction of refimpl's queue
  (:func:`conformance.adapters.refimpl_queue_abstraction.abstract_scheduling_queue`:
  every sub-queue with every ``QueuedPodInfo`` field, the in-flight pods and the in-flight event list in order, the
  cycle counters, ``closed``, the clock) equals the spec's queue, and the pod infos the scheduler holds are equal;
- the invariants: refimpl's own ``invariant_violations()`` and the spec's queue invariants that hold for the gates
  of the configuration (:data:`spec.queue.invariants.KNOWN_VIOLATIONS`). Operations are drawn freely, also
  outside what a scheduler does (adding a pod twice, handing back a pod it never popped); the invariants about
  in-flight pods are asked only while the stream keeps to that, and the unschedulable-time bound only while time
  passes with ``Run``'s flushes.

It runs with each gate off in turn, with the default plugins' hints, with constant hints that skip and queue
Pending plugins, and with no profile's hint map (as Kubernetes' tests that set none).
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from conformance.adapters.refimpl_queue import RefimplQueue, error_kind
from conformance.adapters.refimpl_queue_abstraction import abstract_pod_info, abstract_scheduling_queue
from refimpl.scheduler.queue import QueueError
from refimpl.scheduler.queued_pod_info import QueuedPodInfo
from spec.objects import DEFAULT_SCHEDULER_NAME, Container, Pod, Toleration
from spec.quantities import MILLISECOND, SECOND, resource_list
from spec.queue.events import (
    EVENT_ASSIGNED_POD_DELETE,
    EVENT_NODE_ADD,
    EVENT_UNSCHEDULABLE_TIMEOUT,
    ActionType,
    ClusterEvent,
    EventResource,
    HintFunction,
    HintRegistration,
    QueueingHint,
)
from spec.queue.invariants import (
    QUEUE_INVARIANTS,
    inv_in_flight_pods_not_queued,
    inv_pod_in_one_sub_queue,
    inv_popped_pod_in_flight_until_done,
    inv_unschedulable_pods_leave_in_time,
)
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
    QueueOperation,
    QueuePop,
    QueueRunFor,
    QueueStepClock,
    QueueUpdate,
    apply_queue_operation,
    new_queue_world,
)
from spec.queue.queue import pop_head
from spec.queue.state import pop_candidates
from spec.versions import V1_35
from tests.support.machines import configured_test_case, machine_settings

STATEFUL_EXAMPLES = {"ci": 300, "dev": 100, "thorough": 3000, "fast": 50}
STEPS_PER_EXAMPLE = 40

UIDS = ("a", "b", "c")
TOLERATION = Toleration("dedicated", "Exists")
NODE_TAINT = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT)
PV_ADD = ClusterEvent(EventResource.PERSISTENT_VOLUME, ActionType.ADD)
EVENTS = (EVENT_NODE_ADD, NODE_TAINT, EVENT_ASSIGNED_POD_DELETE, EVENT_UNSCHEDULABLE_TIMEOUT, PV_ADD)
REJECTIONS: tuple[tuple[frozenset[str], frozenset[str]], ...] = (
    (frozenset({"NodeResourcesFit"}), frozenset()),
    (frozenset({"TaintToleration"}), frozenset()),
    (frozenset({"NodeResourcesFit", "TaintToleration"}), frozenset()),
    (frozenset(), frozenset({"NodeAffinity"})),
    (frozenset(), frozenset()),
)
CUSTOM_HINTS = (
    HintRegistration(EVENT_NODE_ADD, (HintFunction("NodeResourcesFit", QueueingHint.QUEUE_SKIP),
                                      HintFunction("NodeAffinity"))),
    HintRegistration(NODE_TAINT, (HintFunction("TaintToleration"),)),
    HintRegistration(ClusterEvent(EventResource.POD, ActionType.ALL), (HintFunction("NodeResourcesFit"),)),
)
"""Constant hints as Kubernetes' tests use them: one that skips, one for a Pending plugin, a Pod/* registration."""
STEPS = (0, 500 * MILLISECOND, SECOND, 3 * SECOND, 11 * SECOND, 301 * SECOND)


def variant(uid: str, number: int) -> Pod:
    """Variant 0: 200m; 1: 100m (a scale-down); 2: 100m and a toleration; 3: 200m at priority 5; 4: 200m with a
    scheduling gate (an update to 0 removes it: the gates-eliminated event); 5: 200m nominated to node1 (a status
    change only)."""
    cpu = 200 if number in (0, 3, 4, 5) else 100
    return Pod(uid, uid, containers=(Container("c", resource_list(cpu=cpu)),),
               tolerations=(TOLERATION,) if number == 2 else (), priority=5 if number == 3 else 0,
               scheduling_gates=("example.com/gate",) if number == 4 else (),
               nominated_node_name="node1" if number == 5 else "")


class QueueRefinement(RuleBasedStateMachine):
    """Spec and refimpl side by side; ``queueing_hints``, ``pop_from_backoff_q`` and ``custom_hints`` are set
    per configuration."""

    queueing_hints = True
    pop_from_backoff_q = True
    custom_hints = False
    no_hint_map = False
    gates = False
    """SchedulingGates is a PreEnqueue plugin (:mod:`spec.queue.gates`)."""

    def __init__(self) -> None:
        super().__init__()
        self.world = new_queue_world(V1_35)
        self.ref = RefimplQueue(V1_35)
        self.objects: dict[str, Pod] = {}
        self.run_only = True
        self.in_contract = True
        """Every pod was added once, and handed back only from an attempt that has not called Done (or as an error)."""

    @initialize()
    def configure(self) -> None:
        names = frozenset() if self.no_hint_map else frozenset({DEFAULT_SCHEDULER_NAME})
        hints = CUSTOM_HINTS if self.custom_hints else None
        self.step(NewQueue(self.queueing_hints, self.pop_from_backoff_q, hints=hints, scheduler_names=names,
                           pre_enqueue_plugins=("SchedulingGates",) if self.gates else ()))

    def current(self, uid: str) -> Pod:
        return self.objects.get(uid, variant(uid, 0))

    def step(self, op: QueueOperation) -> None:
        """Apply ``op`` to both and compare outcome and state."""
        if isinstance(op, QueuePop):
            self.pop_like_refimpl()
        else:
            refused = None
            try:
                _, went = self.ref.apply(op)
            except QueueError as error:
                refused, went = error_kind(error), "none"
            self.world, outcome = apply_queue_operation(self.world, op)
            expected = None if outcome.error is None else outcome.error.kind.value
            assert refused == expected, f"{op}: refimpl refused {refused}, spec {expected}"
            if isinstance(op, QueueAddUnschedulable):
                spec_went = "none" if outcome.went is None else outcome.went.value
                assert went == spec_went, f"{op}: refimpl sent it to {went}, the spec to {spec_went}"
                event(f"hand-back: {refused or went}")
            else:
                event(type(op).__name__)
        self.compare(op)

    def pop_like_refimpl(self) -> None:
        """Pop refimpl's queue, then the spec's: the heads refimpl discarded (in flight already), then the pod it
        returned, each of which the spec must allow as a head at that point."""
        def heads(parts: dict[str, list[QueuedPodInfo]]) -> set[str]:
            return {p.uid for p in (*parts["active"], *parts["backoff"])}

        before = heads(self.ref.queue.sub_queues())
        got, _ = self.ref.apply(QueuePop())
        discarded = before - heads(self.ref.queue.sub_queues()) - {got}
        queue = self.world.queue
        while discarded:
            candidates = [uid for uid in pop_candidates(queue) if uid in discarded]
            assert candidates, f"refimpl discarded {sorted(discarded)}, not heads in the spec"
            queue, popped = pop_head(queue, candidates[0])
            assert popped is None, f"refimpl discarded {candidates[0]}, the spec pops it"
            discarded.discard(candidates[0])
            event("pop: discarded a pod in flight")
        self.world = replace(self.world, queue=queue)
        if got == "none":
            assert not pop_candidates(queue), f"refimpl popped nothing, the spec can pop {pop_candidates(queue)}"
            event("pop: nothing")
            return
        self.world, outcome = apply_queue_operation(self.world, QueuePop(got))
        assert outcome.popped is not None and outcome.popped.uid == got
        event("pop: a pod")

    def compare(self, op: QueueOperation) -> None:
        spec_queue = self.world.queue
        got = abstract_scheduling_queue(self.ref.queue, spec_queue.config)
        assert got == spec_queue, f"after {op}:\n refimpl {got}\n spec    {spec_queue}"
        held = {uid: abstract_pod_info(p) for uid, p in self.ref.held.items()}
        assert held == {uid: a.pinfo for uid, a in self.world.attempts.items()}, f"after {op}: held pod infos differ"

    # -- rules ---------------------------------------------------------------------------------

    @rule(uid=st.sampled_from(UIDS), number=st.integers(0, 5))
    def add(self, uid: str, number: int) -> None:
        if uid in self.objects:
            self.in_contract = False
        self.objects[uid] = variant(uid, number)
        self.step(QueueAdd(self.objects[uid]))

    @rule()
    def pop(self) -> None:
        self.step(QueuePop())

    @rule(rejection=st.sampled_from(REJECTIONS), cluster_event=st.none() | st.sampled_from(EVENTS))
    def attempt(self, rejection: tuple[frozenset[str], frozenset[str]], cluster_event: ClusterEvent | None) -> None:
        """A scheduling attempt that fails, with or without a cluster event while it runs."""
        before = self.world.queue.scheduling_cycle
        self.step(QueuePop())
        attempts = self.world.attempts
        popped = [uid for uid, a in attempts.items() if a.cycle == self.world.queue.scheduling_cycle > before]
        if cluster_event is not None:
            self.step(QueueMoveAll(cluster_event))
        if popped:
            self.step(QueueAddUnschedulable(self.current(popped[0]), rejection[0], rejection[1]))

    @rule(uid=st.sampled_from(UIDS))
    def done(self, uid: str) -> None:
        self.step(QueueDone(uid))

    @rule(data=st.data(), rejection=st.sampled_from(REJECTIONS), cycle=st.none() | st.integers(0, 4))
    def hand_back(
        self, data: st.DataObject, rejection: tuple[frozenset[str], frozenset[str]], cycle: int | None
    ) -> None:
        """Mostly a pod whose attempt is running, as the failure handler does; sometimes any pod."""
        running = sorted(self.world.attempts)
        choose_running = bool(running) and data.draw(st.integers(0, 4)) > 0
        uid = data.draw(st.sampled_from(running if choose_running else list(UIDS)))
        attempt = self.world.attempts.get(uid)
        if attempt is None or (attempt.done and (rejection[0] or rejection[1])):
            self.in_contract = False
        self.step(QueueAddUnschedulable(self.current(uid), rejection[0], rejection[1], cycle))

    @rule(cluster_event=st.sampled_from(EVENTS), pre_check=st.none() | st.frozensets(st.sampled_from(UIDS)))
    def move_all(self, cluster_event: ClusterEvent, pre_check: frozenset[str] | None) -> None:
        self.step(QueueMoveAll(cluster_event, pre_check))

    @rule(uid=st.sampled_from(UIDS))
    def activate(self, uid: str) -> None:
        self.step(QueueActivate(self.current(uid)))

    @rule(uid=st.sampled_from(UIDS), number=st.integers(0, 5))
    def update(self, uid: str, number: int) -> None:
        old, new = self.current(uid), variant(uid, number)
        self.objects[uid] = new
        self.step(QueueUpdate(old, new))

    @rule(uid=st.sampled_from(UIDS), node=st.sampled_from((None, "", "node1", "node2")),
          listed=st.sampled_from(("listed", "gone", "bound")))
    def add_nominated(self, uid: str, node: str | None, listed: str) -> None:
        """``AddNominatedPod``, as the failure handler calls it, with the informer having the pod or not."""
        self.step(QueueAddNominatedPod(self.current(uid), node, listed == "gone", "node1" if listed == "bound" else ""))

    @rule(uid=st.sampled_from(UIDS))
    def delete_nominated(self, uid: str) -> None:
        self.step(QueueDeleteNominatedPod(uid))

    @rule(uid=st.sampled_from(UIDS))
    def delete(self, uid: str) -> None:
        self.step(QueueDelete(self.current(uid)))

    @rule()
    def flush_backoff(self) -> None:
        self.step(QueueFlushBackoff())

    @rule()
    def flush_leftover(self) -> None:
        self.step(QueueFlushUnschedulable())

    @rule(elapsed=st.sampled_from(STEPS))
    def step_clock(self, elapsed: int) -> None:
        self.run_only = False
        self.step(QueueStepClock(elapsed))

    @rule(elapsed=st.sampled_from((SECOND, 30 * SECOND, 301 * SECOND)))
    def run_for(self, elapsed: int) -> None:
        self.step(QueueRunFor(elapsed))

    @precondition(lambda self: not self.world.queue.closed)  # a second Close panics in Kubernetes: not a step
    @rule()
    def close(self) -> None:
        self.step(QueueClose())

    # -- invariants ----------------------------------------------------------------------------

    @invariant()
    def invariants_hold(self) -> None:
        queue = self.world.queue
        skipped = set()
        if not queue.config.pop_from_backoff_q:
            skipped.add(inv_pod_in_one_sub_queue.__name__)  # Update requeues past backoffQ: a known violation
        if not self.run_only:
            skipped.add(inv_unschedulable_pods_leave_in_time.__name__)
        if not self.in_contract:
            skipped.add(inv_in_flight_pods_not_queued.__name__)
        broken = [p.__name__ for p in QUEUE_INVARIANTS if p.__name__ not in skipped and not p(queue)]
        if self.in_contract and not inv_popped_pod_in_flight_until_done(self.world):
            broken.append(inv_popped_pod_in_flight_until_done.__name__)
        assert not broken, f"the queue violates {broken}"
        if not skipped & {inv_pod_in_one_sub_queue.__name__}:
            assert self.ref.queue.invariant_violations() == []


def _configured(name: str, hints: bool, popping: bool, custom: bool, no_map: bool = False, gates: bool = False) -> type:
    attributes = {"queueing_hints": hints, "pop_from_backoff_q": popping, "custom_hints": custom, "no_hint_map": no_map,
                  "gates": gates}
    settings = machine_settings(STATEFUL_EXAMPLES, STEPS_PER_EXAMPLE)
    return configured_test_case(QueueRefinement, name, attributes, settings)


TestQueueRefinement_v1_35 = _configured("QueueRefinement_v1_35", True, True, False)
TestQueueRefinement_custom_hints = _configured("QueueRefinement_custom_hints", True, True, True)
TestQueueRefinement_no_pop_from_backoff = _configured("QueueRefinement_no_pop_from_backoff", True, False, False)
TestQueueRefinement_hints_off = _configured("QueueRefinement_hints_off", False, True, False)
TestQueueRefinement_hints_off_custom = _configured("QueueRefinement_hints_off_custom", False, False, True)
TestQueueRefinement_no_hint_map = _configured("QueueRefinement_no_hint_map", True, True, False, True)
TestQueueRefinement_gates = _configured("QueueRefinement_gates", True, True, False, gates=True)
TestQueueRefinement_gates_no_pop_from_backoff = _configured("QueueRefinement_gates_no_pop_from_backoff", True, False,
                                                            False, gates=True)
TestQueueRefinement_gates_hints_off = _configured("QueueRefinement_gates_hints_off", False, True, False, gates=True)
