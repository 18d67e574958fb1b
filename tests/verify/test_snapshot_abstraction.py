"""The snapshot abstraction (``--abstract-snapshots``) is exact: the reduced search's states are the abstractions of
the full search's, every edge of a concrete world is its abstraction's edge (same outcome, same properties violated,
successors with the same abstraction), and it finds the violations the full search finds, broken transitions
included. Without it, every figure is what it was (``test_checker_baseline.py``)."""

from __future__ import annotations

from collections import deque
from dataclasses import replace

import pytest

from conformance.cli.main import main
from spec.cache.operations import AddNode, Operation, Outcome, RemoveNode, Status, UpdateSnapshot, World, apply
from spec.cache.snapshot import Snapshot
from spec.frozenmap import FrozenMap
from spec.verify.cache.snapshot_abstraction import (
    MARKER,
    SnapshotAbstractionInexact,
    abstract_snapshot,
    cache_view,
    has_summaries,
    is_summary,
    summarise,
)
from spec.verify.cache.system import CacheSystem, StepFunction
from spec.verify.cache.universe import Mode, Universe
from spec.verify.checker import explore
from spec.verify.exploration import Report
from spec.versions import PROFILES
from tests.verify.checker_universes import RUNS, Run, build, figures, load
from tests.verify.test_checker import SMALL, assume_without_charging, cleanup_ignoring_binding, stale_snapshot

RECORDED = load()
UNIVERSES = [
    pytest.param(SMALL, Mode.CONTRACT, None, id="2x1-affinity-claims"),
    pytest.param(Universe(nodes=2, pods=1, pod_variants=1, node_variants=2), Mode.CONTRACT, 6, id="2x1-zones-depth6"),
    pytest.param(Universe(nodes=2, pods=2, pod_variants=1, node_variants=1, ttls=(0,)), Mode.CONTRACT, 6,
                 id="2x2-ttl0-depth6"),
    pytest.param(Universe(nodes=2, pods=1, pod_variants=2, node_variants=1, ttls=(0,), profile=PROFILES["v1.37"]),
                 Mode.CONTRACT, 6, id="2x1-v1.37-depth6"),
    pytest.param(Universe(nodes=2, pods=1, pod_variants=1, node_variants=1), Mode.ADVERSARIAL, 4,
                 id="adversarial-depth4"),
]


def reachable(system: CacheSystem, depth: int | None) -> list[World]:
    """Every representative world ``system`` reaches (within ``depth``), breadth first, by its edges."""
    seen: dict[int, int] = {}
    order: list[World] = []
    queue: deque[tuple[World, int]] = deque()
    for initial in system.initial_states():
        rep, _ = system.canonical(initial)
        if seen.setdefault(system.fingerprint(rep), 0) == 0 and rep not in order:
            order.append(rep)
            queue.append((rep, 0))
    while queue:
        state, level = queue.popleft()
        if (depth is not None and level >= depth) or not system.within_bounds(state):
            continue
        for edge in system.edges(state):
            if edge.target is None:
                continue
            rep, _ = system.canonical(edge.target)
            fp = system.fingerprint(rep)
            if fp not in seen:
                seen[fp] = level + 1
                order.append(rep)
                queue.append((rep, level + 1))
    return order


@pytest.mark.parametrize(("universe", "mode", "depth"), UNIVERSES)
def test_the_abstraction_is_a_bisimulation(universe: Universe, mode: Mode, depth: int | None) -> None:
    """Each concrete world and its abstraction: the same state properties, and edge by edge the same operation,
    coverage class and step properties, with successors whose abstractions are one state. And the abstract
    search reaches exactly the abstractions of the concrete worlds."""
    full, reduced = CacheSystem(universe, mode), CacheSystem(universe, mode, abstract_snapshots=True)
    concrete = reachable(full, depth)
    abstract = reachable(reduced, depth)
    images = {reduced.fingerprint(reduced.canonical(world)[0]) for world in concrete}
    assert images == {reduced.fingerprint(world) for world in abstract}
    assert len(abstract) <= len(concrete)
    summarised = 0
    for world in concrete:
        image, _ = reduced.canonical(world)
        summarised += has_summaries(image.snapshot)
        assert full.violations(world) == reduced.violations(image)
        for edge, image_edge in zip(full.edges(world), reduced.edges(image), strict=True):
            assert (edge.label, edge.coverage, edge.violations) == (image_edge.label, image_edge.coverage,
                                                                   image_edge.violations)
            assert (edge.target is None) == (image_edge.target is None)
            if edge.target is not None and image_edge.target is not None:
                assert reduced.canonical(edge.target)[0] == reduced.canonical(image_edge.target)[0]
    assert summarised > 0  # the abstraction did something on this universe


def run(universe: Universe, *, abstract: bool, step: StepFunction = apply, **options: object) -> Report:
    return explore(CacheSystem(universe, step=step, abstract_snapshots=abstract), **options)  # type: ignore[arg-type]


