"""Benchmarks of refimpl's cache: build a cluster, update snapshots, run pod cycles, expire assumed pods.

``make bench`` runs this script. Each benchmark runs in a fresh interpreter (so its peak RSS is its own and no
other benchmark's garbage is collected during its timings), prints one JSON line, and this script gathers them into
a table. Timed loops disable the cyclic garbage collector, as ``timeit`` does; building the cluster does not.
Benchmarks report numbers; they are not pass/fail tests, but the table marks the issue's targets.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import random
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from rich.console import Console
from rich.table import Table

from refimpl.cache import Cache, FakeClock, GenerationCounter, Snapshot
from spec.frozenmap import FrozenMap
from spec.objects import LABEL_TOPOLOGY_REGION, LABEL_TOPOLOGY_ZONE, Container, ContainerImage, Node, Pod
from spec.quantities import SECOND, resource_list
from spec.versions import V1_35

ROOT = Path(__file__).resolve().parent.parent

ZONES = ("zone-a", "zone-b", "zone-c")
IMAGES = tuple(ContainerImage((f"registry.example/app-{i}:v1",), (i + 1) * 10_000_000) for i in range(5))
CONTAINERS = (
    (Container("app", requests=resource_list(cpu=100, memory=128 * 2**20), image="registry.example/app-0:v1"),),
    (Container("app", requests=resource_list(cpu=250, memory=256 * 2**20)),),
    (Container("app"),),
)
"""Shared container tuples: pods differ in identity, not in spec, as replicas of a few workloads do."""
GIB = 2**30
TTL = 30 * SECOND


def make_node(i: int) -> Node:
    labels = FrozenMap({LABEL_TOPOLOGY_REGION: "region", LABEL_TOPOLOGY_ZONE: ZONES[i % len(ZONES)]})
    return Node(
        f"node-{i}", allocatable=resource_list(cpu=32_000, memory=128 * GIB, pods=110), labels=labels,
        images=IMAGES[: 1 + i % len(IMAGES)],
    )


def make_pod(uid: str, node: str, shape: int = 0) -> Pod:
    return Pod(uid=uid, name=uid, namespace="bench", node_name=node, containers=CONTAINERS[shape % len(CONTAINERS)])


def new_cache(ttl: int = 0) -> Cache:
    return Cache(profile=V1_35, ttl=ttl, clock=FakeClock(), generations=GenerationCounter())


def build(cache: Cache, nodes: int, pods_per_node: int) -> list[Node]:
    node_objects = [make_node(i) for i in range(nodes)]
    for node in node_objects:
        cache.add_node(node)
    for i, node in enumerate(node_objects):
        for j in range(pods_per_node):
            cache.add_pod(make_pod(f"{node.name}-pod-{j}", node.name, i + j))
    return node_objects


def peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kilobytes on Linux


# ================================================================================================
# Benchmarks (each returns a JSON-serialisable dict)
# ================================================================================================


def bench_build(nodes: int = 5_000, pods: int = 150_000) -> dict[str, Any]:
    """Add ``nodes`` nodes in 3 zones and ``pods`` pods spread evenly; then one full snapshot."""
    cache = new_cache()
    node_objects = [make_node(i) for i in range(nodes)]
    pod_objects = [make_pod(f"pod-{k}", node_objects[k % nodes].name, k) for k in range(pods)]
    start = time.perf_counter()
    for node in node_objects:
        cache.add_node(node)
    for pod in pod_objects:
        cache.add_pod(pod)
    built = time.perf_counter() - start
    snapshot = Snapshot()
    start = time.perf_counter()
    cache.update_snapshot(snapshot)
    first_snapshot = time.perf_counter() - start
    assert cache.pod_count() == pods and snapshot.num_nodes() == nodes
    return {"nodes": nodes, "pods": pods, "seconds": built, "first_snapshot_seconds": first_snapshot,
            "peak_rss_bytes": peak_rss_bytes()}


def count_instructions(call: Callable[[], object]) -> int:
    """How many bytecode instructions ``call()`` executes, in every Python frame it enters."""
    executed = 0

    def trace(frame: FrameType, event: str, arg: object) -> Any:  # sys.settrace's TraceFunction
        nonlocal executed
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        if event == "opcode":
            executed += 1
        return trace

    sys.settrace(trace)
    try:
        call()
    finally:
        sys.settrace(None)
    return executed


def time_updates(
    cache: Cache, snapshot: Snapshot, pick: Callable[[], list[Node]], rounds: int,
    measure: Callable[[Callable[[], None]], float] | None = None,
) -> list[float]:
    """Each round: the picked nodes each gain one pod, then one timed ``update_snapshot`` (or one measured by
    ``measure``); then, unmeasured, they lose the pod again and the snapshot catches up.

    So every timed call sees the same change (one pod added to each picked node) on nodes of the same shape, at
    every cluster size: alternating additions and removals instead would time a different mix of the two at each
    size (at 500 nodes a random node is revisited and loses its pod, at 50,000 it almost never is).
    """
    timings = []
    for _ in range(rounds):
        added = [make_pod(f"{node.name}-extra", node.name) for node in pick()]
        for pod in added:
            cache.add_pod(pod)
        if measure is not None:
            timings.append(measure(lambda: cache.update_snapshot(snapshot)))
        else:
            start = time.perf_counter()
            cache.update_snapshot(snapshot)
            timings.append(time.perf_counter() - start)
        for pod in added:
            cache.remove_pod(pod)
        cache.update_snapshot(snapshot)
    return timings


def block_median(timings: list[float], blocks: int) -> float:
    """The least of the medians of ``blocks`` consecutive blocks of ``timings``.

    The machine may be shared: another process only ever adds time, and it comes in bursts longer than one call,
    so the quietest block's median is the best estimate of the undisturbed cost (``timeit`` reports the least of
    its repeats for the same reason).
    """
    size = max(1, len(timings) // blocks)
    return min(statistics.median(timings[i:i + size]) for i in range(0, len(timings) - size + 1, size))


def bench_snapshot(nodes: int, pods_per_node: int = 4, rounds: int = 3000, blocks: int = 5) -> dict[str, Any]:
    """``update_snapshot`` time after 1 or 100 random nodes changed, and after the same node changed; and the
    bytecode instructions one call executes after 1 random node changed.

    Random nodes are what a scheduler sees; in a large cluster their data is cold in the CPU cache, so the time
    includes memory latency, which grows with the cluster (L2, then L3, then DRAM). Changing the same node each
    round keeps its data warm and isolates the algorithm's own cost, as does counting instructions. Each time is
    :func:`block_median` over the timed calls (a tenth as many for 100 nodes).
    """
    cache = new_cache()
    node_objects = build(cache, nodes, pods_per_node)
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    rng = random.Random(nodes)
    gc.collect()
    gc.disable()
    try:
        one = time_updates(cache, snapshot, lambda: [rng.choice(node_objects)], rounds)
        hundred = time_updates(cache, snapshot, lambda: rng.sample(node_objects, 100), rounds // 10)
        fixed = node_objects[nodes // 2]
        same = time_updates(cache, snapshot, lambda: [fixed], rounds)
    finally:
        gc.enable()
    assert snapshot.num_nodes() == nodes and cache.pod_count() == nodes * pods_per_node
    return {"nodes": nodes, "one_random": block_median(one, blocks),
            "hundred_random": block_median(hundred, blocks), "one_same": block_median(same, blocks),
            "one_random_instructions": statistics.median(
                time_updates(cache, snapshot, lambda: [rng.choice(node_objects)], 21, count_instructions))}


def bench_cycle(
    nodes: int = 5_000, pods_per_node: int = 10, seconds: float = 2.0, pool: int = 50_000
) -> dict[str, Any]:
    """Throughput of assume -> finish_binding -> add_pod -> remove_pod, round-robin over the nodes."""
    cache = new_cache(TTL)
    node_objects = build(cache, nodes, pods_per_node)
    pods = [make_pod(f"cycle-{i}", node_objects[i % nodes].name, i) for i in range(max(pool, 1000))]
    cycles = 0
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            for pod in pods[:1000]:
                cache.assume_pod(pod)
                cache.finish_binding(pod, 0)
                cache.add_pod(pod)
                cache.remove_pod(pod)
            cycles += 1000
            pods = pods[1000:] + pods[:1000]
            if time.perf_counter() >= deadline:
                break
        elapsed = time.perf_counter() - start
    finally:
        gc.enable()
    return {"nodes": nodes, "cycles": cycles, "cycles_per_second": cycles / elapsed}


def bench_cleanup(assumed: int = 10_000, expired_share: float = 0.01, rounds: int = 30) -> dict[str, Any]:
    """Median time of ``cleanup_assumed_pods`` over ``assumed`` binding-finished pods, 1% past their deadline."""
    cache = new_cache(TTL)
    nodes = max(1, assumed // 10)
    for i in range(nodes):
        cache.add_node(make_node(i))
    pods = [make_pod(f"assumed-{i}", f"node-{i % nodes}", i) for i in range(assumed)]
    expiring = set(random.Random(1).sample(range(assumed), int(assumed * expired_share)))
    now = 10 * TTL
    for i, pod in enumerate(pods):
        cache.assume_pod(pod)
        cache.finish_binding(pod, 0 if i in expiring else now)
    timings = []
    gc.collect()
    gc.disable()
    try:
        for _ in range(rounds):
            start = time.perf_counter()
            cache.cleanup_assumed_pods(now)
            timings.append(time.perf_counter() - start)
            assert cache.cache_size.assumed_pods == assumed - len(expiring)
            for i in expiring:  # put the expired ones back, untimed
                cache.assume_pod(pods[i])
                cache.finish_binding(pods[i], 0)
    finally:
        gc.enable()
    return {"assumed": assumed, "expired": len(expiring), "median_seconds": statistics.median(timings)}


# ================================================================================================
# Driver
# ================================================================================================

def bench_dispatcher() -> dict[str, Any]:
    """The call-queue and dispatcher benchmarks of bench/call_queue.py (issue #4)."""
    call_queue = importlib.import_module("call_queue")  # bench/ is sys.path[0] when this script runs
    rows: list[dict[str, Any]] = call_queue.run()
    return {"rows": rows}


def bench_conformance() -> dict[str, Any]:
    """The conformance-suite benchmarks of bench/conformance.py (issue #7), in their own interpreter: that file
    shares its name with the package it measures, so it must not be imported with bench/ on the path."""
    command = [sys.executable, str(Path(__file__).resolve().parent / "conformance.py"), "--json"]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"bench/conformance.py failed:\n{done.stderr}")
    return {"rows": json.loads(done.stdout.strip().splitlines()[-1])}


