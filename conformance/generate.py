"""``ksspec conformance generate``: every vector, from the spec.

Three sources, all deterministic:

- curated scenarios (:mod:`conformance.scenarios.cache`), one per Kubernetes behaviour the spec models, and those
  mutation testing showed missing (:mod:`conformance.scenarios.mutation`);
- curated scenarios (:mod:`conformance.scenarios.cache`, :mod:`conformance.scenarios.cycle`), one per Kubernetes
  behaviour
  the spec models; the accounting shapes of :mod:`conformance.scenarios.accounting`; Kubernetes' own table tests,
  ported case by case (:mod:`conformance.ported`);
- bounded exhaustive exploration: a breadth-first search over a small universe (:mod:`conformance.universe`)
  that emits, for every distinct transition class reached, the shortest trace ending in it. A cache transition
  class is (operation, outcome kind, state of the target before: pod absent / assumed / binding finished /
  added; node absent / placeholder / live / ghost); a dispatcher one is (operation, outcome kind, the UID's
  call before: none / pending / in flight / in flight with a newer call waiting);
- seeded random long traces, following the informer contract (:mod:`spec.cache.contract`) or adversarial.

Every trace is run under each version profile it applies to and split where the expectations differ
(:func:`conformance.traces.expand`).
"""

from __future__ import annotations

import errno
import os
import random
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from conformance import bounded_json, universe
from conformance.behaviours import cache_step_behaviours
from conformance.codec import operation_name
from conformance.format import GENERATED_BY, MANIFEST_NAME, VECTORS_DIR, Vector, render_files
from conformance.operations import UpdateMetrics
from conformance.ported import ported
from conformance.scenarios.accounting import accounting_scenarios
from conformance.scenarios.cache import curated
from conformance.scenarios.cycle import curated_cluster, curated_cycle, generated_cycle
from conformance.scenarios.decision import decision_scenarios, sampling_scenarios
from conformance.scenarios.failure import failure_scenarios
from conformance.scenarios.failure_condition import condition_scenarios
from conformance.scenarios.gates_skip import gates_skip_scenarios
from conformance.scenarios.kubelet import kubelet_scenarios
from conformance.scenarios.kubelet_critical_gaps import kubelet_critical_gap_scenarios
from conformance.scenarios.kubelet_preemption_mutants import kubelet_preemption_mutant_scenarios
from conformance.scenarios.mutation import curated as mutation_curated
from conformance.scenarios.plugin_mutants import plugin_mutant_scenarios
from conformance.scenarios.preemption import (
    pdb_scenarios,
    pre_filter_extension_scenarios,
    preemption_mutation_scenarios,
    preemption_scenarios,
)
from conformance.scenarios.preemption_gaps_a import gaps_a_preemption_scenarios, gaps_a_queue_scenarios
from conformance.scenarios.preemption_gaps_b import gaps_b_scenarios
from conformance.scenarios.queue import curated_queue, generated_queue
from conformance.scenarios.queue_mutants_a import queue_mutants_a_scenarios
from conformance.scenarios.queue_mutants_b import queue_mutants_b_scenarios
from conformance.scenarios.queue_scale_up import queue_scale_up_scenarios
from conformance.scenarios.queue_shared_info import queue_shared_info_scenarios
from conformance.scenarios.queue_versions_36_37 import queue_versions_36_37_scenarios
from conformance.scenarios.score_memo import score_memo_scenarios
from conformance.scenarios.skip_pod_schedule import skip_pod_schedule_scenarios
from conformance.scenarios.terminate_graceful import terminate_graceful_scenarios
from conformance.traces import ALL_PROFILES, EXPIRY_PROFILES, Scenario, apply_cache_step, expand
from spec.cache.cache import CacheState, new_cache
from spec.cache.contract import follows_informer_contract
from spec.cache.operations import (
    AddNode,
    AddPod,
    AssumePod,
    FinishBinding,
    ForgetPod,
    Operation,
    RemoveNode,
    RemovePod,
    Status,
    UpdateNode,
    UpdatePod,
    UpdateSnapshot,
    World,
)
from spec.dispatcher.call_queue import CallQueue, new_call_queue
from spec.dispatcher.operations import AddCall, CallQueueOperation, FinishCall, SyncObject, apply_call_queue, is_enabled
from spec.resources import EMPTY_RESOURCE
from spec.versions import PROFILES

