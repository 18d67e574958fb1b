"""Opportunistic batching (KEP-5598, v1.35): reuse the last full cycle's ranking for the next identical pod.

``OpportunisticBatch`` (pkg/scheduler/framework/runtime/batch.go; digest §E). After a full filter-and-score cycle,
the scored nodes that were not chosen are kept, best first, with the pod's signature. The next cycle may take the
best remaining node as a *hint* instead of filtering and scoring every node, when all of these hold, checked in
this order (the first failing one is the flush reason):

1. there is a cached list (else: no hint, no reason);
2. the cycle count is the previous one plus 1 (``PodSkipped``: another pod was popped in between);
3. the previous cycle succeeded (``PodFailed``: never in v1.35, which always records success);
4. the pod has a signature equal to the cached one (``PodIncompatible``);
5. the list is at most 500 ms old, measured from the full cycle that built it (``Expired``);
6. the node chosen last is still in the snapshot (``NodeMissing``);
7. the pod would *not* fit on the node chosen last any more (``NodeNotFull``): one pod per node is assumed.

A failed check leaves the cached state in place; a hint pops its node off the list. The scheduler then runs every
filter on the hinted node alone; if it passes, it is the single feasible node (no scoring) and the state is kept;
otherwise a full cycle follows and replaces the state.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from refimpl.cache import Snapshot
from refimpl.cache.clock import Clock
from refimpl.scheduler.framework import CycleState, Framework
from refimpl.scheduler.select_host import ScoredNodes
from spec.objects import Pod

MAX_BATCH_AGE: Final = 500_000_000
"""``maxBatchAge``: 500 ms in nanoseconds."""


class FlushReason(StrEnum):
    """Why a cached list was not used (the ``batch_flush`` metric's reasons)."""

    POD_SKIPPED = "PodSkipped"
    POD_FAILED = "PodFailed"
    POD_INCOMPATIBLE = "PodIncompatible"
    EXPIRED = "Expired"
    NODE_MISSING = "NodeMissing"
    NODE_NOT_FULL = "NodeNotFull"
    POD_NOT_BATCHABLE = "PodNotBatchable"
    EMPTY_LIST = "EmptyList"


@dataclass
class _BatchState:
    signature: bytes
    sorted_nodes: ScoredNodes
    creation_time: int


@dataclass(frozen=True)
class _LastCycle:
    cycle_count: int
    chosen_node: str
    succeeded: bool


class OpportunisticBatch:
    """``OpportunisticBatch`` of one profile. Used by the (single) scheduling thread only."""

    def __init__(self, framework: Framework, clock: Clock, max_age: int = MAX_BATCH_AGE) -> None:
        self._framework = framework
        self._clock = clock
        self._max_age = max_age
        self._state: _BatchState | None = None
        self._last: _LastCycle = _LastCycle(-1, "", False)
        self.flushes: Counter[FlushReason] = Counter()
        """How often each flush reason occurred."""
        self.batched = 0
        """Cycles that used a hint."""
        self.hints_not_used = 0
        """Hints given whose node then failed the filters."""

    @property
    def cached_nodes(self) -> int:
        """How many nodes the cached list still holds (0 without one)."""
        return len(self._state.sorted_nodes) if self._state is not None else 0

    def get_node_hint(
        self, state: CycleState, pod: Pod, cycle_count: int, snapshot: Snapshot
    ) -> tuple[str, bytes | None]:
        """``GetNodeHint``: the hinted node ("" for none) and the pod's signature (computed every cycle)."""
        signature = self._framework.sign_pod(pod)
        reason = self._incompatibility(state, pod, cycle_count, signature, snapshot)
        if reason is not None:
            if reason is not _NO_STATE:
                self.flushes[FlushReason(reason)] += 1
            return "", signature
        assert self._state is not None
        return self._state.sorted_nodes.pop(), signature

    def _incompatibility(
        self, state: CycleState, pod: Pod, cycle_count: int, signature: bytes | None, snapshot: Snapshot
    ) -> str | None:
        """``batchStateCompatible``: the first failing check, or None if the list may be used."""
        batch = self._state
        if batch is None or len(batch.sorted_nodes) == 0:
            return _NO_STATE
        last = self._last
        if cycle_count != last.cycle_count + 1:
            return FlushReason.POD_SKIPPED
        if not last.succeeded:
            return FlushReason.POD_FAILED
        if signature is None or signature != batch.signature:
            return FlushReason.POD_INCOMPATIBLE
        if self._clock.now() > batch.creation_time + self._max_age:
            return FlushReason.EXPIRED
        info = snapshot.node_info_map.get(last.chosen_node)
        if info is None or info.node is None:
            return FlushReason.NODE_MISSING
        status = self._framework.run_filter_plugins(state, pod, info)
        if status is None or not status.is_rejected():
            return FlushReason.NODE_NOT_FULL
        return None

    def store_schedule_results(
        self,
        signature: bytes | None,
        hinted_node: str,
        chosen_node: str,
        other_nodes: ScoredNodes | None,
        cycle_count: int,
    ) -> None:
        """``StoreScheduleResults``: record the cycle; keep the list if the hint was used, else cache the other
        scored nodes (or drop the state when the pod cannot be batched or nothing is left)."""
        self._last = _LastCycle(cycle_count, chosen_node, True)
        if hinted_node and hinted_node == chosen_node:
            self.batched += 1
            return
        if hinted_node:
            self.hints_not_used += 1
        if signature is not None and other_nodes is not None and len(other_nodes) > 0:
            self._state = _BatchState(signature, other_nodes, self._clock.now())
            return
        self._state = None
        reason = FlushReason.POD_NOT_BATCHABLE if signature is None else FlushReason.EMPTY_LIST
        self.flushes[reason] += 1


_NO_STATE: Final = "NoState"
"""Not a flush: there is no cached list to use."""
