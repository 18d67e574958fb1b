"""refimpl : Kubernetes per CPU-second, on the same nodes and pods, in one run on one machine.

Each workload is built once here, as refimpl's objects (:mod:`spec.objects`), and both schedulers get the same ones:
refimpl's scheduler in its deterministic simulator (:mod:`refimpl.simulator`, as ``bench/scheduler.py`` measures it)
and Kubernetes v1.35.8's own scheduler, the Go program in ``bench/kubernetes-peer`` (``scheduler.New``, real
informers, a fake clientset whose pods/binding writes ``spec.nodeName`` back, event recording off, GOMAXPROCS=1),
which reads them from a JSON file this module writes. Figures are per CPU-second of the process that schedules
(the machine is shared, so wall time counts other processes' turns): refimpl's includes its simulated API server,
informers and dispatcher; Kubernetes' includes its informers, the fake clientset and Go's garbage collector.

Workloads:

- ``basic``: SchedulingBasic-like (Kubernetes' ``test/integration/scheduler_perf/misc/performance-config.yaml``,
  its ``node-default.yaml`` and ``pod-default.yaml`` templates): nodes of 4 CPU, 32 GiB and 110 pods, pods
  requesting 100m CPU and 500 MiB; without the 1,000 already-scheduled pods scheduler_perf creates first.
- ``identical``: refimpl's identical replicas (9 CPU, 8 GiB) on uniform 16-CPU nodes, one per node: the workload
  opportunistic batching serves (KEP-5598).

Kubernetes' scheduler_perf gives SchedulingBasic 5000Nodes_10000Pods a threshold of 270 pods/s
(:data:`SCHEDULER_PERF_THRESHOLD`), a floor for its CI machines, not a measurement on this one.

``python bench/kubernetes_peer.py`` prints the table (``--full``: 10,000 pods; ``--snapshot-only``: only the
UpdateSnapshot rows); ``make bench`` includes its rows.
Without Go the Kubernetes columns are a row saying so (``skipped: go not installed``).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import timeit
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from rich.console import Console
from rich.table import Table

from refimpl.cache import Cache, FakeClock, GenerationCounter, Snapshot
from refimpl.scheduler.plugins import new_default_framework
from refimpl.simulator import Simulation, SimulationConfig
from refimpl.simulator.workload import IDENTICAL_POD, MACHINE_SHAPES
from spec.frozenmap import FrozenMap
from spec.objects import LABEL_HOSTNAME, LABEL_TOPOLOGY_REGION, LABEL_TOPOLOGY_ZONE, Container, Node, Pod
from spec.quantities import SECOND, resource_list
from spec.versions import V1_35

ROOT: Final = Path(__file__).resolve().parent.parent
PEER: Final = ROOT / "bench" / "kubernetes-peer"
BINARY: Final = PEER / "bin" / "kubernetes-peer"
SCHEDULER_PERF_THRESHOLD: Final = 270
"""pods/s: SchedulingBasic 5000Nodes_10000Pods in Kubernetes v1.35.0's
test/integration/scheduler_perf/misc/performance-config.yaml (``threshold: 270``)."""
MIB: Final = 2**20
GIB: Final = 2**30
ZONES: Final = ("zone-a", "zone-b", "zone-c")
BASIC_NODE: Final = (4_000, 32 * GIB, 110)
"""(milli-CPU, memory, pods) of scheduler_perf's node-default.yaml."""
BASIC_POD: Final = (100, 500 * MIB)
"""(milli-CPU, memory) requests of scheduler_perf's pod-default.yaml."""
IMAGE: Final = "registry.k8s.io/pause:3.10.1"


@dataclass(frozen=True)
class Workload:
    """Nodes and pods, and what they are."""

    name: str
    nodes: tuple[Node, ...]
    pods: tuple[Pod, ...]

    def describe(self) -> str:
        if self.name == "basic":
            return (f"SchedulingBasic-like: {len(self.nodes):,} nodes of 4 CPU/32Gi/110 pods, {len(self.pods):,} "
                    "pods of 100m/500Mi")
        cpu, memory = IDENTICAL_POD
        return (f"identical: {len(self.nodes):,} uniform 16-CPU nodes, {len(self.pods):,} identical pods of "
                f"{cpu // 1000} CPU/{memory // GIB}Gi (one per node)")


def _labels(name: str, index: int) -> FrozenMap[str, str]:
    return FrozenMap({LABEL_TOPOLOGY_REGION: "region-1", LABEL_TOPOLOGY_ZONE: ZONES[index % len(ZONES)],
                      LABEL_HOSTNAME: name})


