"""``ksspec prove`` and ``ksspec check``: tables, exit codes, counterexamples; and their rows in ``ksspec verify``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from conformance.cli import prove as proof_commands
from conformance.cli.main import main
from conformance.cli.verify import CHECKS, THOROUGH_CHECKS, Status, pytest_command, run_check
from spec.verify.cache.obligations import cache_obligations
from spec.verify.cache.symbolic import AbstractState, Bounds
from spec.verify.cache.transitions import TRANSITIONS, Args, Step
from spec.verify.dispatcher.obligations import dispatcher_obligations
from spec.verify.dispatcher.symbolic import DispatcherBounds, QueueState
from spec.verify.dispatcher.transitions import QUEUE_TRANSITIONS, QueueArgs, QueueStep


@pytest.fixture(autouse=True)
def wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rich wraps table cells to the console width; a wide console keeps names on one line."""
    monkeypatch.setenv("COLUMNS", "250")


def test_prove_discharges_every_obligation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "--pods", "1", "--nodes", "1", "--uids", "2", "--call-types", "2", "--no-crosshair"]) == 0
    out = capsys.readouterr().out
    assert "168/168 obligations proved" in out  # cache 78 + dispatcher 20 + cycle 42 + cluster 28
    assert "step/SchedulePod/inv_no_node_overcommitted" in out and "TTL 0; allocatable never shrinks" in out
    assert "step/AddPod/inv_pod_on_at_most_one_node" in out and "proved" in out
    assert "relevance/AddCall/trans_add_keeps_the_more_relevant_call" in out
    assert "step/FinishCall/inv_one_call_per_uid" in out and "total/PopCall" in out
    assert "not yet" not in out
    assert "P=1 pods, N=1 node names" in out and "U=2 UIDs, T=2 call types" in out
    assert "cycle bounds: P=4 pods, N=3 node names" in out


def test_prove_only_selects_obligations(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "--pods", "2", "--nodes", "1", "--only", "expiry/", "--no-crosshair"]) == 0
    assert "1/1 obligations proved" in capsys.readouterr().out


