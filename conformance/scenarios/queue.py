"""Queue-area scenarios: curated behaviours of :mod:`spec.queue.queue`, the Kubernetes queue tests
(:mod:`conformance.ported.scheduling_queue`), bounded exploration and seeded random traces.

Exploration is a breadth-first search over a small alphabet of queue calls (two pods, a few events and failures)
under each gate setting, keeping the shortest trace to every transition class: (call, outcome, where its pod was).
Random traces pick among the calls that can be a vector's step (no pop that would block or that would choose among
pods that compare equal). Expected outcomes come from the spec (:func:`conformance.traces.expand`).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Sequence
from typing import Final

from conformance.codec import operation_name
from conformance.ported.scheduling_queue import HALF_SECOND, NODE_TAINT, fail, go_cases, pod
from conformance.traces import ALL_PROFILES, Scenario, queue_steps
from spec.objects import Container, Pod, Toleration
from spec.quantities import SECOND, resource_list
from spec.queue.events import (
    EVENT_ASSIGNED_POD_DELETE,
    EVENT_NODE_ADD,
    EVENT_UNSCHEDULABLE_TIMEOUT,
)
from spec.queue.operations import (
    NewQueue,
    QueueActivate,
    QueueAdd,
    QueueAddUnschedulable,
    QueueClose,
    QueueDelete,
    QueueDone,
    QueueFlushBackoff,
    QueueFlushUnschedulable,
    QueueMoveAll,
    QueueOperation,
    QueuePop,
    QueueRunFor,
    QueueStepClock,
    QueueUpdate,
    QueueWorld,
    apply_queue_operation,
    new_queue_world,
)
from spec.queue.state import QueueNotEnabled, where
from spec.valuetypes import replace
from spec.versions import DEFAULT_PROFILE, PROFILES, VersionProfile

# --------------------------------------------------------------------------------------------
# Curated behaviours of the spec
# --------------------------------------------------------------------------------------------

FIT, TAINT = "NodeResourcesFit", "TaintToleration"
TOLERATING: Final = pod("a", tolerations=(Toleration("dedicated", "Exists"),))


def _q(sid: str, description: str, ops: Sequence[QueueOperation], *behaviours: str) -> Scenario:
    return Scenario(f"queue.{sid}", description, ops, area="queue", behaviours=behaviours, profiles=ALL_PROFILES)


def curated_queue() -> list[Scenario]:
    """One scenario per behaviour of :mod:`spec.queue.queue` the Kubernetes tests above do not pin down, then every
    ported Kubernetes test case."""
    a, b = pod("a"), pod("b")
    scaled = pod("a", containers=(Container("c", resource_list(cpu=100)),))
    big = pod("a", containers=(Container("c", resource_list(cpu=200)),))
    gated = pod("g", scheduling_gates=("example.com/a", "example.com/b"))
    return [
        _q(
            "order.priority_then_time",
            "activeQ pops by priority, then by the time a pod was added",
            [
                QueueAdd(a),
                QueueStepClock(SECOND),
                QueueAdd(pod("b", 5)),
                QueueStepClock(SECOND),
                QueueAdd(pod("c", 5)),
                QueuePop(),
                QueuePop(),
                QueuePop(),
            ],
            "queue-sort",
        ),
        _q(
            "default_hints.node_add_wakes_fit",
            "Default plugins: a node added wakes a pod NodeResourcesFit rejected; a taint update does not",
            [QueueAdd(a), QueuePop(), fail(a, FIT), QueueMoveAll(NODE_TAINT), QueueMoveAll(EVENT_NODE_ADD)],
            "hints",
            "default-plugins",
        ),
        _q(
            "default_hints.taint_wakes_taint_toleration",
            "Default plugins: a taint update wakes a pod TaintToleration rejected, into backoffQ while it backs off",
            [QueueAdd(a), QueuePop(), fail(a, TAINT), QueueMoveAll(NODE_TAINT), QueueRunFor(2 * SECOND)],
            "hints",
            "default-plugins",
            "backoff",
        ),
        _q(
            "default_hints.event_in_flight",
            "Default plugins: an assigned pod deleted during the attempt of a pod "
            "NodeResourcesFit rejects sends it to backoffQ, not unschedulablePods (no lost wake-up)",
            [QueueAdd(a), QueuePop(), QueueMoveAll(EVENT_ASSIGNED_POD_DELETE), fail(a, FIT)],
            "hints",
            "in-flight",
            "lost-wake-up",
        ),
        _q(
            "default_hints.toleration_update",
            "Default plugins: adding a toleration to a pod TaintToleration "
            "rejected requeues it (Update with PodSchedulingPropertiesChange)",
            [QueueAdd(a), QueuePop(), fail(a, TAINT), QueueUpdate(a, TOLERATING)],
            "hints",
            "update",
        ),
        _q(
            "default_hints.scale_down_update",
            "Default plugins: lowering a request of a pod NodeResourcesFit rejected requeues it",
            [QueueAdd(big), QueuePop(), fail(big, FIT), QueueUpdate(big, scaled)],
            "hints",
            "update",
        ),
        _q(
            "errors.back_off_by_error_count",
            "An error after rejections backs off by the error count (1 s), not the rejection count",
            [
                QueueAdd(a),
                *[
                    op
                    for _ in range(3)
                    for op in (
                        QueuePop(),
                        QueueMoveAll(EVENT_UNSCHEDULABLE_TIMEOUT),
                        fail(a, FIT),
                        QueueRunFor(8 * SECOND),
                    )
                ],
                QueuePop(),
                fail(a),
            ],
            "backoff",
            "errors",
        ),
        _q(
            "leftover.run_loop",
            "Run's loops: a rejected pod with no event leaves unschedulablePods at the first leftover "
            "flush more than 5 minutes after its attempt",
            [QueueAdd(a), QueuePop(), fail(a, FIT), QueueRunFor(300 * SECOND), QueueRunFor(30 * SECOND)],
            "leftover-flush",
            "run",
        ),
        _q(
            "pop_from_backoff.idle",
            "An idle Pop takes the head of podBackoffQ before its backoff ends, never a pod of podErrorBackoffQ",
            [
                QueueAdd(a),
                QueueStepClock(SECOND),
                QueueAdd(b),
                QueuePop(),
                QueuePop(),
                fail(a),
                QueueMoveAll(EVENT_UNSCHEDULABLE_TIMEOUT),
                fail(b, FIT),
                QueuePop(),
            ],
            "pop-from-backoffq",
        ),
        _q(
            "hand_back.already_queued",
            "A hand-back of a pod that is already queued is refused (and Done is called)",
            [QueueAdd(a), QueuePop(), QueueAdd(a), fail(a, FIT)],
            "errors",
            "hand-back",
        ),
        _q(
            "activate.after_done",
            "Activate of a pod whose attempt called Done records nothing; a move request is still made",
            [QueueAdd(a), QueuePop(), QueueDone("a"), QueueActivate(a)],
            "activate",
        ),
        _q(
            "close.pops_what_it_holds",
            "A closed queue still hands out the pods it holds, then returns nothing",
            [QueueAdd(a), QueueStepClock(SECOND), QueueAdd(b), QueuePop(), QueueClose(), QueuePop(), QueuePop()],
            "close",
        ),
        _q(
            "gates.pop_from_backoff_off_double_placement",
            "KNOWN VIOLATION with SchedulerPopFromBackoffQ off: an update "
            "that lowers a request and adds a toleration leaves a pod NodeResourcesFit rejected in backoffQ and "
            "unschedulablePods; Delete then takes it out of backoffQ only",
            [
                NewQueue(pop_from_backoff_q=False),
                QueueAdd(big),
                QueuePop(),
                fail(big, FIT),
                QueueUpdate(big, pod("a", containers=scaled.containers, tolerations=TOLERATING.tolerations)),
                QueueDelete(big),
            ],
            "known-violation",
            "pop-from-backoffq",
        ),
        _q(
            "gates.hints_off_update_in_flight",
            "KNOWN VIOLATION with QueueingHints off: an update during the attempt "
            "puts the pod in activeQ while it is being scheduled; handing it back is refused",
            [
                NewQueue(queueing_hints=False),
                QueueAdd(a),
                QueuePop(),
                QueueUpdate(a, TOLERATING),
                fail(TOLERATING, FIT),
            ],
            "known-violation",
            "hints-off",
        ),
        _q(
            "gates.hints_off_lost_wake_up",
            "KNOWN VIOLATION with QueueingHints off: a move request between a pod's pop "
            "and the next pod's is missed when the first is rejected at Permit later, because the failure handler "
            "passes the current cycle",
            [
                NewQueue(queueing_hints=False),
                QueueAdd(a),
                QueueStepClock(SECOND),
                QueueAdd(b),
                QueuePop(),
                QueueMoveAll(EVENT_NODE_ADD),
                QueuePop(),
                fail(a, FIT),
            ],
            "known-violation",
            "hints-off",
            "lost-wake-up",
        ),
        _q(
            "place.bind_failed_backs_off",
            "A pod whose bind failed after Permit allowed it (Done called) is handed back as an error: backoffQ",
            [QueueAdd(a), QueuePop(), QueueDone("a"), fail(a)],
            "hand-back",
            "errors",
        ),
        _q(
            "place.hints_off_rejected_after_done",
            "QueueingHints off: a pod rejected after Done with no move request since its cycle waits in "
            "unschedulablePods",
            [NewQueue(queueing_hints=False), QueueAdd(a), QueuePop(), QueueDone("a"), fail(a, FIT)],
            "hand-back",
            "hints-off",
        ),
        _q(
            "place.hints_off_delete_re_added_in_flight",
            "QueueingHints off: a pod updated during its attempt is re-added to activeQ; deleting it leaves only the "
            "attempt",
            [NewQueue(queueing_hints=False), QueueAdd(a), QueuePop(), QueueUpdate(a, TOLERATING), QueueDelete(a)],
            "hints-off",
            "update",
        ),
        _q(
            "place.delete_re_added_after_close",
            "An update after Close finds the popped pod in no sub-queue and adds it as new; deleting it leaves its "
            "attempt (Done by Close)",
            [QueueAdd(a), QueuePop(), QueueClose(), QueueUpdate(a, TOLERATING), QueueDelete(a)],
            "close",
            "update",
        ),
        _q(
            "place.leftover_flush_still_backing_off",
            "flushUnschedulablePodsLeftover moves a pod past the maximum time in unschedulablePods to backoffQ while "
            "its backoff has not ended",
            [
                NewQueue(pod_initial_backoff=4 * SECOND, pod_max_backoff=8 * SECOND,
                         pod_max_in_unschedulable_pods_duration=SECOND, unschedulable_flush_period=SECOND),
                QueueAdd(a),
                QueuePop(),
                fail(a, FIT),
                QueueRunFor(2 * SECOND),
            ],
            "leftover-flush",
            "run",
        ),
        _q(
            "scheduling_gates.ungating_update",
            "SchedulingGates (PreEnqueue): a gated pod waits in unschedulablePods through flushes and a move; the "
            "update that removes its last gate (UpdatePodSchedulingGatesEliminated, SchedulingGates' hint: Queue) "
            "moves it to activeQ, its first attempt stamped then",
            [
                NewQueue(pre_enqueue_plugins=("SchedulingGates",)),
                QueueAdd(gated),
                QueueRunFor(301 * SECOND),
                QueueMoveAll(EVENT_NODE_ADD),
                QueueUpdate(gated, pod("g", 0, scheduling_gates=("example.com/b",))),
                QueueUpdate(pod("g", 0, scheduling_gates=("example.com/b",)), pod("g")),
                QueuePop(),
            ],
            "scheduling-gates",
        ),
        _q(
            "scheduling_gates.hints_off",
            "SchedulingGates with QueueingHints off: the ungating update is a change (isPodUpdated), so the pod "
            "moves to activeQ after PreEnqueue passes; an update that keeps a gate leaves it gated",
            [
                NewQueue(queueing_hints=False, pre_enqueue_plugins=("SchedulingGates",)),
                QueueAdd(gated),
                QueueUpdate(gated, pod("g", 3, scheduling_gates=("example.com/a",))),
                QueueUpdate(pod("g", 3, scheduling_gates=("example.com/a",)), pod("g", 3)),
                QueuePop(),
            ],
            "scheduling-gates",
        ),
        *_keyed_by_namespace_name(),
        *(case.scenario() for case in go_cases()),
    ]


def _keyed_by_namespace_name() -> list[Scenario]:
    """The sub-queues hold a pod by namespace/name, the pods in flight by UID (:func:`spec.queue.state.holder`): a
    pod object ``a2`` with ``a``'s namespace and name (the pod deleted and re-created, its delete event missed or not
    yet seen) finds, replaces or removes ``a``'s entry."""
    a, a2 = pod("a"), Pod("a2", "a", namespace="ns1")
    a2_tolerating = replace(a2, tolerations=TOLERATING.tolerations)
    return [
        _q(
            "keyed.add_replaces_entry_of_other_uid",
            "Add of a pod whose namespace/name activeQ holds under another UID replaces that entry (activeQ keys by "
            "namespace/name, podInfoKeyFunc): one pod to pop, the new one",
            [QueueAdd(a), QueueStepClock(SECOND), QueueAdd(a2), QueuePop()],
            "namespace-name-key",
        ),
        _q(
            "keyed.add_takes_unschedulable_entry_of_other_uid",
            "Add of a pod whose namespace/name waits in unschedulablePods under another UID takes that entry out "
            "(moveToActiveQ deletes it by key) and queues the new one",
            [QueueAdd(a), QueuePop(), fail(a, FIT), QueueAdd(a2)],
            "namespace-name-key",
        ),
        _q(
            "keyed.delete_by_other_uid",
            "Delete of a pod object of another UID removes the entry of its namespace/name, from activeQ and from "
            "unschedulablePods",
            [QueueAdd(a), QueueDelete(a2), QueueAdd(a), QueuePop(), fail(a, FIT), QueueDelete(a2)],
            "namespace-name-key",
        ),
        _q(
            "keyed.hand_back_refused_while_other_uid_queued",
            "A pod re-created while its old UID is in flight: the new UID is queued (the pods in flight go by UID, "
            "so Pop returns it too), and the old attempt's hand-back is refused because activeQ holds its "
            "namespace/name; Done is called for it all the same",
            [QueueAdd(a), QueuePop(), QueueAdd(a2), fail(a, FIT), QueuePop()],
            "namespace-name-key",
            "in-flight",
        ),
        _q(
            "keyed.update_across_uids",
            "Update from a pod to one of another UID with its namespace/name finds the old entry: in "
            "unschedulablePods it takes the new object and the update's hints requeue it (with its attempt count); "
            "in activeQ it is updated in place",
            [QueueAdd(a), QueuePop(), fail(a, TAINT), QueueUpdate(a, a2_tolerating), QueueStepClock(SECOND),
             QueueAdd(pod("b")), QueueUpdate(pod("b"), Pod("b2", "b", namespace="ns1", priority=5))],
            "namespace-name-key",
        ),
        _q(
            "keyed.activate_by_other_uid",
            "Activate of a pod object of another UID moves the entry of its namespace/name from unschedulablePods "
            "to activeQ",
            [QueueAdd(a), QueuePop(), fail(a, FIT), QueueActivate(a2), QueuePop()],
            "namespace-name-key",
        ),
    ]


