"""-j N gives the single-process result; the parts of a split run (--partition K/N) together give the whole run."""

from __future__ import annotations

import multiprocessing
from array import array
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from conformance.cli.main import main
from spec.verify import transition_system
from spec.verify.cache.system import CacheSystem
from spec.verify.cache.universe import Universe
from spec.verify.checker import explore
from spec.verify.transition_system import Expansion
from tests.verify.checker_universes import RUNS, Run, build, explore_run, load

RECORDED = load()
PARALLEL = [
    r
    for r in RUNS
    if r.step
    or "--keep-going" in r.argv
    or r.argv in ((), ("--system", "cycle"), ("--mode", "adversarial", "--ttl", "1", "--depth", "6"))
]
"""Every run that stops at a violation or keeps going past them, a depth-limited one, and the defaults."""


@pytest.mark.parametrize("run", PARALLEL, ids=lambda r: r.name)
def test_two_processes_give_the_recorded_figures(run: Run) -> None:
    figures, _ = explore_run(run, jobs=2)
    assert figures == RECORDED[run.name]


def test_three_processes_give_the_recorded_figures() -> None:
    run = Run(("--nodes", "2", "--pods", "1", "--pod-variants", "2", "--node-variants", "1"))
    figures, _ = explore_run(run, jobs=3)
    assert figures == RECORDED[run.name]


def fingerprints(run: Run, **options: object) -> tuple[set[int], object]:
    system, name, args = build(run)
    report = explore(system, name=name, stop_at_first=not args.keep_going, **options)  # type: ignore[arg-type]
    assert report.fingerprints is not None
    return set(report.fingerprints.fingerprints), report


@pytest.mark.parametrize(
    "run",
    [Run(()), Run(("--system", "cycle", "--pods", "3", "--ttl", "0")), Run(("--system", "dispatcher"))],
    ids=lambda r: r.name,
)
@pytest.mark.parametrize("parts", [2, 3])
def test_the_parts_of_a_split_run_together_are_the_whole_run(run: Run, parts: int) -> None:
    whole, _ = fingerprints(run)
    union: set[int] = set()
    explored = 0
    for part in range(parts):
        found, report = fingerprints(run, partition=(part, parts), split_depth=4)
        assert report.complete and report.split_depth == 4  # type: ignore[attr-defined]
        # A part may reach a state later than the whole run (its shortest path may cross another part's states).
        union |= found
        explored += len(found)
    assert union == whole
    assert explored >= len(whole)  # the states up to the split depth are explored by every part


def test_a_split_run_splits_at_the_first_wide_enough_depth() -> None:
    _, report = fingerprints(Run(()), partition=(1, 2))
    assert report.complete and report.split_depth == 3  # type: ignore[attr-defined]  # 128 states or more
    _, small = fingerprints(Run(("--system", "cycle", "--pods", "1")), partition=(1, 2))
    assert small.split_depth is None and small.complete  # type: ignore[attr-defined]  # too narrow: part 1 does it all


def test_split_runs_find_every_violation_with_a_shortest_trace() -> None:
    run = Run(("--system", "cycle", "--pod-variants", "2", "--known-violations", "--keep-going"))
    expected = {v["property"]: len(v["trace"]) for v in RECORDED[run.name]["violations"]}
    shortest: dict[str, int] = {}
    for part in range(2):
        _, report = fingerprints(run, partition=(part, 2), split_depth=3)
        for violation in report.violations:  # type: ignore[attr-defined]
            length = len(violation.trace)
            shortest[violation.property] = min(length, shortest.get(violation.property, length))
    assert shortest == expected


def test_a_bad_partition_is_refused() -> None:
    system = CacheSystem(Universe(nodes=1, pods=1))
    with pytest.raises(ValueError, match="partition"):
        explore(system, partition=(2, 2))


def test_max_states_stops_the_run() -> None:
    report = explore(CacheSystem(Universe(nodes=2, pods=2, pod_variants=1, node_variants=1)), max_states=500)
    assert not report.complete and report.stopped_by == "state limit 500" and report.states == 500


class _WorkClock:
    """A clock that the coordinator and its forked workers share, moving one second per state expanded or
    checked: the work done, not the machine's load, decides when the time limit passes."""

    def __init__(self) -> None:
        self.ticks = multiprocessing.get_context("fork").Value("q", 0)

    def perf_counter(self) -> float:
        return float(self.ticks.value)

    def tick(self) -> None:
        with self.ticks.get_lock():
            self.ticks.value += 1


class _Counted:
    """A system whose expansions and state checks each take one second of a :class:`_WorkClock`."""

    def __init__(self, system: CacheSystem, clock: _WorkClock) -> None:
        self.system = system
        self.clock = clock

    def expand(self, state: Any) -> Expansion[Any]:
        self.clock.tick()
        return self.system.expand(state)

    def violations(self, state: Any) -> list[str]:
        self.clock.tick()
        return self.system.violations(state)

    def initial_states(self) -> Iterable[Any]:
        return self.system.initial_states()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.system, name)


@pytest.mark.parametrize("jobs", [2, 3])
def test_the_time_limit_stops_the_work(monkeypatch: pytest.MonkeyPatch, jobs: int) -> None:
    """With -j, no state is expanded or checked once the limit has passed, but for the one each process had
    started. A run of ``-j 2 --time-limit 600`` once took 722 s: after the workers stopped expanding at the
    limit, every successor they had found was still shipped to its owner and checked (here: 5,569 seconds of
    the work clock for a limit of 3,000)."""
    clock = _WorkClock()
    monkeypatch.setattr(transition_system, "time", clock)
    limit = 3_000
    report = explore(_Counted(CacheSystem(Universe(nodes=2, pods=2)), clock), time_limit=limit, jobs=jobs)
    assert not report.complete and report.stopped_by == f"time limit {limit}s"
    assert limit / 2 < clock.ticks.value <= limit + jobs  # the workers stop early enough to finish the level
    assert report.seconds == clock.ticks.value
    assert 500 < report.states < limit  # every state stored was checked, and the run got somewhere


def test_cli_split_run_and_merge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["check", "--system", "cycle", "--ttl", "0", "--pods", "3"]
    assert main([*args, "--save-fingerprints", str(tmp_path / "all")]) == 0
    for part in range(2):
        assert main([*args, "--partition", f"{part}/2", "--save-fingerprints", str(tmp_path / f"part{part}")]) == 0
    capsys.readouterr()
    assert main(["check", "--merge-fingerprints", str(tmp_path / "part0"), str(tmp_path / "part1")]) == 0
    out = capsys.readouterr().out
    whole = array("Q", (tmp_path / "all").read_bytes())
    assert f"union (distinct states) │ {len(whole):,}" in out.replace("  ", " ") or f"{len(whole):,}" in out
    assert set(whole) == set(array("Q", (tmp_path / "part0").read_bytes())) | set(
        array("Q", (tmp_path / "part1").read_bytes())
    )


def test_cli_prints_memory_and_collision_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--system", "cycle", "-j", "2"]) == 0
    out = capsys.readouterr().out
    for text in ("processes (-j)", "bytes/state", "peak memory (RSS)", "(optimistic)", "836"):
        assert text in out


def test_cli_refuses_partition_with_jobs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--partition", "0/2", "-j", "2"]) == 2
    assert main(["check", "--merge-fingerprints", "/nonexistent/file"]) == 2
