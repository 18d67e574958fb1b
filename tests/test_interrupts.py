"""Ctrl-C for every long-running ``ksspec`` subcommand (conformance/interrupts.py): the run ends with 128 + the
signal's number, a partial summary where there are results, no traceback, and nothing left in its process group.

Each command runs through the console script's entry (``python -m conformance.entry``) in a session of its own; the
signal goes to the whole group, as a terminal's Ctrl-C does, unless a row says otherwise.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conformance.adversarial.test_adversarial import group_members

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to find processes")


def _no_signal_held() -> None:
    """In the child, before exec: unblock every signal."""
    signal.pthread_sigmask(signal.SIG_SETMASK, set())


def interrupt(argv: list[str], marker: str | None, delay: float, *, twice: bool = False, group: bool = True,
              limit: float = 90) -> tuple[int, str]:
    """Run ``ksspec argv``; once ``marker`` is printed (None: at once) and ``delay`` seconds later, send SIGINT (two,
    0.05 s apart, with ``twice``) to its group (or to it alone); its exit code and output. Fails on a traceback or
    a process left in the group."""
    # The child starts with no signal held back, as from a shell: a signal mask inherited from the test process
    # (SIGINT pending forever) would let the command run to its end, as one run of make test saw once.
    process = subprocess.Popen([sys.executable, "-m", "conformance.entry", *argv], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True,
                               preexec_fn=_no_signal_held,
                               env={**os.environ, "COLUMNS": "200", "PYTHONPATH": str(ROOT)})
    lines: list[str] = []
    seen = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if marker is None or marker in line:
                seen.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    if marker is None:
        seen.set()
    try:
        assert seen.wait(limit), f"{marker!r} never printed:\n{''.join(lines)}"
        time.sleep(delay)
        for _ in range(2 if twice else 1):
            if group:
                os.killpg(process.pid, signal.SIGINT)
            else:
                process.send_signal(signal.SIGINT)
            time.sleep(0.05)
        code = process.wait(timeout=limit)
        reader.join(timeout=10)
    finally:
        left = group_members(process.pid)
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        if process.poll() is None:
            process.kill()
    out = "".join(lines)
    assert "Traceback" not in out, out
    assert left == [], (left, out)
    return code, out


@pytest.mark.parametrize("delay", [0.3, 1.0, 3.0])
def test_conform_j2_interrupted_as_it_starts(delay: float, tmp_path: Path) -> None:
    """From the first instruction to the last: while Python imports the CLI, before the run, or during it; twice.
    (The interpreter's own start, some tens of milliseconds before ``conformance.entry`` runs, is Python's.)"""
    report = tmp_path / "report.json"
    # The whole suite (about 8 s wall at load 1 here): the cache area alone (3 s) could end before the 3 s signal.
    code, out = interrupt(["conform", "-j", "2", "--no-progress", "--json", str(report)], None, delay, twice=True)
    # A shell reports 130 both for exit(130) and for death by SIGINT; on a loaded machine the second SIGINT can
    # still find Python's default disposition while the interpreter starts or finalizes (seen at load 30).
    assert code in (130, -signal.SIGINT), out
    assert "interrupted by SIGINT" in out and "conform passed" not in out, out
    if report.exists():  # the run had started: its report says it was cut
        assert '"interrupted": "SIGINT"' in report.read_text()


def test_check_interrupted_prints_the_figures_so_far() -> None:
    code, out = interrupt(["check", "--nodes", "3", "--pods", "4", "--depth", "0"], "universe:", 3)
    assert code == 130 and "check interrupted by SIGINT" in out and "states explored so far" in out, out
    assert "distinct states" in out or "states" in out


def test_simulate_interrupted_prints_the_tables_so_far() -> None:
    code, out = interrupt(["simulate", "--nodes", "500", "--pods", "500000", "--no-progress"], "simulating", 3)
    assert code == 130 and "simulation interrupted by SIGINT" in out and "invariants" in out, out


def test_prove_interrupted_prints_the_obligations_so_far() -> None:
    """The Z3 obligations take 2 to 3 s after the bounds are printed on an idle machine (2026-11-30: a 3 s delay let
    the run end before the signal), so the signal comes half a second after them, while they are being discharged."""
    code, out = interrupt(["prove", "--no-crosshair"], "cluster bounds:", 0.5)
    assert code == 130 and "prove interrupted by SIGINT" in out and "obligations discharged" in out, out
    assert "AttributeError" not in out


def test_verify_interrupted_ends_its_checks_and_reports_them_not_failed() -> None:
    """The signal reaches verify alone (not its checks): it must end them itself, at once."""
    started = time.monotonic()
    code, out = interrupt(["verify", "--no-progress"], "ksspec verify, fast profile", 4, group=False)
    assert time.monotonic() - started < 60
    assert code == 130 and "verify interrupted by SIGINT" in out, out
    assert "FAIL" not in out.split("interrupted", 1)[-1] or "interrupted (by SIGINT)" in out, out
    assert "verify passed" not in out


def test_simulate_sweep_interrupted_prints_the_seeds_so_far() -> None:
    code, out = interrupt(["simulate", "--nodes", "2", "--pods", "10", "--seeds", "0..999", "--no-progress"],
                          "simulating", 3)
    assert code == 130 and "sweep interrupted by SIGINT" in out and "seeds: the table lists those finished" in out, out


def test_simulate_sweep_on_a_local_dask_cluster_interrupted() -> None:
    """The local cluster's workers ignore the group's SIGINT (dask_pool.connect): ksspec stops them, and neither
    they nor Dask's loggers print a traceback."""
    pytest.importorskip("distributed")
    code, out = interrupt(["simulate", "--nodes", "2", "--pods", "10", "--seeds", "0..399", "--no-progress",
                           "--cluster", "local:2"], "simulating", 10)
    assert code == 130 and "sweep interrupted by SIGINT" in out, out
