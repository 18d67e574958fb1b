"""Benchmarks of the conformance suite: the per-step cost of the stdio adapter path against the in-process one.

Both runs take every committed vector, one worker, against the reference implementation: in-process
(``ksspec conform --impl refimpl``) and as a subprocess speaking JSON lines
(``ksspec conform --adapter "python -m conformance.adapters.stdio_main"``). A step costs the same implementation
work either way, so the difference of the per-step times is the protocol's overhead: encoding the request,
two pipe crossings, decoding and re-encoding the full observation. The adapter's start (interpreter and imports)
is timed apart and left out of the per-step figures. Each figure is the median of :data:`ROUNDS` runs.

``python bench/conformance.py`` prints the table; ``--json`` prints the rows for ``bench/run.py``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
# This file shares its name with the package it measures: keep bench/ off the path so `conformance` is the package.
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != BENCH)]

from conformance import generate  # noqa: E402
from conformance.format import VECTORS_DIR, Vector, load_vectors  # noqa: E402
from conformance.runner import Outcome, Target, run_vectors  # noqa: E402
from conformance.sessions import SubprocessSession, handshake  # noqa: E402

ROUNDS = 3
STDIO = f"{sys.executable} -m conformance.adapters.stdio_main"


def timed_run(target: Target, vectors: list[Vector]) -> tuple[float, int]:
    """Seconds for one run of every vector, and the number of steps run; fails if any vector does not pass."""
    started = time.perf_counter()
    results = run_vectors(target, vectors)
    seconds = time.perf_counter() - started
    failed = [r.id for r in results if r.outcome is not Outcome.PASS]
    if failed:
        raise SystemExit(f"{len(failed)} vectors did not pass ({failed[:3]}): benchmark figures would be meaningless")
    return seconds, sum(len(v.steps) for v in vectors)


def adapter_start_seconds() -> float:
    """Starting the stdio adapter and its handshake (part of the stdio run, left out of the per-step figure)."""
    started = time.perf_counter()
    session = SubprocessSession(STDIO, timeout=30)
    handshake(session)
    seconds = time.perf_counter() - started
    session.close()
    return seconds


def run() -> list[dict[str, Any]]:
    """The rows: benchmark, parameters, result, target (as in bench/run.py's table), and the raw figures."""
    vectors = load_vectors(VECTORS_DIR)
    in_process = [timed_run(Target(), vectors) for _ in range(ROUNDS)]
    stdio = [timed_run(Target(impl=None, adapter=STDIO), vectors) for _ in range(ROUNDS)]
    start = statistics.median(adapter_start_seconds() for _ in range(ROUNDS))
    steps = in_process[0][1]
    local_s = statistics.median(s for s, _ in in_process)
    stdio_s = statistics.median(s for s, _ in stdio)
    local_us = local_s / steps * 1e6
    stdio_us = max(0.0, stdio_s - start) / steps * 1e6
    started, cpu = time.perf_counter(), time.process_time()
    problems = generate.drift(generate.generate_all(), VECTORS_DIR)
    check_s, check_cpu = time.perf_counter() - started, time.process_time() - cpu
    where = f"{len(vectors)} vectors, {steps:,} steps, 1 worker"
    return [
        {"benchmark": "conform, in-process", "parameters": where, "result": f"{local_s:.2f} s ({local_us:.0f} µs/step)",
         "target": "< 60 s " + ("✓" if local_s < 60 else "✗"), "seconds": local_s, "us_per_step": local_us},
        {"benchmark": "conform, stdio adapter", "parameters": where + f", adapter start {start:.2f} s excluded",
         "result": f"{stdio_s:.2f} s ({stdio_us:.0f} µs/step)", "target": "", "seconds": stdio_s,
         "us_per_step": stdio_us},
        {"benchmark": "stdio overhead", "parameters": "per step: stdio minus in-process",
         "result": f"{stdio_us - local_us:.0f} µs/step", "target": "", "us_per_step": stdio_us - local_us},
        {"benchmark": "conformance generate --check", "parameters": f"{len(vectors)} vectors regenerated, compared",
         "result": f"{check_s:.2f} s ({check_cpu:.2f} s CPU)", "target": "no drift " + ("✓" if not problems else "✗"),
         "seconds": check_s, "cpu_seconds": check_cpu},
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="print the rows as one JSON line (for bench/run.py)")
    args = parser.parse_args(argv)
    rows = run()
    if args.json:
        print(json.dumps(rows))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title="conformance suite benchmarks (Python " + sys.version.split()[0] + ", medians)")
    for column in ("benchmark", "parameters", "result", "target"):
        table.add_column(column, justify="right" if column == "result" else "left")
    for row in rows:
        table.add_row(row["benchmark"], row["parameters"], row["result"], row["target"])
    Console(width=140).print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
