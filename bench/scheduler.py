"""Scheduling throughput of refimpl's scheduler: bound pods per second of wall time, with the default plugins.

Each measurement builds a cluster in the deterministic simulator (:mod:`refimpl.simulator`), lets the node events
reach the scheduler, creates the pods, and then times the simulation until every pod is placed and the cluster is
quiet: per pod, the informer's add event, the queue, the scheduling cycle (snapshot, filters, scores, host
selection, assume, Reserve, Permit), the binding cycle through the API dispatcher, the API server's bind and the
informer's confirmation. API latency and informer delays are virtual, so they cost no wall time. No invariant is
checked (that is ``ksspec simulate``'s job).

``make bench`` runs the rows of :data:`ROWS` at the sizes given there, which are smaller than the issue's (10,000
pods on 5,000 nodes) to keep the whole table within a few tens of seconds; ``python bench/scheduler.py --full``
runs the full sizes (identical pods: 5,000, one per node).
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.table import Table

from refimpl.simulator import Simulation, SimulationConfig
from spec.quantities import SECOND


@dataclass(frozen=True)
class Row:
    """One measurement: ``pods`` (``full_pods`` with --full) on ``nodes`` nodes."""

    name: str
    nodes: int
    pods: int
    full_pods: int
    identical: bool
    batching: bool

    def parameters(self, pods: int) -> str:
        """The table's parameters column."""
        workload = "identical pods, one per node" if self.identical else "mixed pods"
        batching = "batching on" if self.batching else "batching off"
        scaled = "" if pods == self.full_pods else f" (issue size {self.full_pods:,}; scaled down)"
        return f"{self.nodes:,} nodes, {pods:,} {workload}, {batching}{scaled}"


ROWS = (
    Row("mixed, 5,000 nodes", 5_000, 1_000, 10_000, identical=False, batching=True),
    Row("identical, batching on", 5_000, 2_000, 5_000, identical=True, batching=True),
    Row("identical, batching off", 5_000, 2_000, 5_000, identical=True, batching=False),
    Row("mixed, 500 nodes", 500, 2_000, 5_000, identical=False, batching=True),
)
"""What ``make bench`` measures. Identical pods each fill a node (so at most one per node): batching reuses a cached
node list only once the node chosen last is full (KEP-5598). On 500 nodes the full size is 5,000 pods, about
two thirds of what the mixed workload's 500 nodes hold, so no pod is left unschedulable."""


def measure(nodes: int, pods: int, *, identical: bool, batching: bool, seed: int = 1) -> dict[str, Any]:
    """Place ``pods`` pods on ``nodes`` nodes; the timed part starts once the nodes are in the scheduler's cache."""
    config = SimulationConfig(nodes=0, pods=0, seed=seed, identical_pods=identical, uniform_nodes=identical,
                              opportunistic_batching=batching)
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
        started = time.perf_counter()
        stats = sim.run()
        elapsed = time.perf_counter() - started
    finally:
        gc.enable()
    batches = sim.scheduler.batches or {}
    return {
        "nodes": nodes, "pods": pods, "bound": stats.bound, "seconds": elapsed,
        "pods_per_second": stats.bound / elapsed, "virtual_seconds": stats.virtual_seconds,
        "batched": sum(b.batched for b in batches.values()),
    }


def run_row(index: int, full: bool = False) -> dict[str, Any]:
    """Measure row ``index`` of :data:`ROWS` and describe it as a table row."""
    row = ROWS[index]
    pods = row.full_pods if full else row.pods
    result = measure(row.nodes, pods, identical=row.identical, batching=row.batching)
    return {
        "benchmark": f"scheduling throughput, {row.name}",
        "parameters": row.parameters(pods),
        "result": f"{result['pods_per_second']:,.0f} pods/s",
        "target": "",
        **result,
        "row": row.name,
    }


def batching_ratio(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The speed-up of batching on identical pods, from the two identical rows (None if one is missing)."""
    rates = {r["row"]: r["pods_per_second"] for r in rows}
    on, off = rates.get("identical, batching on"), rates.get("identical, batching off")
    if on is None or off is None:
        return None
    return {"benchmark": "opportunistic batching speed-up", "parameters": "identical pods: batching on / off",
            "result": f"{on / off:.2f}x", "target": ""}


def run(full: bool = False) -> list[dict[str, Any]]:
    """Every row of :data:`ROWS`, then the batching speed-up (bench/run.py's table takes these rows)."""
    rows = [run_row(i, full) for i in range(len(ROWS))]
    ratio = batching_ratio(rows)
    return [*rows, *([ratio] if ratio else [])]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--full", action="store_true", help="the issue's sizes (several minutes)")
    args = parser.parse_args(argv)
    table = Table(title=f"refimpl scheduler throughput (CPython {sys.version.split()[0]})")
    for column in ("benchmark", "parameters", "result"):
        table.add_column(column, justify="right" if column == "result" else "left")
    for row in run(args.full):
        table.add_row(row["benchmark"], row["parameters"], row["result"])
    Console(width=140).print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
