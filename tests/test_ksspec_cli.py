"""``ksspec verify``: a missing suite is NOT RUN (never PASS), and only real passes give exit code 0.

These tests live at the top of tests/ rather than in tests/conformance/: that directory's existence is
what turns the "conformance" check on.
"""

from pathlib import Path

import pytest

from conformance.cli import CHECKS, Check, CheckResult, Status, exit_code, main, run_check

CHECK = Check("sample", "tests/sample")


def write_suite(root: Path, body: str) -> None:
    suite = root / CHECK.test_dir
    suite.mkdir(parents=True)
    if body:
        (suite / "test_sample.py").write_text(body, encoding="utf-8")


def result(status: Status) -> CheckResult:
    return CheckResult(CHECK, status, None if status is Status.NOT_RUN else 0.1, "")


def test_missing_suite_is_not_run(tmp_path: Path) -> None:
    outcome = run_check(CHECK, tmp_path, "dev")
    assert outcome.status is Status.NOT_RUN
    assert outcome.duration is None
    assert "not yet implemented" in outcome.detail


def test_passing_suite_passes(tmp_path: Path) -> None:
    write_suite(tmp_path, "def test_ok():\n    assert True\n")
    outcome = run_check(CHECK, tmp_path, "dev")
    assert outcome.status is Status.PASS, outcome.output
    assert "1 passed" in outcome.detail


def test_failing_suite_fails(tmp_path: Path) -> None:
    write_suite(tmp_path, "def test_broken():\n    assert 1 == 2\n")
    outcome = run_check(CHECK, tmp_path, "dev")
    assert outcome.status is Status.FAIL
    assert "1 failed" in outcome.detail


def test_suite_without_tests_fails(tmp_path: Path) -> None:
    write_suite(tmp_path, "")
    outcome = run_check(CHECK, tmp_path, "dev")
    assert outcome.status is Status.FAIL
    assert "collected no tests" in outcome.detail


def test_hypothesis_profile_reaches_the_suite(tmp_path: Path) -> None:
    write_suite(tmp_path, "import os\n\ndef test_profile():\n    assert os.environ['HYPOTHESIS_PROFILE'] == 'ci'")
    assert run_check(CHECK, tmp_path, "ci").status is Status.PASS


@pytest.mark.parametrize(
    ("statuses", "expected"),
    [
        ((), 1),
        ((Status.NOT_RUN, Status.NOT_RUN), 1),
        ((Status.PASS, Status.NOT_RUN), 0),
        ((Status.PASS, Status.PASS), 0),
        ((Status.PASS, Status.FAIL, Status.NOT_RUN), 1),
    ],
)
def test_exit_code(statuses: tuple[Status, ...], expected: int) -> None:
    assert exit_code([result(status) for status in statuses]) == expected


def test_verify_with_no_suites_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--root", str(tmp_path)]) == 1
    output = capsys.readouterr().out
    for check in CHECKS:
        assert check.name in output
    assert "PASS" not in output