def workload(name: str, nodes: int, pods: int) -> Workload:
    """The ``basic`` or ``identical`` workload of ``nodes`` nodes and ``pods`` pods (see the module docstring)."""
    if name == "basic":
        cpu, memory, capacity = BASIC_NODE
        pod_cpu, pod_memory = BASIC_POD
    elif name == "identical":
        (cpu, memory), capacity = MACHINE_SHAPES[2], 110
        pod_cpu, pod_memory = IDENTICAL_POD
    else:
        raise ValueError(f"unknown workload {name!r}: basic or identical")
    node_objects = tuple(
        Node(f"node-{i}", allocatable=resource_list(cpu=cpu, memory=memory, pods=capacity),
             labels=_labels(f"node-{i}", i))
        for i in range(nodes)
    )
    container = (Container("app", requests=resource_list(cpu=pod_cpu, memory=pod_memory), image=IMAGE),)
    pod_objects = tuple(Pod(uid=f"uid-{i}", name=f"pod-{i}", namespace="bench", containers=container)
                        for i in range(pods))
    return Workload(name, node_objects, pod_objects)


def export(w: Workload, path: Path, bound: bool = False) -> None:
    """Write ``w`` as the Go peer's workload file; with ``bound``, pod ``i`` on node ``i mod n`` (the snapshot)."""
    nodes = [{"name": n.name, "milli_cpu": n.allocatable["cpu"], "memory": n.allocatable["memory"],
              "pods": n.allocatable["pods"], "labels": dict(n.labels)} for n in w.nodes]
    pods = [{"name": p.name, "namespace": p.namespace, "uid": p.uid,
             "milli_cpu": p.containers[0].requests["cpu"], "memory": p.containers[0].requests["memory"],
             "node_name": w.nodes[i % len(w.nodes)].name if bound else ""} for i, p in enumerate(w.pods)]
    path.write_text(json.dumps({"nodes": nodes, "pods": pods}), encoding="utf-8")


# ================================================================================================
# refimpl
# ================================================================================================


def refimpl_plugins() -> tuple[str, ...]:
    """The plugins of refimpl's default framework (:func:`refimpl.scheduler.plugins.new_default_framework`, what the
    simulator runs), in order: the Go peer enables the same ones, with the default profile's weights."""
    return tuple(plugin.name for plugin in new_default_framework(profile=V1_35).plugins)


def refimpl_schedule(w: Workload, batching: bool) -> dict[str, Any]:
    """Place ``w``'s pods with refimpl's scheduler (its default framework) in the simulator; the timed part starts
    once the nodes are in the scheduler's cache and the pods are created (as bench/scheduler.py's measure)."""
    sim = Simulation(SimulationConfig(nodes=0, pods=0, seed=1, opportunistic_batching=batching))
    for node in w.nodes:
        sim.add_node(node)
    sim.run_for(SECOND)
    assert sim.cache.node_count() == len(w.nodes)
    for pod in w.pods:
        sim.create_pod(pod)
    gc.collect()
    gc.disable()
    try:
        started, cpu_started = time.perf_counter(), time.process_time()
        stats = sim.run()
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    finally:
        gc.enable()
    return {"bound": stats.bound, "seconds": elapsed, "cpu_seconds": cpu, "pods_per_cpu_second": stats.bound / cpu}


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def refimpl_snapshot(w: Workload, rounds: int = 2000) -> dict[str, Any]:
    """refimpl's ``update_snapshot`` on ``w`` (pod ``i`` bound to node ``i mod n``), timed as the Go peer's snapshot
    mode times Kubernetes': into a new snapshot (full; median of 7), after one pod was added to one node, and with
    nothing changed (medians of ``rounds``)."""
    cache = _snapshot_cache(w)

    def timed(snapshot: Snapshot) -> float:
        started = time.perf_counter()
        cache.update_snapshot(snapshot)
        return time.perf_counter() - started

    gc.collect()
    gc.disable()
    try:
        full = [timed(Snapshot()) for _ in range(7)]
        snapshot = Snapshot()
        timed(snapshot)
        one, none = [], []
        for i in range(rounds):
            node = w.nodes[(i * 7919) % len(w.nodes)]
            extra = Pod(uid=f"extra-{i}", name=f"extra-{i}", namespace="bench", node_name=node.name,
                        containers=w.pods[0].containers)
            cache.add_pod(extra)
            one.append(timed(snapshot))
            cache.remove_pod(extra)
            timed(snapshot)
            none.append(timed(snapshot))
    finally:
        gc.enable()
    assert snapshot.num_nodes() == len(w.nodes)
    return {"full_seconds": _median(full), "one_changed_seconds": _median(one), "unchanged_seconds": _median(none)}


