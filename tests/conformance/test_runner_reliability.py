"""The runner's reliability pieces, in-process and fast: interruptions, reports that survive a bad path and
hostile text, the line-length limit, and the handshake policy (tests/conformance/adversarial runs the whole command
against misbehaving adapters)."""

from __future__ import annotations

import json
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conformance import sessions
from conformance.adapters.refimpl_adapter import RefimplAdapter
from conformance.format import Vector
from conformance.report import junit_xml, printable, write_reports, xml_text
from conformance.runner import (
    EXIT_INTERRUPTED,
    Outcome,
    RunInterrupted,
    Target,
    VectorResult,
    Worker,
    exit_code,
    run_vectors,
    select,
)
from conformance.sessions import AdapterFailure, InProcessSession, SubprocessSession
from tests.conformance.cli import ksspec

ADVERSARY = f"{sys.executable} -m tests.conformance.adversarial.adversary"
HOSTILE = "\x00\x1b[2J\ud800 \x07 \ufffe ok \U0001f600"


@pytest.fixture(scope="module")
def few(vectors: list[Vector]) -> list[Vector]:
    return select(vectors, ["cache.forget", "cache.expiry.strictly", "cache.pvc"])


def interrupt_after(count: int) -> object:
    seen: list[VectorResult] = []

    def on_result(result: VectorResult) -> None:
        seen.append(result)
        if len(seen) == count:
            raise KeyboardInterrupt

    return on_result


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("adapter", [None, f"{ADVERSARY} serve"])
def test_an_interrupted_run_keeps_its_results_and_marks_the_rest(few: list[Vector], workers: int,
                                                                 adapter: str | None) -> None:
    target = Target(impl=None if adapter else "refimpl", adapter=adapter, timeout=5)
    with pytest.raises(RunInterrupted) as stopped:
        run_vectors(target, few, workers, interrupt_after(2))  # type: ignore[arg-type]
    results = stopped.value.results
    assert isinstance(stopped.value, KeyboardInterrupt)
    assert [r.id for r in results] == [v.id for v in few]
    outcomes = [r.outcome for r in results]
    assert outcomes.count(Outcome.PASS) >= 2 and Outcome.NOT_RUN in outcomes
    assert set(outcomes) <= {Outcome.PASS, Outcome.NOT_RUN}
    assert exit_code(results) == EXIT_INTERRUPTED


def test_junit_text_is_valid_xml_1_0_and_the_console_text_printable() -> None:
    results = [VectorResult("v.1", "cache", Outcome.ERROR, f"boom {HOSTILE}", diff=[HOSTILE]),
               VectorResult("v.2", "cache", Outcome.FAIL, HOSTILE), VectorResult("v.3", "cache", Outcome.NOT_RUN)]
    root = ET.fromstring(junit_xml(results, interrupted="SIGINT").encode("utf-8"))
    error = root.find("./testsuite/testcase/error")
    assert error is not None and error.get("message") == r"boom \x00\x1b[2J\ud800 \x07 \ufffe ok " + "\U0001f600"
    assert root.find("./testsuite/properties/property[@name='interrupted']") is not None
    assert root.find("./testsuite").get("skipped") == "1"  # type: ignore[union-attr]
    assert xml_text("tab\tnew\nline\r") == "tab\tnew\nline\r"
    assert printable(HOSTILE) == r"\x00\x1b[2J\ud800 \x07 " + "\ufffe ok \U0001f600"


def test_an_unwritable_report_does_not_cost_the_other(tmp_path: Path) -> None:
    results = [VectorResult("v.1", "cache", Outcome.PASS)]
    blocked = tmp_path / "gone" / "junit.xml"
    report = tmp_path / "report.json"
    problems = write_reports(results, "impl", 1.0, blocked, report)
    assert len(problems) == 1 and problems[0].startswith(f"--junit {blocked}: cannot write the report")
    assert json.loads(report.read_text())["summary"]["pass"] == 1
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left


def test_a_line_beyond_the_limit_is_garbage(monkeypatch: pytest.MonkeyPatch, few: list[Vector]) -> None:
    monkeypatch.setattr(sessions, "MAX_LINE_BYTES", 2**20)
    results = run_vectors(Target(impl=None, adapter=f"{ADVERSARY} huge-line", timeout=5), few)
    victims = [r for r in results if r.id.startswith("cache.forget")]
    assert victims and all(r.outcome is Outcome.ERROR and "line longer than 1,048,576 bytes" in r.detail
                           for r in victims)
    assert all(r.outcome is Outcome.PASS for r in results if r not in victims)


