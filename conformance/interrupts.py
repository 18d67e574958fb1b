"""Ctrl-C and SIGTERM for every ``ksspec`` subcommand, from its first instruction to its last, and no process left.

**Signals.** :class:`Interrupts` turns the *first* SIGINT or SIGTERM into a ``KeyboardInterrupt`` in the main
thread and only records the ones after it, so that the summary and the reports a command writes once interrupted are
not themselves cut short (a second Ctrl-C during "interrupted before the run started" gave a traceback). What was
received stays in :attr:`Interrupts.caught`: a command checks it after its work too, because a ``KeyboardInterrupt``
can be lost on its way (raised inside a ``__del__`` or a weakref callback, Python prints "Exception ignored" and goes
on; a Z3 check catches SIGINT itself and returns ``unknown``). :func:`conformance.entry.entry`, the ``ksspec``
console script, installs it before the command line's modules are imported (a second or more of work), and
:func:`run_main` turns a ``KeyboardInterrupt`` that no command handled into one line and the shell's exit code,
128 + the signal's number.

**Processes.** :func:`child_subreaper` makes the process a child subreaper (Linux ``prctl(PR_SET_CHILD_SUBREAPER)``)
while a command runs: a process whose parent dies is re-parented to it, not to init, so that everything started
below it, also a grandchild that left the adapter's process group with ``setsid``, is still its descendant. On the
way out it kills every descendant started inside and reaps those that became its children. Elsewhere (not Linux) it
only does that for the descendants it can find.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any, Final

SIGNALS: Final = (signal.SIGINT, signal.SIGTERM)
PR_SET_CHILD_SUBREAPER: Final = 36
PR_GET_CHILD_SUBREAPER: Final = 37
PR_SET_PDEATHSIG: Final = 1
KILL_ROUNDS: Final = 5
"""How many times the sweep looks again for descendants (a dying process's children are re-parented meanwhile)."""


class Interrupts:
    """Inside ``with`` (in the main thread; elsewhere it does nothing), the first SIGINT or SIGTERM raises
    ``KeyboardInterrupt`` and later ones are only recorded; after :meth:`hold` none raises. The old handlers come
    back on exit. Nested uses share what was caught: an inner one starts from the outer one's record."""

    def __init__(self) -> None:
        self.caught: list[int] = []
        self.raising = True
        self._previous: dict[int, Any] = {}
        self._previous_unraisable: Callable[[Any], object] = sys.unraisablehook

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        self.caught.append(signum)
        if self.raising and len(self.caught) == 1:
            raise KeyboardInterrupt

    def _unraisable(self, unraisable: Any) -> None:
        """``sys.unraisablehook`` inside ``with``: a ``KeyboardInterrupt`` this handler raised inside a ``__del__`` (a
        Z3 object freed while the signal came) is recorded in :attr:`caught` already, so Python's "Exception ignored"
        report of it, a traceback, is left out; anything else goes to the hook that was in force."""
        if isinstance(unraisable.exc_value, KeyboardInterrupt) and self.caught:
            return
        self._previous_unraisable(unraisable)

    def __enter__(self) -> Interrupts:
        _ACTIVE.append(self)
        self._previous_unraisable = sys.unraisablehook
        sys.unraisablehook = self._unraisable
        if threading.current_thread() is threading.main_thread():
            for number in SIGNALS:
                previous = signal.getsignal(number)
                owner = getattr(previous, "__self__", None)
                if isinstance(owner, Interrupts) and owner.caught:
                    self.caught = list(owner.caught)
                    self.raising = False  # an interrupt is already being handled
                self._previous[number] = signal.signal(number, self._handler)
        return self

    def hold(self) -> None:
        """Record signals from now on instead of raising."""
        self.raising = False

    def __exit__(self, *exc: object) -> None:
        if self in _ACTIVE:
            _ACTIVE.remove(self)
        if sys.unraisablehook == self._unraisable:
            sys.unraisablehook = self._previous_unraisable
        for number, old in self._previous.items():
            signal.signal(number, old)
            owner = getattr(old, "__self__", None)
            if isinstance(owner, Interrupts):  # the outer scope learns what this one caught
                owner.caught.extend(s for s in self.caught[len(owner.caught):] if s in SIGNALS)
        self._previous.clear()

    @property
    def name(self) -> str | None:
        """The first signal received, as ``SIGINT``; None if none was."""
        return signal.Signals(self.caught[0]).name if self.caught else None

    def exit_code(self) -> int:
        """What a shell reports for the first signal received: 128 + its number (130 for SIGINT)."""
        return 128 + (self.caught[0] if self.caught else signal.SIGINT)


_ACTIVE: list[Interrupts] = []


def received() -> Interrupts:
    """The innermost :class:`Interrupts` in force, or an empty one (a command called in-process, as tests do): what a
    command that caught ``KeyboardInterrupt`` asks for the signal's name and exit code."""
    return _ACTIVE[-1] if _ACTIVE else Interrupts()


@contextlib.contextmanager
def blocked() -> Iterator[None]:
    """SIGINT and SIGTERM held back (pending, not lost) inside ``with``: around a ``fork``, so that a child never runs
    the parent's handler before it installs its own."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def unblock() -> None:
    """Undo an inherited :func:`blocked` (in a forked child, once its own handlers are in place)."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)


# --------------------------------------------------------------------------------------------
# Processes
# --------------------------------------------------------------------------------------------


def _prctl(option: int, value: int) -> int | None:
    """``prctl(option, value)`` through the C library, or None where there is none (not Linux) or it fails."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        result: int = libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0)
    except (OSError, AttributeError):
        return None
    return None if result < 0 else result


def _is_subreaper() -> int:
    if not sys.platform.startswith("linux"):
        return 0
    value = ctypes.c_int(0)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(value), 0, 0, 0) < 0:
            return 0
    except (OSError, AttributeError):
        return 0
    return value.value


def die_with_parent() -> None:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux; elsewhere nothing): for a worker, so that a
    runner killed outright leaves no worker blocked in ``recv()``."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _processes() -> dict[int, tuple[int, str, str]]:
    """Every process as pid -> (parent pid, start time, state letter), from /proc (empty where there is none)."""
    table: dict[int, tuple[int, str, str]] = {}
    proc = Path("/proc")
    if not proc.is_dir():
        return table
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()
        table[int(entry.name)] = (int(fields[1]), fields[19], fields[0])
    return table


def descendants(root: int | None = None) -> dict[int, str]:
    """The live descendants of ``root`` (this process by default) as pid -> start time (a zombie has ended: it is not
    listed)."""
    root = os.getpid() if root is None else root
    table = _processes()
    children: dict[int, list[int]] = {}
    for pid, (parent, _, _) in table.items():
        children.setdefault(parent, []).append(pid)
    found: dict[int, str] = {}
    pending = list(children.get(root, []))
    while pending:
        pid = pending.pop()
        if pid in found or pid not in table:
            continue
        _, started, state = table[pid]
        if state not in ("Z", "X"):
            found[pid] = started
        pending.extend(children.get(pid, []))
    return found


def end_descendants(keep: dict[int, str] | None = None) -> list[int]:
    """SIGKILL every live descendant of this process except those in ``keep`` (pid -> start time, as
    :func:`descendants` gives), and reap the ones that were or became its children; returns the pids killed."""
    keep = keep or {}
    killed: list[int] = []
    for _ in range(KILL_ROUNDS):
        targets = [pid for pid, started in descendants().items() if keep.get(pid) != started]
        if not targets:
            break
        for pid in targets:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
        time.sleep(0.02)
    _reap(killed)
    return killed


def _reap(pids: list[int]) -> None:
    """Collect the exit status of those of ``pids`` that are this process's children now (without waiting long)."""
    deadline = time.monotonic() + 1.0
    for pid in pids:
        while True:
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:  # not our child, or already reaped by its owner
                break
            if done or time.monotonic() > deadline:
                break
            time.sleep(0.01)


@contextlib.contextmanager
def child_subreaper() -> Iterator[None]:
    """Inside ``with``, this process is a child subreaper (Linux), so that a process started below it whose parent
    dies (an adapter's ``setsid`` child once the adapter is killed) becomes its child; on the way out, even on an
    exception, every descendant started inside is killed and reaped. The process's own setting comes back after."""
    before = descendants()
    was = _is_subreaper()
    if not was:
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
    try:
        yield
    finally:
        with Interrupts() as quiet:  # the sweep is not cut short by another Ctrl-C
            quiet.hold()
            end_descendants(before)
        if not was:
            _prctl(PR_SET_CHILD_SUBREAPER, 0)


# --------------------------------------------------------------------------------------------
# The console script
# --------------------------------------------------------------------------------------------


def run_main(main: Callable[[], int], signals: Interrupts, program: str = "ksspec") -> int:
    """``main()`` under ``signals`` and :func:`child_subreaper`; a ``KeyboardInterrupt`` it does not handle is one line
    on stderr and 128 + the signal's number, never a traceback."""
    try:
        with child_subreaper():
            code = main()
    except KeyboardInterrupt:
        signals.hold()
        name = signals.name or "SIGINT"
        print(f"{program}: interrupted by {name}", file=sys.stderr)
        return signals.exit_code()
    if signals.caught and code == 0:  # an interrupt that was lost on its way must not end as a success
        signals.hold()
        print(f"{program}: interrupted by {signals.name}", file=sys.stderr)
        return signals.exit_code()
    return code
