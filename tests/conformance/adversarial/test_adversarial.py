"""``ksspec conform`` against adversarial adapters: every row must end within its time bound, with the exit code it
names, complete reports (a result for every selected vector in the JSON report, a testcase for each in a JUnit
file that parses as XML 1.0), no traceback, and no process left behind: neither an adapter or anything it started
(each records its pid), nor anything in the process group of an adapter or of the runner (which runs in a session
of its own here, so its worker processes are in that group).

The bounds are generous for a loaded 2-core machine, yet each is far below what the row took before the runner
was fixed: an unbounded hang (a wrapper that does not ``exec``, a child holding stdout, a dying or hung worker
process) or 30 s per vector (a hang at hello without the handshake failure policy).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from conformance.format import load_vectors
from conformance.report import _NOT_XML_CHAR
from conformance.runner import select

ROOT = Path(__file__).resolve().parents[3]
PY = sys.executable
ADVERSARY = f"{PY} -m tests.conformance.adversarial.adversary"
FEW = ("--tag", "cache.forget", "--tag", "cache.expiry.strictly", "--tag", "cache.pvc")
"""Six vectors: three victims (``cache.forget.*``) between three that must still pass."""
MANY = ("--tag", "cache")
FAST = ("--timeout", "1", "--startup-timeout", "5")
VICTIM = "cache.forget"

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to find processes")


# --------------------------------------------------------------------------------------------
# Processes
# --------------------------------------------------------------------------------------------


def _stat(pid: int) -> tuple[str, int] | None:
    """The state letter and process group of ``pid``, or None if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text[text.rindex(")") + 2:].split()
    return fields[0], int(fields[2])


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie has ended: only its exit status is left for its parent)."""
    stat = _stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")


def group_members(pgid: int) -> list[int]:
    """The live processes in process group ``pgid``."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None and stat[1] == pgid and stat[0] not in ("Z", "X"):
                members.append(int(entry.name))
    return members


@dataclass
class Run:
    code: int
    seconds: float
    stdout: str
    stderr: str
    report: Any
    junit: ET.Element | None
    pids: list[int]
    groups: list[int]


@pytest.fixture
def conform(tmp_path: Path) -> Iterator[Callable[..., Run]]:
    """Run ``ksspec conform`` in a session of its own; at teardown kill whatever the run left, even if the test
    failed (the test itself asserts there was nothing)."""
    runs: list[tuple[Path, int]] = []

    def run(*argv: str, limit: float, signal_after: tuple[int, float] | None = None, reports: bool = True) -> Run:
        case = tmp_path / f"run{len(runs)}"
        pids = case / "pids"
        pids.mkdir(parents=True)
        report, junit = case / "report.json", case / "junit.xml"
        progress = case / "progress"
        env = {**os.environ, "ADVERSARY_PIDS": str(pids), "ADVERSARY_PROGRESS": str(progress), "COLUMNS": "200",
               "PYTHONPATH": str(ROOT)}
        command = [PY, "-m", "conformance.cli.main", "conform", *argv, "--no-progress",
                   *(("--json", str(report), "--junit", str(junit)) if reports else ())]
        started = time.monotonic()
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, start_new_session=True)
        runs.append((pids, process.pid))
        if signal_after is not None:
            number, delay = signal_after
            # Mid-run: a slow adapter has finished its first vector (it marks the next reset), however long the
            # interpreter and the adapter took to start on a loaded machine.
            while not progress.exists() and time.monotonic() - started < limit:
                time.sleep(0.05)
            time.sleep(delay)
            process.send_signal(number)
        try:
            stdout, stderr = process.communicate(timeout=limit * 2)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            pytest.fail(f"ksspec conform {' '.join(argv)} still ran after {limit * 2:g} s; output:\n{stdout}\n{stderr}")
        seconds = time.monotonic() - started
        recorded = {int(p.name): p.read_text() for p in pids.iterdir()}
        groups = [int(text) for text in recorded.values() if text] + [process.pid]
        return Run(process.returncode, seconds, stdout, stderr,
                   json.loads(report.read_text()) if report.exists() else None,
                   ET.parse(junit).getroot() if junit.exists() else None, sorted(recorded), groups)

    yield run
    for pids, runner_pid in runs:
        targets = [int(p.name) for p in pids.iterdir()]
        for pgid in [runner_pid, *(int(p.read_text()) for p in pids.iterdir() if p.read_text())]:
            for member in group_members(pgid):
                targets.append(member)
        for pid in targets:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


# --------------------------------------------------------------------------------------------
# The rows
# --------------------------------------------------------------------------------------------


def outcomes(run: Run) -> dict[str, str]:
    return {r["id"]: r["outcome"] for r in run.report["results"]}


