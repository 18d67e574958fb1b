"""The CrossHair runner finds modules with contracts and reports CrossHair's counterexamples."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli import main
from conformance.crosshair_runner import CrosshairVerdict, has_contracts, modules_with_contracts, run_crosshair

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = Path(__file__).resolve().parent / "crosshair_examples"


@pytest.fixture(autouse=True)
def wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")


def test_modules_with_contracts_are_found() -> None:
    assert has_contracts(EXAMPLES / "broken_arithmetic.py")
    assert not has_contracts(ROOT / "spec" / "verify" / "transitions.py")  # "post:" there is a field, not a contract
    found = modules_with_contracts(ROOT, ("tests/verify/crosshair_examples",))
    assert [p.name for p in found] == ["broken_arithmetic.py", "correct_arithmetic.py"]


def test_crosshair_finds_the_broken_function() -> None:
    result = run_crosshair(EXAMPLES / "broken_arithmetic.py", ROOT, per_condition_timeout=3)
    assert result.verdict is CrosshairVerdict.COUNTEREXAMPLE, result.output
    assert any("broken_arithmetic.py:" in finding and "max_into(" in finding for finding in result.findings)


def test_crosshair_finds_nothing_in_the_correct_function() -> None:
    result = run_crosshair(EXAMPLES / "correct_arithmetic.py", ROOT, per_condition_timeout=1)
    assert result.verdict is CrosshairVerdict.NO_COUNTEREXAMPLE, result.output


def test_prove_fails_on_a_crosshair_counterexample(capsys: pytest.CaptureFixture[str]) -> None:
    broken = "tests/verify/crosshair_examples/broken_arithmetic.py"
    argv = ["prove", "--pods", "1", "--nodes", "1", "--only", "expiry/", "--root", str(ROOT)]
    assert main([*argv, "--crosshair-root", broken, "--crosshair-timeout", "3"]) == 1
    out = capsys.readouterr().out
    assert "1/1 obligations proved" in out
    assert "counterexample" in out and "broken_arithmetic.py" in out


def test_prove_without_contracts_reports_none(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "refimpl").mkdir()
    assert main(["prove", "--pods", "1", "--nodes", "1", "--only", "expiry/", "--root", str(tmp_path)]) == 0
    assert "states pre:/post: contracts yet" in capsys.readouterr().out