def bench_soak() -> dict[str, Any]:
    """The steady-state soaks of ``ksspec simulate`` (bench/soak.py, issues #19 and #30): steps/s and RSS over time,
    one scheduler, then the cluster of three, each in its own interpreter (it imports the conformance package, which
    bench/conformance.py would shadow here; and one soak's freed memory would hide the other's growth)."""
    rows: list[dict[str, Any]] = []
    for extra in ([], ["--cluster"]):
        command = [sys.executable, str(Path(__file__).resolve().parent / "soak.py"), "--json", *extra]
        done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
        if done.returncode != 0:
            raise SystemExit(f"bench/soak.py {' '.join(extra)} failed:\n{done.stderr}")
        result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        rows += result["rows"]
    return {"rows": rows}


def bench_scheduler() -> dict[str, Any]:
    """The scheduling-throughput benchmarks of bench/scheduler.py (issue #5)."""
    scheduler = importlib.import_module("scheduler")  # bench/ is sys.path[0] when this script runs
    rows: list[dict[str, Any]] = scheduler.run()
    return {"rows": rows}


def bench_checker() -> dict[str, Any]:
    """The model-checker benchmarks of bench/checker.py (issue #16), in their own interpreter started with -P:
    with bench/ on the path, bench/conformance.py would shadow the conformance package the checker's CLI is in.
    With ``--full``: the large universes against issue 29's target (the 3 x 3 cache and 2 x 3 cycle universes
    exhausted with -j 2 in under 600 s each; about 3 minutes on a quiet 2-core machine, up to 20 on a shared one)."""
    command = [sys.executable, "-P", str(Path(__file__).resolve().parent / "checker.py"), "--full"]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"bench/checker.py failed:\n{done.stderr}")
    return {"rows": [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]}


