"""The outcomes of a cache operation that are not success: errors and process exits.

Kubernetes returns Go errors with formatted messages. The spec gives each one a normalised
*kind*, which is what implementations are compared on, and keeps Kubernetes' message as
information (errata 2: the texts differ between versions). Where Kubernetes ends the process
(``klog.FlushAndExit`` or a nil dereference), the spec raises :class:`SchedulerExit` instead: a
distinct fatal outcome that no caller may treat as an ordinary error.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorKind(StrEnum):
    """Normalised names of the errors a cache operation can return."""

    INVALID_POD_KEY = "InvalidPodKey"
    """``GetPodKey``: "cannot get cache key for pod with empty UID"."""
    POD_ALREADY_IN_CACHE = "PodAlreadyInCache"
    """``AssumePod``: "pod %v(%v) is in the cache, so can't be assumed"."""
    POD_NOT_ASSUMED = "PodNotAssumed"
    """``ForgetPod``: "pod %v(%v) wasn't assumed so cannot be forgotten" (later versions: "is not
    assumed, so it cannot be removed or forgotten")."""
    POD_ASSUMED_ON_OTHER_NODE = "PodAssumedOnOtherNode"
    """``ForgetPod``: "pod %v(%v) was assumed on %v but assigned to %v"."""
    POD_ALREADY_ADDED = "PodAlreadyAdded"
    """``AddPod``: "pod %v(%v) was already in added state"."""
    POD_NOT_ADDED = "PodNotAdded"
    """``UpdatePod``: "pod %v(%v) is not added to scheduler cache, so cannot be updated"."""
    ASSUMED_POD_UPDATE = "AssumedPodUpdate"
    """``UpdatePod``: "assumed pod %v(%v) should not be updated"."""
    POD_NOT_FOUND_FOR_REMOVAL = "PodNotFoundForRemoval"
    """``RemovePod``: "pod %v(%v) is not found in scheduler cache, so cannot be removed from it"."""
    POD_NOT_FOUND = "PodNotFound"
    """``GetPod``: "pod %v(%v) does not exist in scheduler cache"."""
    POD_NOT_IN_NODE_INFO = "PodNotInNodeInfo"
    """``NodeInfo.RemovePod``: "no corresponding pod %s in pods of node %s"."""
    NODE_NOT_FOUND = "NodeNotFound"
    """``RemoveNode``: "node %v is not found"."""
    NODE_NOT_IN_TREE = "NodeNotInTree"
    """``nodeTree.removeNode``: "node %q in group %q was not found"."""
    SNAPSHOT_INCONSISTENT = "SnapshotInconsistent"
    """``UpdateSnapshot``: "snapshot state is not consistent, length of NodeInfoList=..."."""
    UNSUPPORTED_OPERATION = "UnsupportedOperation"
    """The operation does not exist in the selected Kubernetes version profile."""


class FatalKind(StrEnum):
    """Normalised names of the paths on which the Kubernetes scheduler process exits."""

    POD_UPDATED_ON_OTHER_NODE = "PodUpdatedOnOtherNode"
    """``UpdatePod``: the new pod names another node than the cached one ("Scheduler cache is
    corrupted and can badly affect scheduling decisions"), then ``FlushAndExit``."""
    POD_REMOVED_FROM_OTHER_NODE = "PodRemovedFromOtherNode"
    """``RemovePod``: the pod object names another, non-empty node than the cached one."""
    ASSUMED_POD_WITHOUT_STATE = "AssumedPodWithoutState"
    """``cleanupAssumedPods``: "Key found in assumed set but not in podStates"."""
    NIL_NODE_DEREFERENCE = "NilNodeDereference"
    """A Go nil dereference: ``NodeInfo.RemovePod`` formatting its error on a NodeInfo without a
    node, or ``nodeTree.updateNode`` from a nil old node to a zoned new one (derived from the
    code; errata quirks)."""


class CacheError(Exception):
    """An error a cache operation returns; the operation changed nothing unless it says so."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CacheError):
            return (self.kind, self.message) == (other.kind, other.message)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.kind, self.message))

    def __repr__(self) -> str:
        return f"CacheError({self.kind.value}, {self.message!r})"


class SchedulerExit(Exception):
    """The scheduler process would exit here; the cache state after it is undefined."""

    def __init__(self, kind: FatalKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message

    def __repr__(self) -> str:
        return f"SchedulerExit({self.kind.value}, {self.message!r})"
