"""Worker processes for ``ksspec conform -j N`` that survive a dying worker and leave no process behind.

``multiprocessing.Pool`` waits for ever when a worker process dies (an in-process implementation that calls
``os._exit``), and its ``terminate`` kills workers without letting them close their adapters. This pool is a few
``multiprocessing`` processes (forked) that the runner can always kill, each with a duplex pipe:

- the runner hands each idle worker one vector at a time, so it always knows which vector a worker is running;
- a worker reports every adapter process group its sessions start and every one they have killed and reaped, so
  the runner can kill the groups of a worker that died;
- :func:`multiprocessing.connection.wait` watches the pipes and the workers' sentinels with a deadline. A worker that
  dies gets its vector an error and is replaced; one that runs a vector past its budget (an in-process
  implementation that hangs) is killed, and likewise;
- at the end each worker is asked to close its sessions (``bye``, then the adapter's group is killed) and is killed
  if it does not exit in time; on an interruption (Ctrl-C) every worker and every adapter group is killed at once.

Workers ignore SIGINT: a Ctrl-C in a terminal reaches the whole foreground process group, and the runner, not the
workers, decides what happens then. A worker is forked with SIGINT and SIGTERM held back, so it never runs the
runner's handler (a KeyboardInterrupt traceback from a worker just started) and a signal that arrives meanwhile
reaches the runner once the worker is on its list; a worker dies with the runner (``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
from collections import deque
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, Protocol, TypeVar

from conformance.interrupts import blocked, die_with_parent, unblock

R = TypeVar("R")
V = TypeVar("V")
V_contra = TypeVar("V_contra", contravariant=True)

STOP_GRACE = 5.0
"""Seconds a worker may take to close its adapter sessions at the end of the run before it is killed."""


class PoolWorker(Protocol[V_contra, R]):
    """What runs in a worker process: results for one item (possibly amending earlier ones), and, when the
    worker is done, amendments found while closing."""

    def run(self, item: V_contra) -> list[R]: ...

    def close(self) -> list[R]: ...


class _PipeGroups:
    """A worker's :class:`conformance.sessions.GroupTracker`: tells the runner over the pipe."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def started(self, pgid: int) -> None:
        self.conn.send(("spawned", pgid))

    def ended(self, pgid: int) -> None:
        self.conn.send(("reaped", pgid))


def _worker_main(conn: Connection, make_worker: Callable[[Any], PoolWorker[V, R]]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    unblock()  # forked with both held back (run_pool's start): the runner's handler never runs here
    die_with_parent()
    worker = make_worker(_PipeGroups(conn))
    while True:
        try:
            message = conn.recv()
        except EOFError:  # the runner is gone
            break
        if message[0] == "run":
            _, index, item = message
            conn.send(("results", index, worker.run(item)))
        else:
            break
    conn.send(("closed", None, worker.close()))


class _Slot:
    """One worker process, what it runs, and the adapter groups it has alive."""

    def __init__(self, process: BaseProcess, conn: Connection) -> None:
        self.process = process
        self.conn = conn
        self.index: int | None = None  # the item it runs
        self.deadline = 0.0
        self.groups: set[int] = set()
        self.closed = False

    def kill(self) -> None:
        """Kill the worker process and every adapter group it reported alive; reap the worker."""
        with contextlib.suppress(ProcessLookupError, AttributeError):
            if self.process.pid is not None:
                os.kill(self.process.pid, signal.SIGKILL)
        kill_groups(self.groups)
        self.process.join(timeout=STOP_GRACE)
        with contextlib.suppress(OSError):
            self.conn.close()


def kill_groups(groups: set[int]) -> None:
    """SIGKILL every process group in ``groups`` (gone ones are skipped) and forget them."""
    for pgid in sorted(groups):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
    groups.clear()


def run_pool(
    items: Sequence[V],
    workers: int,
    make_worker: Callable[[Any], PoolWorker[V, R]],
    budget: Callable[[V], float],
    record: Callable[[R], None],
    lost: Callable[[V, str], R],
) -> None:
    """Run every item on ``workers`` worker processes, each made by ``make_worker(groups)``; ``record`` every
    result as it arrives. An item whose worker died, or ran past ``budget(item)`` seconds, is recorded as
    ``lost(item, why)`` and the worker replaced. Returns once every item is recorded and every worker is gone;
    on ``KeyboardInterrupt`` every worker and adapter group is killed before it propagates."""
    context = multiprocessing.get_context("fork")
    pending = deque(range(len(items)))
    slots: list[_Slot] = []

    def start() -> _Slot:
        with blocked():  # a signal now waits until the worker is in ``slots``, where an interruption finds it
            parent, child = context.Pipe(duplex=True)
            process = context.Process(target=_worker_main, args=(child, make_worker), daemon=True)
            process.start()
            child.close()
            slot = _Slot(process, parent)
            slots.append(slot)
        return slot

    def assign(slot: _Slot) -> None:
        if not pending:
            slot.index = None
            with contextlib.suppress(OSError):
                slot.conn.send(("stop",))
            slot.deadline = time.monotonic() + STOP_GRACE
            return
        index = pending.popleft()
        slot.index = index
        slot.deadline = time.monotonic() + budget(items[index])
        with contextlib.suppress(OSError):  # the worker died: its sentinel says so, and the item is lost then
            slot.conn.send(("run", index, items[index]))

    def receive(slot: _Slot) -> None:
        """Handle every message the worker has sent (it may have died right after)."""
        with contextlib.suppress(EOFError, OSError):
            while slot.conn.poll():
                kind, index, payload = _unpack(slot.conn.recv())
                if kind == "spawned":
                    slot.groups.add(index)
                elif kind == "reaped":
                    slot.groups.discard(index)
                elif kind == "results":
                    for result in payload:
                        record(result)
                    assign(slot)
                elif kind == "closed":
                    for result in payload:
                        record(result)
                    slot.closed = True

    def replace(slot: _Slot, hung: bool) -> None:
        """Kill the worker and its adapters; its item is lost (it died, or ``hung``); start another worker."""
        slot.kill()
        slots.remove(slot)
        if slot.index is not None:
            item = items[slot.index]
            why = (f"the worker process running it did not finish within {budget(item):g} s (hung); killed it"
                   if hung else f"the worker process running it died (exit code {slot.process.exitcode})")
            record(lost(item, why))
            if pending:
                assign(start())

    try:
        for _ in range(min(workers, len(items))):
            assign(start())
        while slots:
            now = time.monotonic()
            timeout = max(0.0, min(slot.deadline for slot in slots) - now)
            ready = set(wait([s.conn for s in slots] + [s.process.sentinel for s in slots], timeout))
            for slot in list(slots):
                if slot.conn in ready or slot.process.sentinel in ready:
                    receive(slot)
                if slot.closed or slot.process.sentinel in ready:
                    if slot.closed:
                        slot.process.join(timeout=STOP_GRACE)
                        if slot.process.is_alive():
                            slot.kill()
                        kill_groups(slot.groups)  # normally empty: the worker closed its sessions
                        slots.remove(slot)
                    else:
                        replace(slot, hung=False)
                elif time.monotonic() >= slot.deadline:
                    if slot.index is None:  # it did not close its sessions in time
                        slot.kill()
                        slots.remove(slot)
                    else:
                        replace(slot, hung=True)
    finally:
        for slot in slots:  # only on an interruption or an error in the runner itself
            slot.kill()


def _unpack(message: tuple[Any, ...]) -> tuple[str, Any, Any]:
    if message[0] in ("spawned", "reaped"):
        return message[0], message[1], None
    return message[0], message[1], message[2]
