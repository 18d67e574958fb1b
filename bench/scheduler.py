"""Scheduling throughput of refimpl's scheduler: bound pods per second of wall time, with the default plugins.

Each measurement builds a cluster in the deterministic simulator (:mod:`refimpl.simulator`), lets the node events
reach the scheduler, creates the pods, and then times the simulation until every pod is placed and the cluster is
quiet: per pod, the informer's add event, the queue, the scheduling cycle (snapshot, filters, scores, host
selection, assume, Reserve, Permit), the binding cycle through the API dispatcher, the API server's bind and the
informer's confirmation. API latency and informer delays are virtual, so they cost no wall time. No invariant is
checked (that is ``ksspec simulate``'s job).

``make bench`` runs the rows of :data:`ROWS` at the sizes given there, which are smaller than the issue's (10,000
pods on 5,000 nodes) to keep the whole table within a minute; ``python bench/scheduler.py --full`` runs the full
sizes (identical pods: 5,000, one per node). Each row is measured in a fresh interpreter, and so is the same row on
the scheduler of :data:`BASELINE` (``--baseline REV``; ``--baseline none`` skips it), checked out of git into a
temporary directory: the ratio of the two is measured in one run, on one machine, under one load. The rows the
issue sets a target for show scheduler_perf's threshold for SchedulingBasic on 5,000 nodes (270 pods/s in Kubernetes
v1.35.0); bench/kubernetes_peer.py compares with Kubernetes' own scheduler on this machine.
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from rich.console import Console
from rich.table import Table

from refimpl.scheduler.plugins import LIST_DEFAULTING
from refimpl.simulator import Simulation, SimulationConfig
from spec.quantities import SECOND

ROOT: Final = Path(__file__).resolve().parent.parent
BASELINE: Final = "4396f9c76b08acfd821949cfabdbf7578973241d"
"""main just before issue 24's plugins (PodTopologySpread, InterPodAffinity, DynamicResources,
NodeResourcesBalancedAllocation; 9af225f landed the first): each row is compared with the same workload on that
scheduler's 8 plugins, so ``make bench`` shows what the 12 cost (docs/performance.md). Until 2026-11-30 it was
59a610d, main when issue 16's reference-scheduler work began."""
TARGET_PODS_PER_SECOND: Final = 270
"""Kubernetes v1.35.0's scheduler_perf threshold for SchedulingBasic 5000Nodes_10000Pods
(test/integration/scheduler_perf/misc/performance-config.yaml: ``threshold: 270``), a floor on Kubernetes' CI
machines. Issue 16 set 680, which is not in v1.35.0; bench/kubernetes_peer.py measures Kubernetes itself here."""


@dataclass(frozen=True)
class Row:
    """One measurement: ``pods`` (``full_pods`` with --full) on ``nodes`` nodes."""

    name: str
    nodes: int
    pods: int
    full_pods: int
    identical: bool
    batching: bool
    target: bool = False
    """Whether issue 16's target applies."""

    def parameters(self, pods: int) -> str:
        """The table's parameters column."""
        workload = "identical pods, one per node" if self.identical else "mixed pods"
        batching = "batching on" if self.batching else "batching off"
        scaled = "" if pods == self.full_pods else f" (issue size {self.full_pods:,}; scaled down)"
        return f"{self.nodes:,} nodes, {pods:,} {workload}, {batching}{scaled}"


ROWS = (
    Row("mixed, 5,000 nodes", 5_000, 1_000, 10_000, identical=False, batching=True, target=True),
    Row("mixed, 5,000 nodes, batching off", 5_000, 1_000, 10_000, identical=False, batching=False, target=True),
    Row("identical, batching on", 5_000, 2_000, 5_000, identical=True, batching=True),
    Row("identical, batching off", 5_000, 2_000, 5_000, identical=True, batching=False, target=True),
    Row("mixed, 500 nodes", 500, 2_000, 5_000, identical=False, batching=True),
)
"""What ``make bench`` measures. Identical pods each fill a node (so at most one per node): batching reuses a cached
node list only once the node chosen last is full (KEP-5598). On 500 nodes the full size is 5,000 pods, about
two thirds of what the mixed workload's 500 nodes hold, so no pod is left unschedulable. Every row runs
PodTopologySpread with List defaulting: under the default profile's System defaulting no pod is signable, so
batching would never apply (the pods have no Services or controllers, so the system's default constraints would
not apply either: their selector is empty)."""


def measure(nodes: int, pods: int, *, identical: bool, batching: bool, seed: int = 1) -> dict[str, Any]:
    """Place ``pods`` pods on ``nodes`` nodes; the timed part starts once the nodes are in the scheduler's cache."""
    config = SimulationConfig(nodes=0, pods=0, seed=seed, identical_pods=identical, uniform_nodes=identical,
                              opportunistic_batching=batching, spread_defaulting=LIST_DEFAULTING)
    sim = Simulation(config)
    for _ in range(nodes):
        sim.add_node(sim.new_node())
    sim.run_for(SECOND)  # every node event delivered
    assert sim.cache.node_count() == nodes
    for _ in range(pods):
        sim.create_pod(sim.new_pod())
    gc.collect()
    gc.disable()
    try:
        started, cpu_started = time.perf_counter(), time.process_time()
        stats = sim.run()
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    finally:
        gc.enable()
    batches = sim.scheduler.batches or {}
    return {
        "nodes": nodes, "pods": pods, "bound": stats.bound, "seconds": elapsed,
        "pods_per_second": stats.bound / elapsed, "cpu_seconds": cpu, "pods_per_cpu_second": stats.bound / cpu,
        "virtual_seconds": stats.virtual_seconds,
        "batched": sum(b.batched for b in batches.values()),
    }