def _snapshot_cache(w: Workload) -> Cache:
    """A cache holding ``w`` (pod ``i`` bound to node ``i mod n``), as :func:`refimpl_snapshot` times it."""
    cache = Cache(profile=V1_35, ttl=0, clock=FakeClock(), generations=GenerationCounter())
    for node in w.nodes:
        cache.add_node(node)
    for i, pod in enumerate(w.pods):
        cache.add_pod(Pod(uid=pod.uid, name=pod.name, namespace=pod.namespace, containers=pod.containers,
                          node_name=w.nodes[i % len(w.nodes)].name))
    return cache


SNAPSHOT_CASES: Final = ("full_seconds", "one_changed_seconds", "unchanged_seconds")
"""The three UpdateSnapshot rows, by their key in :func:`refimpl_snapshot`'s result."""


def snapshot_profile(w: Workload, case: str, rounds: int = 200, top: int = 6) -> dict[str, Any]:
    """Where refimpl's ``update_snapshot`` spends its time in one of :data:`SNAPSHOT_CASES`: the Python function
    calls one update makes and the ``top`` functions by their own time (cProfile's ``tottime``, as shares of the
    profiled total). cProfile's overhead inflates the small calls, so the shares say where, not how long; the
    calls per update are exact. Fails with ``ValueError`` for another case."""
    if case not in SNAPSHOT_CASES:
        raise ValueError(f"snapshot_profile: case must be one of {SNAPSHOT_CASES}, got {case!r}")
    cache = _snapshot_cache(w)
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    extra = [Pod(uid=f"extra-{i}", name=f"extra-{i}", namespace="bench", containers=w.pods[0].containers,
                 node_name=w.nodes[(i * 7919) % len(w.nodes)].name) for i in range(rounds)]
    profiler = cProfile.Profile()
    updates = 3 if case == "full_seconds" else rounds
    for i in range(updates):
        if case == "full_seconds":
            snapshot = Snapshot()
        elif case == "one_changed_seconds":
            cache.add_pod(extra[i])
        profiler.enable()
        cache.update_snapshot(snapshot)
        profiler.disable()
        if case == "one_changed_seconds":
            cache.remove_pod(extra[i])
            cache.update_snapshot(snapshot)
    stats = pstats.Stats(profiler)
    entries = stats.stats  # type: ignore[attr-defined]  # {(file, line, name): (cc, nc, tt, ct, callers)}
    total = sum(entry[2] for entry in entries.values()) or 1.0
    calls = sum(entry[1] for entry in entries.values())
    ranked = sorted(entries.items(), key=lambda item: item[1][2], reverse=True)[:top]
    functions = [{"function": name if file == "~" else f"{Path(file).stem}.{name}",
                  "calls_per_update": entry[1] / updates, "share": entry[2] / total}
                 for (file, _, name), entry in ranked]
    return {"case": case, "updates": updates, "calls_per_update": calls / updates, "functions": functions}


def python_floor(number: int = 200_000) -> dict[str, float]:
    """What CPython charges here for the two things every ``update_snapshot`` does however little changed: an empty
    function call and the cache lock's ``with`` (an uncontended ``threading.Lock``), in seconds, best of 3."""
    lock = threading.Lock()

    def empty() -> None:
        pass

    def locked() -> None:
        with lock:
            pass

    return {"call_seconds": min(timeit.repeat(empty, number=number, repeat=3)) / number,
            "lock_seconds": min(timeit.repeat(locked, number=number, repeat=3)) / number}