# --------------------------------------------------------------------------------------------
# Exploration and random traces over a small alphabet
# --------------------------------------------------------------------------------------------

A, B = pod("a", containers=(Container("c", resource_list(cpu=200)),)), pod("b", 5)
A_UPDATED = pod("a", containers=(Container("c", resource_list(cpu=100)),), tolerations=TOLERATING.tolerations)
ALPHABET: Final[tuple[QueueOperation, ...]] = (
    QueueAdd(A), QueueAdd(B), QueuePop(), QueueDone("a"),
    fail(A, FIT), fail(A, TAINT), fail(A), fail(A, pending=("NodeAffinity",)), fail(B, FIT), fail(B),
    QueueMoveAll(EVENT_NODE_ADD), QueueMoveAll(NODE_TAINT), QueueMoveAll(EVENT_ASSIGNED_POD_DELETE),
    QueueMoveAll(EVENT_UNSCHEDULABLE_TIMEOUT), QueueActivate(A), QueueUpdate(A, A_UPDATED), QueueDelete(A),
    QueueFlushBackoff(), QueueFlushUnschedulable(), QueueStepClock(HALF_SECOND), QueueStepClock(301 * SECOND),
    QueueRunFor(SECOND), QueueClose(),
)  # fmt: skip
"""The calls exploration and random traces draw from: two pods (a rejected or failing in every way, b of higher
priority), the default plugins' events, an update that lowers a request and adds a toleration."""
GATES: Final = (
    ("hints_on", NewQueue()),
    ("hints_off", NewQueue(queueing_hints=False)),
    ("no_pop_from_backoff", NewQueue(pop_from_backoff_q=False)),
)
EXPLORATION_DEPTH: Final = 6
EXPLORATION_BUDGET: Final = 1500
"""At most this many states are expanded per gate setting (breadth-first, so traces are shortest)."""
RANDOM_SEEDS: Final = (1, 2, 3, 4)
RANDOM_LENGTH: Final = 40


