"""The exact text of a failed scheduling cycle: each filter's reasons, and ``FitError.Error()``.

A scheduling cycle that finds no node fails with a ``FitError`` whose text becomes the message of the pod's
``PodScheduled=False`` condition (reason ``Unschedulable``) and of its ``FailedScheduling`` event
(``handleSchedulingFailure``, pkg/scheduler/schedule_one.go): ``"0/N nodes are available: "`` then, sorted, one
``"<count> <reason>"`` per distinct reason of the nodes' statuses, joined by ``", "``, and a period; then the
PostFilter message, if any, after a space and *without* a period of its own (framework/types.go ``FitError.Error``;
types_test.go ``TestFitError_Error`` expects none). A cluster without nodes fails with ``ErrNoNodesAvailable``.

A filter's reasons are its rejecting status's reasons: one for every filter but NodeResourcesFit, which gives one per
lacking resource; PodTopologySpread's and InterPodAffinity's reason depends on which of their rules fails
(:func:`spec.cycle.filters.snapshot_filter_rejection`). A Filter plugin added to
:data:`spec.cycle.filters.FILTER_ORDER` adds its entry to :data:`FILTER_REASONS` (or, reading the whole snapshot,
to :data:`spec.cycle.filters.SNAPSHOT_FILTERS`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final

from spec.cache.nodeinfo import NodeInfo
from spec.cache.snapshot import Snapshot
from spec.cycle.filters import (
    NO_EXECUTE,
    NO_SCHEDULE,
    SNAPSHOT_FILTERS,
    insufficient_resources,
    snapshot_filter_rejection,
    tolerates,
)
from spec.cycle.interpodaffinity import NO_NAMESPACES, Namespaces
from spec.objects import Pod
from spec.resources import compute_pod_resource
from spec.versions import VersionProfile

Reasons = Callable[[Pod, NodeInfo, Snapshot, VersionProfile], tuple[str, ...]]
"""A filter's reasons for rejecting a pod on a node of the cycle's snapshot, in a release."""

NO_NODE_AVAILABLE_MSG: Final = "0/{} nodes are available"
"""``NoNodeAvailableMsg`` (pkg/scheduler/framework/types.go)."""
ERR_NO_NODES_AVAILABLE: Final = "no nodes available to schedule pods"
"""``ErrNoNodesAvailable`` (pkg/scheduler/schedule_one.go): the error of a cycle whose snapshot has no node."""

ERR_REASON_UNSCHEDULABLE: Final = "node(s) were unschedulable"
"""NodeUnschedulable's ``ErrReasonUnschedulable``."""
ERR_REASON_NODE_NAME: Final = "node(s) didn't match the requested node name"
"""NodeName's ``ErrReason``."""
ERR_REASON_UNTOLERATED: Final = "node(s) had untolerated taint(s)"
"""TaintToleration's reason from v1.35 (:attr:`spec.versions.VersionProfile.taint_reason_names_the_taint`)."""
ERR_REASON_NODE_AFFINITY: Final = "node(s) didn't match Pod's node affinity/selector"
"""NodeAffinity's ``ErrReasonPod``."""
ERR_REASON_NODE_PORTS: Final = "node(s) didn't have free ports for the requested pod ports"
"""NodePorts' ``ErrReason``."""
TOO_MANY_PODS: Final = "Too many pods"
"""NodeResourcesFit's reason when the node holds its ``pods`` allocatable already."""


def taint_toleration_reasons(pod: Pod, info: NodeInfo, snapshot: Snapshot, profile: VersionProfile) -> tuple[str, ...]:
    """TaintToleration's reason: "node(s) had untolerated taint(s)"; v1.34 names the first untolerated NoSchedule
    or NoExecute taint instead, as ``{key: value}``.

    Kubernetes: `TaintToleration.Filter` (pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go)
    """
    if not profile.taint_reason_names_the_taint:
        return (ERR_REASON_UNTOLERATED,)
    assert info.node is not None, "a listed node has its Node object"
    taint = next(t for t in info.node.taints
                 if t.effect in (NO_SCHEDULE, NO_EXECUTE) and not any(tolerates(x, t) for x in pod.tolerations))
    return (f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}",)


def node_resources_fit_reasons(pod: Pod, info: NodeInfo, snapshot: Snapshot,
                               profile: VersionProfile) -> tuple[str, ...]:
    """NodeResourcesFit's reasons: "Too many pods", and "Insufficient <resource>" for each resource it lacks.

    Kubernetes: `Fit.Filter` (pkg/scheduler/framework/plugins/noderesources/fit.go)
    Kubernetes: `fitsRequest` (pkg/scheduler/framework/plugins/noderesources/fit.go)
    """
    request = compute_pod_resource(pod, pod_level_resources=profile.pod_level_resources).resource
    return tuple(TOO_MANY_PODS if name == "pods" else f"Insufficient {name}"
                 for name in insufficient_resources(request, info))