def bench_kubernetes() -> dict[str, Any]:
    """refimpl : Kubernetes per CPU-second (bench/kubernetes_peer.py, issue 29): Kubernetes v1.35.8's scheduler and
    cache, built from the Go module cache, on the same workloads; its own interpreter. Without Go, a row says so."""
    command = [sys.executable, str(Path(__file__).resolve().parent / "kubernetes_peer.py"), "--json"]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"bench/kubernetes_peer.py failed:\n{done.stderr}")
    return {"rows": json.loads(done.stdout.strip().splitlines()[-1])}


CASES: dict[str, Callable[..., dict[str, Any]]] = {
    "build": bench_build,
    "snapshot": bench_snapshot,
    "cycle": bench_cycle,
    "cleanup": bench_cleanup,
    "dispatcher": bench_dispatcher,
    "conformance": bench_conformance,
    "scheduler": bench_scheduler,
    "kubernetes": bench_kubernetes,
    "checker": bench_checker,
    "soak": bench_soak,
}


@dataclass(frozen=True)
class Run:
    case: str
    kwargs: dict[str, int]


PLAN = [
    Run("build", {}),
    *(Run("snapshot", {"nodes": n}) for n in (500, 5_000, 50_000)),
    Run("cycle", {}),
    Run("cleanup", {}),
    Run("dispatcher", {}),
    Run("conformance", {}),
    Run("scheduler", {}),
    Run("kubernetes", {}),
    Run("checker", {}),
    Run("soak", {}),
]