def _target(op: QueueOperation) -> str | None:
    """The pod a call names, if any."""
    match op:
        case QueueAdd(p) | QueueAddUnschedulable(p) | QueueActivate(p) | QueueDelete(p):
            return p.uid
        case QueueUpdate(_, new):
            return new.uid
        case QueueDone(uid):
            return uid
    return None


def _step(world: QueueWorld, op: QueueOperation) -> tuple[QueueWorld, str] | None:
    """Apply ``op``; its transition class, or None if it cannot be a vector's step here."""
    target = _target(op)
    place = "any" if target is None else str(where(world.queue, target) or "")
    if target is not None and not place:
        place = "in_flight" if target in world.queue.in_flight_pods else "out"
    try:
        after, outcome = apply_queue_operation(world, op)
    except QueueNotEnabled:
        return None
    if outcome.error is not None:
        result = outcome.error.kind.value
    elif outcome.popped is not None:
        result = "popped"
    elif isinstance(op, QueuePop):
        result = "nothing"
    else:
        result = "ok" if outcome.went is None else outcome.went.value.lower()
    return after, f"{operation_name(type(op))}.{result.lower()}.{place.lower()}"


def explore_queue(prefix: NewQueue) -> dict[str, list[QueueOperation]]:
    """Shortest traces (after ``prefix``) to every transition class reachable within the depth and budget."""
    start = apply_queue_operation(new_queue_world(DEFAULT_PROFILE), prefix)[0]
    found: dict[str, list[QueueOperation]] = {}
    seen = {start.queue}
    frontier: deque[tuple[QueueWorld, list[QueueOperation]]] = deque([(start, [])])
    expanded = 0
    while frontier and expanded < EXPLORATION_BUDGET:
        world, path = frontier.popleft()
        expanded += 1
        for op in ALPHABET:
            stepped = _step(world, op)
            if stepped is None:
                continue
            after, key = stepped
            if key not in found:
                found[key] = [*path, op]
            if len(path) + 1 >= EXPLORATION_DEPTH or after.queue in seen:
                continue
            seen.add(after.queue)
            frontier.append((after, [*path, op]))
    return found