def details(run: Run) -> dict[str, str]:
    return {r["id"]: r["detail"] for r in run.report["results"]}


def victims_are(outcome: str, text: str) -> Callable[[Run], None]:
    """Each victim has ``outcome`` with ``text`` in its detail; every other vector passed."""

    def check(run: Run) -> None:
        for vector, got in outcomes(run).items():
            if vector.startswith(VICTIM):
                assert got == outcome and text in details(run)[vector], (vector, details(run)[vector])
            else:
                assert got == "pass", (vector, details(run)[vector])

    return check


def all_are(outcome: str, *texts: str) -> Callable[[Run], None]:
    """Every vector has ``outcome``, and each text is in some vector's detail."""

    def check(run: Run) -> None:
        assert set(outcomes(run).values()) == {outcome}, outcomes(run)
        for text in texts:
            assert any(text in d for d in details(run).values()), (text, details(run))

    return check


def using_forget_pod(outcome: str, text: str) -> Callable[[Run], None]:
    """Each vector with a ``forget_pod`` step has ``outcome`` with ``text``; every other one passed."""

    def check(run: Run) -> None:
        with_forget = {v.id for v in load_vectors() if any(s.op == "forget_pod" for s in v.steps)}
        for vector, got in outcomes(run).items():
            if vector in with_forget:
                assert got == outcome and text in details(run)[vector], (vector, details(run)[vector])
            else:
                assert got == "pass", (vector, details(run)[vector])

    return check


def answered_twice(late: bool) -> Callable[[Run], None]:
    """The victim whose step the adapter answered twice is the error; nothing else is blamed. (Answered twice at
    once, the extra line is usually read with the first, but on a loaded machine it may come after the runner
    looked: then, as when it comes late, the vector's result is amended.)"""

    def check(run: Run) -> None:
        for vector, got in outcomes(run).items():
            detail = details(run)[vector]
            if vector.startswith(VICTIM):
                assert got == "error" and "step 2 (" in detail and "twice" in detail, (vector, detail)
                if late:
                    assert "after the vector ended (its verdict had been pass)" in detail, detail
            else:
                assert got == "pass", (vector, detail)

    return check


def interrupted(name: str) -> Callable[[Run], None]:
    """The reports say the run was interrupted by ``name``; some vectors passed and the rest did not run."""

    def check(run: Run) -> None:
        assert run.report["interrupted"] == name and run.report["exit_code"] == 128 + signal.Signals[name].value
        counts = run.report["summary"]
        assert counts["pass"] > 0 and counts["not_run"] > 0, counts
        assert counts["pass"] + counts["not_run"] == len(run.report["results"]), counts
        assert run.junit is not None
        properties = run.junit.findall("./testsuite/properties/property[@name='interrupted']")
        assert properties and all(p.get("value") == name for p in properties)

    return check


@dataclass(frozen=True)
class Row:
    name: str
    argv: tuple[str, ...]
    code: int
    limit: float
    """Seconds the whole ``ksspec conform`` command may take (interpreter start included)."""
    check: Callable[[Run], None]
    signal_after: tuple[int, float] | None = None
    selected: tuple[str, ...] = field(default=FEW)


def _adapter(mode: str) -> tuple[str, ...]:
    return ("--adapter", f"{ADVERSARY} {mode}")


