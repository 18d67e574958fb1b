"""Representatives of scheduling-queue model states: states no transition and no checked
property tells apart are merged, so that :mod:`spec.verify.queue_system` explores unbounded time
over a small, finite set of states.

:func:`canonical_model` removes what only looks different (absolute time, absolute cycle numbers,
history no future step reads); :func:`symmetric_representative` then renames the pods, which are
interchangeable (the universe's pods differ only in their UID), into a canonical order and returns
the renaming, which :meth:`~spec.verify.queue_system.QueueSystem.concretize` undoes to replay a
trace with the pods it really had.
"""

from __future__ import annotations

from itertools import permutations

from spec.backoff import BACKOFF_Q_ORDERING_WINDOW
from spec.frozenmap import FrozenMap
from spec.objects import Pod
from spec.queue_operations import Attempt, QueueWorld
from spec.queue_state import InFlightEntry, PodPopped, QueuedPod, RecordedEvent
from spec.valuetypes import replace
from spec.verify.queue_universe import QueueModel, QueueStep, QueueUniverse

Renaming = FrozenMap[str, str]
IDENTITY: Renaming = FrozenMap()


def canonical_model(u: QueueUniverse, state: QueueModel) -> QueueModel:
    """A representative of ``state`` that no transition and no checked property tells apart from it.

    - Time: ``now`` and every timestamp are shifted by whole flush periods (``Run``'s schedule repeats
      with them) to put ``now`` within a period after :attr:`QueueUniverse.time_base`, and the queued
      pods' timestamps older than :attr:`QueueUniverse.oldest_age` become the ordering windows just
      before that age, keeping their order and ties (every comparison of a timestamp with the clock is
      with ``now`` minus at most that age; activeQ's QueueSort and backoffQ's order compare them with
      each other, also after a flush moves old pods from unschedulablePods to activeQ).
      The timestamps nothing reads become 0: when a pod first entered activeQ (only whether it did
      matters) and the timestamp in a running attempt's pod info (the hand-back restamps it).
    - Cycles: the scheduling cycle, ``moveRequestCycle`` and the cycles attempts started in are
      renumbered from 0 keeping their order (only comparisons between them are read, and new ones
      are always the largest); with QueueingHints on, attempts' cycles are not read and become 0.
    - Ghost history: kept only for pods in unschedulablePods or in an attempt (any other pod is
      popped again, which clears its history, before it can enter unschedulablePods).
    - Budgets and marks of pods that are gone (deleted or bound) and have left the queue and their
      attempt are dropped (no step names them again).
    """
    world = state.world
    queue, hints_on = world.queue, world.queue.config.queueing_hints
    now = u.time_base + queue.now % u.flush_period
    shift = queue.now - now
    floor = now - u.oldest_age
    queued = (queue.active_q, queue.backoff_q, queue.error_backoff_q, queue.unschedulable_pods)
    old = sorted({p.timestamp - shift for sub in queued for p in sub.values() if p.timestamp - shift < floor})
    aged = {t: floor - (len(old) - i) * BACKOFF_Q_ORDERING_WINDOW for i, t in enumerate(old)}

    def moved(pinfo: QueuedPod) -> QueuedPod:
        first = None if pinfo.initial_attempt_timestamp is None else 0
        timestamp = pinfo.timestamp - shift
        return replace(pinfo, timestamp=aged.get(timestamp, timestamp), initial_attempt_timestamp=first)

    def pods(values: FrozenMap[str, QueuedPod]) -> FrozenMap[str, QueuedPod]:
        return FrozenMap({uid: moved(p) for uid, p in values.items()})

    cycles = {queue.scheduling_cycle, queue.move_request_cycle, -1}
    if not hints_on:
        cycles |= {a.cycle for a in world.attempts.values()}
    rank = {c: i - 1 for i, c in enumerate(sorted(cycles))}

    def attempt(a: Attempt) -> Attempt:
        first = None if a.pinfo.initial_attempt_timestamp is None else 0
        pinfo = replace(a.pinfo, timestamp=0, initial_attempt_timestamp=first)
        return Attempt(pinfo, rank[a.cycle] if not hints_on else 0, a.done)

    queue = replace(
        queue,
        now=now,
        active_q=pods(queue.active_q),
        backoff_q=pods(queue.backoff_q),
        error_backoff_q=pods(queue.error_backoff_q),
        unschedulable_pods=pods(queue.unschedulable_pods),
        scheduling_cycle=rank[queue.scheduling_cycle],
        move_request_cycle=rank[queue.move_request_cycle],
    )
    keep = set(queue.unschedulable_pods) | set(world.attempts)
    history = FrozenMap({uid: seen for uid, seen in world.since_pop.items() if uid in keep})
    attempts = FrozenMap({uid: attempt(a) for uid, a in world.attempts.items()})
    gone = {uid for uid in state.gone if uid not in world.attempts and not any(uid in sub for sub in queued)}
    return replace(
        state,
        world=QueueWorld(queue, attempts, history),
        updated=state.updated - gone,
        pops=FrozenMap({uid: n for uid, n in state.pops.items() if uid not in gone}),
    )


# ============================================================================================
# Renaming pods
# ============================================================================================


def _pod(pod: Pod, names: Renaming) -> Pod:
    new = names.get(pod.uid, pod.uid)
    return pod if new == pod.uid else replace(pod, uid=new, name=new)


def _pinfo(pinfo: QueuedPod, names: Renaming) -> QueuedPod:
    return replace(pinfo, pod=_pod(pinfo.pod, names))


def _event(recorded: RecordedEvent, names: Renaming) -> RecordedEvent:
    if recorded.target is None:
        return recorded
    return RecordedEvent(recorded.event, names.get(recorded.target, recorded.target))


