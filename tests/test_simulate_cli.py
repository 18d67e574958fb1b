"""``ksspec simulate``: small runs pass with every invariant checked, runs are reproducible, bad input is refused
with a message naming the argument, and a violated invariant makes the command fail."""

from __future__ import annotations

import re

import pytest

from conformance.cli import simulate as simulate_command
from conformance.cli.main import main
from conformance.simulation.checks import InvariantChecker
from refimpl.simulator import Simulation, SimulationConfig
from spec.objects import Pod


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["simulate", "--no-progress", *args])
    out = capsys.readouterr()
    return code, out.out + out.err


def counts(output: str) -> dict[str, str]:
    """The value column of the stats table, by measure."""
    rows = re.findall(r"│ ([a-z][^│]*?)\s+│\s+([^│]*?) │", output)
    return {name: value for name, value in rows}


def test_a_small_run_passes_and_reports_throughput_counts_and_invariants(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "--nodes", "4", "--pods", "30", "--bind-failure-rate", "0.2", "--seed", "3")
    assert code == 0, out
    table = counts(out)
    assert table["pods created / deleted"] == "30 / 0"
    assert int(table["bound"]) + int(table["pods still unbound"]) == 30
    assert int(table["failed bind requests"]) > 0  # a 20% failure rate over 30+ binds
    assert "throughput (bound pods / wall second)" in table
    assert "throughput (bound pods / virtual second)" in table
    checked = re.search(r"│ inv_no_node_overcommitted\s+│\s+([\d,]+) │\s+0 │", out)
    assert checked is not None and int(checked.group(1).replace(",", "")) > 0, out
    assert "simulation passed" in out


def test_pods_with_a_lifetime_finish_and_are_deleted(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "--nodes", "4", "--pods", "60", "--arrival-rate", "20", "--pod-lifetime-seconds", "1")
    assert code == 0, out
    table = counts(out)
    assert table["pods created / deleted"] == "60 / 60" and table["bound"] == "60"


def test_the_same_seed_gives_the_same_run(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--nodes", "3", "--pods", "20", "--bind-failure-rate", "0.3", "--conflict-rate", "0.1", "--churn", "2",
            "--seed", "11")
    first, second = run(capsys, *args), run(capsys, *args)
    keep = {k: v for k, v in counts(first[1]).items() if "wall" not in k and "throughput" not in k
            and "settling" not in k}
    again = {k: v for k, v in counts(second[1]).items() if k in keep}
    assert first[0] == second[0] == 0
    assert keep == again


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--nodes", "0"), "--nodes must be between 1 and"),
        (("--nodes", "many"), "--nodes must be a whole number, got 'many'"),
        (("--pods", "-3"), "--pods must be between 0 and"),
        (("--bind-failure-rate", "1"), "--bind-failure-rate must be at least 0 and below 1, got 1"),
        (("--bind-failure-rate", "-0.5"), "--bind-failure-rate must be at least 0 and below 1"),
        (("--bind-failure-rate", "nan"), "--bind-failure-rate must be a finite number"),
        (("--seed", "1.5"), "--seed must be a whole number"),
        (("--profile", "v9.99"), "unknown version profile 'v9.99'"),
        (("--latency-ms", "-1"), "--latency-ms must not be negative"),
        (("--check-every", "0"), "--check-every must be between 1 and"),
        (("--pod-lifetime-seconds", "-1"), "--pod-lifetime-seconds must not be negative"),
    ],
)
def test_bad_arguments_are_refused_with_a_message(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["simulate", *args])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_a_ttl_in_a_profile_without_expiry_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "--profile", "v1.36", "--ttl-seconds", "5", "--pods", "1")
    assert code == 2
    assert "profile v1.36 has no assumed-pod expiry, so --ttl-seconds must be 0" in out


def test_a_run_that_does_not_settle_in_time_fails(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "--nodes", "2", "--pods", "10", "--max-virtual-seconds", "0.001")
    assert code == 1
    assert "did not settle" in out


def test_the_checker_reports_a_violation_it_is_shown(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The summary is not vacuous: a cache that loses track of an assumed pod's binding is reported and the
    command exits 1. The fault is planted by assuming a pod that no binding cycle owns, after the first step."""
    planted = Pod(uid="stray", name="stray", namespace="sim", node_name="node-0")

    class Planting(InvariantChecker):
        def after(self, sim: Simulation, action: object) -> None:
            if sim.stats.steps == 1:
                sim.cache.assume_pod(planted)
            super().after(sim, action)  # type: ignore[arg-type]

    monkeypatch.setattr(simulate_command, "InvariantChecker", Planting)
    code, out = run(capsys, "--nodes", "1", "--pods", "1", "--check-every", "1")
    assert code == 1
    assert re.search(r"│ inv_assumed_pods_have_a_binding\s+│\s+[\d,]+ │\s+[1-9][\d,]* │ step 1 \(add_node", out), out
    assert "simulation failed" in out


def test_auto_check_spacing_checks_every_step_on_small_clusters() -> None:
    assert simulate_command.auto_check_every(SimulationConfig(nodes=5, pods=20)) == 1
    assert simulate_command.auto_check_every(SimulationConfig(nodes=5_000, pods=10_000)) > 1


def test_per_queue_counts_are_printed(capsys: pytest.CaptureFixture[str]) -> None:
    """The scheduling-queue table: each part's peak over the run and its count at the end (a settled run leaves
    nothing queued and nothing in flight)."""
    code, out = run(capsys, "--nodes", "2", "--pods", "25", "--bind-failure-rate", "0.3", "--seed", "5")
    assert code == 0, out
    pattern = r"│ (activeQ|backoffQ|unschedulablePods|in flight[^│]*?)\s+│\s+([\d,]+) │\s+([\d,]+) │"
    rows = {name: (peak, end) for name, peak, end in re.findall(pattern, out)}
    assert set(rows) == {"activeQ", "backoffQ", "unschedulablePods", "in flight (popped, Done not called)"}, out
    peaks = {name: int(peak) for name, (peak, _) in rows.items()}
    assert peaks["activeQ"] >= 1 and peaks["backoffQ"] >= 1  # 25 pods created; 30% of binds fail and back off
    assert re.search(r"│ activeQ\s+│\s+[\d,]+ │\s+0 │", out) and re.search(r"│ backoffQ\s+│\s+[\d,]+ │\s+0 │", out)


def test_queue_counter_keeps_the_peak_of_what_the_queue_reports() -> None:
    from conformance.simulation.queue_counts import PARTS, QueueCounter
    from refimpl.scheduler.queue import QueueName

    counter = QueueCounter()
    seen: list[dict[QueueName, int]] = []

    class Recorder:
        def before(self, sim: Simulation, action: object) -> None: ...

        def after(self, sim: Simulation, action: object) -> None:
            seen.append(dict(sim.queue.counts()))

    sim = Simulation(SimulationConfig(nodes=2, pods=10, seed=2), observers=(counter, Recorder()))
    sim.run()
    assert counter.samples == len(seen) > 0
    for name, _ in PARTS:
        assert counter.peak[name] == max(s[name] for s in seen) and counter.latest[name] == seen[-1][name]
