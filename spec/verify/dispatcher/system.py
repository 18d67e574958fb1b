"""The API dispatcher's call queue as a transition system for the model checker.

States are :class:`~spec.dispatcher.call_queue.CallQueue` values; transitions are the call-queue operations
(:mod:`spec.dispatcher.operations`) over a finite :class:`DispatcherUniverse`: ``uids`` object UIDs,
each with the same call variants (a binding, status patches that set a condition, nominate a
node, or do nothing), syncs with a few statuses, finishes with and without an error, and close.
Every ``Add`` takes a caller number for good, so the universe bounds how many ``Add`` calls a run
makes (``adds``); every other operation is bounded by them, which makes the state space finite.

Properties checked:

- every state: :data:`spec.dispatcher.invariants.CALL_QUEUE_INVARIANTS`;
- every step: :func:`~spec.dispatcher.invariants.trans_more_relevant_call_never_dropped`; every
  ``Add``: :func:`~spec.dispatcher.invariants.trans_add_keeps_the_more_relevant_call` and "the
  error ``Add`` returns is the first value its caller is sent" (as the stateful test requires);
- with ``known_violations``: :data:`~spec.dispatcher.invariants.CALL_QUEUE_KNOWN_VIOLATIONS`
  (``liveness_every_caller_told`` in quiescent states), to show Kubernetes breaking them.

Representatives: ``sends`` is sorted (by call id, kind, message). No transition reads it, and every
property reads it as a multiset, except "``Add``'s error is its first send", which reads only the
sends of the new caller, all made in that step; so sorting merges only states that behave alike.
Symmetry (optional): UIDs are interchangeable. A representative numbers the UIDs that hold a call
by the smallest call id they hold (call ids belong to one ``Add`` and so to one UID), the rest
after in name order; this is an exact canonical form.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Final

from spec.dispatcher.api_calls import (
    APICall,
    NominatingInfo,
    NominatingMode,
    PodBindingCall,
    PodCondition,
    PodStatus,
    PodStatusPatchCall,
)
from spec.dispatcher.call_queue import AddError, CallQueue, QueuedCall, new_call_queue
from spec.dispatcher.invariants import (
    CALL_QUEUE_INVARIANTS,
    inv_no_caller_told_twice,
    liveness_every_caller_told,
    trans_add_keeps_the_more_relevant_call,
    trans_more_relevant_call_never_dropped,
)
from spec.dispatcher.operations import (
    AddCall,
    CallQueueOperation,
    CloseDispatcher,
    FinishCall,
    PopCall,
    SyncObject,
    apply_call_queue,
    is_enabled,
)
from spec.frozenmap import FrozenMap
from spec.verify.fingerprint import fingerprint
from spec.verify.transition_system import Edge, TraceStep, Violation
from spec.versions import DEFAULT_PROFILE, VersionProfile

StepFunction = Callable[[CallQueue, CallQueueOperation], tuple[CallQueue, AddError | None]]

CONDITION: Final = PodCondition("PodScheduled", "False", "Unschedulable")
NOMINATED: Final = "n1"
MAX_CALL_VARIANTS: Final = 4
ADD_ERROR_IS_FIRST_SEND: Final = "add_error_is_first_send"
NEVER_DROPPED: Final = trans_more_relevant_call_never_dropped.__name__
KEEPS_MORE_RELEVANT: Final = trans_add_keeps_the_more_relevant_call.__name__


def call_variant(uid: str, variant: int) -> APICall:
    """Variant 0: bind to n1. 1: set the PodScheduled=False condition. 2: nominate n1. 3: a status
    patch with nothing to do (a no-op from the start)."""
    if variant == 0:
        return PodBindingCall(uid, "n1")
    if variant == 1:
        return PodStatusPatchCall(uid, PodStatus(), CONDITION)
    if variant == 2:
        return PodStatusPatchCall(uid, PodStatus(), None, NominatingInfo(NominatingMode.OVERRIDE, NOMINATED))
    return PodStatusPatchCall(uid, PodStatus())


SYNC_STATUSES: Final = (
    PodStatus(),
    PodStatus(FrozenMap({CONDITION.type: CONDITION})),
    PodStatus(nominated_node_name=NOMINATED),
)
"""The statuses a sync delivers: empty, with the condition set, with n1 nominated (the last two
make variants 1 and 2 no-ops)."""
FINISH_ERRORS: Final = (None, "conflict")


@dataclass(frozen=True)
class DispatcherUniverse:
    """The finite universe of the dispatcher checker, as set on the command line."""

    uids: int = 2
    adds: int = 3
    call_variants: int = 3
    profile: VersionProfile = DEFAULT_PROFILE

    def __post_init__(self) -> None:
        if self.uids < 1 or self.adds < 0:
            raise ValueError(f"the universe needs at least one UID and no negative add count, got {self}")
        if not 1 <= self.call_variants <= MAX_CALL_VARIANTS:
            raise ValueError(f"call variants must be between 1 and {MAX_CALL_VARIANTS}, got {self.call_variants}")

    @cached_property
    def uid_names(self) -> tuple[str, ...]:
        return tuple(f"u{i}" for i in range(self.uids))

    def describe(self) -> str:
        return (
            f"{self.uids} UIDs x {self.call_variants} call variants, at most {self.adds} Add calls, "
            f"{len(SYNC_STATUSES)} sync statuses, finishes with and without error, profile {self.profile.name}"
        )

    def operations(self, queue: CallQueue) -> list[CallQueueOperation]:
        """The enabled operations in ``queue``, in a fixed order."""
        ops: list[CallQueueOperation] = []
        if queue.callers < self.adds:
            ops.extend(AddCall(call_variant(u, v)) for u in self.uid_names for v in range(self.call_variants))
        ops.append(PopCall())
        ops.extend(FinishCall(u, e) for u in self.uid_names for e in FINISH_ERRORS)
        ops.extend(SyncObject(u, s) for u in self.uid_names if u in queue.calls for s in SYNC_STATUSES)
        if not queue.closed:
            ops.append(CloseDispatcher())
        return [op for op in ops if is_enabled(queue, op)]


# ============================================================================================
# Renaming UIDs
# ============================================================================================


def _rename_call(call: APICall, names: FrozenMap[str, str]) -> APICall:
    return replace(call, uid=names.get(call.uid, call.uid))


def _rename_queued(queued: QueuedCall, names: FrozenMap[str, str]) -> QueuedCall:
    return QueuedCall(_rename_call(queued.call, names), queued.call_id)


def rename_queue(queue: CallQueue, names: FrozenMap[str, str]) -> CallQueue:
    """``queue`` with UIDs renamed by ``names`` (missing UIDs kept)."""
    return replace(
        queue,
        calls=FrozenMap({names.get(u, u): _rename_queued(q, names) for u, q in queue.calls.items()}),
        fifo=tuple(names.get(u, u) for u in queue.fifo),
        in_flight=FrozenMap({names.get(u, u): _rename_queued(q, names) for u, q in queue.in_flight.items()}),
    )


def rename_queue_operation(op: CallQueueOperation, names: FrozenMap[str, str]) -> CallQueueOperation:
    match op:
        case AddCall(call):
            return AddCall(_rename_call(call, names))
        case FinishCall(uid, error):
            return FinishCall(names.get(uid, uid), error)
        case SyncObject(uid, status):
            return SyncObject(names.get(uid, uid), status)
    return op


def _inverse(names: FrozenMap[str, str]) -> FrozenMap[str, str]:
    return FrozenMap({v: k for k, v in names.items()})


def _then(first: FrozenMap[str, str], second: FrozenMap[str, str]) -> FrozenMap[str, str]:
    keys = set(first) | set(second)
    return FrozenMap({k: second.get(first.get(k, k), first.get(k, k)) for k in keys})


# ============================================================================================
# The system
# ============================================================================================


class DispatcherSystem:
    """The call queue over a finite universe."""

    def __init__(
        self,
        universe: DispatcherUniverse,
        *,
        symmetry: bool = True,
        step: StepFunction = apply_call_queue,
        known_violations: bool = False,
    ) -> None:
        self.universe = universe
        self.symmetry = symmetry
        self.step = step
        self.known_violations = known_violations

    def initial_states(self) -> list[CallQueue]:
        return [new_call_queue(self.universe.profile)]

    def fingerprint(self, representative: CallQueue) -> int:
        return fingerprint(representative)

    def within_bounds(self, state: CallQueue) -> bool:
        return True

    def canonical(self, state: CallQueue) -> tuple[CallQueue, object]:
        sends = tuple(sorted(state.sends, key=lambda n: (n.call_id, n.kind.value, n.message)))
        if sends != state.sends:
            state = replace(state, sends=sends)
        if not self.symmetry:
            return state, FrozenMap()
        names = self.universe.uid_names
        first_id = {u: q.call_id for u, q in state.calls.items()}
        for u, q in state.in_flight.items():
            first_id[u] = min(q.call_id, first_id.get(u, q.call_id))
        ordered = sorted(names, key=lambda u: (0, first_id[u], u) if u in first_id else (1, 0, u))
        renaming = FrozenMap({old: new for old, new in zip(ordered, names, strict=True) if old != new})
        return (rename_queue(state, renaming) if renaming else state), renaming

    def violations(self, state: CallQueue) -> list[str]:
        found = [p.__name__ for p in CALL_QUEUE_INVARIANTS if not p(state)]
        if self.known_violations:
            found.extend(p.__name__ for p in (inv_no_caller_told_twice, liveness_every_caller_told) if not p(state))
        return found

    def edges(self, state: CallQueue) -> Iterator[Edge[CallQueue]]:
        for op in self.universe.operations(state):
            after, error = self.step(state, op)
            yield Edge(op, coverage(op, error), after, tuple(self.step_violations(state, op, after, error)))

    def step_violations(
        self, before: CallQueue, op: CallQueueOperation, after: CallQueue, error: AddError | None
    ) -> list[str]:
        added = op.call if isinstance(op, AddCall) else None
        found = []
        if not trans_more_relevant_call_never_dropped(before, after, added):
            found.append(NEVER_DROPPED)
        if added is not None:
            if not trans_add_keeps_the_more_relevant_call(before, after, added):
                found.append(KEEPS_MORE_RELEVANT)
            if error is not None:
                first = next((n for n in after.sends if n.call_id == before.callers), None)
                if first is None or (first.kind, first.message) != (error.kind, error.message):
                    found.append(ADD_ERROR_IS_FIRST_SEND)
        return found

    def concretize(self, initial: CallQueue, path: list[tuple[object, object]], prop: str) -> Violation:
        """Replay ``path`` from ``initial`` with the operations renamed back to the concrete UIDs."""
        queue = initial
        to_rep: FrozenMap[str, str] = FrozenMap()
        steps = []
        last: tuple[CallQueue, CallQueueOperation, CallQueue, AddError | None] | None = None
        for label, renaming in path:
            assert isinstance(label, AddCall | PopCall | FinishCall | SyncObject | CloseDispatcher)
            op = rename_queue_operation(label, _inverse(to_rep))
            after, error = self.step(queue, op)
            steps.append(TraceStep(describe_operation(op), "ok" if error is None else f"error {error.kind.value}"))
            last = (queue, op, after, error)
            queue = after
            if isinstance(renaming, FrozenMap):
                to_rep = _then(to_rep, renaming)
        reproduced = prop in self.violations(queue) or (last is not None and prop in self.step_violations(*last))
        final = describe_queue_state(queue)
        if not reproduced:
            final += "\n(NOT reproduced by the replay without renaming)"
        return Violation(prop, f"new_call_queue(profile={initial.profile.name})", tuple(steps), final)


def coverage(op: CallQueueOperation, error: AddError | None) -> str:
    if isinstance(op, AddCall):
        variant = "binding" if isinstance(op.call, PodBindingCall) else "status patch"
        return f"AddCall {variant}: " + ("kept" if error is None else error.kind.value)
    if isinstance(op, FinishCall):
        return "FinishCall: " + ("success" if op.error is None else "error")
    return f"{type(op).__name__}: ok"


def describe_call(call: APICall) -> str:
    if isinstance(call, PodBindingCall):
        return f"bind {call.uid} to {call.node_name}"
    parts = []
    if call.condition is not None:
        parts.append(f"condition {call.condition.type}={call.condition.status}")
    if call.nominating_info is not None:
        parts.append(f"nominate {call.nominating_info.nominated_node_name or '-'}")
    return f"patch {call.uid} status ({', '.join(parts) or 'nothing'})"


def describe_operation(op: CallQueueOperation) -> str:
    match op:
        case AddCall(call):
            return f"Add({describe_call(call)})"
        case FinishCall(uid, error):
            return f"Finish({uid}, {'success' if error is None else error})"
        case SyncObject(uid, status):
            return f"Sync({uid}, conditions={sorted(status.conditions)}, nominated={status.nominated_node_name!r})"
    return type(op).__name__


def describe_queue_state(queue: CallQueue) -> str:
    lines = [f"closed={queue.closed} callers={queue.callers} fifo={list(queue.fifo)}"]
    for uid, q in sorted(queue.calls.items()):
        lines.append(f"kept for {uid}: call #{q.call_id} {describe_call(q.call)}")
    for uid, q in sorted(queue.in_flight.items()):
        lines.append(f"in flight for {uid}: call #{q.call_id} {describe_call(q.call)}")
    lines.append("sent: " + (", ".join(f"#{n.call_id} {n.kind.value}" for n in queue.sends) or "nothing"))
    return "\n".join(lines)


DEFAULT_DISPATCHER_UNIVERSE: Final = DispatcherUniverse()
"""``ksspec check --system dispatcher`` without arguments: exhausted in a few seconds."""