EXPLORATION_DEPTH: Final = 5
EXPLORATION_BUDGET: Final = 1000
"""At most this many states are expanded per exploration; the search is breadth-first, so traces are shortest."""
NO_EXPIRY_BUDGET: Final = 300
"""The run without expiry finds no transition class the run with expiry misses (measured at 1,000 and 300)."""
NODE_TREE_BUDGET: Final = 400
"""The node operations alone reach every node-tree and snapshot behaviour they can within this budget."""
RANDOM_SEEDS: Final = (1, 2, 3, 4)
RANDOM_LENGTH: Final = 40
SHAPE_SEEDS: Final = 2
"""How many seeds the snapshot and node-tree areas' random traces use."""
SNAPSHOT_EVERY: Final = 3


# --------------------------------------------------------------------------------------------
# Transition classes
# --------------------------------------------------------------------------------------------


def _pod_class(state: CacheState, uid: str) -> str:
    current = state.pod_states.get(uid)
    if current is None:
        return "absent"
    if uid not in state.assumed_pods:
        return "added"
    return "finished" if current.binding_finished else "assumed"


def _node_class(state: CacheState, name: str) -> str:
    info = state.nodes.get(name)
    if info is None:
        return "absent"
    if info.node is not None:
        return "live"
    return "placeholder" if info.allocatable == EMPTY_RESOURCE else "ghost"  # a ghost keeps its Allocatable


def cache_target(state: CacheState, op: Operation | UpdateMetrics) -> str:
    match op:
        case AssumePod(pod) | AddPod(pod) | ForgetPod(pod) | RemovePod(pod) | FinishBinding(pod, _):
            return "pod_" + ("nokey" if pod.uid == "" else _pod_class(state, pod.uid))
        case UpdatePod(old, _):
            return "pod_" + _pod_class(state, old.uid)
        case AddNode(node) | RemoveNode(node) | UpdateNode(_, node):
            return "node_" + _node_class(state, node.name)
    return "any"


def queue_target(queue: CallQueue, op: CallQueueOperation) -> str:
    match op:
        case AddCall(call):
            uid = call.uid
        case FinishCall(uid, _) | SyncObject(uid, _):
            pass
        case _:
            return "any"
    if uid not in queue.calls:
        return "none"
    if uid not in queue.in_flight:
        return "pending"
    return "in_flight" if queue.calls[uid].call_id == queue.in_flight[uid].call_id else "in_flight_newer"


# --------------------------------------------------------------------------------------------
# Exploration
# --------------------------------------------------------------------------------------------


SHAPE_TOPICS: Final = ("resources.", "ports.", "pvc.", "affinity.", "images.", "node_tree.", "snapshot.")
"""Behaviours that depend on the shapes of pods and nodes: exploration also keeps the shortest trace to each."""


def explore_cache(
    profile_name: str, ttl: int, ops: Sequence[Operation | UpdateMetrics] | None = None, rules: bool = True,
    budget: int = EXPLORATION_BUDGET,
) -> dict[str, list[Operation | UpdateMetrics]]:
    """Shortest traces to every cache transition class and, with ``rules``, to every shape behaviour (key
    ``rule.<name>``, observed by :func:`conformance.behaviours.cache_step_behaviours`), reachable within the depth
    and budget."""
    if ops is None:
        ops = universe.cache_operations(with_expiry=ttl != 0, rich=False)
    start = World(new_cache(PROFILES[profile_name], ttl))
    found: dict[str, list[Operation | UpdateMetrics]] = {}
    seen = {start}
    frontier: deque[tuple[World, list[Operation | UpdateMetrics]]] = deque([(start, [])])
    expanded = 0
    while frontier and expanded < budget:
        world, path = frontier.popleft()
        expanded += 1
        for op in ops:
            target = cache_target(world.cache, op)
            after, outcome, returned = apply_cache_step(world, op, observe_returned=rules)
            key = f"{operation_name(type(op))}.{(outcome.kind or 'ok').lower()}.{target}"
            if key not in found:
                found[key] = [*path, op]
            for tag in cache_step_behaviours(world, op, after, outcome, returned) if rules else ():
                if tag.startswith(SHAPE_TOPICS) and f"rule.{tag}" not in found:
                    found[f"rule.{tag}"] = [*path, op]
            if outcome.status is Status.FATAL or len(path) + 1 >= EXPLORATION_DEPTH or after in seen:
                continue
            seen.add(after)
            frontier.append((after, [*path, op]))
    return found


