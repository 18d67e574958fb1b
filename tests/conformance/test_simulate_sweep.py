"""``ksspec simulate --seeds A..B --cluster``: a seed sweep on a Dask cluster of two worker processes gives the
verdicts of running the seeds one by one in this process, failing seeds included (a cluster that does not settle
in time, an invariant broken on some seeds); the command line refuses what it cannot do."""

from __future__ import annotations

import dataclasses
import sys
from collections import Counter
from collections.abc import Iterator

import pytest

from conformance.cli.main import main
from conformance.simulation.sweep import run_seed, sweep
from refimpl.simulator import Faults, SimulationConfig
from spec.cycle.cycle import Cluster
from spec.quantities import MILLISECOND, SECOND
from spec.verify.dask_pool import ClusterFailed

distributed = pytest.importorskip("distributed")

SMALL = SimulationConfig(nodes=2, pods=10, faults=Faults(bind_failure_rate=0.3), max_latency=20 * MILLISECOND,
                         max_informer_delay=50 * MILLISECOND)
SEEDS = (0, 1, 2, 3)
TOO_SOON = dataclasses.replace(SMALL, max_virtual_time=6 * SECOND)
"""Seeds 0, 1 and 2 do not settle within 6 s of virtual time (nor drain: every waiting pod retried); 3 does."""
CLI = ["simulate", "--nodes", "2", "--pods", "10", "--bind-failure-rate", "0.3", "--max-virtual-seconds", "6",
       "--no-progress"]


def at_most_five_pods_a_node(cluster: Cluster) -> bool:
    """A deliberately wrong invariant: 10 pods on 2 nodes put 6 or more on one node on some seeds (0 and 3)."""
    counts = Counter(pod.node_name for pod in cluster.api_pods.values() if pod.node_name)
    return max(counts.values(), default=0) <= 5


def explodes(cluster: Cluster) -> bool:
    """A predicate that raises, as a simulation with a bug would."""
    raise ZeroDivisionError("a bug")


@pytest.fixture(scope="module")
def address() -> Iterator[str]:
    """A Dask cluster of two single-threaded worker processes on this machine, for the module's tests."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        yield cluster.scheduler_address


def test_two_dask_workers_give_the_verdicts_of_one_seed_at_a_time(address: str) -> None:
    one_by_one = [run_seed(dataclasses.replace(TOO_SOON, seed=seed), 1) for seed in SEEDS]
    assert [v.passed for v in one_by_one] == [False, False, False, True]
    assert sweep(TOO_SOON, SEEDS, 1, cluster=address) == one_by_one


def test_a_broken_invariant_fails_the_same_seeds_on_the_cluster(address: str) -> None:
    extra = (at_most_five_pods_a_node,)
    here = sweep(SMALL, SEEDS, 1, extra=extra)
    there = sweep(SMALL, SEEDS, 1, cluster=address, extra=extra)
    assert there == here
    broken = [v.seed for v in here if dict(v.violations).get(at_most_five_pods_a_node.__name__)]
    assert broken == [v.seed for v in here if not v.passed] == [0, 3]


def test_cli_sweep_on_the_cluster_agrees_with_each_seed_alone(
    address: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*CLI, "--seeds", "0..3", "--cluster", address]) == 1
    out = capsys.readouterr().out
    assert "3 of 4 seeds failed" in out and "--seed 0" in out
    assert [main([*CLI, "--seed", str(seed)]) for seed in SEEDS] == [1, 1, 1, 0]


def test_cli_sweep_in_this_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*CLI, "--seeds", "3"]) == 0
    assert "1 of 1 seeds passed" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--cluster", "local:2"], "--cluster runs a seed sweep: give --seeds"),
     (["--seeds", "0..1", "--schedulers", "2"], "--seeds sweeps the one-scheduler simulation")],
)
def test_cli_refuses_what_a_sweep_cannot_do(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*CLI, *argv]) == 2
    assert message in capsys.readouterr().out


@pytest.mark.parametrize("value", ["3..1", "a..b", "0..100000", ""])
def test_cli_refuses_bad_seeds(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([*CLI, "--seeds", value])
    assert exit_.value.code == 2
    assert "--seeds wants" in capsys.readouterr().err


def test_cli_names_the_extra_when_dask_is_missing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` raises ImportError
    assert main([*CLI, "--seeds", "0..1", "--cluster", "local:2"]) == 2
    assert "kube-scheduler-spec[distributed]" in capsys.readouterr().out


def test_a_seed_that_raises_on_a_worker_is_named(address: str) -> None:
    with pytest.raises(ClusterFailed, match=r"seed 5 raised on a Dask worker \(ZeroDivisionError: a bug\); if --seed"):
        sweep(SMALL, (5,), 1, cluster=address, extra=(explodes,))
