"""What a plugin or a cycle step returns: a status code with reasons, and the fit error of a pod that fits nowhere.

``fwk.Code`` and ``fwk.Status`` (k8s.io/kube-scheduler framework/interface.go, v0.35.0), ``framework.NodeToStatus``,
``framework.Diagnosis`` and ``framework.FitError`` (pkg/scheduler/framework/types.go). As in Go, a success may be
written ``None`` (a nil ``*Status``): plugins on hot paths return None for success and allocate nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import Final


class Code(IntEnum):
    """``fwk.Code``, with Kubernetes' numbering."""

    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    """Rejected; preemption or a cluster change may help."""
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    """Rejected; preemption cannot help."""
    WAIT = 4
    """Permit: wait for the pod to be allowed."""
    SKIP = 5
    """PreFilter/PreScore: this plugin's later points are skipped; Bind: try the next binder."""
    PENDING = 6
    """Rejected until some external condition changes (no backoff)."""


CODE_NAMES: Final = {
    Code.SUCCESS: "Success",
    Code.ERROR: "Error",
    Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable",
    Code.WAIT: "Wait",
    Code.SKIP: "Skip",
    Code.PENDING: "Pending",
}

REJECTED_CODES: Final = frozenset({Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING})


class Status:
    """``fwk.Status``: a code, human-readable reasons, the plugin that produced it, and an optional error."""

    __slots__ = ("code", "error", "plugin", "reasons")

    def __init__(self, code: Code, *reasons: str, plugin: str = "", error: BaseException | None = None) -> None:
        self.code = code
        self.reasons: tuple[str, ...] = reasons
        self.plugin = plugin
        self.error = error

    def is_success(self) -> bool:
        """``IsSuccess``."""
        return self.code is Code.SUCCESS

    def is_rejected(self) -> bool:
        """``IsRejected``: Unschedulable, UnschedulableAndUnresolvable or Pending."""
        return self.code in REJECTED_CODES

    def is_wait(self) -> bool:
        return self.code is Code.WAIT

    def is_skip(self) -> bool:
        return self.code is Code.SKIP

    def message(self) -> str:
        """``Message``: the reasons joined by ", "."""
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> Status:
        """``WithPlugin`` / ``SetPlugin``: this status attributed to ``plugin`` (a copy)."""
        return Status(self.code, *self.reasons, plugin=plugin, error=self.error)

    def as_error(self) -> BaseException:
        """``AsError``: the wrapped error, or an exception carrying the message."""
        return self.error if self.error is not None else RuntimeError(self.message())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Status):
            return NotImplemented
        return (self.code, self.reasons, self.plugin) == (other.code, other.reasons, other.plugin)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        plugin = f", plugin={self.plugin!r}" if self.plugin else ""
        return f"Status({CODE_NAMES[self.code]}, {self.message()!r}{plugin})"


SUCCESS: Final = Status(Code.SUCCESS)
"""A shared success status (never mutated: every ``with_plugin`` copies)."""


def code_of(status: Status | None) -> Code:
    """``Status.Code()`` of a possibly nil status: None is success."""
    return Code.SUCCESS if status is None else status.code


def is_success(status: Status | None) -> bool:
    """``Status.IsSuccess()`` of a possibly nil status."""
    return status is None or status.code is Code.SUCCESS


def is_rejected(status: Status | None) -> bool:
    """``Status.IsRejected()`` of a possibly nil status."""
    return status is not None and status.code in REJECTED_CODES


def as_status(error: BaseException) -> Status:
    """``AsStatus``: an Error status wrapping ``error``."""
    return Status(Code.ERROR, str(error), error=error)


# --------------------------------------------------------------------------------------------
# Filter diagnosis and the fit error
# --------------------------------------------------------------------------------------------


class NodeToStatus:
    """``framework.NodeToStatus``: the status of each node a filter rejected, and the status of every node not
    listed (``absentNodesStatus``, UnschedulableAndUnresolvable by default)."""

    __slots__ = ("absent_nodes_status", "node_to_status")

    def __init__(self) -> None:
        self.node_to_status: dict[str, Status] = {}
        self.absent_nodes_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    def get(self, node_name: str) -> Status:
        """``Get``: the node's status, or the absent-nodes status."""
        return self.node_to_status.get(node_name, self.absent_nodes_status)

    def set(self, node_name: str, status: Status) -> None:
        self.node_to_status[node_name] = status

    def __len__(self) -> int:
        """``Len``: how many nodes are listed explicitly."""
        return len(self.node_to_status)


class Diagnosis:
    """``framework.Diagnosis``: why no node fits: per-node statuses and the plugins that rejected the pod."""

    __slots__ = ("node_to_status", "pending_plugins", "post_filter_msg", "pre_filter_msg", "unschedulable_plugins")

    def __init__(self) -> None:
        self.node_to_status = NodeToStatus()
        self.unschedulable_plugins: set[str] = set()
        self.pending_plugins: set[str] = set()
        self.pre_filter_msg = ""
        self.post_filter_msg = ""

    def add_plugin_status(self, status: Status) -> None:
        """``AddPluginStatus``: remember the rejecting plugin as unschedulable or pending."""
        if not status.plugin:
            return
        if status.code is Code.PENDING:
            self.pending_plugins.add(status.plugin)
        elif status.is_rejected():
            self.unschedulable_plugins.add(status.plugin)


NO_NODE_AVAILABLE_MSG: Final = "0/{} nodes are available"
"""``NoNodeAvailableMsg``."""


class FitError(Exception):
    """``framework.FitError``: the pod fits on none of ``num_all_nodes`` nodes, and why."""

    def __init__(self, pod_uid: str, num_all_nodes: int, diagnosis: Diagnosis) -> None:
        self.pod_uid = pod_uid
        self.num_all_nodes = num_all_nodes
        self.diagnosis = diagnosis
        super().__init__()

    def __str__(self) -> str:
        """``FitError.Error``: "0/N nodes are available: <sorted reason histogram>." and the PostFilter message."""
        message = NO_NODE_AVAILABLE_MSG.format(self.num_all_nodes) + ":"
        diagnosis = self.diagnosis
        if diagnosis.pre_filter_msg:
            message += f" {diagnosis.pre_filter_msg}."
        else:
            counts: dict[str, int] = {}
            statuses = diagnosis.node_to_status
            for status in statuses.node_to_status.values():
                for reason in status.reasons:
                    counts[reason] = counts.get(reason, 0) + 1
            absent = self.num_all_nodes - len(statuses)
            if absent > 0:  # the nodes without a status of their own read the absent-nodes status
                for reason in statuses.absent_nodes_status.reasons:
                    counts[reason] = counts.get(reason, 0) + absent
            histogram = sorted(f"{count} {reason}" for reason, count in counts.items())
            if histogram:
                message += f" {', '.join(histogram)}."
        if diagnosis.post_filter_msg:
            message += f" {diagnosis.post_filter_msg}."
        return message


def fit_error_on_one_node(pod_uid: str, node_name: str, status: Status) -> FitError:
    """The FitError Reserve, Permit and the binding cycle build when a plugin rejects the chosen node."""
    diagnosis = Diagnosis()
    diagnosis.node_to_status.set(node_name, status)
    diagnosis.add_plugin_status(status)
    return FitError(pod_uid, 1, diagnosis)


def rejected(code: Code, reasons: Iterable[str], plugin: str) -> Status:
    """A rejection status attributed to ``plugin``."""
    return Status(code, *reasons, plugin=plugin)
