"""In-process implementations that take the runner's worker process down with them (``--impl``, under ``-j 2``), or
answer what no stdio adapter could send."""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from conformance.adapters.refimpl_adapter import RefimplAdapter


class ExitingAdapter(RefimplAdapter):
    """Calls ``os._exit(3)`` at every ``forget_pod`` step: the worker process running the vector vanishes."""

    def step(self, op: str, args: Any) -> Any:
        if op == "forget_pod":
            os._exit(3)
        return super().step(op, args)


class HangingAdapter(RefimplAdapter):
    """Sleeps for an hour at every ``forget_pod`` step: the worker process running the vector never answers."""

    def step(self, op: str, args: Any) -> Any:
        if op == "forget_pod":
            time.sleep(3600)
        return super().step(op, args)


class DeepAdapter(RefimplAdapter):
    """Answers every ``forget_pod`` step with an observation nested 100,000 levels deep (built without recursion)."""

    def step(self, op: str, args: Any) -> Any:
        if op == "forget_pod":
            deep: list[Any] = []
            for _ in range(100_000):
                deep = [deep]
            return {"status": "ok", "observation": {"nodes": deep}}
        return super().step(op, args)


class ExitZeroAdapter(RefimplAdapter):
    """Calls ``sys.exit(0)`` at every ``forget_pod`` step: a SystemExit that must not end the run as a success."""

    def step(self, op: str, args: Any) -> Any:
        if op == "forget_pod":
            sys.exit(0)
        return super().step(op, args)


class NoAreasAdapter(RefimplAdapter):
    """Declares no area: the runner skips every vector."""

    def hello(self) -> Any:
        return {"implementation": "no-areas", "capabilities": {"areas": [], "profiles": ["v1.35"]}}


class UnknownProfilesAdapter(RefimplAdapter):
    """Declares every area but only a profile no vector holds for: the runner skips every vector."""

    def hello(self) -> Any:
        hello = super().hello()
        hello["capabilities"]["profiles"] = ["v9.99"]
        return hello
