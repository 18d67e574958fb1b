"""Pod backoff: how long a pod that failed a scheduling attempt waits before it may be retried.

This is ``backoffQueue.calculateBackoffDuration`` / ``getBackoffTime`` / ``alignToWindow`` and the queue's
defaults (pkg/scheduler/backend/queue/backoff_queue.go and scheduling_queue.go, v1.35; digest
``k8s-dispatcher-cycle.md`` §F.2). Since PR #128748 (merged May 2025, so from v1.34 on) the count is not
``Attempts`` (the number of pops) but the number of failures: ``ConsecutiveErrorsCount`` when the last failures
were errors, else ``UnschedulableCount``. For a pod that only ever failed as unschedulable the two agree (each pop
is followed by one failure), so the older Attempts-based releases give the same durations.

All times and durations are integer nanoseconds. The functions are pure and state PEP 316 contracts that
``ksspec prove`` checks with CrossHair.
"""

from __future__ import annotations

from typing import Final

SECOND: Final = 1_000_000_000
"""One second in nanoseconds."""

DEFAULT_POD_INITIAL_BACKOFF: Final = 1 * SECOND
"""``DefaultPodInitialBackoffDuration`` (scheduling_queue.go): the first backoff."""
DEFAULT_POD_MAX_BACKOFF: Final = 10 * SECOND
"""``DefaultPodMaxBackoffDuration`` (scheduling_queue.go): the cap on any backoff."""
DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION: Final = 5 * 60 * SECOND
"""``DefaultPodMaxInUnschedulablePodsDuration``: a pod left longer than this in unschedulablePods is flushed."""
BACKOFF_Q_ORDERING_WINDOW: Final = 1 * SECOND
"""``backoffQOrderingWindowDuration``: expiries are truncated to this window when PopFromBackoffQ is on, and
``flushBackoffQCompleted`` runs once per window, aligned to it."""
UNSCHEDULABLE_FLUSH_PERIOD: Final = 30 * SECOND
"""``Run``'s ``wait.Until(flushUnschedulablePodsLeftover, 30*time.Second)``."""


def calculate_backoff_duration(
    count: int, initial: int = DEFAULT_POD_INITIAL_BACKOFF, maximum: int = DEFAULT_POD_MAX_BACKOFF
) -> int:
    """``calculateBackoffDuration``: ``initial`` doubled once per failure after the first, capped at ``maximum``.

    ``count`` failures give 0 when ``count`` is 0 or ``maximum`` is 0 (backoff disabled), else
    ``initial << (count - 1)`` unless that exceeds ``maximum``. Kubernetes tests the cap as
    ``initial > maximum >> (count - 1)`` so the shift never overflows; Python integers do not overflow, but the
    same test is kept so the result is identical bit for bit. With the defaults: 1, 2, 4, 8, 10, 10, ... seconds.
    Fails with ``ValueError`` on a negative argument.

    pre: count >= 0 and initial >= 0 and maximum >= 0
    post: 0 <= __return__ <= max(maximum, 0)
    post: (count == 0 or maximum == 0) == (__return__ == 0) or initial == 0
    post: count <= 1 or maximum == 0 or __return__ >= calculate_backoff_duration(count - 1, initial, maximum)
    post: count < 1 or maximum == 0 or initial > maximum or __return__ >= initial
    """
    if count < 0 or initial < 0 or maximum < 0:
        raise ValueError(
            f"backoff needs a non-negative count and durations; got count={count}, initial={initial} ns, "
            f"maximum={maximum} ns"
        )
    if count == 0 or maximum == 0:
        return 0
    shift = count - 1
    if initial > maximum >> shift:
        return maximum
    return initial << shift


def backoff_count(unschedulable_count: int, consecutive_errors_count: int) -> int:
    """The failure count a pod's backoff is computed from (``getBackoffTime``, v1.35).

    A pod whose latest failures were errors (no rejector plugin) backs off by its consecutive errors, so a
    transient API error after many unschedulable attempts does not jump straight to the maximum; otherwise by its
    unschedulable count.

    pre: unschedulable_count >= 0 and consecutive_errors_count >= 0
    post: __return__ == (consecutive_errors_count if consecutive_errors_count > 0 else unschedulable_count)
    """
    if consecutive_errors_count > 0:
        return consecutive_errors_count
    return unschedulable_count


def align_to_window(t: int, enabled: bool = True, window: int = BACKOFF_Q_ORDERING_WINDOW) -> int:
    """``alignToWindow``: truncate ``t`` to the start of its ordering window when PopFromBackoffQ is on.

    ``time.Time.Truncate`` rounds toward the zero time, which for the non-negative times used here is flooring.

    pre: window > 0
    post: __return__ <= t
    post: not enabled or (__return__ % window == 0 and t - __return__ < window)
    post: enabled or __return__ == t
    """
    if not enabled:
        return t
    return t - t % window


def backoff_expiration(
    timestamp: int,
    count: int,
    initial: int = DEFAULT_POD_INITIAL_BACKOFF,
    maximum: int = DEFAULT_POD_MAX_BACKOFF,
    aligned: bool = True,
) -> int | None:
    """When a pod that failed ``count`` times, last at ``timestamp``, completes its backoff (``getBackoffTime``).

    None (Go's zero time) when the pod has no backoff at all: no failure yet, or ``maximum`` 0.

    pre: count >= 0 and initial >= 0 and maximum >= 0
    post: __return__ is None or __return__ <= timestamp + calculate_backoff_duration(count, initial, maximum)
    post: (__return__ is None) == (count == 0 or maximum == 0)
    """
    if maximum == 0 or count == 0:
        return None
    return align_to_window(timestamp + calculate_backoff_duration(count, initial, maximum), aligned)


def is_backing_off(expiration: int | None, now: int, aligned: bool = True) -> bool:
    """``isPodBackingoff``: whether a pod whose backoff ends at ``expiration`` must still wait at ``now``.

    Kubernetes compares ``!expiration.Before(alignToWindow(now))``: with window alignment an expiry anywhere in
    the current window still counts as backing off; without it, the pod waits until ``now`` passes the expiry.

    post: expiration is not None or not __return__
    """
    if expiration is None:
        return False
    return not expiration < align_to_window(now, aligned)
