"""Benchmarks of refimpl's API dispatcher: calls per second through the call queue and through the threaded loop.

- ``distinct``: 10,000 bindings for 10,000 distinct pods, added, then popped, finalized and answered one by one
  (a synchronous driver: no threads).
- ``contention``: 10,000 status patches and bindings over 10 pods; after every 4 adds the oldest executing call is
  finalized and answered and the next pending one popped, so calls merge into pending ones, are skipped, overwrite
  executing ones and are requeued at finalize.
- ``dispatcher``: 10,000 bindings through ``APIDispatcher`` (a thread per call) against the fake API server with no
  latency, from the first add until every caller has its outcome; v1.35 (no limit) and v1.34.0 (16 at once).

``python bench/call_queue.py`` prints the table; :func:`run` returns its rows for ``bench/run.py``.
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from refimpl.dispatcher import (  # noqa: E402
    APIDispatcher,
    Binding,
    CallQueue,
    FakeAPIServer,
    PodBindingCall,
    PodCondition,
    PodStatus,
    PodStatusPatchCall,
    QueuedCall,
    ResultChannel,
)
from refimpl.dispatcher.api_calls import APICall  # noqa: E402
from spec.versions import V1_34, V1_35, VersionProfile  # noqa: E402

CALLS = 10_000
ROUNDS = 5

Channels = list[ResultChannel]


def timed(setup: Callable[[], tuple[list[APICall], Channels]], body: Callable[[list[APICall], Channels], None],
          rounds: int = ROUNDS) -> float:
    """Median calls per second of ``body`` over fresh calls and channels from ``setup`` (untimed), with the cyclic
    garbage collector disabled while it runs, as ``timeit`` does."""
    rates = []
    for _ in range(rounds):
        calls, channels = setup()
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            body(calls, channels)
            rates.append(len(calls) / (time.perf_counter() - start))
        finally:
            gc.enable()
    return statistics.median(rates)


def distinct_calls() -> tuple[list[APICall], Channels]:
    calls: list[APICall] = [PodBindingCall(Binding("bench", f"p{i}", f"uid-{i}", "n1")) for i in range(CALLS)]
    return calls, [ResultChannel() for _ in calls]


def distinct() -> float:
    def body(calls: list[APICall], channels: Channels) -> None:
        queue = CallQueue(V1_35)
        for call, channel in zip(calls, channels, strict=True):
            queue.add(call, channel)
        for _ in range(len(calls)):
            popped = queue.pop()
            assert popped is not None
            queue.finalize(popped)
            popped.send_on_finish(None)
        assert len(queue) == 0

    return timed(distinct_calls, body)


def contended_calls(pods: int = 10) -> tuple[list[APICall], Channels]:
    calls: list[APICall] = []
    for i in range(CALLS):
        uid, name = f"uid-{i % pods}", f"p{i % pods}"
        if i % 5 == 4:
            calls.append(PodBindingCall(Binding("bench", name, uid, f"n{i}")))
        else:
            condition = PodCondition("PodScheduled", "False", "Unschedulable", f"attempt {i}")
            calls.append(PodStatusPatchCall(uid, "bench", name, PodStatus(), condition))
    return calls, [ResultChannel() for _ in calls]


def contention() -> float:
    def body(calls: list[APICall], channels: Channels) -> None:
        queue = CallQueue(V1_35)
        executing: deque[QueuedCall] = deque()
        for i, (call, channel) in enumerate(zip(calls, channels, strict=True)):
            queue.add(call, channel)
            if i % 4 == 3:
                if executing:
                    oldest = executing.popleft()
                    queue.finalize(oldest)
                    oldest.send_on_finish(None)
                if queue.pending():
                    popped = queue.pop()
                    assert popped is not None
                    executing.append(popped)

    return timed(contended_calls, body)


def dispatcher(profile: VersionProfile, rounds: int = 3) -> float:
    """Calls per second from the first add until every caller has its outcome (server set-up untimed)."""
    rates = []
    for _ in range(rounds):
        server = FakeAPIServer()
        for i in range(CALLS):
            server.create_pod("bench", f"p{i}", f"uid-{i}")
        calls, channels = distinct_calls()
        running = APIDispatcher(server, profile)
        running.run()
        start = time.perf_counter()
        for call, channel in zip(calls, channels, strict=True):
            running.add(call, channel)
        for channel in channels:
            assert channel.receive(60) is None
        rates.append(CALLS / (time.perf_counter() - start))
        assert running.close()
    return statistics.median(rates)


def run() -> list[dict[str, Any]]:
    """The benchmarks' rows: benchmark, parameters, result, target (as in bench/run.py's table), and the rate."""
    rows = [
        ("call queue", f"{CALLS:,} distinct UIDs: add, pop, finalize", distinct()),
        ("call queue", f"{CALLS:,} adds over 10 UIDs, a pop every 4 adds", contention()),
        ("dispatcher, v1.35", f"{CALLS:,} bindings, threads, fake server, no latency", dispatcher(V1_35)),
        ("dispatcher, v1.34.0", f"{CALLS:,} bindings, at most 16 at once", dispatcher(V1_34)),
    ]
    return [
        {"benchmark": name, "parameters": parameters, "result": f"{rate:,.0f} calls/s", "target": "",
         "calls_per_second": rate}
        for name, parameters, rate in rows
    ]


def main() -> int:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="refimpl dispatcher benchmarks (Python " + sys.version.split()[0] + ")")
    for column in ("benchmark", "parameters", "result", "target"):
        table.add_column(column, justify="right" if column == "result" else "left")
    for row in run():
        table.add_row(row["benchmark"], row["parameters"], row["result"], row["target"])
    Console().print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
