"""``framework.QueuedPodInfo`` (a pod and its scheduling history in the queue) and the default QueueSort order,
``PrioritySort`` (pkg/scheduler/framework/types.go, plugins/queuesort/priority_sort.go; v1.35)."""

from __future__ import annotations

from collections.abc import Callable

from spec.objects import Pod, klog_kobj


class QueuedPodInfo:
    """``framework.QueuedPodInfo``: a pod and its scheduling history. Mutable, like Kubernetes' pointer; the
    scheduler may replace ``pod`` (the failure handler re-reads it from the informer) and sets the rejector
    plugin sets before handing the pod back with ``add_unschedulable_if_not_present``."""

    __slots__ = (
        "attempts",
        "backoff_expiration",
        "consecutive_errors_count",
        "gating_plugin",
        "initial_attempt_timestamp",
        "pending_plugins",
        "pod",
        "timestamp",
        "unschedulable_count",
        "unschedulable_plugins",
    )

    def __init__(self, pod: Pod, timestamp: int) -> None:
        self.pod = pod
        self.timestamp = timestamp
        """When the pod was added, or last handed back after a failed attempt."""
        self.initial_attempt_timestamp: int | None = None
        """When the pod first entered activeQ."""
        self.attempts = 0
        """How many times the pod was popped."""
        self.unschedulable_count = 0
        """Failed attempts with a rejector plugin (the backoff count since v1.34)."""
        self.consecutive_errors_count = 0
        """Failed attempts in a row without a rejector plugin (errors)."""
        self.backoff_expiration: int | None = None
        """Cached ``getBackoffTime``; None: not computed yet (Go's zero time)."""
        self.unschedulable_plugins: set[str] = set()
        self.pending_plugins: set[str] = set()
        self.gating_plugin = ""
        """``GatingPlugin``: the PreEnqueue plugin that last rejected the pod ("" once every plugin passed)."""

    def gated(self) -> bool:
        """``Gated``: a PreEnqueue plugin rejected the pod the last time they ran."""
        return self.gating_plugin != ""

    @property
    def uid(self) -> str:
        """The pod's UID, the queue's key."""
        return self.pod.uid

    def rejector_plugins(self) -> set[str]:
        """``UnschedulablePlugins.Union(PendingPlugins)``."""
        return self.unschedulable_plugins | self.pending_plugins

    def __repr__(self) -> str:
        return (
            f"QueuedPodInfo({klog_kobj(self.pod)} uid={self.uid} attempts={self.attempts} "
            f"unschedulable={self.unschedulable_count} errors={self.consecutive_errors_count})"
        )


LessFunc = Callable[[QueuedPodInfo, QueuedPodInfo], bool]
"""``fwk.LessFunc``: the QueueSort plugin's order."""


def priority_sort_less(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
    """``PrioritySort.Less``: higher priority first; equal priorities in order of ``timestamp``."""
    return a.pod.priority > b.pod.priority or (a.pod.priority == b.pod.priority and a.timestamp < b.timestamp)


def pod_key(pod: Pod) -> str:
    """The key the sub-queues hold a pod under, ``namespace/name`` (``podInfoKeyFunc``,
    pkg/scheduler/backend/queue/scheduling_queue.go; unschedulablePods' ``GetPodFullName`` names the same pairs). A pod
    with an empty name, which the API server never admits, is keyed as if its UID were its name."""
    return f"{pod.namespace}/{pod.name or pod.uid}"


def queued_pod_key(pinfo: QueuedPodInfo) -> str:
    """The heaps' key function: :func:`pod_key` of the pod info's pod, as Kubernetes' ``podInfoKeyFunc``."""
    return pod_key(pinfo.pod)
