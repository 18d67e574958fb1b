"""``ksspec check --cluster``: the partitioned search on a Dask cluster of two worker processes gives the
single-process figures (distinct states, transitions, depth, coverage, how it stopped, every violation with its
shortest trace), and the command line refuses what it cannot do, naming the fix."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.cli.main import main
from spec.verify.checker import explore
from spec.verify.dask_pool import ClusterFailed
from tests.verify.checker_universes import Run, explore_run, load

distributed = pytest.importorskip("distributed")

RECORDED = load()
_CACHE_SMALL = ("--nodes", "2", "--pods", "1", "--pod-variants", "2", "--node-variants", "1")
RUNS = (
    Run(_CACHE_SMALL),
    Run(_CACHE_SMALL, step="tests.verify.test_checker:assume_without_charging"),
    Run((*_CACHE_SMALL, "--keep-going"), step="tests.verify.test_checker:stale_snapshot"),
    Run(("--system", "dispatcher", "--uids", "2", "--adds", "2"),
        step="tests.verify.test_checker_systems:finish_keeping_the_call"),
    Run(("--system", "cycle", "--ttl", "1", "--depth", "6")),
    Run(("--system", "cycle", "--known-violations", "--keep-going")),
)
"""Small runs: clean, broken transitions that stop at their first violation, and --keep-going past several."""


@pytest.fixture(scope="module")
def address() -> Iterator[str]:
    """A Dask cluster of two single-threaded worker processes on this machine, for the module's tests."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        yield cluster.scheduler_address


@pytest.mark.parametrize("run", RUNS, ids=lambda r: r.name)
def test_two_dask_workers_give_the_single_process_figures(address: str, run: Run) -> None:
    one, _ = explore_run(run)
    assert one == RECORDED[run.name]
    two, _ = explore_run(run, cluster=address)
    assert two == one


def test_a_violation_has_the_single_process_shortest_trace(address: str) -> None:
    run = Run(_CACHE_SMALL, step="tests.verify.test_checker:assume_without_charging")
    figures, _ = explore_run(run, cluster=address)
    (violation,) = figures["violations"]
    assert figures["stopped_by"] == "first violation"
    assert violation == RECORDED[run.name]["violations"][0]


def test_cli_runs_on_the_cluster(address: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--system", "cycle", "--cluster", address]) == 0
    out = capsys.readouterr().out
    assert "Dask workers (--cluster)" in out and f"2 at {address}" in out and "836" in out


def test_cli_starts_a_local_cluster(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["check", "--system", "dispatcher", "--uids", "2", "--adds", "2"]
    assert main([*args, "--cluster", "local:2"]) == 0
    on_cluster = capsys.readouterr().out
    assert main(args) == 0
    states = next(line for line in capsys.readouterr().out.splitlines() if "distinct states" in line)
    assert states in on_cluster


@pytest.mark.parametrize(
    ("value", "message"),
    [("somewhere", "--cluster wants a Dask scheduler address (tcp://host:8786) or local:N"),
     ("local:0", "local:N wants 1 <= N <= 256")],
)
def test_cli_refuses_a_bad_address(value: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["check", "--system", "cycle", "--cluster", value])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["-j", "2"], "-j is for one machine"), (["--partition", "0/2"], "drop -j and --cluster")],
)
def test_cli_refuses_cluster_with_j_or_partition(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "--system", "cycle", "--cluster", "local:2", *argv]) == 2
    assert message in capsys.readouterr().out


def test_cli_names_the_extra_when_dask_is_missing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` raises ImportError
    assert main(["check", "--system", "cycle", "--cluster", "local:2"]) == 2
    out = capsys.readouterr().out
    assert "kube-scheduler-spec[distributed]" in out and "-j N" in out


def test_cli_says_when_the_cluster_is_out_of_reach(capsys: pytest.CaptureFixture[str]) -> None:
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        assert main(["check", "--system", "cycle", "--cluster", "tcp://127.0.0.1:9"]) == 2
    assert "cannot reach the Dask cluster tcp://127.0.0.1:9" in capsys.readouterr().out


def test_the_documented_scheduler_and_worker_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/proofs.md's `dask scheduler` and `dask worker` commands (a scheduler file instead of a fixed port)."""
    dask = Path(sys.executable).with_name("dask")
    file = tmp_path / "scheduler.json"
    scheduler = subprocess.Popen([dask, "scheduler", "--scheduler-file", file, "--port", "0", "--dashboard-address",
                                  ":0"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers = None
    try:
        for _ in range(300):
            if file.exists() and file.stat().st_size:
                break
            time.sleep(0.1)
        address = json.loads(file.read_text())["address"]
        workers = subprocess.Popen([dask, "worker", address, "--nworkers", "2", "--nthreads", "1"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with distributed.Client(address) as client:
            client.wait_for_workers(2, timeout=60)
        assert main(["check", "--system", "cycle", "--cluster", address]) == 0
        assert f"2 at {address}" in capsys.readouterr().out
    finally:
        for process in (workers, scheduler):
            if process is not None:
                process.terminate()
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def _refuse() -> None:
    raise ImportError("No module named 'spec'")


class _Unloadable:
    """A system a Dask worker cannot load, as on a worker without the package: unpickling it raises."""

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return (_refuse, ())


def test_a_worker_that_cannot_load_the_system_is_named(address: str) -> None:
    with pytest.raises(ClusterFailed, match=r"(?s)could not set up its partition.*same version of kube-sched"):
        explore(_Unloadable(), cluster=address)  # type: ignore[arg-type]