def explore_dispatcher(profile_name: str, rich: bool = False) -> dict[str, list[CallQueueOperation]]:
    """Shortest traces to every call-queue transition class reachable within the depth and budget."""
    ops = universe.dispatcher_operations(rich=rich)
    start = new_call_queue(PROFILES[profile_name])
    found: dict[str, list[CallQueueOperation]] = {}
    seen = {_queue_key(start)}
    frontier: deque[tuple[CallQueue, list[CallQueueOperation]]] = deque([(start, [])])
    expanded = 0
    while frontier and expanded < EXPLORATION_BUDGET:
        queue, path = frontier.popleft()
        expanded += 1
        for op in ops:
            if not is_enabled(queue, op):
                continue
            target = queue_target(queue, op)
            after, error = apply_call_queue(queue, op)
            kind = "ok" if error is None else str(error.kind.value).lower()
            key = f"{operation_name(type(op))}.{kind}.{target}"
            if key not in found:
                found[key] = [*path, op]
            if len(path) + 1 >= EXPLORATION_DEPTH:
                continue
            key = _queue_key(after)
            if key not in seen:
                seen.add(key)
                frontier.append((after, [*path, op]))
    return found


def _queue_key(queue: CallQueue) -> Any:
    """States that differ only in what was already told to callers behave the same from here on."""
    return (queue.calls, queue.fifo, queue.in_flight, queue.closed)


def _rule_area(tag: str) -> tuple[str, str]:
    """The area a shape behaviour's exploration vector belongs to, and the id suffix naming it."""
    topic, _, rest = tag.partition(".")
    return (topic, rest) if topic in ("node_tree", "snapshot") else ("cache", tag)


def exploration_scenarios() -> list[Scenario]:
    scenarios: list[Scenario] = []
    keys: set[str] = set()
    runs = (("v1.35", universe.TTL, EXPIRY_PROFILES, None, True, EXPLORATION_BUDGET),
            ("v1.36", 0, ALL_PROFILES, None, False, NO_EXPIRY_BUDGET),
            ("v1.36", 0, ALL_PROFILES, universe.node_operations(), True, NODE_TREE_BUDGET))
    for profile_name, ttl, profiles, ops, rules, budget in runs:
        for key, path in sorted(explore_cache(profile_name, ttl, ops, rules, budget).items()):
            if key in keys:
                continue
            keys.add(key)
            area, name = _rule_area(key.removeprefix("rule.")) if key.startswith("rule.") else ("cache", key)
            what = f"the behaviour {key.removeprefix('rule.')}" if key.startswith("rule.") else key
            scenarios.append(Scenario(f"explore.{area}.{name}", f"Shortest trace to {what} (bounded exploration "
                                      f"under {profile_name})", path, area=area, origin="exploration", ttl=ttl,
                                      profiles=profiles, behaviours=("transition-coverage",)))
    for profile_name, rich in (("v1.35", False), ("pr141745", False), ("v1.35", True), ("pr141745", True)):
        for key, qpath in sorted(explore_dispatcher(profile_name, rich).items()):
            if f"q.{key}" not in keys:
                keys.add(f"q.{key}")
                scenarios.append(Scenario(f"explore.dispatcher.{key}", f"Shortest trace to {key} (bounded "
                                          f"exploration under {profile_name})", qpath, area="dispatcher",
                                          origin="exploration", behaviours=("transition-coverage",)))
    return scenarios


# --------------------------------------------------------------------------------------------
# Random traces
# --------------------------------------------------------------------------------------------


def random_cache_trace(seed: int, contract: bool, ttl: int, snapshot_every: int = 0,
                       ops: Sequence[Operation | UpdateMetrics] | None = None) -> list[Operation | UpdateMetrics]:
    """A trace of :data:`RANDOM_LENGTH` operations over the whole universe; fatal ones are never chosen, so the trace
    runs its length. With ``snapshot_every`` n, every n-th step is an ``update_snapshot``."""
    rng = random.Random(seed)
    if ops is None:
        ops = universe.cache_operations(with_expiry=ttl != 0, with_metrics=True)
    world = World(new_cache(PROFILES["v1.35" if ttl else "v1.36"], ttl))
    trace: list[Operation | UpdateMetrics] = []
    while len(trace) < RANDOM_LENGTH:
        every = snapshot_every and (len(trace) + 1) % snapshot_every == 0
        op = UpdateSnapshot() if every else rng.choice(ops)
        if contract and not isinstance(op, UpdateMetrics) and not follows_informer_contract(world.cache, op):
            continue
        after, outcome, _ = apply_cache_step(world, op, observe_returned=False)
        if outcome.status is Status.FATAL:
            continue
        world = after
        trace.append(op)
    return trace