_MEASURE: Final = """
import json, sys
sys.path.insert(0, "bench")
import scheduler
print(json.dumps(scheduler.measure({nodes}, {pods}, identical={identical}, batching={batching})))
"""


def measure_in(tree: Path, row: Row, pods: int) -> dict[str, Any]:
    """:func:`measure` of ``row`` by the bench/scheduler.py of the checkout ``tree``, in a fresh interpreter."""
    code = _MEASURE.format(nodes=row.nodes, pods=pods, identical=row.identical, batching=row.batching)
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, "-c", code], cwd=tree, env=environment, capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"measuring {row.name!r} in {tree} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@contextmanager
def checkout(revision: str) -> Iterator[Path | None]:
    """The tree of ``revision`` (``git archive``) in a temporary directory; None if git cannot give it (no git, a
    shallow clone without it), with the reason on stderr."""
    done = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", revision], capture_output=True,
                          check=False)
    if done.returncode != 0:
        print(f"bench/scheduler.py: no baseline {revision}: {done.stderr.decode().strip()}", file=sys.stderr)
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="bench-baseline-") as directory:
        with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
            archive.extractall(directory, filter="data")
        yield Path(directory)


def describe(row: Row, pods: int, result: dict[str, Any], baseline: dict[str, Any] | None,
             revision: str) -> list[dict[str, Any]]:
    """The table rows of one measurement: the figure (with the target, if any), then the baseline's and the ratio."""
    rate = result["pods_per_second"]
    target = ""
    if row.target:
        target = f"≥ {TARGET_PODS_PER_SECOND} pods/s " + ("✓" if rate >= TARGET_PODS_PER_SECOND else "✗")
    # On a shared machine wall time counts other processes' turns too: the CPU time of this one says how much.
    per_cpu = f"; {result['pods_per_cpu_second']:,.0f} pods per CPU second" if "pods_per_cpu_second" in result else ""
    rows = [{
        "benchmark": f"scheduling throughput, {row.name}",
        "parameters": row.parameters(pods) + per_cpu,
        "result": f"{rate:,.0f} pods/s",
        "target": target,
        **result,
        "row": row.name,
    }]
    if baseline is not None:
        before = baseline["pods_per_second"]
        rows.append({
            "benchmark": "",
            "parameters": f"the same on {revision[:10]} (same run): {before:,.0f} pods/s"
                          + (f"; {baseline['pods_per_cpu_second']:,.0f} per CPU second"
                             if "pods_per_cpu_second" in baseline else ""),
            "result": f"{rate / before:.2f}x",
            "target": "",
            "row": f"{row.name} / baseline",
        })
    return rows


def run_row(index: int, full: bool = False, baseline: Path | None = None,
            revision: str = BASELINE) -> list[dict[str, Any]]:
    """Measure row ``index`` of :data:`ROWS` (and on ``baseline``, a checkout, if given) and describe it."""
    row = ROWS[index]
    pods = row.full_pods if full else row.pods
    result = measure_in(ROOT, row, pods)
    before = measure_in(baseline, row, pods) if baseline is not None else None
    return describe(row, pods, result, before, revision)


def batching_ratio(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The speed-up of batching on identical pods, from the two identical rows (None if one is missing)."""
    rates = {r["row"]: r["pods_per_second"] for r in rows if "pods_per_second" in r}
    on, off = rates.get("identical, batching on"), rates.get("identical, batching off")
    if on is None or off is None:
        return None
    return {"benchmark": "opportunistic batching speed-up", "parameters": "identical pods: batching on / off",
            "result": f"{on / off:.2f}x", "target": ""}


def run(full: bool = False, baseline: str | None = BASELINE) -> list[dict[str, Any]]:
    """Every row of :data:`ROWS` (each also on ``baseline``, a git revision, unless None), then the batching
    speed-up (bench/run.py's table takes these rows)."""
    with checkout(baseline) if baseline is not None else _nothing() as tree:
        rows = [entry for i in range(len(ROWS)) for entry in run_row(i, full, tree, baseline or "")]
    ratio = batching_ratio(rows)
    return [*rows, *([ratio] if ratio else [])]


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--full", action="store_true", help="the issue's sizes (several minutes)")
    parser.add_argument("--baseline", default=BASELINE,
                        help=f"a git revision to measure each row on as well (default {BASELINE[:10]}; none: skip)")
    args = parser.parse_args(argv)
    table = Table(title=f"refimpl scheduler throughput (CPython {sys.version.split()[0]})")
    for column in ("benchmark", "parameters", "result", "target"):
        table.add_column(column, justify="right" if column == "result" else "left")
    for row in run(args.full, None if args.baseline == "none" else args.baseline):
        table.add_row(row["benchmark"], row["parameters"], row["result"], row["target"])
    Console(width=140).print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
