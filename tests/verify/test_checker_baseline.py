"""The fast checker reports exactly what the checker before issue 16 reported, on every universe the project uses.

:mod:`checker_universes` lists the runs (every ``ksspec verify`` run, every universe the docs cite, every
universe the tests explore) and ``checker_baseline.json`` the figures main gave for each at commit 59a610d:
distinct states, transitions, depth, coverage, how the run stopped, and every violation with its whole trace.
"""

from __future__ import annotations

import pytest

from tests.verify.checker_universes import RUNS, Run, explore_run, load

RECORDED = load()


def test_every_run_has_recorded_figures() -> None:
    assert sorted(RECORDED) == sorted(run.name for run in RUNS)


@pytest.mark.parametrize("run", RUNS, ids=lambda r: r.name)
def test_same_figures_as_before(run: Run) -> None:
    figures, _ = explore_run(run)
    assert figures == RECORDED[run.name]