def random_dispatcher_trace(seed: int) -> list[CallQueueOperation]:
    rng = random.Random(seed)
    ops = universe.dispatcher_operations(rich=True)
    queue = new_call_queue()
    trace: list[CallQueueOperation] = []
    while len(trace) < RANDOM_LENGTH:
        op = rng.choice(ops)
        if not is_enabled(queue, op) or (type(op).__name__ == "CloseDispatcher" and len(trace) < RANDOM_LENGTH - 5):
            continue
        queue, _ = apply_call_queue(queue, op)
        trace.append(op)
    return trace


def random_scenarios() -> list[Scenario]:
    scenarios = []
    for seed in RANDOM_SEEDS:
        for contract in (True, False):
            mode = "contract" if contract else "adversarial"
            for ttl, profiles in ((universe.TTL, EXPIRY_PROFILES), (0, ALL_PROFILES)):
                era = "ttl" if ttl else "no_ttl"
                scenarios.append(Scenario(
                    f"random.cache.{mode}.{era}.seed{seed}",
                    f"Random {mode} trace of {RANDOM_LENGTH} cache operations (seed {seed}, ttl {ttl} ns)",
                    random_cache_trace(seed, contract, ttl), origin="random", ttl=ttl, profiles=profiles,
                    behaviours=(f"informer-{mode}",)))
        scenarios.append(Scenario(f"random.dispatcher.seed{seed}", f"Random trace of {RANDOM_LENGTH} call-queue "
                                  f"operations (seed {seed})", random_dispatcher_trace(seed), area="dispatcher",
                                  origin="random"))
    for seed in RANDOM_SEEDS[:SHAPE_SEEDS]:
        scenarios.append(Scenario(
            f"random.snapshot.seed{seed}", f"Random contract trace of {RANDOM_LENGTH} cache operations with an "
            f"update_snapshot every {SNAPSHOT_EVERY} steps (seed {seed})",
            random_cache_trace(seed, True, 0, SNAPSHOT_EVERY), area="snapshot", origin="random",
            behaviours=("informer-contract",)))
        scenarios.append(Scenario(
            f"random.node_tree.seed{seed}", f"Random trace of {RANDOM_LENGTH} node operations and snapshot updates "
            f"over nodes with GA and beta zone and region labels (seed {seed})",
            random_cache_trace(seed, False, 0, SNAPSHOT_EVERY, universe.node_operations()), area="node_tree",
            origin="random", behaviours=("informer-adversarial",)))
    return scenarios


# --------------------------------------------------------------------------------------------
# The whole suite
# --------------------------------------------------------------------------------------------


def generate_all() -> list[Vector]:
    """Every vector, sorted by id. Fails with ``ValueError`` if two vectors get the same id."""
    scenarios = (*curated(), *curated_cycle(), *curated_cluster(), *accounting_scenarios(), *ported(),
                 *mutation_curated(), *exploration_scenarios(), *random_scenarios(), *generated_cycle(),
                 *decision_scenarios(), *sampling_scenarios(), *kubelet_scenarios(), *preemption_scenarios(),
                 *pdb_scenarios(), *pre_filter_extension_scenarios(), *preemption_mutation_scenarios(),
                 *failure_scenarios(), *gaps_b_scenarios(), *curated_queue(), *generated_queue(),
                 *gaps_a_preemption_scenarios(), *gaps_a_queue_scenarios(), *gates_skip_scenarios(),
                 *condition_scenarios(), *score_memo_scenarios(), *skip_pod_schedule_scenarios(),
                 *terminate_graceful_scenarios(), *kubelet_critical_gap_scenarios(),
                 *kubelet_preemption_mutant_scenarios(), *plugin_mutant_scenarios(), *queue_mutants_a_scenarios(),
                 *queue_mutants_b_scenarios(),
                 *queue_versions_36_37_scenarios())
    scenarios = (*scenarios, *queue_scale_up_scenarios())
    scenarios = (*scenarios, *queue_shared_info_scenarios())
    vectors = [v for s in scenarios for v in expand(s)]
    ids = [v.id for v in vectors]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"duplicate vector ids: {duplicates}")
    return sorted(vectors, key=lambda v: v.id)