def run_isolated(run: Run) -> dict[str, Any]:
    """Run one benchmark in a fresh interpreter and return its result."""
    command = [sys.executable, str(Path(__file__).resolve()), "--case", run.case, "--kwargs", json.dumps(run.kwargs)]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"benchmark {run.case} {run.kwargs} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def fmt_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def render(results: list[tuple[Run, dict[str, Any]]], console: Console) -> None:
    table = Table(
        title=f"refimpl cache benchmarks (CPython {sys.version.split()[0]}, medians)",
        caption=(
            "Timed loops run with the cyclic garbage collector disabled, as timeit does. update_snapshot: each call "
            "follows one pod added to each changed node; each time is the least of the medians of 5 blocks of its "
            "3,000 calls (300 for 100 nodes), instructions the median of 21 calls. Random-node times include memory "
            "latency, which grows as the cluster outgrows the CPU caches; same-node times and instructions do not."
        ),
    )
    table.add_column("benchmark")
    table.add_column("parameters")
    table.add_column("result", justify="right")
    table.add_column("target")
    scaling: dict[str, dict[int, float]] = {"one_random": {}, "one_same": {}, "one_random_instructions": {}}
    for run, result in results:
        if run.case == "build":
            rss = result["peak_rss_bytes"]
            table.add_row("build cluster", f"{result['nodes']:,} nodes (3 zones), {result['pods']:,} pods",
                          fmt_time(result["seconds"]), "")
            table.add_row("", "then the first (full) update_snapshot", fmt_time(result["first_snapshot_seconds"]), "")
            table.add_row("", "peak RSS", f"{rss / 2**20:,.0f} MiB", "< 1 GiB " + ("✓" if rss < GIB else "✗"))
        elif run.case == "snapshot":
            n = result["nodes"]
            for key in scaling:
                scaling[key][n] = result[key]
            table.add_row("update_snapshot", f"{n:,} nodes, 1 random node changed", fmt_time(result["one_random"]), "")
            table.add_row("", f"{n:,} nodes, 100 random nodes changed", fmt_time(result["hundred_random"]), "")
            table.add_row("", f"{n:,} nodes, the same node changed", fmt_time(result["one_same"]), "")
            table.add_row("", f"{n:,} nodes, 1 random node changed: instructions run",
                          f"{result['one_random_instructions']:,.0f}", "")
        elif run.case == "cycle":
            table.add_row("pod cycle", "assume → finish_binding → add_pod → remove_pod",
                          f"{result['cycles_per_second']:,.0f} cycles/s", "")
        elif run.case in ("dispatcher", "conformance", "scheduler", "kubernetes", "checker", "soak"):
            for row in result["rows"]:
                table.add_row(row["benchmark"], row["parameters"], row["result"], row["target"])
        elif run.case == "cleanup":
            table.add_row("cleanup_assumed_pods", f"{result['assumed']:,} assumed, {result['expired']} past deadline",
                          fmt_time(result["median_seconds"]), "")
    for key, label in (("one_same", "same node"), ("one_random_instructions", "random node, instructions"),
                       ("one_random", "random node")):
        times = scaling[key]
        if 500 in times and 50_000 in times:
            ratio = times[50_000] / times[500]
            table.add_row("update_snapshot scaling", f"1 changed ({label}): 50,000 / 500 nodes", f"{ratio:.2f}x",
                          "≤ 1.5x " + ("✓" if ratio <= 1.5 else "✗"))
    console.print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--case", choices=sorted(CASES), help="run one benchmark in this process (internal)")
    parser.add_argument("--kwargs", default="{}", help="JSON keyword arguments for --case")
    args = parser.parse_args(argv)
    if args.case:
        print(json.dumps(CASES[args.case](**json.loads(args.kwargs))))
        return 0
    console = Console(width=120)
    results = []
    started = time.perf_counter()
    for run in PLAN:
        with console.status(f"running {run.case} {run.kwargs}"):
            results.append((run, run_isolated(run)))
    render(results, console)
    console.print(f"total {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
