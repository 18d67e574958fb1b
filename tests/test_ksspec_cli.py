"""``ksspec verify``: a missing suite is NOT RUN (never PASS), and only real passes give exit code 0.

These tests live at the top of tests/ rather than in tests/conformance/: that directory's existence is
what turns the "conformance" check on.
"""

import importlib.metadata
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from conformance.cli import main as cli
from conformance.cli import verify as verify_command
from conformance.cli.main import main
from conformance.cli.verify import (
    CHECKS,
    FAST,
    HYPOTHESIS_PROFILES,
    THOROUGH,
    Check,
    CheckResult,
    Status,
    exit_code,
    is_checkout,
    packages_root,
    run_check,
    run_checks,
)
from conformance.format import FORMAT_VERSION, VectorFormatError, load_manifest

CHECK = Check("sample", "tests/sample")


def write_suite(root: Path, body: str) -> None:
    suite = root / CHECK.test_dir
    suite.mkdir(parents=True)
    if body:
        (suite / "test_sample.py").write_text(body, encoding="utf-8")


def result(status: Status) -> CheckResult:
    return CheckResult(CHECK, status, None if status is Status.NOT_RUN else 0.1, "")


def test_missing_suite_is_not_run(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "tests").mkdir()  # a checkout, without the suite yet
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


# ============================================================================================
# Profiles: the fast default and --thorough
# ============================================================================================


def test_the_profiles_differ_only_in_the_proofs_row() -> None:
    assert FAST.checks == CHECKS
    assert len(FAST.checks) == len(THOROUGH.checks)
    different = [(f.command, t.command) for f, t in zip(FAST.checks, THOROUGH.checks, strict=True) if f != t]
    assert different == [(("prove", "--no-crosshair"), ("prove",))]  # CrossHair only in the thorough profile
    assert (FAST.hypothesis_profile, THOROUGH.hypothesis_profile) == ("fast", "ci")
    assert {FAST.hypothesis_profile, THOROUGH.hypothesis_profile} <= set(HYPOTHESIS_PROFILES)


def test_every_named_hypothesis_profile_is_registered() -> None:
    for name in HYPOTHESIS_PROFILES:
        settings.get_profile(name)  # raises InvalidArgument for a name tests/conftest.py does not register
    fast, ci = settings.get_profile("fast"), settings.get_profile("ci")
    assert fast.derandomize and fast.max_examples < ci.max_examples


def test_the_fast_profile_still_finds_a_refinement_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    """The refinement machines under the fast profile's example budget catch a refimpl whose assumed pods expire
    a nanosecond early (the shrink phase is left out here only to keep the test short)."""
    from hypothesis import Phase
    from hypothesis.stateful import run_state_machine_as_test

    from refimpl.cache import cache as refimpl_cache
    from spec.quantities import SECOND
    from spec.versions import PROFILES
    from tests.refimpl import test_refinement
    from tests.support.machines import machine_settings

    real = refimpl_cache.Cache.finish_binding

    def expiring_early(self: refimpl_cache.Cache, pod: Any, now: int | None = None) -> None:
        real(self, pod, now)
        state = self._pod_states.get(refimpl_cache.get_pod_key(pod))
        if state is not None and state.deadline is not None:
            state.deadline -= 1

    monkeypatch.setenv("HYPOTHESIS_PROFILE", "fast")
    fast = machine_settings(test_refinement.STATEFUL_EXAMPLES, test_refinement.STEPS_PER_EXAMPLE)
    assert fast.max_examples == 50 and fast.derandomize
    machine = type("Machine", (test_refinement.ContractRefinementMachine,), {"profile": PROFILES["v1.35"],
                                                                            "ttl": 1 * SECOND})
    no_shrink = settings(fast, phases=[Phase.explicit, Phase.reuse, Phase.generate], database=None)
    run_state_machine_as_test(machine, settings=no_shrink)  # the real refimpl passes
    monkeypatch.setattr(refimpl_cache.Cache, "finish_binding", expiring_early)
    with pytest.raises(AssertionError):
        run_state_machine_as_test(machine, settings=no_shrink)


# ============================================================================================
# Running the checks: concurrently, heaviest first, every failure reported
# ============================================================================================

WAIT_FOR_THE_OTHER = """\
import pathlib, time

def test_meets_the_other():
    here = pathlib.Path(__file__).parent
    (here.parent / "{me}.started").touch()
    deadline = time.monotonic() + 60
    while not (here.parent / "{other}.started").exists():
        assert time.monotonic() < deadline, "the other check never started: checks did not run concurrently"
        time.sleep(0.05)
"""


def suite(root: Path, name: str, body: str) -> Check:
    directory = root / "tests" / name
    directory.mkdir(parents=True)
    (directory / f"test_{name}.py").write_text(body, encoding="utf-8")
    return Check(name, f"tests/{name}")


def test_checks_run_concurrently_and_report_in_table_order(tmp_path: Path) -> None:
    a = suite(tmp_path, "a", WAIT_FOR_THE_OTHER.format(me="a", other="b"))
    b = suite(tmp_path, "b", WAIT_FOR_THE_OTHER.format(me="b", other="a"))
    results = run_checks([a, b], tmp_path, "dev", jobs=2)
    assert [r.check for r in results] == [a, b]
    assert [r.status for r in results] == [Status.PASS, Status.PASS], results[0].output + results[1].output