def prepare_directory(directory: Path) -> None:
    """Make sure vectors can be written into ``directory`` before any is generated (generating takes a minute):
    create it if missing and create and remove a probe file in it. Fails with ``OSError`` saying what is wrong
    (``NotADirectoryError`` for a path that is something else)."""
    if directory.exists() and not directory.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "not a directory", str(directory))
    directory.mkdir(parents=True, exist_ok=True)
    probe = directory / f".ksspec-probe-{os.getpid()}"
    with probe.open("x"):
        pass
    probe.unlink()


def written_before(directory: Path) -> set[str]:
    """The vector files an earlier ``generate`` wrote into ``directory``: those its manifest lists, if the manifest
    is one this command wrote (plain ``*.json`` names in the directory itself); none if there is no such manifest."""
    try:
        manifest = bounded_json.loads((directory / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    if not isinstance(manifest, dict) or manifest.get("generated_by") != GENERATED_BY:
        return set()
    entries = manifest.get("vectors")
    names = {entry.get("file") for entry in entries if isinstance(entry, dict)} if isinstance(entries, list) else set()
    return {name for name in names if isinstance(name, str) and name.endswith(".json") and name != MANIFEST_NAME
            and Path(name).name == name}


def write(vectors: Sequence[Vector], directory: Path = VECTORS_DIR) -> list[Path]:
    """Write the vector files and the manifest; remove the vector files an earlier run wrote that are no longer
    generated (those its manifest lists, :func:`written_before`), and no other file; returns the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    files = render_files(vectors)
    for stale in sorted(written_before(directory) - set(files)):
        (directory / stale).unlink(missing_ok=True)
    paths = []
    for name, text in files.items():
        path = directory / name
        if not path.is_file() or path.read_text() != text:
            path.write_text(text)
        paths.append(path)
    return paths


def drift(vectors: Sequence[Vector], directory: Path = VECTORS_DIR) -> list[str]:
    """How the committed files differ from ``vectors``: one line per drifted, missing or extra vector or file.

    When the directory's ``*.json`` files are exactly the generated ones, byte for byte, there is no difference to
    name and the committed files are not parsed (a third of the comparison's time); otherwise every vector is
    compared, to name each drifted one. tests/conformance/test_drift_shortcut.py checks both ways give the same
    lines."""
    files = render_files(vectors)
    if {path.name for path in directory.glob("*.json")} == set(files) and all(
            (directory / name).read_text() == text for name, text in files.items()):
        return []
    return full_drift(vectors, directory, files)


def full_drift(vectors: Sequence[Vector], directory: Path = VECTORS_DIR,
               files: dict[str, str] | None = None) -> list[str]:
    """:func:`drift` without its shortcut: every committed vector parsed and compared with the generated one, then
    every file (``files``: the rendered ones, computed when not given) compared byte for byte."""
    files = render_files(vectors) if files is None else files
    expected = {v.id: v.to_json() for v in vectors}
    committed: dict[str, Any] = {}
    problems = []
    for path in sorted(directory.glob("*.json")):
        if path.name == "manifest.json":
            continue
        try:
            for data in bounded_json.loads(path.read_text()).get("vectors", []):
                committed[data.get("id", f"{path.name}:?")] = data
        except (ValueError, AttributeError) as error:  # not JSON, beyond the bounds, or not an object
            problems.append(f"{path.name}: not valid JSON ({error})")
    for vid in sorted(set(expected) | set(committed)):
        if vid not in committed:
            problems.append(f"{vid}: generated from the spec but not committed")
        elif vid not in expected:
            problems.append(f"{vid}: committed but no longer generated from the spec")
        elif committed[vid] != expected[vid]:
            problems.append(f"{vid}: committed vector differs from the spec's")
    for name, text in files.items():
        path = directory / name
        if not problems and (not path.is_file() or path.read_text() != text):
            problems.append(f"{name}: file differs from the generated one (formatting or manifest)")
    return problems
