"""The scheduling queue (:mod:`spec.queue`) and the scheduler driving it, as a transition system.

States are :class:`QueueModel` values: a :class:`~spec.queue_operations.QueueWorld` and where each
attempt is. The scheduler is modelled as Kubernetes runs it (pkg/scheduler/schedule_one.go): one
scheduling cycle at a time (``Pop`` waits until the previous cycle ended), and binding cycles in
parallel. An attempt in its scheduling cycle fails (rejected by plugins, or an error) and is handed
back, or is assumed and waits on Permit in its binding cycle; there it is rejected (handed back with
the rejecting plugin), or allowed, which calls ``Done``, and then its bind fails (handed back as an
error) or succeeds (the scheduler drops it); allow and bind are one step. Meanwhile the informer
adds pods, updates them (an added toleration; never an assumed pod, as the event handler skips
those), deletes queued pods, and cluster events arrive; ``Activate`` and ``Close`` may be called;
time passes in ticks with ``Run``'s flushes. A failed attempt of a pod the informer deleted meanwhile is
not handed back, only ``Done`` (``handleSchedulingFailure`` finds it gone from the informer cache). The failure
handler passes the current
``SchedulingCycle()`` (Kubernetes) or the cycle the attempt started in (the rule
``moveRequestCycle`` is designed for): ``cycle_rule``.

Budgets keep it finite: pops per pod, cluster events, activations. Time is unbounded: the queue
reads only how long ago something happened, compared with its durations, and where the present
lies in ``Run``'s flush schedule, so a representative shifts all times by whole flush periods and
clamps timestamps older than every duration to one such age; the pods, which differ only in their
UIDs, are interchangeable (:mod:`spec.verify.queue_representatives`). This is exact when the tick
and every duration are whole ordering windows (1 s), which the universe requires.

Properties checked:

- every state: :data:`spec.queue_invariants.QUEUE_INVARIANTS` and :data:`~spec.queue_invariants.WORLD_INVARIANTS`,
  except, unless ``known_violations``, those :data:`~spec.queue_invariants.KNOWN_VIOLATIONS` Kubernetes
  breaks under the universe's gates and cycle rule;
- every hand-back: :func:`~spec.queue_invariants.trans_backoff_grows_with_failures`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Final

from spec.cluster_events import ClusterEvent
from spec.frozenmap import FrozenMap
from spec.quantities import SECOND
from spec.queue_invariants import QUEUE_INVARIANTS, WORLD_INVARIANTS, trans_backoff_grows_with_failures
from spec.queue_operations import (
    QueueActivate,
    QueueAdd,
    QueueAddUnschedulable,
    QueueClose,
    QueueDelete,
    QueueDone,
    QueueMoveAll,
    QueueOperation,
    QueuePop,
    QueueRunFor,
    QueueUpdate,
    QueueWorld,
    apply_queue_operation,
)
from spec.queue_state import PodPopped, RecordedEvent, get_pod, pop_candidates
from spec.valuetypes import replace
from spec.verify.fingerprint import fingerprint
from spec.verify.queue_representatives import (
    IDENTITY,
    Renaming,
    canonical_model,
    inverse,
    rename_step,
    symmetric_representative,
    then,
)
from spec.verify.queue_universe import (
    ERROR,
    EVENTS,
    FAILURES,
    Failure,
    QueueModel,
    QueueStep,
    QueueUniverse,
    universe_pod,
)
from spec.verify.transition_system import Edge, TraceStep, Violation

StepFunction = Callable[[QueueWorld, QueueOperation], QueueWorld]


def apply_step(world: QueueWorld, op: QueueOperation) -> QueueWorld:
    return apply_queue_operation(world, op)[0]


class QueueSystem:
    """The queue and its scheduler over a finite universe."""

    def __init__(
        self,
        universe: QueueUniverse,
        *,
        symmetry: bool = True,
        step: StepFunction = apply_step,
        known_violations: bool = False,
    ) -> None:
        self.universe = universe
        self.symmetry = symmetry
        self.step = step
        self.checked_known = known_violations
        self.skipped = frozenset() if known_violations else universe.known_violations()

    def initial_states(self) -> list[QueueModel]:
        return [QueueModel(self.universe.initial_world())]

    def within_bounds(self, state: QueueModel) -> bool:
        return True

    def fingerprint(self, representative: QueueModel) -> int:
        return fingerprint(representative)

    def canonical(self, state: QueueModel) -> tuple[QueueModel, object]:
        """:func:`~spec.verify.queue_representatives.symmetric_representative` (with ``symmetry``) or
        :func:`~spec.verify.queue_representatives.canonical_model`."""
        if self.symmetry:
            return symmetric_representative(self.universe, state)
        return canonical_model(self.universe, state), IDENTITY

    def violations(self, state: QueueModel) -> list[str]:
        found = [p.__name__ for p in QUEUE_INVARIANTS if not p(state.world.queue)]
        found += [p.__name__ for p in WORLD_INVARIANTS if not p(state.world)]
        return [name for name in found if name not in self.skipped]

    # -- transitions ------------------------------------------------------------------------

    def steps(self, s: QueueModel) -> Iterator[QueueStep]:
        u, queue = self.universe, s.world.queue
        live = [uid for uid in u.uids if uid in s.added and uid not in s.gone]
        for uid in u.uids:
            if uid not in s.added:
                yield QueueStep("add", (uid,))
        if s.scheduling is None and not queue.closed:  # the scheduling loop stops when the queue closes
            for uid in pop_candidates(queue):
                if s.pops.get(uid, 0) < u.pops and uid not in s.world.attempts:
                    yield QueueStep("pop", (uid,))
        failures = FAILURES[: u.failures]
        if s.scheduling is not None:
            for failure in failures:
                yield QueueStep("fail", (s.scheduling, failure))
            yield QueueStep("assume", (s.scheduling,))
        for uid in sorted(s.waiting):
            for failure in failures:
                if failure.unschedulable:
                    yield QueueStep("permit_reject", (uid, failure))
            yield QueueStep("bound", (uid,))
            yield QueueStep("bind_fail", (uid,))
        if s.events < u.events:
            for event in EVENTS:
                yield QueueStep("event", (event,))
        for uid in live:
            if uid not in s.updated and uid not in s.waiting:
                yield QueueStep("update", (uid,))
            if s.activations < u.activations:
                yield QueueStep("activate", (uid,))
            if get_pod(queue, uid) is not None:
                yield QueueStep("delete", (uid,))
        for uid in sorted(s.gone):
            if get_pod(queue, uid) is not None:  # bound, and re-added by an update during its attempt: the informer's
                yield QueueStep("delete", (uid,))  # update to an assigned pod deletes it from the queue
        yield QueueStep("tick", (u.tick,))
        if u.close and not queue.closed:
            yield QueueStep("close")

    def calls(self, s: QueueModel, step: QueueStep) -> list[QueueOperation | str]:
        """The queue calls ``step`` makes, in order; ``"drop"`` is the scheduler dropping a bound pod's attempt."""
        world, name, args = s.world, step.name, step.args
        uid = args[0] if args and isinstance(args[0], str) else ""
        pod = universe_pod(uid, uid in s.updated)
        match name:
            case "add":
                return [QueueAdd(pod)]
            case "pop":
                return [QueuePop(uid)]
            case "fail" | "permit_reject" | "bind_fail" if uid in s.gone:
                # handleSchedulingFailure: the pod is no longer in the informer cache, so it is not handed back;
                # the deferred Done forgets it (after Permit allowed it, the binding cycle called Done already).
                return [QueueDone(uid), "drop"]
            case "fail" | "permit_reject" | "bind_fail":
                failure = args[1] if name != "bind_fail" else ERROR
                cycle = None if self.universe.cycle_rule == "current" else world.attempts[uid].cycle
                handed = QueueAddUnschedulable(pod, failure.unschedulable, failure.pending, cycle)
                # After Permit allowed it, the binding cycle called Done before the bind that failed.
                return [QueueDone(uid), handed] if name == "bind_fail" else [handed]
            case "bound":  # Permit allowed it (Done), the bind succeeded; the scheduler drops the pod info
                return [QueueDone(uid), "drop"]
            case "event":
                return [QueueMoveAll(args[0])]
            case "update":
                return [QueueUpdate(pod, universe_pod(uid, True))]
            case "activate":
                return [QueueActivate(pod)]
            case "delete":
                return [QueueDelete(pod)]
            case "tick":
                return [QueueRunFor(args[0])]
            case "close":
                return [QueueClose()]
            case "assume":
                return []
        raise ValueError(f"unknown queue step {step!r}")

    def apply(self, s: QueueModel, step: QueueStep) -> QueueModel:
        """The state after ``step``: its queue calls (:meth:`calls`), and the scheduler's and informer's side."""
        world = s.world
        for call in self.calls(s, step):
            if call == "drop":
                world = replace(world, attempts=world.attempts.remove(step.args[0]))
            else:
                assert not isinstance(call, str)
                world = self.step(world, call)
        s = replace(s, world=world)
        name, uid = step.name, step.args[0] if step.args and isinstance(step.args[0], str) else ""
        match name:
            case "add":
                return replace(s, added=s.added | {uid})
            case "pop":
                return replace(s, scheduling=uid, pops=s.pops.set(uid, s.pops.get(uid, 0) + 1))
            case "fail" | "permit_reject" | "bind_fail":
                return replace(s, scheduling=None if s.scheduling == uid else s.scheduling, waiting=s.waiting - {uid})
            case "assume":
                return replace(s, scheduling=None, waiting=s.waiting | {uid})
            case "bound":
                return replace(s, waiting=s.waiting - {uid}, gone=s.gone | {uid})
            case "event":
                return replace(s, events=s.events + 1)
            case "update":
                return replace(s, updated=s.updated | {uid})
            case "activate":
                return replace(s, activations=s.activations + 1)
            case "delete":
                return replace(s, gone=s.gone | {uid})
        return s

    def edges(self, state: QueueModel) -> Iterator[Edge[QueueModel]]:
        for step in self.steps(state):
            after = self.apply(state, step)
            yield Edge(step, coverage(step), after, tuple(self.step_violations(state, step, after)))

    def step_violations(self, before: QueueModel, step: QueueStep, after: QueueModel) -> list[str]:
        if step.name not in ("fail", "permit_reject", "bind_fail"):
            return []
        uid = step.args[0]
        attempt = before.world.attempts.get(uid)
        handed = get_pod(after.world.queue, uid)
        if attempt is None or handed is None or get_pod(before.world.queue, uid) is not None:
            return []  # not handed back, or refused (the pod was queued already)
        if trans_backoff_grows_with_failures(after.world.queue.config, attempt.pinfo, handed):
            return []
        return [trans_backoff_grows_with_failures.__name__]

    def concretize(self, initial: QueueModel, path: list[tuple[object, object]], prop: str) -> Violation:
        """Replay ``path`` from the universe's initial state (``initial`` is its representative, at a
        shifted time) with its steps renamed back to the pods they were taken for, and describe every
        step and the final state."""
        state, steps = self.initial_states()[0], []
        to_rep: Renaming = IDENTITY
        last: tuple[QueueModel, QueueStep, QueueModel] | None = None
        for label, renaming in path:
            assert isinstance(label, QueueStep)
            step = rename_step(label, inverse(to_rep))
            after = self.apply(state, step)
            steps.append(TraceStep(describe_step(step), describe_outcome(state, step, after)))
            last, state = (state, step, after), after
            if isinstance(renaming, FrozenMap):
                to_rep = then(to_rep, renaming)
        reproduced = prop in self.violations(state) or (last is not None and prop in self.step_violations(*last))
        final = describe_model(state) + ("" if reproduced else "\n(NOT reproduced by the replay)")
        return Violation(prop, f"new_scheduling_queue ({self.universe.describe()})", tuple(steps), final)


