"""The ``ksspec`` console script: Ctrl-C is handled (:mod:`conformance.interrupts`) from before the command line's
modules are imported, which takes a second or more, to the last line a command prints."""

from __future__ import annotations

import signal
import sys
from types import FrameType

_EARLY: list[int] = []
"""Signals received before :class:`~conformance.interrupts.Interrupts` took over (only recorded)."""


def _record(signum: int, frame: FrameType | None) -> None:
    _EARLY.append(signum)


for _number in (signal.SIGINT, signal.SIGTERM):  # before any other import: from the first instruction on
    signal.signal(_number, _record)

from conformance.interrupts import Interrupts, run_main  # noqa: E402  (after the handlers, on purpose)


def entry() -> int:
    """Run ``ksspec`` with its arguments from ``sys.argv``; returns the exit code (130 if interrupted by SIGINT
    while it was starting)."""
    try:
        return _entry()
    finally:  # done: a signal now must not kill the interpreter while it finalizes (Python restores SIG_DFL then)
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, signal.SIG_IGN)


def _entry() -> int:
    with Interrupts() as signals:
        try:
            signals.caught.extend(_EARLY)
            if _EARLY:
                raise KeyboardInterrupt
            from conformance.cli.main import main
        except KeyboardInterrupt:
            signals.hold()
            print(f"ksspec: interrupted by {signals.name or 'SIGINT'} while starting", file=sys.stderr)
            return signals.exit_code()
        return run_main(main, signals)


if __name__ == "__main__":
    sys.exit(entry())
