"""Hypothesis state machines that drive the cache spec with every operation, valid and invalid.

``ContractCacheMachine`` issues what a real informer and scheduler could issue (including races:
unknown pods, wrong states). After every step every state invariant must hold, no process
exit may happen, no error may change the state, each pod must move between phases exactly as
the pod state table says, and a successful snapshot update must match the cache.

``AdversarialCacheMachine`` issues anything. Only the invariants that Kubernetes keeps for every
input must hold; a process exit ends the run; only the documented errors may change state.
"""

from __future__ import annotations

import os
from dataclasses import replace

from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from spec.cache import CacheState, new_cache
from spec.contract import follows_informer_contract
from spec.errors import ErrorKind
from spec.invariants import (
    ALWAYS,
    STATE_INVARIANTS,
    inv_snapshot_matches_cache,
    trans_expiry_only_after_finish_binding,
    trans_generations_only_grow,
)
from spec.objects import Node, Pod, with_node_name
from spec.operations import (
    AddNode,
    AddPod,
    AssumePod,
    CleanupAssumedPods,
    FinishBinding,
    ForgetPod,
    Operation,
    Outcome,
    RemoveNode,
    RemovePod,
    Status,
    UpdateNode,
    UpdatePod,
    UpdateSnapshot,
    World,
    apply,
)
from spec.podstates import Guard, PodPhase, expected_transition, node_guard, pod_phase
from spec.quantities import SECOND
from spec.versions import PROFILES, VersionProfile
from tests.support.universe import NODE_NAMES, POD_UIDS, make_node, node_names, node_variants, nodes, placed_pods, pods

STATEFUL_EXAMPLES = {"ci": 500, "dev": 200, "thorough": 5000}
"""Examples per machine; the ``ci`` profile runs at least 500 (issue #2)."""

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


class CacheMachineBase(RuleBasedStateMachine):
    """Shared bookkeeping: the world, a clock, and one checked step."""

    profile: VersionProfile = PROFILES["v1.35"]
    ttl = 0

    def __init__(self) -> None:
        super().__init__()
        self.world = World(new_cache(self.profile, self.ttl))
        self.now = 0
        self.exited = False

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

    @rule(seconds=st.integers(min_value=0, max_value=40))
    def advance_clock(self, seconds: int) -> None:
        self.now += seconds * SECOND

    @rule(uid=st.sampled_from(POD_UIDS), delta=st.sampled_from((-1, 0, 1)))
    def cleanup_at_a_deadline(self, uid: str, delta: int) -> None:
        """Expiry's boundary: clean up 1 ns before, exactly at, or 1 ns after a pod's deadline."""
        current = self.world.cache.pod_states.get(uid)
        if current is None or current.deadline is None or current.deadline + delta < self.now:
            return
        self.now = current.deadline + delta
        self.run(CleanupAssumedPods(self.now))

    def run(self, op: Operation) -> None:
        raise NotImplementedError

    def cached(self, uid: str) -> Pod | None:
        current = self.world.cache.pod_states.get(uid)
        return current.pod if current is not None else None


# ============================================================================================
# Contract-following streams
# ============================================================================================


class ContractCacheMachine(CacheMachineBase):
    """Informer- and scheduler-shaped operation streams; every invariant must hold."""

    def run(self, op: Operation) -> None:
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

    @rule(pod=pods, node=st.sampled_from((*NODE_NAMES, "n9")))
    def assume_pod(self, pod: Pod, node: str) -> None:
        self.run(AssumePod(with_node_name(pod, node)))

    @rule(pod=placed_pods)
    def add_pod(self, pod: Pod) -> None:
        self.run(AddPod(pod))

    @rule(uid=st.sampled_from(POD_UIDS), offset=st.integers(0, 5))
    def finish_binding(self, uid: str, offset: int) -> None:
        pod = self.cached(uid) or make_unknown_pod(uid)
        self.run(FinishBinding(pod, self.now + offset * SECOND))

    @rule(uid=st.sampled_from(POD_UIDS), other=node_names)
    def forget_pod(self, uid: str, other: str) -> None:
        self.run(ForgetPod(self.cached(uid) or make_unknown_pod(uid, other)))

    @rule(uid=st.sampled_from(POD_UIDS), variant=pods)
    def update_pod(self, uid: str, variant: Pod) -> None:
        old = self.cached(uid) or make_unknown_pod(uid)
        new = replace(variant, uid=uid, name=old.name, namespace=old.namespace, node_name=old.node_name)
        self.run(UpdatePod(old, new))

    @rule(uid=st.sampled_from(POD_UIDS), stale=st.booleans())
    def remove_pod(self, uid: str, stale: bool) -> None:
        pod = self.cached(uid) or make_unknown_pod(uid)
        self.run(RemovePod(replace(pod, node_name="") if stale else pod))

    @rule(node=nodes)
    def add_node(self, node: Node) -> None:
        self.run(AddNode(node))

    @rule(data=st.data(), name=node_names)
    def update_node(self, data: st.DataObject, name: str) -> None:
        info = self.world.cache.nodes.get(name)
        if info is None or info.node is None:
            return
        self.run(UpdateNode(info.node, data.draw(node_variants(name))))

    @rule(name=node_names)
    def remove_node(self, name: str) -> None:
        info = self.world.cache.nodes.get(name)
        self.run(RemoveNode(info.node if info is not None and info.node is not None else make_node(name, None)))

    @rule()
    def cleanup_assumed_pods(self) -> None:
        self.run(CleanupAssumedPods(self.now))

    @rule()
    def update_snapshot(self) -> None:
        self.run(UpdateSnapshot())

    @invariant()
    def every_invariant_holds(self) -> None:
        for inv in STATE_INVARIANTS:
            assert inv.predicate(self.world.cache), f"{inv.name} violated"


