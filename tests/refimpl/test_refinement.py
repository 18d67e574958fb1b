"""Refinement: on every sequence of operations, refimpl behaves exactly as the spec says.

Each state machine applies every generated operation, valid and invalid, to the spec (:func:`spec.operations.apply`)
and to a refimpl :class:`~refimpl.cache.Cache`, then requires the same outcome (status, error kind and message) and
the same observable state: ``dump`` (pods and every NodeInfo field, generations included), counts, pod states, the
most-recently-updated order, the node tree, the global image states, the metrics, and the whole snapshot including
list order. Clock advances and the cleanup worker's ticks (which read the clock) are operations too.

``ContractRefinementMachine`` issues what an informer and scheduler could issue (the operations the spec's
``follows_informer_contract`` accepts); ``AdversarialRefinementMachine`` issues anything, and stops comparing once
the spec says the process would have exited. Both run in every configuration below, so no configuration depends on
a draw.
"""

from __future__ import annotations

import os
from dataclasses import replace

from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule

from spec.cache import new_cache
from spec.contract import follows_informer_contract
from spec.invariants import ALWAYS, STATE_INVARIANTS, StateInvariant
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
from spec.quantities import SECOND
from spec.versions import PROFILES, VersionProfile
from tests.refimpl.abstraction import abstract_cache_state
from tests.refimpl.driver import apply_refimpl, differences, new_harness, returned_differences
from tests.refimpl.strategies import any_pod, node_shapes, nodes, placed_pods, pods
from tests.support.universe import NODE_NAMES, POD_UIDS, make_node, node_names

STATEFUL_EXAMPLES = {"ci": 500, "dev": 100, "thorough": 5000}
"""Examples per machine and configuration; the ``ci`` profile runs at least 500 (issue #3)."""

STEPS_PER_EXAMPLE = 25

CONFIGURATIONS = (
    ("v1_34_ttl30s", "v1.34", 30 * SECOND),  # forgetting an unknown pod is an error
    ("v1_35_ttl0", "v1.35", 0),  # production: the scheduler hard-codes a TTL of 0
    ("v1_35_ttl1s", "v1.35", 1 * SECOND),  # expiry exercised, deadlines hit exactly
    ("v1_36", "v1.36", 0),  # no expiry: FinishBinding and cleanup are unsupported
    ("v1_37", "v1.37", 0),  # as v1.36, another not-assumed message, AddNode/UpdateNode return nothing
)
"""(test name, profile, TTL in nanoseconds): all four profiles, and the TTL era with and without expiry."""


