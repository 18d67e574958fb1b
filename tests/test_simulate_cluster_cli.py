"""``ksspec simulate --schedulers N --crash-rate R``: the cluster simulation with kubelet admission. Runs pass with
both levels of invariants checked, the scheduler-level over-commit of two schedulers is counted as a known violation
while the kubelet level holds, a crash's restart is checked against the API server, runs are reproducible from the
seed, bad values are refused with a message, and planted faults (a kubelet admitting everything, a restart that
skips the bound pods) make the command fail."""

from __future__ import annotations

import re

import pytest

from conformance.cli.main import main
from refimpl.kubelet.admission import PodAdmitResult
from refimpl.simulator import kubelets as kubelets_module
from refimpl.simulator.cluster import ClusterConfig, ClusterSimulation
from refimpl.simulator.simulation import SimulationConfig
from refimpl.simulator.workload import make_node


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["simulate", "--no-progress", *args])
    out = capsys.readouterr()
    return code, out.out + out.err


def measures(output: str) -> dict[str, str]:
    """The two-column tables' values, by measure."""
    return {k.strip(): v for k, v in re.findall(r"│ ([a-zA-Z ][^│]*?)\s+│\s+([^│]*?) │\n", output)}


def invariant(output: str, name: str) -> tuple[str, int, int]:
    """The level, checks and violations of invariant ``name`` in the invariant table."""
    found = re.search(rf"│ ([a-z -]+?)\s+│ {re.escape(name)}\s+│\s+([\d,]+) │\s+([\d,]+) │", output)
    assert found is not None, output
    return found.group(1), int(found.group(2).replace(",", "")), int(found.group(3).replace(",", ""))


def test_two_schedulers_overcommit_at_the_api_server_and_the_kubelets_reject(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "--nodes", "4", "--pods", "16", "--schedulers", "2", "--identical-pods", "--seed", "1")
    assert code == 0, out
    level, checked, violations = invariant(out, "inv_admitted_pods_fit_nodes")
    assert level == "kubelet" and checked > 100 and violations == 0
    _, checked, violations = invariant(out, "inv_bindings_fit_nodes")
    assert checked > 100 and violations > 0
    assert "known violation: step" in out
    table = measures(out)
    assert table["pods created / deleted"] == "16 / 0"
    assert int(table["rejected by kubelets (Failed)"]) > 0
    assert int(table["rejected: OutOfcpu"]) > 0
    assert re.search(r"│ default-sch\S*\s+│(\s+[\d,]+ │){7}\s+0 \(\d+\) │", out), out
    assert "simulation passed" in out


def test_one_scheduler_never_overcommits_and_its_kubelets_reject_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "--nodes", "4", "--pods", "16", "--kubelets", "--identical-pods", "--seed", "1")
    assert code == 0, out
    _, checked, violations = invariant(out, "inv_bindings_fit_nodes")
    assert checked > 100 and violations == 0
    assert measures(out)["rejected by kubelets (Failed)"] == "0"
    assert "known violation" not in out.split("inv_bindings_fit_nodes")[1].split("\n")[0]


def test_crashes_restart_and_every_restart_rebuilds_the_api_servers_cache(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "--nodes", "4", "--pods", "24", "--crash-rate", "0.2", "--seed", "1")
    assert code == 0, out
    table = measures(out)
    crashes, restarts = (int(x) for x in table["crashes / restarts"].split(" / "))
    assert crashes == restarts > 0
    _, checked, violations = invariant(out, "restart: cache equals the API server's")
    assert checked == restarts and violations == 0
    _, checked, violations = invariant(out, "inv_bindings_fit_nodes")  # restarts wait longer than any request
    assert checked > 0 and violations == 0
    assert "known violation" not in out.split("inv_bindings_fit_nodes")[1].split("\n")[0]
    assert re.search(r"│ cluster\s+│ final state\s+│\s+1 │\s+0 │ no assumed pod left", out), out