def random_queue_trace(seed: int, prefix: NewQueue, profile: VersionProfile = DEFAULT_PROFILE) -> list[QueueOperation]:
    """:data:`RANDOM_LENGTH` calls drawn from :data:`ALPHABET` that can be vector steps under ``profile`` (close only
    near the end)."""
    rng = random.Random(seed)
    world = apply_queue_operation(new_queue_world(profile), prefix)[0]
    trace: list[QueueOperation] = []
    while len(trace) < RANDOM_LENGTH:
        op = rng.choice(ALPHABET)
        if isinstance(op, QueueClose) and len(trace) < RANDOM_LENGTH - 5:
            continue
        stepped = _step(world, op)
        if stepped is not None:
            world = stepped[0]
            trace.append(op)
    return trace


def generated_queue() -> list[Scenario]:
    """Exploration and random scenarios under each gate setting."""
    scenarios = []
    for name, prefix in GATES:
        for key, path in sorted(explore_queue(prefix).items()):
            scenarios.append(
                Scenario(
                    f"explore.queue.{name}.{key}",
                    f"Shortest trace to {key} ({name})",
                    [prefix, *path],
                    area="queue",
                    origin="exploration",
                    behaviours=("transition-coverage",),
                )
            )
        for seed in RANDOM_SEEDS:
            ops = [prefix, *random_queue_trace(seed, prefix)]
            scenarios.append(
                Scenario(
                    f"random.queue.{name}.seed{seed}",
                    f"Random trace of {RANDOM_LENGTH} queue calls ({name}, seed {seed})",
                    ops,
                    area="queue",
                    origin="random",
                )
            )
            scenarios.extend(_random_for_refusing_profiles(name, seed, prefix, ops))
    return scenarios


def _random_for_refusing_profiles(name: str, seed: int, prefix: NewQueue, ops: list[QueueOperation]) -> list[Scenario]:
    """The random trace of ``seed`` drawn again under the profiles that cannot run ``ops`` though they have the gate
    setting (v1.37's queue, where an ``Add`` of a backing-off pod is not a vector step:
    :attr:`spec.versions.VersionProfile.add_leaves_backoff_entry`), so that they keep a random trace of their own;
    named after the first of them."""
    refusing = []
    for profile_name, profile in PROFILES.items():
        if prefix.queueing_hints is False and not profile.queueing_hints_gate:
            continue
        try:
            queue_steps(profile, ops)
        except ValueError:
            refusing.append(profile_name)
    if not refusing:
        return []
    first = PROFILES[refusing[0]]
    return [Scenario(
        f"random.queue.{name}.seed{seed}.{first.name.replace('.', '_')}",
        f"Random trace of {RANDOM_LENGTH} queue calls ({name}, seed {seed}, drawn under {first.name})",
        [prefix, *random_queue_trace(seed, prefix, first)],
        area="queue",
        origin="random",
        profiles=tuple(refusing),
    )]
