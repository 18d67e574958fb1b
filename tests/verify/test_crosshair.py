"""The CrossHair runner finds functions with contracts, keeps to its budget and reports CrossHair's verdicts."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli import crosshair as crosshair_runner
from conformance.cli.crosshair import (
    MIN_PER_CONDITION_TIMEOUT,
    CrosshairVerdict,
    Target,
    check_target,
    contract_targets,
    count_conditions,
    find_targets,
    has_contracts,
    modules_with_contracts,
    plan,
    verdict_of,
)
from conformance.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = Path(__file__).resolve().parent / "crosshair_examples"


@pytest.fixture(autouse=True)
def wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")


def test_modules_with_contracts_are_found() -> None:
    assert has_contracts(EXAMPLES / "broken_arithmetic.py")
    # "post:" there is a field, not a contract
    assert not has_contracts(ROOT / "spec" / "verify" / "cache" / "transitions.py")
    found = modules_with_contracts(ROOT, ("tests/verify/crosshair_examples",))
    assert [p.name for p in found] == ["broken_arithmetic.py", "correct_arithmetic.py"]


def test_every_function_with_contracts_is_a_target_with_its_conditions() -> None:
    (target,) = contract_targets(EXAMPLES / "correct_arithmetic.py")
    assert (target.qualname, target.conditions) == ("max_into", 3)
    source = (EXAMPLES / "correct_arithmetic.py").read_text().splitlines()
    assert source[target.line - 1].startswith("def max_into(")
    refimpl = {(t.path.relative_to(ROOT).as_posix(), t.qualname) for t in find_targets(ROOT)}
    assert ("refimpl/cache/resources.py", "Resource.add") in refimpl  # methods are found, by Class.method
    assert ("refimpl/cache/contracts.py", "node_tree_order") in refimpl


def test_conditions_are_counted_as_crosshair_parses_them() -> None:
    docstring = "Adds.\n\npre: x > 0\npost[total]: a\npost: b\npost:\n    c\n    d\nreturns the sum\n"
    assert count_conditions(docstring) == 4
    assert count_conditions(docstring, "pre") == 1


def _targets(conditions: int, functions: int) -> list[Target]:
    return [Target(Path("m.py"), f"f{i}", 1, conditions) for i in range(functions)]


def test_the_budget_lowers_the_per_condition_timeout_to_fit() -> None:
    assert plan(_targets(2, 5), 5.0, budget=150.0, jobs=2).per_condition_timeout == 5.0  # 50 s of 150
    lowered = plan(_targets(4, 30), 5.0, budget=150.0, jobs=2)  # 120 conditions: 300 s at 5 s
    assert lowered.per_condition_timeout == 2.5 and lowered.predicted_seconds == 150.0
    assert "lowered from 5s to fit the budget" in lowered.describe()
    floor = plan(_targets(10, 100), 5.0, budget=10.0, jobs=1)
    assert floor.per_condition_timeout == MIN_PER_CONDITION_TIMEOUT


def test_the_budget_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match="positive per-condition timeout, budget and job count"):
        plan(_targets(1, 1), 5.0, budget=0.0)


def test_verdicts_are_read_from_crosshair_report() -> None:
    confirmed = "m.py:3: info: Confirmed over all paths.\nm.py:4: info: Confirmed over all paths.\n"
    assert verdict_of(0, confirmed) == (CrosshairVerdict.CONFIRMED, ())
    mixed = "m.py:3: info: Confirmed over all paths.\nm.py:4: info: Not confirmed.\n"
    assert verdict_of(0, mixed)[0] is CrosshairVerdict.NO_COUNTEREXAMPLE
    unmet = "m.py:3: info: Unable to meet precondition.\n"
    assert verdict_of(0, unmet)[0] is CrosshairVerdict.UNMET_PRECONDITION
    found = "m.py:3: info: Not confirmed.\nm.py:4: error: false when calling f(1)\n"
    assert verdict_of(1, found) == (CrosshairVerdict.COUNTEREXAMPLE, ("m.py:4: error: false when calling f(1)",))
    assert verdict_of(2, "Traceback (most recent call last):\n")[0] is CrosshairVerdict.ERROR
    assert verdict_of(0, "")[0] is CrosshairVerdict.ERROR


def test_crosshair_finds_the_broken_function() -> None:
    (target,) = contract_targets(EXAMPLES / "broken_arithmetic.py")
    result = check_target(target, ROOT, per_condition_timeout=3)
    assert result.verdict is CrosshairVerdict.COUNTEREXAMPLE, result.output
    assert any("broken_arithmetic.py:" in finding and "max_into(" in finding for finding in result.findings)
    assert result.cpu_seconds is not None and result.cpu_seconds > 0


def test_crosshair_finds_nothing_in_the_correct_function() -> None:
    (target,) = contract_targets(EXAMPLES / "correct_arithmetic.py")
    result = check_target(target, ROOT, per_condition_timeout=1)
    assert result.verdict.ok, result.output


def test_prove_fails_on_a_crosshair_counterexample(capsys: pytest.CaptureFixture[str]) -> None:
    broken = "tests/verify/crosshair_examples/broken_arithmetic.py"
    argv = ["prove", "--pods", "1", "--nodes", "1", "--only", "expiry/", "--root", str(ROOT)]
    assert main([*argv, "--crosshair-root", broken, "--crosshair-timeout", "3"]) == 1
    out = capsys.readouterr().out
    assert "1/1 obligations proved" in out
    assert "counterexample" in out and "broken_arithmetic.py" in out and "max_into" in out
    assert "0/1 functions without counterexample" in out
    assert "3s CPU per condition, 2 conditions, 2 at a time, budget 100s" in out


def test_prove_without_contracts_reports_none(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "refimpl").mkdir()
    assert main(["prove", "--pods", "1", "--nodes", "1", "--only", "expiry/", "--root", str(tmp_path)]) == 0
    assert "states pre:/post: contracts yet" in capsys.readouterr().out


def test_prove_refuses_a_zero_budget(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["prove", "--crosshair-budget", "0"])
    assert capsys.readouterr().err == (
        "error: --crosshair-budget must be greater than 0, got 0 (see ksspec prove --help)\n")


def test_prove_without_crosshair_installed_fails_and_says_so(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """CrossHair is a development dependency (and the crosshair extra): a plain install proves with Z3 alone."""
    monkeypatch.setattr(crosshair_runner, "crosshair_installed", lambda: False)
    assert main(["prove", "--pods", "1", "--nodes", "1", "--only", "expiry/"]) == 1
    out = capsys.readouterr().out
    assert "CrossHair is not installed" in out and "--no-crosshair" in out
    assert out.strip().splitlines()[-1] == "1/1 Z3 obligations proved; CrossHair not installed"
    assert main(["prove", "--pods", "1", "--nodes", "1", "--only", "expiry/", "--no-crosshair"]) == 0


def test_prove_no_z3_runs_crosshair_alone(capsys: pytest.CaptureFixture[str]) -> None:
    """CI's prove stage (`.ci/run`): make verify discharged the Z3 obligations, so only CrossHair runs; its verdict
    still decides the exit code."""
    broken = "tests/verify/crosshair_examples/broken_arithmetic.py"
    argv = ["prove", "--no-z3", "--root", str(ROOT), "--crosshair-root", broken, "--crosshair-timeout", "3"]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "obligations proved in" not in out and "cache bounds" not in out  # no Z3 table
    assert "max_into" in out and out.strip().splitlines()[-1].startswith("Z3 obligations not run (--no-z3); ")
    correct = "tests/verify/crosshair_examples"
    assert main(["prove", "--no-z3", "--root", str(ROOT), "--crosshair-root", f"{correct}/correct_arithmetic.py",
                 "--crosshair-timeout", "3"]) == 0


@pytest.mark.parametrize(("extra", "message"), [
    (["--no-crosshair"], "--no-z3 with --no-crosshair leaves nothing to run"),
    (["--only", "expiry/"], "--only selects Z3 obligations, which --no-z3 skips"),
])
def test_prove_no_z3_refuses_what_leaves_nothing(extra: list[str], message: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "--no-z3", *extra]) == 2
    captured = capsys.readouterr()
    assert message in captured.out + captured.err
