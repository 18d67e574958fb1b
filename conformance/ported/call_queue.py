"""Ported from pkg/scheduler/backend/api_dispatcher/call_queue_test.go: the call queue's table tests, case by case.

The Go tests use mock calls of two types, ``low`` and ``high`` relevance, with mock merge, no-op and sync functions.
The port uses the in-tree types of the same relevances: a status patch is ``low`` (relevance 1), a binding
``high`` (relevance 2); a mock no-op is a status patch whose condition is already on the pod; a merge that makes
the call a no-op is a status patch without a condition merged into one whose condition the pod already has; a sync
that makes the call a no-op delivers a status that already has the condition. Not ported: the cases about ``pop``
blocking (the spec's pop is enabled only when it would not block, :func:`spec.dispatcher.call_queue.can_pop`).
"""

from __future__ import annotations

from typing import Final

from conformance.ported.common import go_case
from conformance.traces import Scenario
from spec.dispatcher.api_calls import PodBindingCall, PodCondition, PodStatus, PodStatusPatchCall
from spec.dispatcher.operations import AddCall, CloseDispatcher, FinishCall, PopCall, SyncObject
from spec.frozenmap import FrozenMap

FILE: Final = "backend/api_dispatcher/call_queue_test.go"
CONDITION: Final = PodCondition("PodScheduled", "False", "Unschedulable", "0/1 nodes are available")
HAS_IT: Final = PodStatus(FrozenMap({"PodScheduled": CONDITION}))


def low(uid: str, condition: PodCondition | None = CONDITION, status: PodStatus = PodStatus()) -> AddCall:
    """A ``low`` relevance mock call: a status patch."""
    return AddCall(PodStatusPatchCall(uid, status, condition))


def high(uid: str) -> AddCall:
    """A ``high`` relevance mock call: a binding."""
    return AddCall(PodBindingCall(uid, "node"))


NO_OP: Final = low("uid1", status=HAS_IT)
"""A call whose ``IsNoOp`` is true from the start."""


def scenarios() -> list[Scenario]:
    """Every ported case, one vector each."""
    pop, close = PopCall(), CloseDispatcher()
    cases: list[tuple[str, str, list[object]]] = [
        ("TestCallQueueAdd", "First call is added without collision", [low("uid1")]),
        ("TestCallQueueAdd", "No-op call is skipped", [NO_OP]),
        ("TestCallQueueAdd", "Two calls for different objects don't collide", [low("uid1"), high("uid2")]),
        ("TestCallQueueAdd", "New call overwrites less relevant call", [low("uid1"), high("uid1")]),
        ("TestCallQueueAdd", "New call is skipped if less relevant", [high("uid1"), low("uid1")]),
        ("TestCallQueueAdd", "New call merges with old call and skips if no-op",
         [low("uid1", status=PodStatus()), low("uid1", status=PodStatus()), low("uid1", None, HAS_IT)]),
        ("TestCallQueuePop", "Calls are popped from the queue in FIFO order", [low("uid1"), low("uid2"), pop, pop]),
        ("TestCallQueueFinalize", "Call details are cleared if there is no waiting call",
         [low("uid1"), pop, FinishCall("uid1")]),
        ("TestCallQueueFinalize", "UID is re-queued if a new call arrived while one was in-flight",
         [low("uid1"), pop, low("uid1"), FinishCall("uid1")]),
        ("TestCallQueueSyncObject", "Object is synced with pending call details",
         [low("uid1"), SyncObject("uid1", PodStatus(nominated_node_name="other"))]),
        ("TestCallQueueSyncObject", "Pending call is canceled if sync results in no-op",
         [low("uid1"), SyncObject("uid1", HAS_IT)]),
        ("TestCallQueueSyncObject", "Object is not synced if UID is not present in the controller",
         [low("uid1"), SyncObject("uid2", PodStatus())]),
        ("TestCallQueueClose", "Pop returns nil when controller is closed", [close]),
        ("TestCallQueueClose", "Pop unblocks and returns nil when controller is closed", [low("uid1"), close]),
    ]
    return [go_case("dispatcher", FILE, test, case, ops) for test, case, ops in cases]