ROWS = (
    Row("wrapper without exec, adapter hangs at a step", ("--adapter", f"sh -c '{ADVERSARY} hang-step'", *FAST),
        2, 40, victims_are("error", "within 1 s (hung)")),
    Row("child keeps stdout open, adapter exits", (*_adapter("spawn-then-crash"), *FAST), 2, 40,
        victims_are("error", "adapter exited (code 3) before answering")),
    Row("hang at hello: handshake failure policy", (*_adapter("hang-hello"), "--timeout", "1", "--startup-timeout", "1",
                                                    "--handshake-failures", "3", *MANY),
        2, 30, all_are("error", "did not answer the hello request within 1 s", "failed its handshake 3 times in a row"),
        selected=MANY),
    Row("capabilities.profiles null", (*_adapter("bad-profiles"), *FAST), 2, 30,
        all_are("error", "capabilities.profiles must be a list of strings, got None")),
    Row("ignores bye and end of input, -j 2", (*_adapter("ignore-eof"), *FAST, "-j", "2"), 0, 40, all_are("pass")),
    Row("in-process os._exit, -j 2", ("--impl", "tests.conformance.adversarial.impls:ExitingAdapter", "-j", "2", *FAST),
        2, 40, using_forget_pod("error", "the worker process running it died (exit code 3)")),
    Row("in-process hang, -j 2", ("--impl", "tests.conformance.adversarial.impls:HangingAdapter", "-j", "2",
                                  "--timeout", "0.5", "--startup-timeout", "0.5"),
        2, 60, using_forget_pod("error", "did not finish within")),
    Row("control characters in a failure message", (*_adapter("control-failure"), *FAST), 1, 40,
        victims_are("fail", "adapter answered error kind 'Bogus\\x01\\x1b'")),
    Row("control characters on stderr, then exit", (*_adapter("control-stderr"), *FAST), 2, 40,
        victims_are("error", "stderr: panic: \x1b[31mboom")),
    Row("answers a step twice at once", (*_adapter("answer-twice"), *FAST), 2, 40, answered_twice(late=False)),
    Row("answers a step twice, late", (*_adapter("answer-twice-late"), *FAST), 2, 40, answered_twice(late=True)),
    Row("floods stderr", (*_adapter("flood-stderr"), *FAST), 0, 40, all_are("pass")),
    Row("4 MiB answer line", (*_adapter("huge-line"), *FAST), 0, 40, all_are("pass")),
    Row("reply nested 200,000 levels deep", (*_adapter("deep-reply"), *FAST), 2, 40,
        victims_are("error", "nested deeper than 64 levels")),
    Row("reply nested 200,000 levels deep, -j 2", (*_adapter("deep-reply"), *FAST, "-j", "2"), 2, 40,
        victims_are("error", "nested deeper than 64 levels")),
    Row("reply with a 5,000-digit integer", (*_adapter("huge-int"), *FAST), 2, 40,
        victims_are("error", "an integer too long to read")),
    Row("reply with a 5,000-digit integer, -j 2", (*_adapter("huge-int"), *FAST, "-j", "2"), 2, 40,
        victims_are("error", "an integer too long to read")),
    Row("in-process reply nested too deep", ("--impl", "tests.conformance.adversarial.impls:DeepAdapter", *FAST),
        2, 40, using_forget_pod("error", "nested deeper than 64 levels")),
    Row("adapter's child leaves its group with setsid", (*_adapter("setsid-child"), *FAST), 0, 40, all_are("pass")),
    Row("SIGINT mid-run", (*_adapter("slow"), *FAST, *MANY), 130, 40, interrupted("SIGINT"),
        signal_after=(signal.SIGINT, 0.2), selected=MANY),
    Row("SIGINT mid-run, -j 2", (*_adapter("slow"), *FAST, "-j", "2", *MANY), 130, 40, interrupted("SIGINT"),
        signal_after=(signal.SIGINT, 0.2), selected=MANY),
    Row("SIGTERM mid-run", (*_adapter("slow"), *FAST, *MANY), 143, 40, interrupted("SIGTERM"),
        signal_after=(signal.SIGTERM, 0.2), selected=MANY),
)


def selected_ids(argv: tuple[str, ...]) -> list[str]:
    tags = [argv[i + 1] for i, a in enumerate(argv) if a == "--tag"]
    return [v.id for v in select(load_vectors(), tags)]


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_adversarial_adapter(row: Row, conform: Callable[..., Run]) -> None:
    run = conform(*row.argv, *row.selected, limit=row.limit, signal_after=row.signal_after)
    print(f"{row.name}: exit {run.code} in {run.seconds:.1f} s (bound {row.limit:g} s)")
    assert "Traceback" not in run.stderr + run.stdout, run.stderr
    assert run.code == row.code, (run.stdout[-3000:], run.stderr[-3000:])
    assert run.seconds < row.limit
    # Complete reports: every selected vector has a result and a testcase, and the JUnit file is XML 1.0.
    ids = selected_ids(row.selected)
    assert run.report is not None and [r["id"] for r in run.report["results"]] == ids
    assert run.junit is not None and sorted(c.get("name", "") for c in run.junit.iter("testcase")) == sorted(ids)
    for element in run.junit.iter():
        for text in (element.text or "", *element.attrib.values()):
            assert not _NOT_XML_CHAR.search(text)
    row.check(run)
    # No process left: no adapter (or its child), nothing in an adapter's or the runner's process group.
    deadline = time.monotonic() + 2  # SIGKILLed processes may take a moment to vanish
    while time.monotonic() < deadline and (any(map(alive, run.pids)) or any(map(group_members, run.groups))):
        time.sleep(0.05)
    assert [pid for pid in run.pids if alive(pid)] == []
    assert {pgid: group_members(pgid) for pgid in run.groups if group_members(pgid)} == {}


def test_unwritable_report_path_is_refused_before_the_run(conform: Callable[..., Run], tmp_path: Path) -> None:
    run = conform(*_adapter("serve"), *FAST, *FEW, "--junit", str(tmp_path / "missing" / "junit.xml"), limit=30,
                  reports=False)
    assert run.code == 2 and run.pids == [] and run.report is None
    lines = [line for line in (run.stdout + run.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and "--junit" in lines[0] and "does not exist" in lines[0], lines
