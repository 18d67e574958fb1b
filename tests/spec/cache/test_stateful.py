"""Hypothesis state machines that drive the cache spec with every operation, valid and invalid.

``ContractCacheMachine`` issues what a real informer and scheduler could issue (including races:
unknown pods, wrong states). After every step every state invariant must hold, no process
exit may happen, no error may change the state, each pod must move between phases exactly as
the pod state table says, and a successful snapshot update must match the cache.

``AdversarialCacheMachine`` issues anything. Only the invariants that Kubernetes keeps for every
input must hold; a process exit ends the run; only the documented errors may change state.

Both draw their operations from :mod:`tests.support.cache_rules`, as the refinement machines do.
"""

from __future__ import annotations

from hypothesis import event
from hypothesis.stateful import invariant

from spec.cache.cache import CacheState
from spec.cache.contract import follows_informer_contract
from spec.cache.invariants import (
    ALWAYS,
    STATE_INVARIANTS,
    inv_snapshot_matches_cache,
    trans_expiry_only_after_finish_binding,
    trans_generations_only_grow,
)
from spec.cache.lifecycle import Guard, PodPhase, expected_transition, node_guard, pod_phase
from spec.cache.operations import (
    AddPod,
    AssumePod,
    CleanupAssumedPods,
    FinishBinding,
    ForgetPod,
    Operation,
    Outcome,
    RemovePod,
    Status,
    UpdatePod,
    UpdateSnapshot,
    apply,
)
from spec.errors import ErrorKind
from spec.objects import Pod
from spec.quantities import SECOND
from tests.support.cache_rules import AdversarialCacheRules, CacheRules, ContractCacheRules
from tests.support.machines import add_cache_test_cases, machine_settings

STATEFUL_EXAMPLES = {"ci": 500, "dev": 200, "thorough": 5000}
"""Examples per machine; the ``ci`` profile runs at least 500 (issue #2)."""

STEPS_PER_EXAMPLE = 40

ERRORS_THAT_MAY_CHANGE_STATE = frozenset(
    {
        ErrorKind.NODE_NOT_IN_TREE,  # RemoveNode: NodeInfo already changed (digest §2).
        ErrorKind.POD_NOT_IN_NODE_INFO,  # NodeInfo.RemovePod prunes affinity lists first.
        ErrorKind.INVALID_POD_KEY,  # UpdatePod: removal done before the new pod's key is read.
        ErrorKind.SNAPSHOT_INCONSISTENT,  # UpdateSnapshot rebuilds the lists, then returns the error.
    }
)

CONFIGURATIONS = (
    ("v1_35_ttl0", "v1.35", 0),  # production: the scheduler hard-codes a TTL of 0
    ("v1_35_ttl1s", "v1.35", 1 * SECOND),  # expiry exercised, deadlines hit exactly
    ("v1_34_ttl30s", "v1.34", 30 * SECOND),
    ("v1_37", "v1.37", 0),  # no expiry; v1.36 differs from it only in a message
)
"""(test name, profile, TTL): every machine runs in each, so no configuration depends on a draw."""


def _pod_operation_name(op: Operation) -> str:
    return type(op).__name__


class CacheMachineBase(CacheRules):
    """One checked step: errors that change nothing change nothing, generations only grow, expiry follows
    FinishBinding."""

    def step(self, op: Operation) -> Outcome:
        before = self.world
        after, outcome = apply(before, op)
        if outcome.status is Status.ERROR and not outcome.changed:
            assert after == before, f"{op} failed with {outcome.kind} but changed the world"
        if outcome.changed:
            assert outcome.kind in ERRORS_THAT_MAY_CHANGE_STATE, f"{op}: {outcome.kind} changed the state"
        if outcome.status is not Status.FATAL:
            assert trans_generations_only_grow(before.cache, after.cache)
        if isinstance(op, CleanupAssumedPods) and outcome.status is Status.OK:
            assert trans_expiry_only_after_finish_binding(before.cache, after.cache, op.now)
        self.world = after
        event(f"{type(op).__name__}: {outcome.status.value} {outcome.kind or ''}".rstrip())
        return outcome