def test_the_handshake_policy_gives_up_after_n_failures(few: list[Vector]) -> None:
    target = Target(impl=None, adapter=f"{ADVERSARY} hang-hello", timeout=0.2, startup_timeout=0.2,
                    handshake_failures=2)
    started = time.monotonic()
    results = run_vectors(target, few)
    assert time.monotonic() - started < 2 * 0.2 + 5  # two hellos waited for, then no more adapters started
    assert all(r.outcome is Outcome.ERROR for r in results)
    assert [r.detail.startswith("handshake failed") for r in results] == [True, True] + [False] * (len(few) - 2)
    assert "failed its handshake 2 times in a row (last: adapter did not answer the hello request" in results[-1].detail


def refuse(message: dict[str, object]) -> dict[str, object]:
    return {"type": "failure", "id": message["id"], "message": "not yet"}


class FlakyTarget:
    """Every other session fails its handshake (the adapter refuses hello)."""

    handshake_failures = 2
    profile = None

    def __init__(self) -> None:
        self.opened = 0

    def open(self, groups: object = None) -> InProcessSession:
        self.opened += 1
        session = InProcessSession(RefimplAdapter())
        if self.opened % 2:
            session.request = refuse  # type: ignore[method-assign]
        return session


def test_a_successful_handshake_resets_the_count(few: list[Vector]) -> None:
    worker = Worker(FlakyTarget())  # type: ignore[arg-type]
    expected = [Outcome.ERROR, Outcome.PASS]  # fail, succeed: the count never reaches 2
    outcomes = [result.outcome for vector in few[:2] for result in worker.run(vector)]
    assert outcomes == expected
    worker.session = None  # a failed session: the next vector starts another adapter
    outcomes = [result.outcome for vector in few[2:4] for result in worker.run(vector)]
    assert outcomes == expected


def test_a_session_killed_after_a_failure_refuses_requests() -> None:
    session = SubprocessSession(f"{ADVERSARY} hang-hello", timeout=0.1, startup_timeout=0.1)
    with pytest.raises(AdapterFailure, match=r"did not answer the hello request within 0\.1 s"):
        session.request({"type": "hello", "id": 1})
    with pytest.raises(AdapterFailure, match="killed after an earlier failure"):
        session.request({"type": "hello", "id": 1})
    session.close()  # idempotent after a kill


IMPLS = "tests.conformance.adversarial.impls"


@pytest.mark.parametrize("impl", ["NoAreasAdapter", "UnknownProfilesAdapter"])
def test_a_run_that_executes_no_vector_fails(impl: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "report.json"
    argv = ("conform", "--impl", f"{IMPLS}:{impl}", "--tag", "snapshot", "--no-progress", "--json", str(report))
    assert ksspec(*argv) == 2
    out = capsys.readouterr().out
    assert "conform failed: no vector ran: all " in out and "skipped (" in out and "conform passed" not in out
    data = json.loads(report.read_text())
    assert data["exit_code"] == 2 and data["summary"]["skip"] == len(data["results"]) > 0
    assert ksspec(*argv, "--allow-no-vectors-run") == 0  # said explicitly: then it passes
    assert "conform passed" in capsys.readouterr().out


def test_an_in_process_sys_exit_is_an_error_not_the_end_of_the_run(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    report, junit = tmp_path / "report.json", tmp_path / "junit.xml"
    code = ksspec("conform", "--impl", f"{IMPLS}:ExitZeroAdapter", "--tag", "cache.forget", "--tag", "cache.pvc",
                  "--no-progress", "--json", str(report), "--junit", str(junit))
    assert code == 2
    assert "conform failed: adapter errors" in capsys.readouterr().out
    results = json.loads(report.read_text())["results"]
    forget = [r for r in results if r["id"].startswith("cache.forget")]
    assert forget and all(r["outcome"] == "error" and "sys.exit(0)" in r["detail"] for r in forget)
    assert ET.parse(junit).getroot().find("./testsuite") is not None


def test_a_startup_timeout_shorter_than_the_timeout_is_kept() -> None:
    session = SubprocessSession(f"{ADVERSARY} hang-hello", timeout=30, startup_timeout=0.3)
    started = time.monotonic()
    with pytest.raises(AdapterFailure, match=r"did not answer the hello request within 0\.3 s"):
        session.request({"type": "hello", "id": 1})
    assert time.monotonic() - started < 10  # not the 30 s of --timeout
    session.close()
