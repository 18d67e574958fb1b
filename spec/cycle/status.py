"""The code of a Filter plugin's status: what ``Diagnosis.NodeToStatus`` records for a rejected node.

Kubernetes: `Code` (k8s.io/kube-scheduler framework/interface.go)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Code(StrEnum):
    """The code of a rejecting filter's status, by its Go name.

    Kubernetes: `Code` (k8s.io/kube-scheduler framework/interface.go)
    """

    UNSCHEDULABLE = "Unschedulable"
    """Rejected; preemption, or a change in the cluster, may make the node fit."""
    UNSCHEDULABLE_AND_UNRESOLVABLE = "UnschedulableAndUnresolvable"
    """Rejected; preemption cannot help (PostFilter leaves the node out)."""


@dataclass(frozen=True)
class FilterRejection:
    """A Filter plugin's rejection: its status code and reason (``fwk.NewStatus(code, reason)``)."""

    code: Code
    reason: str