def test_the_default_universe_shrinks_with_the_same_verdict_and_coverage() -> None:
    universe = Universe(nodes=2, pods=2, pod_variants=1, node_variants=1)
    full, reduced = run(universe, abstract=False), run(universe, abstract=True)
    assert full.exhausted and reduced.exhausted and full.violations == reduced.violations == []
    assert (full.states, reduced.states) == (27_176, 5_197)
    assert full.coverage.keys() == reduced.coverage.keys()


def update_snapshot_keeping_generation(world: World, op: Operation) -> tuple[World, Outcome]:
    """UpdateSnapshot that refreshes the entries but leaves the snapshot's generation as it was (the value the
    abstraction rounds)."""
    after, outcome = apply(world, op)
    if isinstance(op, UpdateSnapshot) and outcome.status is Status.OK:
        after = World(after.cache, replace(after.snapshot, generation=world.snapshot.generation))
    return after, outcome


@pytest.mark.parametrize("step", [assume_without_charging, cleanup_ignoring_binding,
                                  update_snapshot_keeping_generation], ids=lambda s: s.__name__)
def test_broken_transitions_are_caught_with_the_same_shortest_trace(step: StepFunction) -> None:
    full, reduced = run(SMALL, abstract=False, step=step), run(SMALL, abstract=True, step=step)
    assert [v.property for v in full.violations] == [v.property for v in reduced.violations] != []
    assert [v.trace for v in full.violations] == [v.trace for v in reduced.violations]
    assert all("NOT reproduced" not in v.final_state for v in reduced.violations)


def assert_caught_or_refused(universe: Universe, step: StepFunction) -> None:
    """The full search finds a violation past the broken ``step``; the reduced one finds the same properties or
    stops as inexact (never a clean verdict)."""
    full = run(universe, abstract=False, step=step, stop_at_first=False)
    assert full.violations
    try:
        reduced = run(universe, abstract=True, step=step, stop_at_first=False)
    except SnapshotAbstractionInexact:
        return
    assert {v.property for v in reduced.violations} == {v.property for v in full.violations}


def test_a_stale_snapshot_is_caught_or_the_run_refuses() -> None:
    """A broken UpdateSnapshot that keeps the old snapshot: every property the full search finds past it, the
    reduced one finds, unless it stops because a summary survived (never a clean verdict)."""
    assert_caught_or_refused(SMALL, stale_snapshot)


def add_node_keeping_generation(world: World, op: Operation) -> tuple[World, Outcome]:
    """AddNode onto a NodeInfo without a node that keeps its old generation: UpdateSnapshot then never re-clones
    it, so the snapshot keeps what it held of the node before it was removed."""
    after, outcome = apply(world, op)
    if not isinstance(op, AddNode):
        return after, outcome
    before = world.cache.nodes.get(op.node.name)
    if before is not None and before.node is None and outcome.status is Status.OK:
        info = after.cache.nodes[op.node.name]
        nodes = after.cache.nodes.set(op.node.name, replace(info, generation=before.generation))
        after = World(replace(after.cache, nodes=nodes), after.snapshot)
    return after, outcome


def test_a_transition_that_defeats_the_abstraction_stops_the_run() -> None:
    """The abstraction assumes a NodeInfo that becomes live again is re-cloned by the next UpdateSnapshot; a broken
    AddNode that breaks that is still caught (by the full search's properties) or stops the reduced run."""
    assert_caught_or_refused(Universe(nodes=2, pods=1, pod_variants=1, node_variants=1, ttls=(0,)),
                             add_node_keeping_generation)


def test_two_processes_give_the_same_reduced_figures() -> None:
    one, two = run(SMALL, abstract=True), run(SMALL, abstract=True, jobs=2)
    assert (one.states, one.transitions, one.max_depth, one.coverage, one.level_states) == (
        two.states, two.transitions, two.max_depth, two.coverage, two.level_states)
    assert sum(one.level_states) == one.states and len(one.level_states) == one.max_depth + 1


def test_summaries_keep_what_update_snapshot_reads() -> None:
    """A summary keeps existence, the two affinity flags and the claim keys, and is recognisable."""
    universe = SMALL
    system = CacheSystem(universe)
    world = next(w for w in reachable(system, 4) if any(i.pods_with_required_anti_affinity
                                                        for i in w.snapshot.node_info_map.values()))
    info = next(i for i in world.snapshot.node_info_map.values() if i.pods_with_required_anti_affinity)
    summary = summarise(info)
    assert is_summary(summary) and not is_summary(info) and summary.node is None and summary.pods == ()
    assert summary.pods_with_required_anti_affinity == (MARKER,) and bool(summary.pods_with_affinity) == bool(
        info.pods_with_affinity)
    assert set(summary.pvc_ref_counts) == set(info.pvc_ref_counts)
    assert summarise(summary) is summary
    # a snapshot whose node the cache no longer has is summarised; a current one is kept
    gone = Snapshot(FrozenMap({"n9": info}), ("n9",), generation=world.snapshot.generation)
    assert has_summaries(abstract_snapshot(cache_view(world.cache), gone))
    current = abstract_snapshot(cache_view(world.cache), world.snapshot)
    assert all(not is_summary(i) or n not in world.cache.nodes or world.cache.nodes[n].node is None
               or world.cache.nodes[n].generation > i.generation for n, i in current.node_info_map.items())


