"""The failure handler: what a scheduling cycle that did not place its pod leaves behind.

This is ``Scheduler.handleSchedulingFailure``, ``truncateMessage`` and ``updatePod`` (pkg/scheduler/schedule_one.go,
v1.35). A cycle fails when no node fits (a ``FitError``, after PostFilter: :mod:`spec.cycle.preemption`), when there
are no nodes, when Reserve or Permit rejects the pod, or on an error. The handler then:

1. records the plugins that rejected the pod (for the queueing hints) when the failure is a ``FitError``;
2. asks the informer for the pod as it is now: if it is gone, or bound meanwhile (an extender's bind that timed out,
   a crashed predecessor's bind), the pod is not requeued (``Done`` is called instead); if another pod of the same
   name (another UID) is there, the pod was recreated: it is not requeued and the handler stops (no nomination, no
   event, no patch); otherwise that version is handed back to the queue (``AddUnschedulableIfNotPresent``);
3. records the nomination in the queue's nominator (``AddNominatedPod``, :mod:`spec.queue.nominator`) before the API
   server knows of it, so the next cycle already counts it;
4. patches the pod's status: the ``PodScheduled`` condition, ``False``, reason ``Unschedulable`` for a rejection or
   ``SchedulerError`` for an error, the status message (truncated to 1,024 bytes), and the nominated node when the
   nominating info overrides it with another value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from spec.dispatcher.api_calls import NominatingInfo, NominatingMode, PodCondition, nominating_mode
from spec.objects import Pod
from spec.queue.nominator import Nominator, add_nominated_pod

POD_SCHEDULED: Final = "PodScheduled"
"""``v1.PodScheduled``: the condition the failure handler sets to False."""
REASON_UNSCHEDULABLE: Final = "Unschedulable"
"""``v1.PodReasonUnschedulable``: a plugin rejected the pod."""
REASON_SCHEDULER_ERROR: Final = "SchedulerError"
"""``v1.PodReasonSchedulerError``: the cycle failed with an error."""
NOTE_LENGTH_LIMIT: Final = 1024
"""``validation.NoteLengthLimit`` (pkg/apis/core/validation/events.go): the longest event note."""
TRUNCATION_SUFFIX: Final = " ..."


def truncate_message(message: str) -> str:
    """``message`` cut to :data:`NOTE_LENGTH_LIMIT` bytes, ending in " ..." when it was longer (Go slices bytes).

    Kubernetes: `truncateMessage` (pkg/scheduler/schedule_one.go)
    """
    raw = message.encode()
    if len(raw) <= NOTE_LENGTH_LIMIT:
        return message
    return raw[: NOTE_LENGTH_LIMIT - len(TRUNCATION_SUFFIX)].decode(errors="replace") + TRUNCATION_SUFFIX


@dataclass(frozen=True)
class FailureHandling:
    """What ``handleSchedulingFailure`` does with one failed pod.

    ``requeued`` is the version of the pod handed back to the queue (None: not requeued, ``Done`` instead);
    ``nominator`` the queue's nominator afterwards; ``condition`` the ``PodScheduled`` condition patched (None: no
    patch and no event, the pod was recreated); ``nominated_node_patch`` the nominated node the patch writes (None:
    left as it is); ``event_message`` the FailedScheduling event's note ("" without an event)."""

    requeued: Pod | None
    nominator: Nominator
    condition: PodCondition | None
    nominated_node_patch: str | None
    event_message: str


@dataclass(frozen=True)
class FailureRecord:
    """What the failure handler last wrote for a pod that the API server still has: the condition it patched (type
    ``PodScheduled``, status ``False``, its reason and its full message; the cycle observation reports all four) and
    the note of the ``FailedScheduling`` event it
    recorded (the message cut by :func:`truncate_message`)."""

    condition: PodCondition
    event_message: str


def failure_record(handled: FailureHandling) -> FailureRecord | None:
    """What ``handled`` writes to the pod: its condition and event note, or None when the handler stopped before the
    event and the patch (the pod was recreated).

    Kubernetes: `Scheduler.handleSchedulingFailure` (pkg/scheduler/schedule_one.go)
    """
    if handled.condition is None:
        return None
    return FailureRecord(handled.condition, handled.event_message)


def nominated_node_needs_update(pod: Pod, nominating: NominatingInfo | None) -> bool:
    """The status patch writes the nominated node only when the info overrides it with a different value.

    Kubernetes: `updatePod` (pkg/scheduler/schedule_one.go)
    """
    return (
        nominating is not None
        and nominating_mode(nominating) is NominatingMode.OVERRIDE
        and pod.nominated_node_name != nominating.nominated_node_name
    )


def handle_scheduling_failure(
    pod: Pod, rejected: bool, message: str, nominating: NominatingInfo | None, listed: Pod | None, nominator: Nominator,
    empty_clears: bool,
) -> FailureHandling:
    """The failure handler for ``pod`` (as the cycle had it): ``rejected`` tells a rejection (Unschedulable,
    UnschedulableAndUnresolvable) from an error, ``message`` is the status message, ``nominating`` the nominating
    info of the cycle (PostFilter's, or :data:`spec.queue.nominator.CLEAR_NOMINATED_NODE`), ``listed`` the pod as
    the informer has it now (None: deleted), ``empty_clears`` the release's
    :attr:`spec.versions.VersionProfile.empty_nomination_clears`.

    Kubernetes: `Scheduler.handleSchedulingFailure` (pkg/scheduler/schedule_one.go)
    """
    if listed is not None and listed.node_name == "" and listed.uid != pod.uid:  # recreated: Done, nothing else
        return FailureHandling(None, nominator, None, None, "")
    requeued = listed if listed is not None and listed.node_name == "" else None
    nominated_pod = requeued if requeued is not None else pod
    nominator = add_nominated_pod(nominator, nominated_pod, nominating, listed, empty_clears)
    reason = REASON_UNSCHEDULABLE if rejected else REASON_SCHEDULER_ERROR
    condition = PodCondition(POD_SCHEDULED, "False", reason, message)
    patch = nominating.nominated_node_name if nominating is not None and nominated_node_needs_update(pod, nominating) \
        else None
    return FailureHandling(requeued, nominator, condition, patch, truncate_message(message))
