"""The operations the call-queue state machines draw, in one rule set for the spec's and the refinement's machine.

The spec's machine (``tests/spec/dispatcher/test_stateful.py``) checks the invariants after each operation; the
refinement machine (``tests/refimpl/dispatcher/test_call_queue_refinement.py``) applies it to refimpl as well and
compares. A machine supplies :meth:`CallQueueRules.step` and :meth:`CallQueueRules.current`.
"""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule

from spec.dispatcher.api_calls import (
    APICall,
    NominatingInfo,
    NominatingMode,
    PodBindingCall,
    PodCondition,
    PodStatus,
    PodStatusPatchCall,
)
from spec.dispatcher.call_queue import CallQueue, can_pop
from spec.dispatcher.operations import AddCall, CallQueueOperation, CloseDispatcher, FinishCall, PopCall, SyncObject
from spec.frozenmap import FrozenMap
from spec.versions import V1_35, VersionProfile

UNSCHEDULABLE = PodCondition("PodScheduled", "False", "Unschedulable")
EMPTY = PodStatus()
ALREADY_UNSCHEDULABLE = PodStatus(FrozenMap({"PodScheduled": UNSCHEDULABLE}))
NOMINATED_N2 = PodStatus(nominated_node_name="n2")
OVERRIDE_N2 = NominatingInfo(NominatingMode.OVERRIDE, "n2")

UIDS = ("u1", "u2", "u3")
uids = st.sampled_from(("u1", *UIDS))
"""u1 is drawn twice as often: calls for one object collide more often."""
CONDITIONS = (None, UNSCHEDULABLE, PodCondition("PodScheduled", "False", "SchedulerError"))
NOMINATIONS = (None, NominatingInfo(NominatingMode.NOOP), OVERRIDE_N2)
STATUSES = (EMPTY, ALREADY_UNSCHEDULABLE, NOMINATED_N2)

statuses = st.sampled_from(STATUSES)
calls: st.SearchStrategy[APICall] = st.one_of(
    st.builds(PodBindingCall, uids, st.sampled_from(("n1", "n2"))),
    st.builds(PodStatusPatchCall, uids, statuses, st.sampled_from(CONDITIONS), st.sampled_from(NOMINATIONS)),
)


class CallQueueRules(RuleBasedStateMachine):
    """Adds, pops, finishes, syncs, and close (rarely, and again once closed)."""

    profile: VersionProfile = V1_35

    def current(self) -> CallQueue:
        """The spec's queue as it is now (the rules' preconditions read it)."""
        raise NotImplementedError

    def step(self, op: CallQueueOperation) -> None:
        """Apply one drawn operation."""
        raise NotImplementedError

    @rule(call=calls)
    def add(self, call: APICall) -> None:
        self.step(AddCall(call))

    @precondition(lambda self: can_pop(self.current()))
    @rule()
    def pop(self) -> None:
        self.step(PopCall())

    @precondition(lambda self: bool(self.current().in_flight))
    @rule(data=st.data(), error=st.sampled_from((None, "conflict", "context canceled")))
    def finish(self, data: st.DataObject, error: str | None) -> None:
        uid = data.draw(st.sampled_from(sorted(self.current().in_flight)))
        self.step(FinishCall(uid, error))

    @rule(uid=uids, status=statuses)
    def sync(self, uid: str, status: PodStatus) -> None:
        self.step(SyncObject(uid, status))

    @precondition(lambda self: not self.current().closed)
    @rule(coin=st.integers(0, 3))
    def close(self, coin: int) -> None:
        if coin == 0:  # rarer than the other operations, so runs go on past it less often
            self.step(CloseDispatcher())

    @precondition(lambda self: self.current().closed)
    @rule()
    def close_again(self) -> None:
        """Closing twice changes nothing more (PR #141745's close returns at once; v1.35's sets the flag again)."""
        self.step(CloseDispatcher())