def test_the_lightest_check_starts_first_then_the_heaviest(tmp_path: Path) -> None:
    weights = {"light": 1, "heavy": 9, "middle": 5, "small": 2}
    checks = [replace(suite(tmp_path, name, "def test_ok():\n    pass\n"), weight=w) for name, w in weights.items()]
    started: list[str] = []
    results = run_checks(checks, tmp_path, "dev", jobs=1, on_start=lambda c: started.append(c.name))
    assert started == ["light", "heavy", "middle", "small"]  # a first result at once; then longest first
    assert [r.check.name for r in results] == list(weights)


def test_verify_reports_each_failing_check_among_passing_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    checks = (
        suite(tmp_path, "first", "def test_ok():\n    pass\n"),
        suite(tmp_path, "broken", "def test_broken():\n    assert 1 == 2\n"),
        Check("a ksspec command that fails", "tests", ("check", "--system", "cycle", "--ttl", "1",
                                                        "--known-violations")),
        suite(tmp_path, "last", "def test_ok():\n    pass\n"),
    )
    monkeypatch.setattr(verify_command, "FAST", replace(FAST, checks=checks))
    assert main(["verify", "--root", str(tmp_path), "--jobs", "2"]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("ksspec verify, fast profile: 4 checks, 2 at a time")
    assert "leaves to `make test` and `ksspec verify --thorough`" in out
    rows = {name: line for line in out.splitlines() for name in ("first", "broken", "fails", "last")
            if line.startswith("│ " + name) or line.startswith("│ a ksspec command that " + name)}
    assert "PASS" in rows["first"] and "PASS" in rows["last"]
    assert "FAIL" in rows["broken"] and "1 failed" in rows["broken"]
    assert "FAIL" in rows["fails"] and "exit code 1" in rows["fails"]
    assert "re-run with: HYPOTHESIS_PROFILE=fast python -m pytest -q -n 2 tests/broken" in out
    assert "verify failed" in out


def test_thorough_runs_the_thorough_checks(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[tuple[tuple[Check, ...], str, int]] = []

    def fake(checks: Any, root: Path, profile: str, jobs: int, *_: Any) -> list[CheckResult]:
        seen.append((tuple(checks), profile, jobs))
        return [CheckResult(c, Status.PASS, 0.1, "ok") for c in checks]

    monkeypatch.setattr(verify_command, "run_checks", fake)
    assert main(["verify", "--thorough", "--root", str(tmp_path)]) == 0
    assert main(["verify", "--root", str(tmp_path), "--hypothesis-profile", "thorough", "--jobs", "3"]) == 0
    assert main(["verify", "--thorough", "--root", str(tmp_path), "--jobs", "2"]) == 0
    assert seen == [(THOROUGH.checks, "ci", 1), (FAST.checks, "thorough", 3), (THOROUGH.checks, "ci", 2)]
    assert "thorough profile" in capsys.readouterr().out


def test_an_unknown_hypothesis_profile_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--hypothesis-profile", "quick"]) == 2
    out = capsys.readouterr().out
    assert out.strip().splitlines() == [
        "error: --hypothesis-profile: unknown Hypothesis profile 'quick'; known: fast, ci, dev, thorough"
    ]


# ============================================================================================
# Outside a checkout
# ============================================================================================


def test_outside_a_checkout_the_test_suite_rows_need_one(tmp_path: Path) -> None:
    """An installed ksspec's root is site-packages: the packages are there, the tests are not."""
    (tmp_path / "spec" / "verify").mkdir(parents=True)
    refinement = CHECKS[0]
    assert refinement.test_dir == "tests/refimpl"
    outcome = run_check(refinement, tmp_path, "fast")
    assert outcome.status is Status.NOT_RUN
    assert outcome.detail.startswith("needs a checkout: tests/refimpl/ is not installed with the package")
    assert not is_checkout(tmp_path) and is_checkout(packages_root())


def test_verify_outside_a_checkout_says_so_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(verify_command, "run_checks",
                        lambda checks, *_: [run_check(c, tmp_path, "fast") for c in checks])
    assert main(["verify", "--root", str(tmp_path)]) == 1  # nothing ran at all
    out = capsys.readouterr().out
    assert f"not a checkout: {tmp_path} has no tests/" in out
    assert out.index("not a checkout") < out.index("NOT RUN")


# ============================================================================================
# ksspec --version
# ============================================================================================


def test_version_prints_the_package_and_the_vectors_format_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    (line,) = capsys.readouterr().out.splitlines()
    manifest = load_manifest()
    assert line.startswith(f"ksspec {importlib.metadata.version('kube-scheduler-spec')}; ")
    assert f"vectors format_version {manifest['format_version']} ({len(manifest['vectors'])} vectors" in line
    assert manifest["format_version"] == FORMAT_VERSION


def test_version_with_unreadable_vectors_says_so_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken() -> Any:
        raise VectorFormatError("the manifest /x/manifest.json is missing")

    monkeypatch.setattr(cli, "load_manifest", broken)
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 2
    (line,) = capsys.readouterr().out.splitlines()
    assert "error: the manifest /x/manifest.json is missing" in line
