"""bench/scheduler.py still runs, on a tiny cluster (timings are not checked), and batching really batches there."""

from __future__ import annotations

from bench import scheduler as bench


def test_identical_pods_are_batched_only_with_batching_on() -> None:
    on = bench.measure(12, 8, identical=True, batching=True)
    off = bench.measure(12, 8, identical=True, batching=False)
    assert on["bound"] == off["bound"] == 8
    assert on["batched"] > 0  # one pod fills a node, so the next pod takes the cached hint
    assert off["batched"] == 0


def test_rows_render_with_the_batching_ratio() -> None:
    rows = [
        {"row": "identical, batching on", "pods_per_second": 300.0},
        {"row": "identical, batching off", "pods_per_second": 100.0},
    ]
    ratio = bench.batching_ratio(rows)
    assert ratio is not None and ratio["result"] == "3.00x"
    assert bench.batching_ratio(rows[:1]) is None
