"""The operations the cache state machines draw, in one rule set for the spec's and the refinement's machines.

The spec's machines (``tests/spec/cache/test_stateful.py``) check each operation's outcome and the invariants; the
refinement machines (``tests/refimpl/test_refinement.py``) apply it to refimpl as well and compare. Both draw their
operations from the rules here, so both explore the same universe. A machine supplies :meth:`CacheRules.run`,
what it does with one drawn operation.

``ContractCacheRules`` draws what an informer and a scheduler could issue (races included);
``AdversarialCacheRules`` draws anything, until the process would have exited.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule

from spec.cache.cache import new_cache
from spec.cache.operations import (
    AddNode,
    AddPod,
    AssumePod,
    CleanupAssumedPods,
    FinishBinding,
    ForgetPod,
    Operation,
    RemoveNode,
    RemovePod,
    UpdateNode,
    UpdatePod,
    UpdateSnapshot,
    World,
)
from spec.objects import Node, Pod, with_node_name
from spec.quantities import SECOND
from spec.versions import PROFILES, VersionProfile
from tests.support.strategies import any_pod, node_shapes, nodes, placed_pods, pods
from tests.support.universe import NODE_NAMES, POD_UIDS, make_node, node_names


def make_unknown_pod(uid: str, node: str = "n1") -> Pod:
    """The object a scheduler or informer would hold for a pod the cache does not know."""
    return Pod(uid=uid, name=f"pod-{uid}", node_name=node)


class CacheRules(RuleBasedStateMachine):
    """The spec world, a clock, and the rules of time, expiry and snapshots every cache machine draws."""

    profile: VersionProfile = PROFILES["v1.35"]
    ttl = 0

    def __init__(self) -> None:
        super().__init__()
        self.world = World(new_cache(self.profile, self.ttl))
        self.now = 0
        self.exited = False

    def run(self, op: Operation, *, clock_time: bool = False) -> None:
        """Apply one drawn operation. ``clock_time``: its time (``op.now``) is also the clock's, so an
        implementation with a clock may read it there (``finish_binding(pod)``, the cleanup worker's tick)."""
        raise NotImplementedError

    def clock_advanced(self) -> None:
        """Called after :attr:`now` moved forward; a machine with a clock of its own sets it."""

    @property
    def expiry(self) -> bool:
        return self.profile.assumed_pod_expiry

    def cached(self, uid: str) -> Pod | None:
        current = self.world.cache.pod_states.get(uid)
        return current.pod if current is not None else None

    def assumed(self) -> list[str]:
        return sorted(self.world.cache.assumed_pods)

    def with_deadline(self) -> list[str]:
        return sorted(key for key, ps in self.world.cache.pod_states.items() if ps.deadline is not None)

    @rule(seconds=st.integers(min_value=0, max_value=40))
    def advance_clock(self, seconds: int) -> None:
        self.now += seconds * SECOND
        self.clock_advanced()

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


class ContractCacheRules(CacheRules):
    """Informer- and scheduler-shaped operations: pods the cache knows, as the cache holds them, or unknown ones."""

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


class AdversarialCacheRules(CacheRules):
    """Any operation with any objects, until the process would have exited."""

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