# ============================================================================================
# Contract-following streams
# ============================================================================================


class ContractCacheMachine(CacheMachineBase, ContractCacheRules):
    """Informer- and scheduler-shaped operation streams; every invariant must hold."""

    def run(self, op: Operation, *, clock_time: bool = False) -> None:
        state = self.world.cache
        if not follows_informer_contract(state, op):
            event(f"{type(op).__name__}: outside the contract, skipped")
            return
        uid = _op_uid(op)
        source = pod_phase(state, uid) if uid is not None else None
        cached = self.cached(uid) if uid is not None else None
        outcome = self.step(op)
        assert outcome.status is not Status.FATAL, f"{op} ended the process under the informer contract"
        assert not outcome.changed, f"{op} returned {outcome.kind} after changing state under the contract"
        if isinstance(op, UpdateSnapshot) and outcome.status is Status.OK:
            assert inv_snapshot_matches_cache(self.world.cache, self.world.snapshot)
        if isinstance(op, UpdateSnapshot):
            assert outcome.status is Status.OK, f"snapshot inconsistent under the contract: {outcome.message}"
        if uid is not None and source is not None:
            self.check_pod_phase(op, uid, source, cached, state, outcome)

    def check_pod_phase(
        self, op: Operation, uid: str, source: PodPhase, cached: Pod | None, before: CacheState, outcome: Outcome
    ) -> None:
        """The pod named by ``op`` moved between phases as the pod state table says."""
        if isinstance(op, CleanupAssumedPods):
            return  # checked for every assumed pod by trans_expiry_only_after_finish_binding
        argument = _op_pod(op)
        guard = node_guard(cached.node_name if cached else None, argument.node_name) if argument else Guard.ANY
        row = expected_transition(before.profile.name, _pod_operation_name(op), source, guard)
        if row is None:
            assert outcome.kind == ErrorKind.UNSUPPORTED_OPERATION, f"no table row for {op} in {source}"
            return
        if row.error is not None:
            assert outcome.kind == row.error, f"{op} in {source}/{guard}: expected {row.error}, got {outcome}"
            return
        assert outcome.status is Status.OK, f"{op} in {source}/{guard}: expected ok, got {outcome}"
        assert pod_phase(self.world.cache, uid) == row.target, f"{op}: expected {row.target}"

    @invariant()
    def every_invariant_holds(self) -> None:
        for inv in STATE_INVARIANTS:
            assert inv.predicate(self.world.cache), f"{inv.name} violated"


def _op_uid(op: Operation) -> str | None:
    pod = _op_pod(op)
    return pod.uid if pod is not None else None


def _op_pod(op: Operation) -> Pod | None:
    match op:
        case AssumePod(pod) | FinishBinding(pod, _) | ForgetPod(pod) | AddPod(pod) | RemovePod(pod):
            return pod
        case UpdatePod(old, _):
            return old
    return None


# ============================================================================================
# Adversarial streams
# ============================================================================================

class AdversarialCacheMachine(CacheMachineBase, AdversarialCacheRules):
    """Any operation with any objects; only the ``always`` invariants must hold until an exit."""

    def run(self, op: Operation, *, clock_time: bool = False) -> None:
        outcome = self.step(op)
        if outcome.status is Status.FATAL:
            self.exited = True

    @invariant()
    def always_invariants_hold(self) -> None:
        if self.exited:
            return
        for inv in STATE_INVARIANTS:
            if inv.holds == ALWAYS:
                assert inv.predicate(self.world.cache), f"{inv.name} violated"


add_cache_test_cases(
    globals(),
    {"TestContractCache": ContractCacheMachine, "TestAdversarialCache": AdversarialCacheMachine},
    CONFIGURATIONS,
    machine_settings(STATEFUL_EXAMPLES, STEPS_PER_EXAMPLE),
)