def _entry(entry: InFlightEntry, names: Renaming) -> InFlightEntry:
    if isinstance(entry, PodPopped):
        return PodPopped(names.get(entry.uid, entry.uid))
    return _event(entry, names)


def _pods(values: FrozenMap[str, QueuedPod], names: Renaming) -> FrozenMap[str, QueuedPod]:
    return FrozenMap({names.get(u, u): _pinfo(p, names) for u, p in values.items()})


def rename_model(state: QueueModel, names: Renaming) -> QueueModel:
    """``state`` with every pod UID (and the universe pod's name, its UID) renamed by ``names``."""
    if not names:
        return state
    world, queue = state.world, state.world.queue

    def uids(values: frozenset[str]) -> frozenset[str]:
        return frozenset(names.get(u, u) for u in values)

    queue = replace(
        queue,
        active_q=_pods(queue.active_q, names),
        backoff_q=_pods(queue.backoff_q, names),
        error_backoff_q=_pods(queue.error_backoff_q, names),
        unschedulable_pods=_pods(queue.unschedulable_pods, names),
        in_flight_pods=FrozenMap({names.get(u, u): _pod(p, names) for u, p in queue.in_flight_pods.items()}),
        in_flight_events=tuple(_entry(e, names) for e in queue.in_flight_events),
    )
    attempts = FrozenMap({names.get(u, u): replace(a, pinfo=_pinfo(a.pinfo, names)) for u, a in world.attempts.items()})
    history = FrozenMap(
        {names.get(u, u): frozenset(_event(e, names) for e in seen) for u, seen in world.since_pop.items()}
    )
    scheduling = None if state.scheduling is None else names.get(state.scheduling, state.scheduling)
    return replace(
        state,
        world=QueueWorld(queue, attempts, history),
        scheduling=scheduling,
        waiting=uids(state.waiting),
        added=uids(state.added),
        updated=uids(state.updated),
        gone=uids(state.gone),
        pops=FrozenMap({names.get(u, u): n for u, n in state.pops.items()}),
    )


def rename_step(step: QueueStep, names: Renaming) -> QueueStep:
    """``step`` with its pod renamed."""
    args = tuple(names.get(a, a) if isinstance(a, str) else a for a in step.args)
    return QueueStep(step.name, args)


def inverse(names: Renaming) -> Renaming:
    return FrozenMap({v: k for k, v in names.items()})


def then(first: Renaming, second: Renaming) -> Renaming:
    """The renaming that applies ``first``, then ``second``."""
    keys = set(first) | set(second)
    composed = {k: second.get(first.get(k, k), first.get(k, k)) for k in keys}
    return FrozenMap({k: v for k, v in composed.items() if k != v})


def _signature(state: QueueModel, uid: str) -> tuple[object, ...]:
    """What distinguishes pod ``uid`` in ``state`` without naming it, as a sortable tuple."""
    queue, world = state.world.queue, state.world
    place, pinfo = 5, None
    for code, pods in enumerate((queue.active_q, queue.backoff_q, queue.error_backoff_q, queue.unschedulable_pods)):
        if uid in pods:
            place, pinfo = code, pods[uid]
            break
    attempt = world.attempts.get(uid)
    counts: tuple[object, ...] = ()
    if pinfo is not None:
        counts = (pinfo.timestamp, pinfo.attempts, pinfo.unschedulable_count, pinfo.consecutive_errors_count,
                  tuple(sorted(pinfo.unschedulable_plugins)), tuple(sorted(pinfo.pending_plugins)),
                  pinfo.pod.tolerations != ())
    running: tuple[object, ...] = ()
    if attempt is not None:
        running = (attempt.cycle, attempt.done, attempt.pinfo.attempts, attempt.pinfo.unschedulable_count,
                   attempt.pinfo.consecutive_errors_count)
    marker = queue.in_flight_events.index(PodPopped(uid)) if PodPopped(uid) in queue.in_flight_events else -1
    history = tuple(sorted((e.event.label, e.target == uid) for e in world.since_pop.get(uid, ())))
    flags = (uid in state.added, uid in state.updated, uid in state.gone, uid == state.scheduling, uid in state.waiting)
    return (place, counts, running, marker, history, flags, state.pops.get(uid, 0), uid in queue.in_flight_pods)


def symmetric_representative(u: QueueUniverse, state: QueueModel) -> tuple[QueueModel, Renaming]:
    """:func:`canonical_model` of ``state`` with its pods renamed so that their signatures are in
    order; pods with equal signatures are tried in every order and the smallest state (by ``repr``)
    wins. Returns the representative and the renaming that maps ``state``'s pods to it."""
    base = canonical_model(u, state)
    names = u.uids
    signatures = {uid: _signature(base, uid) for uid in names}
    ordered = sorted(names, key=lambda uid: (signatures[uid], uid))
    groups: list[list[str]] = []
    for uid in ordered:
        if groups and signatures[groups[-1][0]] == signatures[uid]:
            groups[-1].append(uid)
        else:
            groups.append([uid])
    candidates: list[list[str]] = [[]]
    for group in groups:
        candidates = [c + list(p) for c in candidates for p in permutations(group)]
    best: tuple[str, QueueModel, Renaming] | None = None
    for order in candidates:
        renaming = FrozenMap({old: new for old, new in zip(order, names, strict=True) if old != new})
        renamed = rename_model(base, renaming)
        key = repr(renamed) if len(candidates) > 1 else ""
        if best is None or key < best[0]:
            best = (key, renamed, renaming)
    assert best is not None
    return best[1], best[2]