def coverage(step: QueueStep) -> str:
    """The coverage class of a step: its name and, for a failure, how the attempt failed."""
    if step.name in ("fail", "permit_reject"):
        failure = step.args[1]
        assert isinstance(failure, Failure)
        return f"{step.name}: {failure.name}"
    if step.name == "event":
        event = step.args[0]
        assert isinstance(event, ClusterEvent)
        return f"event: {event.label}"
    return f"{step.name}: ok"


def describe_step(step: QueueStep) -> str:
    def arg(value: Any) -> str:
        if isinstance(value, Failure):
            return value.name
        if isinstance(value, ClusterEvent):
            return value.label
        if isinstance(value, int):
            return f"{value / SECOND:g}s"
        return str(value)

    return f"{step.name}({', '.join(arg(a) for a in step.args)})"


def describe_outcome(before: QueueModel, step: QueueStep, after: QueueModel) -> str:
    """Where the step's pod is afterwards (for a pod step), else ``ok``."""
    if not step.args or not isinstance(step.args[0], str):
        return "ok"
    uid = step.args[0]
    queue = after.world.queue
    for name, pods in (
        ("activeQ", queue.active_q),
        ("backoffQ", queue.backoff_q),
        ("errorBackoffQ", queue.error_backoff_q),
        ("unschedulablePods", queue.unschedulable_pods),
    ):
        if uid in pods:
            return f"{uid} in {name}"
    if uid in queue.in_flight_pods:
        return f"{uid} in flight"
    if uid in after.world.attempts:
        return f"{uid} in its attempt (not tracked in flight)"
    return f"{uid} out of the queue"