def snapshot_filter_reasons(plugin: str, pod: Pod, info: NodeInfo, snapshot: Snapshot,
                            namespaces: Namespaces = NO_NAMESPACES) -> tuple[str, ...]:
    """The reasons of ``plugin`` (PodTopologySpread or InterPodAffinity): the one reason of its rejection in the
    cycle's snapshot, with the cluster's ``namespaces``. PodTopologySpread: "node(s) didn't match pod topology spread
    constraints", with " (missing required label)" when the node lacks a topology key; InterPodAffinity: the first of
    its three rules that fails (the pod's affinity, the pod's anti-affinity, the existing pods' anti-affinity). Fails
    with ``AssertionError`` if the plugin does not reject the pod there.

    Kubernetes: `PodTopologySpread.Filter` (pkg/scheduler/framework/plugins/podtopologyspread/filtering.go)
    Kubernetes: `InterPodAffinity.Filter` (pkg/scheduler/framework/plugins/interpodaffinity/filtering.go)
    """
    assert info.node is not None, "a listed node has its Node object"
    rejection = snapshot_filter_rejection(plugin, pod, info.node, snapshot, namespaces)
    assert rejection is not None, f"{plugin} does not reject the pod"
    return (rejection.reason,)


def _fixed(reason: str) -> Reasons:
    return lambda pod, info, snapshot, profile: (reason,)


FILTER_REASONS: Final[dict[str, Reasons]] = {
    "NodeUnschedulable": _fixed(ERR_REASON_UNSCHEDULABLE),
    "NodeName": _fixed(ERR_REASON_NODE_NAME),
    "TaintToleration": taint_toleration_reasons,
    "NodeAffinity": _fixed(ERR_REASON_NODE_AFFINITY),
    "NodePorts": _fixed(ERR_REASON_NODE_PORTS),
    "NodeResourcesFit": node_resources_fit_reasons,
}
"""The reasons of each filter's rejecting status that reads only the node, by plugin name
(``NodeUnschedulable.Filter``, ``NodeName.Filter``, ``NodeAffinity.Filter``, ``NodePorts.Filter``;
pkg/scheduler/framework/plugins, v1.35); the filters of :data:`spec.cycle.filters.SNAPSHOT_FILTERS` give
:func:`snapshot_filter_reasons`."""


def filter_reasons(plugin: str, pod: Pod, info: NodeInfo, snapshot: Snapshot, profile: VersionProfile,
                   namespaces: Namespaces = NO_NAMESPACES) -> tuple[str, ...]:
    """The reasons of filter ``plugin``'s status when it rejects ``pod`` on the node of ``info`` in the cycle's
    ``snapshot`` (with its cluster's ``namespaces``). Fails with ``KeyError`` for a plugin that is neither one of
    :data:`spec.cycle.filters.SNAPSHOT_FILTERS` nor has an entry in :data:`FILTER_REASONS`."""
    if plugin in SNAPSHOT_FILTERS:
        return snapshot_filter_reasons(plugin, pod, info, snapshot, namespaces)
    return FILTER_REASONS[plugin](pod, info, snapshot, profile)


def fit_error_message(num_all_nodes: int, node_reasons: Iterable[tuple[str, ...]], pre_filter_msg: str = "",
                      post_filter_msg: str = "") -> str:
    """``FitError.Error()``: ``"0/N nodes are available:"``; then the PreFilter message and a period if PreFilter
    rejected the pod, else the sorted histogram of the rejected nodes' reasons (``node_reasons``: each node's) and
    a period, if there is any; then the PostFilter message, if any, without a period of its own.

    Kubernetes: `FitError.Error` (pkg/scheduler/framework/types.go)
    """
    message = NO_NODE_AVAILABLE_MSG.format(num_all_nodes) + ":"
    if pre_filter_msg:
        message += f" {pre_filter_msg}."
    else:
        counts: dict[str, int] = {}
        for reasons in node_reasons:
            for reason in reasons:
                counts[reason] = counts.get(reason, 0) + 1
        histogram = sorted(f"{count} {reason}" for reason, count in counts.items())
        if histogram:
            message += f" {', '.join(histogram)}."
    if post_filter_msg:
        message += f" {post_filter_msg}"
    return message
