"""FaultInjector: a test plugin that fails (or delays) a pod at Reserve, Permit, PreBind or Bind on request.

Not a Kubernetes plugin. It gives tests and the simulator the failure paths of ``schedulingCycle`` and
``bindingCycle`` without writing a plugin each time: ``fail_next(point, ...)`` scripts a failure, ``wait_next``
makes Permit answer Wait, and ``decide`` may answer for every call. Put it before DefaultBinder so that its Bind
runs first (it answers Skip unless it fails). It records every Unreserve.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from refimpl.scheduler.framework import (
    Awaiting,
    BindPlugin,
    CycleState,
    PermitPlugin,
    PreBindPlugin,
    ReservePlugin,
    Status,
)
from refimpl.scheduler.framework.status import Code
from spec.objects import Pod

NAME: Final = "FaultInjector"
_SKIP: Final = Status(Code.SKIP)


class FaultPoint(StrEnum):
    RESERVE = "Reserve"
    PERMIT = "Permit"
    PRE_BIND = "PreBind"
    BIND = "Bind"


Decide = Callable[[FaultPoint, Pod, str], Status | None]
"""``decide(point, pod, node)``: a status to return instead of success, or None."""


@dataclass
class _Script:
    point: FaultPoint
    uid: str | None
    status: Status
    remaining: int
    timeout: int = 0


class FaultInjector(ReservePlugin, PermitPlugin, PreBindPlugin, BindPlugin):
    """Fails the pods it is told to, at the points it is told to. Thread-safe."""

    name = NAME

    def __init__(self, decide: Decide | None = None) -> None:
        self.decide = decide
        self._lock = threading.Lock()
        self._scripts: list[_Script] = []
        self.unreserved: list[tuple[str, str]] = []
        """(pod UID, node) of every Unreserve call, in order."""
        self.calls: list[tuple[FaultPoint, str, str]] = []
        """(point, pod UID, node) of every call, in order."""

    def fail_next(
        self,
        point: FaultPoint | str,
        uid: str | None = None,
        *,
        code: Code = Code.UNSCHEDULABLE,
        message: str = "injected failure",
        times: int = 1,
    ) -> None:
        """Fail the next ``times`` calls at ``point`` (of pod ``uid``, or of any pod) with ``code``."""
        if code in (Code.SUCCESS, Code.WAIT, Code.SKIP):
            raise ValueError(f"a scripted failure needs a failure code, not {code.name}")
        with self._lock:
            self._scripts.append(_Script(FaultPoint(point), uid, Status(code, message), times))

    def wait_next(self, uid: str | None = None, timeout: int = 60_000_000_000, times: int = 1) -> None:
        """Make Permit answer Wait with ``timeout`` (nanoseconds) for the next ``times`` pods (or pod ``uid``)."""
        with self._lock:
            self._scripts.append(_Script(FaultPoint.PERMIT, uid, Status(Code.WAIT), times, timeout))

    def _answer(self, point: FaultPoint, pod: Pod, node_name: str) -> tuple[Status | None, int]:
        with self._lock:
            self.calls.append((point, pod.uid, node_name))
            for script in self._scripts:
                if script.point is point and script.remaining > 0 and script.uid in (None, pod.uid):
                    script.remaining -= 1
                    return script.status, script.timeout
        if self.decide is not None:
            return self.decide(point, pod, node_name), 0
        return None, 0

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return self._answer(FaultPoint.RESERVE, pod, node_name)[0]

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        with self._lock:
            self.unreserved.append((pod.uid, node_name))

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, int]:
        return self._answer(FaultPoint.PERMIT, pod, node_name)

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return self._answer(FaultPoint.PRE_BIND, pod, node_name)[0]

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | Awaiting | None:
        status = self._answer(FaultPoint.BIND, pod, node_name)[0]
        return _SKIP if status is None else status