def describe_model(state: QueueModel) -> str:
    queue, world = state.world.queue, state.world
    lines = [
        f"now={queue.now / SECOND:g}s cycle={queue.scheduling_cycle} moveRequestCycle={queue.move_request_cycle} "
        f"closed={queue.closed}",
        f"activeQ={sorted(queue.active_q)} backoffQ={sorted(queue.backoff_q)} "
        f"errorBackoffQ={sorted(queue.error_backoff_q)} unschedulablePods={sorted(queue.unschedulable_pods)}",
        f"in flight={sorted(queue.in_flight_pods)} events={[describe_entry(e) for e in queue.in_flight_events]}",
        f"scheduling={state.scheduling} waiting on Permit={sorted(state.waiting)}",
    ]
    for uid, pinfo in sorted(queue.unschedulable_pods.items()):
        seen = [e.event.label for e in world.since_pop.get(uid, ())]
        lines.append(f"{uid} rejected by {sorted(pinfo.rejector_plugins)}; events since its pop: {seen}")
    return "\n".join(lines)


def describe_entry(entry: object) -> str:
    if isinstance(entry, PodPopped):
        return f"pod {entry.uid}"
    assert isinstance(entry, RecordedEvent)
    return entry.event.label + (f" for {entry.target}" if entry.target else "")


DEFAULT_QUEUE_UNIVERSE: Final = QueueUniverse()
"""``ksspec check --system queue`` without arguments: exhausted in seconds."""