def snapshot_explanation(w: Workload, case: str) -> str:
    """One line for a missed UpdateSnapshot target: the Python calls one update makes (:func:`snapshot_profile`);
    for the full rebuild the three functions with the most own time, for the others CPython's floor
    (:func:`python_floor`): the price of those calls and (when something changed; an unchanged cache is read
    without it) of the lock, which is what a microsecond update is."""
    profile = snapshot_profile(w, case)
    line = f"profile: {profile['calls_per_update']:,.0f} Python calls per update"
    if case == "full_seconds":
        top = ", ".join(f"{f['function']} {f['share']:.0%} ({f['calls_per_update']:,.0f}/update)"
                        for f in profile["functions"][:3])
        return f"{line}; own time: {top}"
    # A profile of a microsecond call measures the profiler: count the calls and price them instead.
    floor = python_floor()
    calls = profile["calls_per_update"]
    if case == "unchanged_seconds":  # decided without the lock (Cache.update_snapshot's lock-free path)
        least = calls * floor["call_seconds"]
        return (f"{line}, no lock; CPython here: a call {_fmt_time(floor['call_seconds'])}: at least "
                f"{_fmt_time(least)}")
    least = calls * floor["call_seconds"] + floor["lock_seconds"]
    return (f"{line}; CPython here: a call {_fmt_time(floor['call_seconds'])}, the lock's with "
            f"{_fmt_time(floor['lock_seconds'])}: at least {_fmt_time(least)} before any work")


# ================================================================================================
# Kubernetes (the Go peer)
# ================================================================================================


