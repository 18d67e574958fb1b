"""In-process implementations that take the runner's worker process down with them (``--impl``, under ``-j 2``), or
answer what no stdio adapter could send."""

from __future__ import annotations

import os
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