class RefinementMachineBase(RuleBasedStateMachine):
    """The spec world and a refimpl harness side by side, a shared clock, and one compared step."""

    profile: VersionProfile = PROFILES["v1.35"]
    ttl = 0
    checked_invariants: tuple[StateInvariant, ...] = ()
    """The spec's invariants refimpl's own state must keep after every step it is compared on."""

    def __init__(self) -> None:
        super().__init__()
        self.world = World(new_cache(self.profile, self.ttl))
        self.harness = new_harness(self.profile, self.ttl)
        self.now = 0
        self.exited = False

    def step(self, op: Operation, *, clock_time: bool = False) -> Outcome:
        """Apply ``op`` to both; require the same outcome and, unless the process exited, the same state."""
        if clock_time:
            self.harness.clock.set(self.now)
        after, outcome = apply(self.world, op)
        got = apply_refimpl(self.harness, op, clock_time=clock_time)
        assert got.matches(outcome), f"{op}: refimpl ended {got.status} {got.kind} {got.message!r}, spec {outcome}"
        self.world = after
        event(f"{type(op).__name__}: {outcome.status.value} {outcome.kind or ''}".rstrip())
        if outcome.status is Status.FATAL:
            self.exited = True
            return outcome
        state = abstract_cache_state(self.harness.cache)
        problems = returned_differences(op, got, after) + differences(self.harness, after, state)
        assert not problems, f"after {op} ({outcome.status.value}):\n  " + "\n  ".join(problems)
        broken = [inv.name for inv in self.checked_invariants if not inv.predicate(state)]
        assert not broken, f"after {op}, refimpl violates {broken}"
        return outcome

    def run(self, op: Operation, *, clock_time: bool = False) -> None:
        raise NotImplementedError

    @property
    def expiry(self) -> bool:
        return self.profile.assumed_pod_expiry

    def cached(self, uid: str) -> Pod | None:
        current = self.world.cache.pod_states.get(uid)
        return current.pod if current is not None else None

    # Time: the clock advances, and the cleanup worker's tick reads it.

    @rule(seconds=st.integers(min_value=0, max_value=40))
    def advance_clock(self, seconds: int) -> None:
        self.now += seconds * SECOND
        self.harness.clock.set(self.now)

    def assumed(self) -> list[str]:
        return sorted(self.world.cache.assumed_pods)

    def with_deadline(self) -> list[str]:
        return sorted(key for key, ps in self.world.cache.pod_states.items() if ps.deadline is not None)

    @precondition(lambda self: not self.exited and self.expiry and self.assumed())
    @rule(index=st.integers(0, 4), offset=st.integers(0, 5))
    def finish_binding_of_an_assumed_pod(self, index: int, offset: int) -> None:
        """The binding of an assumed pod returns (offset 0: ``finish_binding(pod)`` reads the clock)."""
        uids = self.assumed()
        pod = self.cached(uids[index % len(uids)])
        assert pod is not None
        self.run(FinishBinding(pod, self.now + offset * SECOND), clock_time=offset == 0)

    @precondition(lambda self: not self.exited and self.with_deadline())
    @rule(index=st.integers(0, 4), delta=st.sampled_from((-1, 0, 1)))
    def worker_tick_at_a_deadline(self, index: int, delta: int) -> None:
        """Expiry's boundary: the worker ticks 1 ns before, exactly at, or 1 ns after a pod's deadline."""
        uids = self.with_deadline()
        deadline = self.world.cache.pod_states[uids[index % len(uids)]].deadline
        assert deadline is not None
        if deadline + delta < self.now:
            return
        self.now = deadline + delta
        self.run(CleanupAssumedPods(self.now), clock_time=True)

    @precondition(lambda self: not self.exited)
    @rule(worker=st.booleans())
    def cleanup_assumed_pods(self, worker: bool) -> None:
        """A direct ``cleanup_assumed_pods(now)`` call, or (with expiry) a tick of the worker at the clock's time."""
        self.run(CleanupAssumedPods(self.now), clock_time=worker and self.expiry)

    @precondition(lambda self: not self.exited)
    @rule()
    def update_snapshot(self) -> None:
        self.run(UpdateSnapshot())


# ============================================================================================
# Contract-following streams
# ============================================================================================


class ContractRefinementMachine(RefinementMachineBase):
    """Informer- and scheduler-shaped streams (races included); refimpl must also keep every invariant."""

    checked_invariants = STATE_INVARIANTS

    def run(self, op: Operation, *, clock_time: bool = False) -> None:
        if not follows_informer_contract(self.world.cache, op):
            event(f"{type(op).__name__}: outside the contract, skipped")
            return
        outcome = self.step(op, clock_time=clock_time)
        assert outcome.status is not Status.FATAL, f"{op} ended the process under the informer contract"

    @rule(pod=pods, node=st.sampled_from((*NODE_NAMES, "n9")))
    def assume_pod(self, pod: Pod, node: str) -> None:
        self.run(AssumePod(with_node_name(pod, node)))

    @rule(pod=placed_pods)
    def add_pod(self, pod: Pod) -> None:
        self.run(AddPod(pod))

    @rule(uid=st.sampled_from(POD_UIDS), offset=st.integers(0, 5))
    def finish_binding(self, uid: str, offset: int) -> None:
        """Offset 0: ``finish_binding(pod)`` reads the clock; otherwise the time is passed explicitly."""
        pod = self.cached(uid) or make_unknown_pod(uid)
        self.run(FinishBinding(pod, self.now + offset * SECOND), clock_time=offset == 0 and self.expiry)

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

    @rule(shape=node_shapes, name=node_names)
    def update_node(self, shape: Node, name: str) -> None:
        info = self.world.cache.nodes.get(name)
        if info is None or info.node is None:
            return
        self.run(UpdateNode(info.node, replace(shape, name=name)))

    @rule(name=node_names)
    def remove_node(self, name: str) -> None:
        info = self.world.cache.nodes.get(name)
        self.run(RemoveNode(info.node if info is not None and info.node is not None else make_node(name, None)))



