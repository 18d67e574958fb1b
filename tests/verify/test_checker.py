"""The model checker explores the spec's state space, and reports a shortest trace when a transition is broken."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace

import pytest

from spec.cache import cache
from spec.cache.cache import new_cache
from spec.cache.operations import (
    AssumePod,
    CleanupAssumedPods,
    Operation,
    Outcome,
    Status,
    UpdateSnapshot,
    World,
    apply,
)
from spec.cache.snapshot import update_snapshot
from spec.frozenmap import FrozenMap
from spec.quantities import SECOND
from spec.verify import transition_system
from spec.verify.cache.symmetry import Canonicalizer, Renaming, canonical_world
from spec.verify.cache.system import CacheSystem
from spec.verify.cache.universe import Mode, Universe, node_variant
from spec.verify.checker import explore
from spec.verify.exploration import Report
from spec.verify.transition_system import Edge, Violation
from spec.versions import PROFILES

SMALL = Universe(nodes=2, pods=1, pod_variants=2, node_variants=1)
"""Small enough to exhaust in a few seconds, big enough for confirms on another node and ghosts."""


def run(universe: Universe, mode: Mode = Mode.CONTRACT, **options: object) -> Report:
    symmetry = bool(options.pop("symmetry", True))
    step = options.pop("step", apply)
    return explore(CacheSystem(universe, mode, symmetry=symmetry, step=step), **options)  # type: ignore[arg-type]


def test_small_universe_is_exhausted_without_violation() -> None:
    report = run(SMALL)
    assert report.violations == []
    assert report.exhausted and report.complete
    assert report.states > 1000 and report.transitions > report.states and report.max_depth >= 8
    for op in ("AssumePod", "AddPod", "ForgetPod", "UpdatePod", "RemovePod", "AddNode", "UpdateNode", "RemoveNode"):
        assert report.coverage[f"{op}: ok"] > 0, f"{op} never succeeded"
    assert report.coverage["CleanupAssumedPods: ok"] > 0 and report.coverage["FinishBinding: ok"] > 0
    assert report.coverage["UpdateSnapshot: ok"] > 0
    assert any(key.startswith("AssumePod: error") for key in report.coverage)


def test_adversarial_mode_finds_no_always_violation_and_ends_paths_at_exits() -> None:
    report = run(Universe(nodes=1, pods=1, pod_variants=1, node_variants=2), Mode.ADVERSARIAL)
    assert report.violations == [] and report.complete
    assert report.pruned > 0 and not report.exhausted  # duplicated pods beyond the bound
    assert any(key.endswith("fatal PodRemovedFromOtherNode") for key in report.coverage)
    assert any(key.endswith("fatal NilNodeDereference") for key in report.coverage)


def test_symmetry_reduction_only_merges_states() -> None:
    with_symmetry = run(SMALL, symmetry=True)
    without = run(SMALL, symmetry=False)
    assert with_symmetry.violations == without.violations == []
    assert with_symmetry.states < without.states
    assert with_symmetry.coverage.keys() == without.coverage.keys()


def test_depth_limit_is_complete_but_not_exhausted() -> None:
    report = run(Universe(nodes=2, pods=3, pod_variants=1, node_variants=1), depth_limit=3)
    assert report.complete and not report.exhausted and report.max_depth == 3
    assert report.stopped_by == "depth limit 3"


def test_time_limit_leaves_the_exploration_incomplete() -> None:
    report = run(Universe(nodes=2, pods=3), time_limit=0.2)
    assert not report.complete and report.stopped_by.startswith("time limit")


class SlowSystem:
    """Every state has 1,000 edges to new states, each taking a millisecond to compute: a second per state."""

    def initial_states(self) -> list[int]:
        return [0]

    def edges(self, state: int) -> Iterator[Edge[int]]:
        for k in range(1, 1001):
            time.sleep(0.001)
            yield Edge(k, "step: ok", state * 1000 + k)

    def violations(self, state: int) -> list[str]:
        return []

    def canonical(self, state: int) -> tuple[int, object]:
        return state, None

    def fingerprint(self, representative: int) -> int:
        return representative

    def concretize(self, initial: int, path: list[tuple[object, object]], prop: str) -> Violation:
        raise AssertionError("no violation to concretize")

    def within_bounds(self, state: int) -> bool:
        return True


def test_time_limit_is_honoured_inside_a_state_with_many_edges() -> None:
    """The limit stops the expansion of a state, not only before the next one (it once ran 57 s for 5 s)."""
    report = explore(SlowSystem(), time_limit=0.05)
    assert not report.complete and report.stopped_by == "time limit 0.05s"
    assert report.transitions < 1000  # the first state was left half-expanded
    assert report.seconds < 0.05 + 0.5


class _TickingClock:
    """A clock that moves 10 ms each time it is read: the checker's deadline checks, not the machine's load,
    decide when the limit passes."""

    def __init__(self) -> None:
        self.reads = 0

    def perf_counter(self) -> float:
        self.reads += 1
        return self.reads * 0.01


def test_time_limit_on_a_large_universe(monkeypatch: pytest.MonkeyPatch) -> None:
    """60 nodes x 60 pods x 3 variants: a state has some 20,000 edges. The checker reads its clock after every
    edge, so a 0.3 s limit (30 reads of the ticking clock) stops it inside the first state's expansion: no state
    is finished (before the per-edge check, the whole expansion of a state ran first: 14.4 s of wall time)."""
    clock = _TickingClock()
    monkeypatch.setattr(transition_system, "time", clock)
    report = run(Universe(nodes=60, pods=60, pod_variants=3, node_variants=3), time_limit=0.3)
    assert not report.complete and report.stopped_by == "time limit 0.3s"
    assert report.transitions == 0  # the first state's expansion was cut short
    assert clock.reads <= 40  # about one read per edge up to the limit, none after


def test_an_expansion_cut_by_the_deadline_leaves_nothing_half_remembered() -> None:
    system, fresh = CacheSystem(Universe(nodes=2, pods=2), Mode.CONTRACT), CacheSystem(Universe(nodes=2, pods=2))
    state, _ = system.canonical(next(iter(system.initial_states())))
    token = transition_system._DEADLINE.set(0.0)  # long past
    try:
        with pytest.raises(transition_system.DeadlinePassed):
            system.expand(state)
    finally:
        transition_system._DEADLINE.reset(token)
    again, whole = system.expand(state), fresh.expand(fresh.canonical(next(iter(fresh.initial_states())))[0])
    assert (again.coverage, again.violations, list(again.targets)) == (whole.coverage, whole.violations,
                                                                      list(whole.targets))
    transition_system.check_deadline()  # outside an exploration with a limit: never


# ============================================================================================
# Broken transitions are caught, with a shortest trace
# ============================================================================================


def assume_without_charging(world: World, op: Operation) -> tuple[World, Outcome]:
    """AssumePod that adds the pod to its NodeInfo but charges nothing."""
    after, outcome = apply(world, op)
    if isinstance(op, AssumePod) and outcome.status is Status.OK:
        info = after.cache.nodes[op.pod.node_name]
        before = world.cache.nodes.get(op.pod.node_name)
        requested = before.requested if before is not None else replace(info.requested, milli_cpu=0, memory=0)
        nodes = after.cache.nodes.set(op.pod.node_name, replace(info, requested=requested))
        after = World(replace(after.cache, nodes=nodes), after.snapshot)
    return after, outcome


def cleanup_ignoring_binding(world: World, op: Operation) -> tuple[World, Outcome]:
    """CleanupAssumedPods that also expires pods whose binding has not finished (k8s #106361)."""
    if isinstance(op, CleanupAssumedPods) and world.cache.ttl != 0:
        state = world.cache
        for uid in sorted(state.assumed_pods):
            ps = state.pod_states[uid]
            if not ps.binding_finished:
                state = cache.forget_pod(state, ps.pod)
        return apply(World(state, world.snapshot), op)
    return apply(world, op)


def stale_snapshot(world: World, op: Operation) -> tuple[World, Outcome]:
    """UpdateSnapshot that does nothing once the snapshot has any node."""
    if isinstance(op, UpdateSnapshot) and world.snapshot.node_info_map:
        return world, Outcome(Status.OK)
    if isinstance(op, UpdateSnapshot):
        return World(world.cache, update_snapshot(world.cache, world.snapshot)), Outcome(Status.OK)
    return apply(world, op)


@pytest.mark.parametrize("symmetry", [True, False], ids=["symmetry", "no-symmetry"])
def test_assume_without_charging_is_caught_after_one_step(symmetry: bool) -> None:
    report = run(SMALL, step=assume_without_charging, symmetry=symmetry)
    [violation] = report.violations
    assert violation.property == "inv_requested_is_sum_of_pods"
    assert len(violation.trace) == 1 and violation.trace[0].action.startswith("AssumePod(")
    assert "NOT reproduced" not in violation.final_state
    assert report.stopped_by == "first violation" and not report.complete


def test_expiry_of_a_pod_still_binding_is_caught_after_two_steps() -> None:
    report = run(SMALL, step=cleanup_ignoring_binding)
    [violation] = report.violations
    assert violation.property == "trans_expiry_only_after_finish_binding"
    assert "ttl=1s" in violation.initial
    assert [step.action.split("(")[0] for step in violation.trace] == ["AssumePod", "CleanupAssumedPods"]
    assert "NOT reproduced" not in violation.final_state


def test_stale_snapshot_is_caught_with_keep_going() -> None:
    report = run(SMALL, step=stale_snapshot, stop_at_first=False)
    properties = {v.property for v in report.violations}
    assert "inv_snapshot_matches_cache" in properties
    shortest = next(v for v in report.violations if v.property == "inv_snapshot_matches_cache")
    assert [s.action.split("(")[0] for s in shortest.trace] == [
        "AddNode",
        "UpdateSnapshot",
        "AssumePod",
        "UpdateSnapshot",
    ]
    assert report.complete


# ============================================================================================
# Canonical representatives
# ============================================================================================


def test_representatives_are_idempotent_and_keep_behaviour() -> None:
    universe = SMALL
    system = CacheSystem(universe, symmetry=True)
    report = explore(system, depth_limit=4)
    assert report.complete
    canonicalizer = Canonicalizer((universe.pod_uids, universe.node_names))
    world = universe.initial_worlds()[1]
    for op in (AssumePod(universe._placed["p0"][1]), UpdateSnapshot(), CleanupAssumedPods(2 * SECOND)):
        world, _ = apply(world, op)
    rep, renaming = canonicalizer.world(world)
    again, identity = canonical_world(rep, (universe.pod_uids, universe.node_names))
    assert again == rep and identity.is_identity
    assert isinstance(renaming, Renaming)
    assert rep.cache.metrics == cache.CacheSizeMetrics()
    assert rep.cache.generation >= max(info.generation for info in rep.cache.nodes.values())


def test_counter_below_a_generation_stays_visible() -> None:
    world = World(cache.add_node(cache.new_cache(), node_variant("n0", 0)))
    broken = World(replace(world.cache, generation=0), world.snapshot)
    rep, _ = canonical_world(broken)
    assert rep.cache.generation < max(info.generation for info in rep.cache.nodes.values())
    assert FrozenMap(rep.cache.nodes)  # still a valid world


def test_known_violation_of_snapshot_order_is_found_with_a_shortest_trace() -> None:
    """The errata's quirk: a zone change leaves the snapshot list out of node-tree order."""
    universe = Universe(nodes=2, pods=1, pod_variants=1, node_variants=2)
    report = explore(CacheSystem(universe, known_violations=True))
    [violation] = report.violations
    assert violation.property == "inv_snapshot_list_in_node_tree_order"
    actions = [step.action for step in violation.trace]
    expected = ["AddNode(n0/v0)", "AddNode(n1/v0)", "UpdateSnapshot", "UpdateNode(n0/v0 -> n0/v1)", "UpdateSnapshot"]
    assert actions == expected


def test_v1_37_claim_counts_are_part_of_the_canonical_world() -> None:
    """v1.37's claim bookkeeping (the cache's sum of deltas, the snapshot's counts and what it consumed) decides
    what the next UpdateSnapshot does, so the representative keeps it: two worlds that differ only there are not
    merged, and the violation of inv_snapshot_pvc_set_is_live_claims the search finds replays as found."""
    profile = PROFILES["v1.37"]
    universe = Universe(nodes=1, pods=1, pod_variants=2, node_variants=1, ttls=(0,), profile=profile)
    claimed = next(p for p in universe._placed["p0"] if p.pvc_claims and p.node_name)
    world, outcome = apply(World(new_cache(profile)), AssumePod(claimed))
    assert outcome.status is Status.OK and world.cache.pvc_ref_counts_total
    world, _ = apply(world, UpdateSnapshot())
    representative, _ = canonical_world(world)
    assert representative.cache.pvc_ref_counts_total == world.cache.pvc_ref_counts_total
    assert representative.snapshot.used_pvc_ref_counts == world.snapshot.used_pvc_ref_counts
    assert representative.snapshot.pvc_ref_counts_consumed == world.snapshot.pvc_ref_counts_consumed != FrozenMap()
    unconsumed = World(world.cache, replace(world.snapshot, pvc_ref_counts_consumed=FrozenMap()))
    assert canonical_world(unconsumed)[0] != representative
    system = CacheSystem(universe, known_violations=True)
    report = explore(system, depth_limit=2, stop_at_first=False)
    found = [v for v in report.violations if v.property == "inv_snapshot_pvc_set_is_live_claims"]
    assert found and all("NOT reproduced" not in v.final_state for v in found)