def test_ksspec_check_abstracts_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    small = ["check", "--nodes", "2", "--pods", "1", "--pod-variants", "2", "--node-variants", "1"]
    assert main(small) == 0
    out = capsys.readouterr().out
    assert "snapshot abstraction" in out and "every reachable state" in out
    assert main([*small, "--no-abstract-snapshots"]) == 0
    out = capsys.readouterr().out
    assert "snapshot abstraction" not in out and "4,292" in out  # the concrete count, as recorded


CACHE_RUNS = [run for run in RUNS if "--system" not in run.argv and not {"adversarial", "--depth"} <= set(run.argv)]
"""The recorded cache runs but the four adversarial probes to depth 6 (a minute each on the shared machine; ksspec
check leaves adversarial mode concrete, and two other adversarial runs stay)."""
REFUSED = {
    "check --nodes 2 --pods 1 --pod-variants 2 --node-variants 1 --keep-going [step stale_snapshot]",
    "check --mode adversarial --nodes 1 --pods 1 --pod-variants 1 --node-variants 2",
}
"""The runs on which the abstraction stops as inexact: a broken UpdateSnapshot that keeps the old snapshot, and
an adversarial stream (which is why ksspec check abstracts in contract mode only)."""


@pytest.mark.parametrize("run", CACHE_RUNS, ids=lambda r: r.name)
def test_every_recorded_cache_run_finds_the_same_violations_abstracted(run: Run) -> None:
    """Every cache run the project uses (tests/verify/checker_universes.py), with the abstraction on (in either
    mode): the same violated properties with the same shortest traces, the same coverage classes and how it
    stopped as recorded without it, and no more states; or, on the runs of :data:`REFUSED` only, a refusal."""
    system, name, args = build(run)
    system.abstract_snapshots = True
    options = {"depth_limit": None if args.depth <= 0 else args.depth, "stop_at_first": not args.keep_going}
    if run.name in REFUSED:
        with pytest.raises(SnapshotAbstractionInexact):
            explore(system, name=name, **options)  # type: ignore[arg-type]
        return
    report = explore(system, name=name, **options)  # type: ignore[arg-type]
    found, recorded = figures(report), RECORDED[run.name]
    assert found["violations"] == recorded["violations"]
    assert found["coverage"].keys() == recorded["coverage"].keys()
    assert (found["exhausted"], found["complete"]) == (recorded["exhausted"], recorded["complete"])
    assert found["states"] <= recorded["states"]


def test_removing_a_node_summarises_its_entry() -> None:
    """After RemoveNode of a node with no pods the snapshot's entry is gone from the cache: summarised."""
    universe = Universe(nodes=1, pods=1, pod_variants=1, node_variants=1, ttls=(0,))
    system = CacheSystem(universe, abstract_snapshots=True)
    world = system.universe.initial_worlds()[0]
    node = system.universe._node_objects["n0"][0]
    world, _ = apply(world, AddNode(node))
    world, _ = apply(world, next(op for op in system.universe.operations(world, Mode.CONTRACT)
                                 if type(op).__name__ == "UpdateSnapshot"))
    assert not has_summaries(system.canonical(world)[0].snapshot)  # current
    world, _ = apply(world, RemoveNode(node))
    assert has_summaries(system.canonical(world)[0].snapshot)


def test_the_snapshot_generation_is_rounded_down_to_a_cache_generation() -> None:
    """Removing the most recently updated node (no pods) leaves the snapshot's generation above every cache
    generation: it becomes the newest one left, which every UpdateSnapshot walk compares alike ((v) in the module
    docstring); a generation equal to a cache generation is kept."""
    universe = Universe(nodes=2, pods=1, pod_variants=1, node_variants=1, ttls=(0,))
    world = universe.initial_worlds()[0]
    first, second = (universe._node_objects[name][0] for name in ("n0", "n1"))
    for op in (AddNode(first), AddNode(second), UpdateSnapshot()):
        world, _ = apply(world, op)
    view = cache_view(world.cache)
    assert abstract_snapshot(view, world.snapshot).generation == world.snapshot.generation == view[0][1]
    world, _ = apply(world, RemoveNode(second))
    view = cache_view(world.cache)
    assert [name for name, _, _ in view] == ["n0"] and world.snapshot.generation > view[0][1]
    assert abstract_snapshot(view, world.snapshot).generation == view[0][1]
    below = replace(world.snapshot, generation=view[0][1] - 1)
    assert abstract_snapshot(view, below).generation == 0
