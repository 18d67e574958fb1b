"""Pod backoff: how long a pod whose scheduling attempt failed waits before it is retried.

This is ``backoffQueue.getBackoffTime``, ``calculateBackoffDuration``, ``alignToWindow`` and
``isPodBackingoff`` (pkg/scheduler/backend/queue/backoff_queue.go, v1.35) with the queue's
defaults (scheduling_queue.go). Since PR #128748 (v1.34) the count is the number of failures, not
of attempts: ``ConsecutiveErrorsCount`` when the latest failures were errors, else
``UnschedulableCount``. With SchedulerPopFromBackoffQ on, expiries are truncated to the 1 s
ordering window, and a pod whose expiry lies in the current window still backs off.

All times and durations are integer nanoseconds. The functions are pure, total on their
preconditions, and state PEP 316 contracts that ``ksspec prove`` checks with CrossHair.
"""

from __future__ import annotations

from typing import Final

from spec.quantities import SECOND, Duration, Timestamp

DEFAULT_POD_INITIAL_BACKOFF: Final[Duration] = 1 * SECOND
"""``DefaultPodInitialBackoffDuration`` (scheduling_queue.go): the first backoff."""
DEFAULT_POD_MAX_BACKOFF: Final[Duration] = 10 * SECOND
"""``DefaultPodMaxBackoffDuration``: the cap on any backoff."""
DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION: Final[Duration] = 5 * 60 * SECOND
"""``DefaultPodMaxInUnschedulablePodsDuration``: a pod left longer than this in unschedulablePods
is moved out by the leftover flush."""
BACKOFF_Q_ORDERING_WINDOW: Final[Duration] = 1 * SECOND
"""``backoffQOrderingWindowDuration``: the window expiries are aligned to, and the period of
``flushBackoffQCompleted`` (which ``Run`` aligns to the window)."""
UNSCHEDULABLE_FLUSH_PERIOD: Final[Duration] = 30 * SECOND
"""``Run``'s ``wait.Until(flushUnschedulablePodsLeftover, 30*time.Second)``."""


def calculate_backoff_duration(count: int, initial: Duration, maximum: Duration) -> Duration:
    """``initial`` doubled once per failure after the first, capped at ``maximum``; 0 for no failure.

    Kubernetes tests the cap as ``initial > maximum >> (count - 1)`` so that the shift never
    overflows; the same test is kept, so the result is the same bit for bit. With the defaults:
    1, 2, 4, 8, 10, 10, ... seconds.

    Kubernetes: `backoffQueue.calculateBackoffDuration` (pkg/scheduler/backend/queue/backoff_queue.go)

    pre: count >= 0 and initial >= 0 and maximum >= 0
    post: 0 <= __return__ <= maximum
    post: count == 0 or maximum == 0 or initial > maximum or __return__ >= initial
    post: count <= 1 or __return__ >= calculate_backoff_duration(count - 1, initial, maximum)
    """
    if count == 0:
        return 0
    shift = count - 1
    if initial > maximum >> shift:
        return maximum
    return initial << shift


def backoff_count(unschedulable_count: int, consecutive_errors_count: int) -> int:
    """The failure count a pod's backoff is computed from: its consecutive errors when its latest
    failures were errors (so one API error after many rejections does not jump to the maximum),
    else how often plugins rejected it.

    Kubernetes: `backoffQueue.getBackoffTime` (pkg/scheduler/backend/queue/backoff_queue.go)

    pre: unschedulable_count >= 0 and consecutive_errors_count >= 0
    post: __return__ == (consecutive_errors_count or unschedulable_count)
    """
    if consecutive_errors_count > 0:
        return consecutive_errors_count
    return unschedulable_count


def align_to_window(t: Timestamp, aligned: bool) -> Timestamp:
    """``t`` truncated to the start of its ordering window when ``aligned`` (PopFromBackoffQ on).

    Kubernetes: `backoffQueue.alignToWindow` (pkg/scheduler/backend/queue/backoff_queue.go)

    pre: t >= 0
    post: __return__ <= t
    post: not aligned or (__return__ % BACKOFF_Q_ORDERING_WINDOW == 0 and t - __return__ < BACKOFF_Q_ORDERING_WINDOW)
    """
    if not aligned:
        return t
    return t - t % BACKOFF_Q_ORDERING_WINDOW


def backoff_expiration(
    timestamp: Timestamp, count: int, initial: Duration, maximum: Duration, aligned: bool
) -> Timestamp | None:
    """When a pod that failed ``count`` times, last at ``timestamp``, ends its backoff: None (Go's
    zero time) for no backoff at all, when it never failed or ``maximum`` is 0.

    Kubernetes: `backoffQueue.getBackoffTime` (pkg/scheduler/backend/queue/backoff_queue.go)

    pre: timestamp >= 0 and count >= 0 and initial >= 0 and maximum >= 0
    post: (__return__ is None) == (count == 0 or maximum == 0)
    post: __return__ is None or timestamp - BACKOFF_Q_ORDERING_WINDOW < __return__ <= timestamp + maximum
    """
    if maximum == 0 or count == 0:
        return None
    return align_to_window(timestamp + calculate_backoff_duration(count, initial, maximum), aligned)


def is_backing_off(expiration: Timestamp | None, now: Timestamp, aligned: bool) -> bool:
    """Whether a pod whose backoff ends at ``expiration`` must still wait at ``now``: until ``now``'s
    window (or, unaligned, ``now`` itself) is past the expiry. No backoff never waits.

    Kubernetes: `backoffQueue.isPodBackingoff` (pkg/scheduler/backend/queue/backoff_queue.go)

    pre: now >= 0
    post: expiration is not None or not __return__
    """
    if expiration is None:
        return False
    return not expiration < align_to_window(now, aligned)
