"""docs/performance.md: its figures agree with themselves and its plugin counts with refimpl's framework."""

from __future__ import annotations

import re
from pathlib import Path

from bench.kubernetes_peer import refimpl_plugins

PAGE = Path(__file__).resolve().parent.parent / "docs" / "performance.md"


def _rows() -> list[list[str]]:
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in PAGE.read_text().splitlines()
            if line.startswith("| basic") or line.startswith("| identical")]
    assert len(rows) == 4, "the table has a row per workload and batching setting"
    return rows


def _consistent(mine: str, theirs: str, ratio: str) -> bool:
    """Whether ``ratio`` (two decimals) is the quotient of figures that rounded to ``mine`` and ``theirs``."""
    def bounds(figure: str) -> tuple[float, float]:
        half = 0.5 * 10 ** -len(figure.partition(".")[2])
        return float(figure) - half, float(figure) + half
    (mine_low, mine_high), (theirs_low, theirs_high) = bounds(mine), bounds(theirs)
    value = float(ratio.rstrip("x"))
    return mine_low / theirs_high - 0.005 <= value <= mine_high / theirs_low + 0.005


def test_each_ratio_is_its_rows_quotient() -> None:
    for _, _, mine, theirs, ratio, default, default_ratio in _rows():
        assert _consistent(mine, theirs, ratio), (mine, theirs, ratio)
        assert _consistent(mine, default, default_ratio), (mine, default, default_ratio)
    assert not _consistent("551", "261", "2.40x"), "the check can fail"


def test_the_plugin_counts_are_refimpls() -> None:
    header = next(line for line in PAGE.read_text().splitlines() if line.startswith("| workload"))
    count = len(refimpl_plugins())
    assert f"refimpl ({count} plugins)" in header
    assert f"refimpl's {count + 1} plugins" in header  # PrioritySort added on the Kubernetes side


def test_the_snapshot_ratios_are_their_quotients() -> None:
    text = PAGE.read_text()
    pairs = re.findall(r"refimpl ([\d.]+) ms, Kubernetes ([\d.]+) ms \(([\d.]+)x\)", text)
    pairs += re.findall(r"changed ([\d.]+) µs and ([\d.]+) µs \(([\d.]+)x\)", text)
    assert len(pairs) == 3
    for mine, theirs, ratio in pairs:
        assert _consistent(mine, theirs, ratio), (mine, theirs, ratio)


def test_the_before_after_ratios_are_their_quotients() -> None:
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in PAGE.read_text().splitlines()
            if re.match(r"\| 5?,?\d+ nodes, ", line)]
    assert len(rows) == 5, "a row per bench/scheduler.py row"
    for _, before, after, ratio in rows:
        assert _consistent(after.replace(",", ""), before.replace(",", ""), ratio), (before, after, ratio)
    assert not _consistent("286", "387", "0.80x"), "the check can fail"