def test_prove_prints_a_counterexample_and_fails(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = TRANSITIONS["AssumePod"].apply

    def assume_without_charging(s: AbstractState, a: Args) -> Step:
        step = real(s, a)
        return replace(step, post=replace(step.post, requested=s.requested))

    broken = {**TRANSITIONS, "AssumePod": replace(TRANSITIONS["AssumePod"], apply=assume_without_charging)}
    monkeypatch.setattr(proof_commands, "all_obligations", lambda bounds, _: cache_obligations(bounds, broken))
    argv = ["prove", "--pods", "1", "--nodes", "1", "--only", "AssumePod/inv_requested", "--no-crosshair"]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "refuted" in out and "0/1 obligations proved" in out
    assert "pre-state:" in out and "operation: AssumePod(" in out and "post-state:" in out


def test_check_exhausts_a_small_universe(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--nodes", "1", "--pods", "1"]) == 0
    out = capsys.readouterr().out
    for figure in ("distinct states", "transitions", "max depth", "states/s", "exhausted", "yes"):
        assert figure in out
    assert "transitions covered" in out and "AssumePod" in out
    assert "no violation in every reachable state" in out


def test_check_adversarial_mode_reports_pruned_states(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--mode", "adversarial", "--nodes", "1", "--pods", "1", "--ttl", "0"]) == 0
    out = capsys.readouterr().out
    assert "pruned" in out and "fatal" in out


def test_check_with_a_depth_limit(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--nodes", "2", "--pods", "3", "--depth", "2"]) == 0
    assert "no violation in every state within depth 2" in capsys.readouterr().out


def test_check_stopped_by_its_time_limit_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--nodes", "2", "--pods", "3", "--time-limit", "0.1"]) == 1
    assert "not complete" in capsys.readouterr().out


def test_check_dispatcher_and_cycle(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--system", "dispatcher", "--uids", "1", "--adds", "2"]) == 0
    out = capsys.readouterr().out
    assert "ksspec check: dispatcher" in out and "AddCall binding" in out and "no violation in every reachable" in out
    assert main(["check", "--system", "cycle", "--pods", "1", "--ttl", "0"]) == 0
    out = capsys.readouterr().out
    assert "ksspec check: cycle" in out and "schedule_pod" in out and "no violation in every reachable" in out


def test_check_known_violations_of_the_dispatcher_and_the_cycle(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--system", "dispatcher", "--uids", "1", "--adds", "1", "--known-violations"]) == 1
    out = capsys.readouterr().out
    assert "VIOLATION" in out and "liveness_every_caller_told after 2 step(s)" in out
    assert main(["check", "--system", "cycle", "--ttl", "1", "--known-violations", "--keep-going"]) == 1
    out = capsys.readouterr().out
    assert "inv_no_node_overcommitted after 9 step(s)" in out and "confirm_binding" in out
    assert "inv_bindings_fit_nodes after 9 step(s)" in out


def test_check_the_cluster_of_two_schedulers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--system", "cluster"]) == 0
    assert "no violation in every reachable state" in capsys.readouterr().out
    assert main(["check", "--system", "cluster", "--known-violations", "--keep-going"]) == 1
    out = capsys.readouterr().out
    assert "inv_bindings_fit_nodes after 6 step(s)" in out and "scheduler-1: bind_pod(p1)" in out
    assert main(["check", "--system", "cluster", "--schedulers", "9"]) == 2
    assert "1 to 3 schedulers" in capsys.readouterr().out


def test_check_the_scheduling_queue(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--system", "queue", "--pods", "1", "--pops", "2"]) == 0
    out = capsys.readouterr().out
    assert "ksspec check: queue" in out and "permit_reject" in out and "no violation in every reachable" in out
    assert main(["check", "--system", "queue", "--mutant", "strict-move-request-cycle"]) == 1
    out = capsys.readouterr().out
    assert "inv_no_lost_wake_up after 4 step(s)" in out
    assert "fail(p0, NodeResourcesFit) -> p0 in unschedulablePods" in out
    assert main(["check", "--system", "queue", "--queueing-hints", "off", "--known-violations"]) == 1
    assert "inv_attempting_pod_not_queued after 3 step(s)" in capsys.readouterr().out
    assert main(["check", "--system", "queue", "--queueing-hints", "off", "--cycle-rule", "attempt"]) == 0
    capsys.readouterr()


def test_check_refuses_a_bad_queue_universe(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--system", "queue", "--failures", "9"]) == 2
    assert "failures must be between 1 and 4" in capsys.readouterr().out
    assert main(["check", "--system", "queue", "--tick", "0.5"]) == 2
    assert "whole seconds" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["check", "--system", "queue", "--queueing-hints", "maybe"])
    assert "expected on or off, got 'maybe'" in capsys.readouterr().err


def test_check_rejects_a_bad_universe(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["check", "--system", "dispatcher", "--call-variants", "9"])
    assert exited.value.code == 2
    assert capsys.readouterr().err == (
        "error: --call-variants must be between 1 and 4, got 9 (see ksspec check --help)\n")
    assert main(["check", "--system", "cycle", "--profile", "v1.37", "--ttl", "1"]) == 2
    assert "has no expiry" in capsys.readouterr().out


def test_verify_runs_prove_and_check_as_commands() -> None:
    commands = [check.command for check in CHECKS if check.command]
    assert ("prove", "--no-crosshair") in commands and ("check",) in commands
    assert ("check", "--system", "dispatcher") in commands and ("check", "--system", "cycle") in commands
    assert any(command[:3] == ("check", "--mode", "adversarial") for command in commands)
    assert ("prove",) in [check.command for check in THOROUGH_CHECKS]  # CrossHair too
    prove = next(check for check in CHECKS if check.command[:1] == ("prove",))
    assert pytest_command(prove)[-3:] == ["conformance.cli.main", "prove", "--no-crosshair"]


def test_command_check_is_not_run_without_spec_verify(tmp_path: Path) -> None:
    prove = next(check for check in CHECKS if check.command[:1] == ("prove",))
    assert run_check(prove, tmp_path, "ci").status is Status.NOT_RUN


def test_default_bounds_are_reported() -> None:
    assert Bounds().describe().startswith("P=4 pods, N=3 node names")
    assert DispatcherBounds().describe().startswith("U=4 UIDs, T=3 call types")


def test_prove_prints_a_dispatcher_counterexample_and_fails(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = QUEUE_TRANSITIONS["PopCall"].apply

    def pop_leaving_the_fifo(s: QueueState, a: QueueArgs) -> QueueStep:
        step = real(s, a)
        return replace(step, post=replace(step.post, queued=s.queued))

    broken = {**QUEUE_TRANSITIONS, "PopCall": replace(QUEUE_TRANSITIONS["PopCall"], apply=pop_leaving_the_fifo)}
    monkeypatch.setattr(proof_commands, "all_obligations", lambda _, bounds: dispatcher_obligations(bounds, broken))
    assert main(["prove", "--uids", "2", "--call-types", "2", "--only", "PopCall/inv_one", "--no-crosshair"]) == 1
    out = capsys.readouterr().out
    assert "refuted" in out and "0/1 obligations proved" in out
    assert "pre-state:" in out and "operation: PopCall(uid=" in out and "in flight call" in out