def make_unknown_pod(uid: str, node: str = "n1") -> Pod:
    """The object a scheduler or informer would hold for a pod the cache does not know."""
    return Pod(uid=uid, name=f"pod-{uid}", node_name=node)


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

any_pod = st.one_of(placed_pods, placed_pods.map(lambda p: replace(p, uid="")), pods)


class AdversarialCacheMachine(CacheMachineBase):
    """Any operation with any objects; only the ``always`` invariants must hold until an exit."""

    def run(self, op: Operation) -> None:
        outcome = self.step(op)
        if outcome.status is Status.FATAL:
            self.exited = True

    @precondition(lambda self: not self.exited)
    @rule(pod=any_pod)
    def assume_pod(self, pod: Pod) -> None:
        self.run(AssumePod(pod))

    @precondition(lambda self: not self.exited)
    @rule(pod=any_pod)
    def add_pod(self, pod: Pod) -> None:
        self.run(AddPod(pod))

    @precondition(lambda self: not self.exited)
    @rule(pod=any_pod)
    def forget_pod(self, pod: Pod) -> None:
        self.run(ForgetPod(pod))

    @precondition(lambda self: not self.exited)
    @rule(pod=any_pod, offset=st.integers(0, 5))
    def finish_binding(self, pod: Pod, offset: int) -> None:
        self.run(FinishBinding(pod, self.now + offset * SECOND))

    @precondition(lambda self: not self.exited)
    @rule(old=any_pod, new=any_pod)
    def update_pod(self, old: Pod, new: Pod) -> None:
        self.run(UpdatePod(old, new))

    @precondition(lambda self: not self.exited)
    @rule(pod=any_pod)
    def remove_pod(self, pod: Pod) -> None:
        self.run(RemovePod(pod))

    @precondition(lambda self: not self.exited)
    @rule(node=nodes)
    def add_node(self, node: Node) -> None:
        self.run(AddNode(node))

    @precondition(lambda self: not self.exited)
    @rule(old=st.one_of(st.none(), nodes), new=nodes)
    def update_node(self, old: Node | None, new: Node) -> None:
        self.run(UpdateNode(old, new))

    @precondition(lambda self: not self.exited)
    @rule(node=nodes)
    def remove_node(self, node: Node) -> None:
        self.run(RemoveNode(node))

    @precondition(lambda self: not self.exited)
    @rule()
    def cleanup_assumed_pods(self) -> None:
        self.run(CleanupAssumedPods(self.now))

    @precondition(lambda self: not self.exited)
    @rule()
    def update_snapshot(self) -> None:
        self.run(UpdateSnapshot())

    @invariant()
    def always_invariants_hold(self) -> None:
        if self.exited:
            return
        for inv in STATE_INVARIANTS:
            if inv.holds == ALWAYS:
                assert inv.predicate(self.world.cache), f"{inv.name} violated"


def _machine_settings() -> settings:
    profile = os.environ.get("HYPOTHESIS_PROFILE", "dev")
    return settings(
        settings.get_profile(profile),
        max_examples=STATEFUL_EXAMPLES.get(profile, 200),
        stateful_step_count=40,
    )


def _configured(machine: type[CacheMachineBase], profile: str, ttl: int) -> type:
    configured = type(machine.__name__, (machine,), {"profile": PROFILES[profile], "ttl": ttl})
    test_case: type = configured.TestCase
    test_case.settings = _machine_settings()
    return test_case


for _name, _profile, _ttl in CONFIGURATIONS:
    globals()[f"TestContractCache_{_name}"] = _configured(ContractCacheMachine, _profile, _ttl)
    globals()[f"TestAdversarialCache_{_name}"] = _configured(AdversarialCacheMachine, _profile, _ttl)
