"""Pods a Permit plugin told to wait: ``waitingPod`` and ``waitingPodsMap`` (framework/runtime/waiting_pods_map.go).

A waiting pod is resolved once: allowed when every waiting plugin allowed it, rejected by any plugin (or by the
framework, "removed", when the pod is deleted), or rejected on behalf of a plugin whose timeout passed. Timeouts
are read from the scheduler's clock, so a simulator with a virtual clock decides when they fire: a single-threaded
driver sees a timeout when it polls after advancing the clock; a thread blocked in :meth:`WaitingPod.block` re-reads
the clock at least every :data:`BLOCK_POLL_SECONDS`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Final

from refimpl.cache.clock import Clock
from refimpl.scheduler.framework.status import Code, Status
from spec.objects import Pod

BLOCK_POLL_SECONDS: Final = 0.01
"""How often a blocked waiter re-reads the clock for timeouts."""
REMOVED_MESSAGE: Final = "removed"
"""``RejectWaitingPod``'s message: the pod was deleted while waiting."""


def go_duration(nanoseconds: int) -> str:
    """``time.Duration.String`` for non-negative durations: "1m30s", "10s", "1.5s", "250ms", "0s"."""
    if nanoseconds == 0:
        return "0s"
    if nanoseconds < 1_000_000_000:
        for unit, size in (("ms", 1_000_000), ("µs", 1_000), ("ns", 1)):
            if nanoseconds >= size:
                return _trim(nanoseconds, size) + unit
    hours, rest = divmod(nanoseconds, 3_600_000_000_000)
    minutes, rest = divmod(rest, 60_000_000_000)
    text = f"{hours}h" if hours else ""
    if hours or minutes:
        text += f"{minutes}m"
    return text + _trim(rest, 1_000_000_000) + "s"


def _trim(value: int, unit: int) -> str:
    whole, fraction = divmod(value, unit)
    if not fraction:
        return str(whole)
    digits = len(str(unit)) - 1
    return f"{whole}.{fraction:0{digits}d}".rstrip("0")


class WaitingPod:
    """``waitingPod``: the plugins still to allow the pod, each with a deadline; the one final status."""

    def __init__(self, pod: Pod, node_name: str, plugin_timeouts: dict[str, int], clock: Clock) -> None:
        self.pod = pod
        self.node_name = node_name
        self.description = "permit"
        self._clock = clock
        start = clock.now()
        self._timeouts = dict(plugin_timeouts)
        self._deadlines = {plugin: start + timeout for plugin, timeout in plugin_timeouts.items()}
        self._status: Status | None = None
        self._resolved = False
        self._cond = threading.Condition()

    @property
    def pending_plugins(self) -> list[str]:
        """``GetPendingPlugins``."""
        with self._cond:
            return sorted(self._deadlines)

    def allow(self, plugin: str) -> None:
        """``Allow``: ``plugin`` lets the pod go; the pod is allowed once no plugin is pending."""
        with self._cond:
            self._deadlines.pop(plugin, None)
            if not self._deadlines:
                self._resolve(None)

    def reject(self, plugin: str, message: str) -> None:
        """``Reject``: the pod is rejected (Unschedulable, attributed to ``plugin``)."""
        with self._cond:
            self._deadlines.clear()
            self._resolve(Status(Code.UNSCHEDULABLE, message, plugin=plugin))

    def _resolve(self, status: Status | None) -> None:
        if not self._resolved:  # the channel has capacity 1: later outcomes are dropped
            self._resolved = True
            self._status = status
            self._cond.notify_all()

    def _check_timeouts(self) -> None:
        """Fire the earliest expired timer, as ``time.AfterFunc`` would have."""
        if self._resolved or not self._deadlines:
            return
        now = self._clock.now()
        plugin, deadline = min(self._deadlines.items(), key=lambda item: (item[1], item[0]))
        if now >= deadline:
            waited = go_duration(self._timeouts[plugin])
            self._deadlines.clear()
            self._resolve(Status(Code.UNSCHEDULABLE, f"rejected due to timeout after waiting {waited} at plugin "
                                 f"{plugin}", plugin=plugin))

    def poll(self) -> bool:
        """Whether the pod is resolved (after firing any expired timeout)."""
        with self._cond:
            self._check_timeouts()
            return self._resolved

    def block(self) -> None:
        """Wait until the pod is resolved."""
        with self._cond:
            while True:
                self._check_timeouts()
                if self._resolved:
                    return
                self._cond.wait(BLOCK_POLL_SECONDS)

    def status(self) -> Status | None:
        """The final status (None: allowed); only once resolved."""
        with self._cond:
            assert self._resolved, "the waiting pod is not resolved yet"
            return self._status


class WaitingPods:
    """``waitingPodsMap``: waiting pods by UID. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pods: dict[str, WaitingPod] = {}

    def add(self, waiting: WaitingPod) -> None:
        with self._lock:
            self._pods[waiting.pod.uid] = waiting

    def remove(self, uid: str) -> None:
        with self._lock:
            self._pods.pop(uid, None)

    def get(self, uid: str) -> WaitingPod | None:
        with self._lock:
            return self._pods.get(uid)

    def __len__(self) -> int:
        with self._lock:
            return len(self._pods)

    def __iter__(self) -> Iterator[WaitingPod]:
        with self._lock:
            return iter(list(self._pods.values()))
