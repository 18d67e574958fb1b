"""The pod-place table of the scheduling queue (:data:`spec.queue.lifecycle.QUEUE_POD_TRANSITIONS`) is exactly what the
queue does: every call of every state the model checker reaches (two pods, every way an attempt ends, the default
plugins' events, an update, an activation, time passing) moves every pod as a row of its gate setting says, and
every row happens."""

from __future__ import annotations

from collections import deque
from dataclasses import replace

import pytest

from spec.quantities import SECOND
from spec.queue.lifecycle import (
    FLUSH_BACKOFF,
    FLUSH_LEFTOVER,
    HAND_BACK,
    HINTS_OFF,
    HINTS_ON,
    MOVE,
    QUEUE_POD_TRANSITIONS,
    pod_place,
)
from spec.queue.operations import (
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
)
from spec.verify.queue.system import QueueSystem
from spec.verify.queue.universe import QueueModel, QueueUniverse

NAMES: dict[type[QueueOperation], tuple[str, ...]] = {
    QueueAdd: ("add",), QueuePop: ("pop",), QueueDone: ("done",), QueueAddUnschedulable: (HAND_BACK,),
    QueueMoveAll: (MOVE,), QueueActivate: ("activate",), QueueUpdate: ("update",), QueueDelete: ("delete",),
    QueueRunFor: (FLUSH_BACKOFF, FLUSH_LEFTOVER), QueueClose: ("close",),
}  # fmt: skip

Row = tuple[str, str, str]


def observed_rows(universe: QueueUniverse, depth: int) -> set[tuple[tuple[str, ...], str, str]]:
    """(operation names, source, target) of every change of place in every call within ``depth`` steps."""
    system = QueueSystem(universe, symmetry=False)
    start = system.initial_states()[0]
    frontier: deque[tuple[QueueModel, int]] = deque([(start, 0)])
    seen = {start}
    rows = set()
    while frontier:
        state, level = frontier.popleft()
        for step in system.steps(state):
            world = state.world
            for call in system.calls(state, step):
                if call == "drop":
                    after = replace(world, attempts=world.attempts.remove(step.args[0]))
                    names: tuple[str, ...] = ("bound",)
                else:
                    assert not isinstance(call, str)
                    after, names = system.step(world, call), NAMES[type(call)]
                rows |= {(names, *moved) for moved in moves(world, after, universe.uids)}
                world = after
            successor = system.apply(state, step)
            if level < depth and successor not in seen:
                seen.add(successor)
                frontier.append((successor, level + 1))
    return rows


def moves(before: QueueWorld, after: QueueWorld, uids: tuple[str, ...]) -> list[tuple[str, str]]:
    changed = []
    for uid in uids:
        source, target = pod_place(before, uid), pod_place(after, uid)
        if source != target:
            changed.append((source.value, target.value))
    return changed


def table(gate: str) -> set[Row]:
    return {(r.operation, r.source.value, r.target.value) for r in QUEUE_POD_TRANSITIONS if r.gate in (None, gate)}



BASE = QueueUniverse(pods=2, pops=2, events=1, activations=1, failures=4, close=True)
TIMINGS = (
    replace(BASE, pod_max_in_unschedulable=2 * SECOND),
    replace(BASE, pod_initial_backoff=2 * SECOND, pod_max_in_unschedulable=SECOND),
)
UNIVERSES = {HINTS_ON: TIMINGS, HINTS_OFF: tuple(replace(u, queueing_hints=False) for u in TIMINGS)}
"""Every attempt outcome and Close. A pod stays in unschedulablePods past its backoff (2 s) before the leftover
flush in one universe, and is still backing off (2 s from the first failure) when the flush takes it (1 s) in the
other."""


@pytest.mark.parametrize("gate", sorted(UNIVERSES))
def test_every_change_of_place_is_a_row_and_every_row_happens(gate: str) -> None:
    observed = set().union(*(observed_rows(universe, depth=6) for universe in UNIVERSES[gate]))
    rows = table(gate)
    for names, source, target in observed:
        assert any((name, source, target) in rows for name in names), (names, source, target)
    happened = {(name, s, t) for names, s, t in observed for name in names}
    assert rows <= happened, sorted(rows - happened)
