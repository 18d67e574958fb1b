"""The benchmarks still run: each benchmark function, on a tiny cluster (timings are not checked)."""

from __future__ import annotations

import pytest
from rich.console import Console

from bench import run as bench

pytestmark = pytest.mark.heavy  # the benchmark harness, not refinement: ksspec verify's fast profile leaves it out


def test_benchmarks_run_on_a_tiny_cluster(capsys: pytest.CaptureFixture[str]) -> None:
    results = [
        (bench.Run("build", {}), bench.bench_build(nodes=30, pods=300)),
        (bench.Run("snapshot", {}), bench.bench_snapshot(nodes=500, rounds=20)),
        (bench.Run("snapshot", {}), bench.bench_snapshot(nodes=50_000 // 100, rounds=20) | {"nodes": 50_000}),
        (bench.Run("cycle", {}), bench.bench_cycle(nodes=10, pods_per_node=1, seconds=0.01, pool=1000)),
        (bench.Run("cleanup", {}), bench.bench_cleanup(assumed=200, rounds=2)),
    ]
    bench.render(results, Console(width=120, force_terminal=False))
    printed = capsys.readouterr().out
    assert "peak RSS" in printed and "cycles/s" in printed and "scaling" in printed