def build_peer() -> str | None:
    """Build the Go peer (``go build`` in bench/kubernetes-peer; the first build compiles Kubernetes' scheduler,
    10-20 minutes on 2 cores, later ones reuse Go's build cache). None if it is built, else why not."""
    go = shutil.which("go")
    if go is None:
        return "skipped: go not installed"
    done = subprocess.run([go, "build", "-o", str(BINARY.relative_to(PEER)), "."], cwd=PEER, capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        return f"skipped: go build failed: {done.stderr.strip().splitlines()[-1:] or done.returncode}"
    return None


def peer(path: Path, *arguments: str) -> dict[str, Any]:
    """Run the Go peer on the workload file ``path``; its JSON result (fails with the peer's stderr)."""
    done = subprocess.run([str(BINARY), "-workload", str(path), *arguments], capture_output=True, text=True,
                          check=False, env={**os.environ, "GOMAXPROCS": "1"})
    if done.returncode != 0:
        raise RuntimeError(f"kubernetes-peer {' '.join(arguments)} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# ================================================================================================
# The table
# ================================================================================================


@dataclass(frozen=True)
class Case:
    """One scheduling comparison."""

    workload: str
    batching: bool


CASES: Final = (Case("basic", False), Case("basic", True), Case("identical", True), Case("identical", False))
SIZES: Final = {"basic": (5_000, 1_000, 10_000), "identical": (5_000, 2_000, 5_000)}
"""Per workload: nodes, pods (make bench), pods (--full: scheduler_perf's 10,000; identical: one per node)."""


def _fmt_time(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.2f} µs"


def snapshot_rows(directory: Path, why_not: str | None) -> list[dict[str, Any]]:
    """The UpdateSnapshot rows (refimpl's and, unless ``why_not`` says why there is none, Kubernetes' timings of
    :func:`refimpl_snapshot`'s three cases, with their ratios and, for a missed target, the profile that explains
    it); ``directory`` holds the Go peer's workload file."""
    rows: list[dict[str, Any]] = []
    nodes, pods, _ = SIZES["basic"]
    w = workload("basic", nodes, pods)
    mine = refimpl_snapshot(w)
    go_snapshot: dict[str, Any] | None = None
    if why_not is None:
        path = directory / "snapshot.json"
        export(w, path, bound=True)
        go_snapshot = peer(path, "-mode", "snapshot")
    for key, what in (("full_seconds", "full (into a new snapshot)"), ("one_changed_seconds", "one node changed"),
                      ("unchanged_seconds", "nothing changed")):
        parameters = f"{nodes:,} nodes, {pods:,} pods: {what}; refimpl {_fmt_time(mine[key])}"
        if go_snapshot is None:
            rows.append({"benchmark": "UpdateSnapshot, refimpl : Kubernetes" if key == "full_seconds" else "",
                         "parameters": parameters, "result": why_not or "", "target": ""})
            continue
        ratio = mine[key] / go_snapshot[key]
        rows.append({"benchmark": "UpdateSnapshot, refimpl : Kubernetes" if key == "full_seconds" else "",
                     "parameters": f"{parameters}, Kubernetes {_fmt_time(go_snapshot[key])}",
                     "result": f"{ratio:.2f}x time", "target": "≤ 2x " + ("✓" if ratio <= 2 else "✗"),
                     "row": f"snapshot {key}", "refimpl_seconds": mine[key],
                     "kubernetes_seconds": go_snapshot[key]})
        if ratio > 2:  # a missed target is shown with the profile that explains it
            rows.append({"benchmark": "", "parameters": snapshot_explanation(w, key), "result": "",
                         "target": "", "row": f"snapshot {key} profile"})
    return rows


def run(full: bool = False) -> list[dict[str, Any]]:
    """The rows: per case, refimpl's pods per CPU-second and Kubernetes' with the default profile and with
    refimpl's plugin set, with the ratios; then UpdateSnapshot. Without Go, one row says why."""
    rows: list[dict[str, Any]] = []
    why_not = build_peer()
    mine_plugins = refimpl_plugins()
    with tempfile.TemporaryDirectory(prefix="kubernetes-peer-") as directory:
        for case in CASES:
            nodes, pods, full_pods = SIZES[case.workload]
            w = workload(case.workload, nodes, full_pods if full else pods)
            batching = "batching on" if case.batching else "batching off"
            mine = refimpl_schedule(w, case.batching)
            rows.append({"benchmark": f"refimpl : Kubernetes, {case.workload}, {batching}",
                         "parameters": f"{w.describe()}; refimpl ({len(mine_plugins)} plugins)",
                         "result": f"{mine['pods_per_cpu_second']:,.0f} pods/CPU-s", "target": "",
                         "row": f"refimpl {case.workload} {batching}", **mine})
            if why_not is not None:
                continue
            path = Path(directory) / f"{case.workload}.json"
            export(w, path)
            for plugins in ("refimpl", "default"):
                batching_flag = f"-batching={str(case.batching).lower()}"
                names = ",".join(mine_plugins) if plugins == "refimpl" else "default"
                theirs = peer(path, "-mode", "schedule", "-plugins", names, batching_flag)
                assert theirs["bound"] == len(w.pods) == mine["bound"], (theirs, mine)
                ratio = mine["pods_per_cpu_second"] / theirs["pods_per_cpu_second"]
                label = f"{len(theirs['plugin_names'])} plugins" + (": refimpl's" if plugins == "refimpl" else
                                                                     ", the default profile")
                rows.append({"benchmark": "", "parameters": f"Kubernetes {theirs['go']} ({label}): "
                             f"{theirs['pods_per_cpu_second']:,.0f} pods/CPU-s",
                             "result": f"{ratio:.2f}x", "target": "≥ 1.0x " + ("✓" if ratio >= 1.0 else "✗"),
                             "row": f"kubernetes {case.workload} {batching} {plugins}", **theirs})
        rows += snapshot_rows(Path(directory), why_not)
    if why_not is not None:
        rows.append({"benchmark": "Kubernetes peer", "parameters": "bench/kubernetes-peer (Go)", "result": why_not,
                     "target": ""})
    rows.append({"benchmark": "", "parameters": "scheduler_perf's threshold for SchedulingBasic 5000Nodes_10000Pods "
                 "(Kubernetes v1.35.0, its CI machines)", "result": f"{SCHEDULER_PERF_THRESHOLD} pods/s",
                 "target": ""})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--full", action="store_true", help="scheduler_perf's 10,000 pods (several minutes)")
    parser.add_argument("--json", action="store_true", help="print the rows as one JSON line")
    parser.add_argument("--snapshot-profile", action="store_true",
                        help="only the profile of refimpl's UpdateSnapshot in each case (no Go, no scheduling)")
    parser.add_argument("--snapshot-only", action="store_true",
                        help="only the UpdateSnapshot rows, refimpl's and Kubernetes' (no scheduling)")
    args = parser.parse_args(argv)
    if args.snapshot_profile:
        nodes, pods, _ = SIZES["basic"]
        w = workload("basic", nodes, pods)
        for case in SNAPSHOT_CASES:
            print(f"{case}: {snapshot_explanation(w, case)}")
        return 0
    if args.snapshot_only:
        why_not = build_peer()
        with tempfile.TemporaryDirectory(prefix="kubernetes-peer-") as directory:
            rows = snapshot_rows(Path(directory), why_not)
    else:
        rows = run(args.full)
    if args.json:
        print(json.dumps(rows))
        return 0
    table = Table(title=f"refimpl : Kubernetes per CPU-second (CPython {sys.version.split()[0]}, GOMAXPROCS=1)")
    for column in ("benchmark", "parameters", "result", "target"):
        table.add_column(column, justify="right" if column == "result" else "left")
    for row in rows:
        table.add_row(row["benchmark"], row["parameters"], row["result"], row["target"])
    Console(width=160).print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