def make_unknown_pod(uid: str, node: str = "n1") -> Pod:
    """The object a scheduler or informer would hold for a pod the cache does not know."""
    return Pod(uid=uid, name=f"pod-{uid}", node_name=node)


# ============================================================================================
# Adversarial streams
# ============================================================================================

class AdversarialRefinementMachine(RefinementMachineBase):
    """Any operation with any objects; compared until the spec says the process exited."""

    checked_invariants = tuple(inv for inv in STATE_INVARIANTS if inv.holds == ALWAYS)

    def run(self, op: Operation, *, clock_time: bool = False) -> None:
        self.step(op, clock_time=clock_time)

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
        self.run(FinishBinding(pod, self.now + offset * SECOND), clock_time=offset == 0 and self.expiry)

    @precondition(lambda self: not self.exited)
    @rule(old=any_pod, new=any_pod)
    def update_pod(self, old: Pod, new: Pod) -> None:
        self.run(UpdatePod(old, new))

    @precondition(lambda self: not self.exited)
    @rule(pod=any_pod)
    def remove_pod(self, pod: Pod) -> None:
        self.run(RemovePod(pod))

    @precondition(lambda self: not self.exited)
    @rule(uid=st.sampled_from(POD_UIDS), variant=pods)
    def forget_pod_with_another_spec(self, uid: str, variant: Pod) -> None:
        """The cached pod's UID and node with another spec: Kubernetes prunes the affinity lists by the
        argument's spec, so a stale entry can stay behind."""
        self.run(ForgetPod(self.variant_of(uid, variant)))

    @precondition(lambda self: not self.exited)
    @rule(uid=st.sampled_from(POD_UIDS), old=pods, new=pods)
    def update_pod_with_another_old_spec(self, uid: str, old: Pod, new: Pod) -> None:
        """``UpdatePod`` whose old object is not the cached one (same UID and node)."""
        self.run(UpdatePod(self.variant_of(uid, old), self.variant_of(uid, new)))

    def variant_of(self, uid: str, variant: Pod) -> Pod:
        cached = self.cached(uid) or make_unknown_pod(uid)
        return replace(variant, uid=uid, name=cached.name, namespace=cached.namespace, node_name=cached.node_name)

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



def _machine_settings() -> settings:
    profile = os.environ.get("HYPOTHESIS_PROFILE", "dev")
    return settings(
        settings.get_profile(profile),
        max_examples=STATEFUL_EXAMPLES.get(profile, 100),
        stateful_step_count=STEPS_PER_EXAMPLE,
    )


def _configured(machine: type[RefinementMachineBase], profile: str, ttl: int) -> type:
    configured: type[RefinementMachineBase] = type(
        machine.__name__, (machine,), {"profile": PROFILES[profile], "ttl": ttl}
    )
    test_case = configured.TestCase
    test_case.settings = _machine_settings()
    return test_case


for _name, _profile, _ttl in CONFIGURATIONS:
    globals()[f"TestContractRefinement_{_name}"] = _configured(ContractRefinementMachine, _profile, _ttl)
    globals()[f"TestAdversarialRefinement_{_name}"] = _configured(AdversarialRefinementMachine, _profile, _ttl)
