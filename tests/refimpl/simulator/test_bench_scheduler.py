"""bench/scheduler.py still runs, on a tiny cluster (timings are not checked), and batching really batches there."""

from __future__ import annotations

import pytest

from bench import scheduler as bench

pytestmark = pytest.mark.heavy  # the benchmark harness, not refinement: ksspec verify's fast profile leaves it out


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


def test_a_row_is_measured_on_a_checkout_of_a_revision_too() -> None:
    """The baseline comparison: the same row by another revision's bench/scheduler.py, in a fresh interpreter."""
    row = bench.Row("tiny", 12, 6, 6, identical=True, batching=False, target=True)
    with bench.checkout("HEAD") as tree:
        assert tree is not None and (tree / "refimpl" / "scheduler" / "schedule_one.py").is_file()
        before = bench.measure_in(tree, row, 6)
    now = bench.measure_in(bench.ROOT, row, 6)
    assert before["bound"] == now["bound"] == 6
    rows = bench.describe(row, 6, {**now, "pods_per_second": 1000.0}, {**before, "pods_per_second": 400.0}, "abc")
    assert [r["result"] for r in rows] == ["1,000 pods/s", "2.50x"]
    assert rows[0]["target"] == "≥ 270 pods/s ✓" and "400 pods/s" in rows[1]["parameters"]
    assert "pods per CPU second" in rows[0]["parameters"]  # this revision measures its CPU time too
    assert bench.batching_ratio(rows) is None  # the baseline rows carry no rate of their own


def test_an_unknown_revision_gives_no_baseline() -> None:
    with bench.checkout("no-such-revision-anywhere") as tree:
        assert tree is None


def test_the_soak_runs_and_reports_rss_over_time() -> None:
    from bench import soak

    result = soak.run(soak.Soak(nodes=10, pods=300, rate=50.0, lifetime=1.0), sample_every=200)
    assert result["pods_created"] == result["pods_deleted"] == 300 and result["violations"] == 0
    assert len(result["rss_mib"]) == 4 and all(mib > 0 for mib in result["rss_mib"])
    assert result["live_pods_mean"] < 150  # about 50 a second x 1 s, not the 300 created
    rows = soak.rows(result)
    assert rows[0]["result"].endswith("steps/s") and "KiB / 1,000 pods" in rows[2]["result"]
    assert soak.slope([(0, 1.0), (1, 3.0), (2, 5.0)]) == 2.0


def test_the_cluster_soak_runs_three_schedulers_whose_pods_finish() -> None:
    from bench import soak

    config = soak.Soak(nodes=5, pods=200, rate=40.0, lifetime=1.0, schedulers=3, crash_rate=0.01, gc_threshold=20,
                       steady_from=0.5)
    assert "--terminated-pod-gc-threshold" in config.argv() and "--schedulers" in config.argv()
    result = soak.run(config, sample_every=300)
    assert result["pods_created"] == result["pods_deleted"] == 200 and result["violations"] == 0
    assert result["finished"] + result["rejected"] == 200 and result["finished"] > 150
    assert result["terminated_kept"] == 20 and result["quiet"]
    assert result["live_pods_mean"] < 100  # about 40 a second x 1 s, not the 200 created
    rows = soak.rows(result)
    assert rows[0]["benchmark"] == "ksspec simulate, cluster steady-state soak"
    assert "3 schedulers" in rows[0]["parameters"] and "from half of the arrivals" in rows[2]["parameters"]