def test_two_schedulers_keep_their_pipeline_invariants_when_the_kubelets_fail_pods(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Each scheduler's informer delivers a Failed pod's deletion in its own time. Before the world kept the pod
    until every informer had, the first delivery made it vanish from the other scheduler's view while that one still
    held it assumed, its binding not yet delivered: 64 violations each of the two invariants below, no fault
    injected."""
    code, out = run(capsys, "--nodes", "5", "--pods", "50", "--schedulers", "2", "--seed", "2", "--check-every", "1")
    assert int(measures(out)["rejected by kubelets (Failed)"]) > 0
    for name in ("inv_every_pod_has_one_place", "inv_assumed_pods_have_a_binding"):
        _, checked, violations = invariant(out, name)
        assert checked > 500 and violations == 0, out
    assert code == 0, out


def test_three_schedulers_with_crashes_and_faults_on_fifty_nodes(capsys: pytest.CaptureFixture[str]) -> None:
    """A bounded sample of the soak (issue 30: 3 schedulers, 50 nodes, 1,000 pods, crashes and bind faults, 10
    seeds; docs/cluster.md gives the command and the result): 300 pods, one seed, every 5th step checked."""
    seed = 0
    code, out = run(capsys, "--nodes", "50", "--pods", "300", "--schedulers", "3", "--crash-rate", "0.02",
                    "--bind-failure-rate", "0.05", "--conflict-rate", "0.05", "--seed", str(seed),
                    "--check-every", "5")
    table = measures(out)
    assert int(table["crashes / restarts"].split(" / ")[0]) > 0
    assert int(table["rejected by kubelets (Failed)"]) > 0
    assert code == 0, out
    assert "simulation passed" in out


def test_the_same_seed_gives_the_same_run(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--nodes", "4", "--pods", "30", "--schedulers", "3", "--crash-rate", "0.1", "--churn", "2", "--seed", "7")
    first, second = run(capsys, *args), run(capsys, *args)
    assert first[0] == second[0] == 0

    def stable(out: str) -> list[str]:
        return [line for line in out.splitlines() if "wall" not in line]

    assert stable(first[1]) == stable(second[1])
    created, deleted = (int(x) for x in measures(first[1])["pods created / deleted"].split(" / "))
    assert created == 30 and deleted > 0
    assert stable(first[1]) != stable(run(capsys, *args[:-1], "8")[1])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--schedulers", "0"), "--schedulers must be between 1 and 16, got 0"),
        (("--schedulers", "17"), "--schedulers must be between 1 and 16, got 17"),
        (("--schedulers", "two"), "--schedulers must be a whole number, got 'two'"),
        (("--crash-rate", "1"), "--crash-rate must be at least 0 and below 1, got 1"),
        (("--crash-rate", "-0.1"), "--crash-rate must be at least 0 and below 1"),
        (("--crash-rate", "often"), "--crash-rate must be a number, got 'often'"),
        (("--restart-delay-seconds", "-2"), "--restart-delay-seconds must not be negative"),
        (("--kubelet-delay-ms", "inf"), "--kubelet-delay-ms must be a finite number"),
        (("--terminated-pod-gc-threshold", "-1"), "--terminated-pod-gc-threshold must be between 0 and"),
    ],
)
def test_bad_values_are_refused_with_a_message(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["simulate", *args])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_pods_finish_free_their_nodes_and_the_pod_gc_keeps_the_threshold(capsys: pytest.CaptureFixture[str]) -> None:
    """Pod completion in the cluster (the cluster mode refused ``--pod-lifetime-seconds`` before): each admitted pod
    finishes 1 s after admission, Succeeded; 60 pods of which about 4 fit at once (identical pods, 4 nodes) all get a
    node in turn; the API server keeps 10 terminated pods and the pod GC deletes the others; every invariant is
    checked at every step, with crashes."""
    code, out = run(capsys, "--nodes", "4", "--pods", "60", "--identical-pods", "--schedulers", "3", "--arrival-rate",
                    "20", "--pod-lifetime-seconds", "1", "--crash-rate", "0.05", "--terminated-pod-gc-threshold", "10",
                    "--seed", "3", "--check-every", "1")
    assert code == 0, out
    assert "each pod finishing 1 s after admission" in out
    table = measures(out)
    admitted, rejected = int(table["admitted by kubelets"]), int(table["rejected by kubelets (Failed)"])
    assert table["pods created / deleted"] == "60 / 0"
    assert admitted + rejected == int(table["bindings accepted"]) == 60 and admitted > 4
    assert int(table["finished (Succeeded)"]) == admitted
    assert table["terminated pods kept / collected"] == "10 / 50"
    assert table["pods still unbound"] == "0"
    assert int(table["crashes / restarts"].split(" / ")[0]) > 0
    _, checked, violations = invariant(out, "inv_admitted_pods_fit_nodes")
    assert checked > 1000 and violations == 0


def test_a_kubelet_that_admits_everything_fails_the_run(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(kubelets_module, "can_admit_pod", lambda pod, node, admitted: PodAdmitResult(True))
    code, out = run(capsys, "--nodes", "4", "--pods", "16", "--schedulers", "2", "--identical-pods", "--seed", "1")
    assert code == 1
    level, _, violations = invariant(out, "inv_admitted_pods_fit_nodes")
    assert level == "kubelet" and violations > 0
    assert "simulation failed" in out


def test_a_restart_that_skips_the_bound_pods_fails_the_run(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    real = ClusterSimulation.listed_pods
    monkeypatch.setattr(ClusterSimulation, "listed_pods",
                        lambda self: [p for p in real(self) if not p.node_name])
    code, out = run(capsys, "--nodes", "4", "--pods", "24", "--crash-rate", "0.2", "--seed", "1")
    assert code == 1
    _, checked, violations = invariant(out, "restart: cache equals the API server's")
    assert checked > 0 and violations > 0


def test_a_crash_leaves_in_flight_binds_to_land_and_the_restart_lists_every_pod() -> None:
    """Refimpl level: the crashed process's in-flight bind still reaches the API server; the new process's cache
    holds every bound pod and its queue every unbound pod of its own."""
    config = ClusterConfig(SimulationConfig(nodes=2, pods=6, seed=3, min_latency=10**6, max_latency=10**6),
                           schedulers=1)
    sim = ClusterSimulation(config)
    for index in range(2):
        sim.world.add_node(make_node(index, sim._workload_rng))
    first = sim.processes[0]
    assert first is not None
    for _ in range(3):
        sim.world.create_pod(sim.new_pod())
    while first.informer.deliver_next() is not None:
        pass
    first.schedule_one()
    first.step_binding_cycles()
    first.pop_calls()
    assert first.calls.in_flight
    sim.crash(0)
    assert sim.processes[0] is None and sim.orphans == [first]
    assert sim.records[0].in_flight_at_crash and sim.records[0].in_flight_count == 1
    sim.complete_orphan(first)
    assert sim.stats.orphaned_binds_landed == 1 and not sim.orphans
    restarted = sim.restart(0)
    bound = [p.uid for p in sim.world.bound_pods()]
    assert len(bound) == 1
    cached = restarted.cache.internals().pod_states
    assert sorted(cached) == bound
    assert sorted(p.uid for p in restarted.queue.pods_in_active_q()) == [p.uid for p in sim.world.unbound_pods()]
