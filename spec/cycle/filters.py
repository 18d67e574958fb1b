"""Which nodes a pod may be placed on: the filter plugins that decide resource placement.

These are the Filter extension points of the default plugins NodeName, NodeUnschedulable,
TaintToleration, NodeAffinity (node selector only), NodePorts and NodeResourcesFit
(pkg/scheduler/framework/plugins, v1.35), which read only the node, and PodTopologySpread
(:mod:`spec.cycle.podtopologyspread`) and InterPodAffinity (:mod:`spec.cycle.interpodaffinity`), whose PreFilter
reads every node of the cycle's snapshot. A node is *feasible* for a pod when every filter
passes on the snapshot's NodeInfo. The scheduling cycle (:mod:`spec.cycle.cycle`) may choose any
feasible node, so its invariants do not depend on the choice; :mod:`spec.cycle.select` states which of them
kube-scheduler picks (the scores and the allowed hosts).

A node that is not feasible is rejected by the first filter in the profile's order, with a status
code (:class:`Code`): what ``Diagnosis.NodeToStatus`` records for the node, and what decides
whether preemption may help (:func:`first_rejection`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from spec.cache.nodeinfo import DEFAULT_BIND_ALL_HOST_IP, HostPort, NodeInfo, host_port
from spec.cache.snapshot import Snapshot
from spec.cycle import interpodaffinity, podtopologyspread
from spec.cycle.interpodaffinity import NO_NAMESPACES, Namespaces
from spec.cycle.status import Code as Code  # re-exported: the code's home was this module
from spec.cycle.status import FilterRejection
from spec.objects import Node, Pod, Taint, Toleration
from spec.resources import Resource, compute_pod_resource, get_host_ports
from spec.valuetypes import remember_by_identity

TAINT_NODE_UNSCHEDULABLE: Final = "node.kubernetes.io/unschedulable"
"""``v1.TaintNodeUnschedulable``: the taint NodeUnschedulable asks a pod to tolerate."""
NO_SCHEDULE: Final = "NoSchedule"
NO_EXECUTE: Final = "NoExecute"


def tolerates(toleration: Toleration, taint: Taint) -> bool:
    """``Toleration.ToleratesTaint``: effect and key match (empty matches all) and the value matches
    under ``Equal``, or the operator is ``Exists``."""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    if toleration.operator == "Exists":
        return True
    return toleration.operator in ("", "Equal") and toleration.value == taint.value


def fits_node_name(pod: Pod, node: Node, info: NodeInfo) -> bool:
    """NodeName: a pod that names a node fits only that node."""
    return pod.node_name in ("", node.name)


def fits_node_unschedulable(pod: Pod, node: Node, info: NodeInfo) -> bool:
    """NodeUnschedulable: a cordoned node takes only pods tolerating its unschedulable taint."""
    taint = Taint(TAINT_NODE_UNSCHEDULABLE, effect=NO_SCHEDULE)
    return not node.unschedulable or any(tolerates(t, taint) for t in pod.tolerations)


def fits_taint_toleration(pod: Pod, node: Node, info: NodeInfo) -> bool:
    """TaintToleration: every NoSchedule and NoExecute taint is tolerated (PreferNoSchedule is not a filter)."""
    return all(
        any(tolerates(t, taint) for t in pod.tolerations)
        for taint in node.taints
        if taint.effect in (NO_SCHEDULE, NO_EXECUTE)
    )


def fits_node_affinity(pod: Pod, node: Node, info: NodeInfo) -> bool:
    """NodeAffinity, node selector part: the node carries every label the pod selects."""
    return all(node.labels.get(key) == value for key, value in pod.node_selector.items())


def ports_conflict(wanted: HostPort, used: frozenset[HostPort]) -> bool:
    """``HostPortInfo.CheckConflict``: 0.0.0.0 conflicts with the same protocol and port on any IP."""
    same_port = {(u.ip, u.protocol, u.port) for u in used if (u.protocol, u.port) == (wanted.protocol, wanted.port)}
    if wanted.ip == DEFAULT_BIND_ALL_HOST_IP:
        return bool(same_port)
    return any(ip in (wanted.ip, DEFAULT_BIND_ALL_HOST_IP) for ip, _, _ in same_port)


def fits_node_ports(pod: Pod, node: Node, info: NodeInfo) -> bool:
    """NodePorts: none of the pod's host ports conflicts with one in use on the node."""
    wanted = (host_port(p.host_ip, p.protocol, p.host_port) for p in get_host_ports(pod))
    return not any(ports_conflict(w, info.used_ports) for w in wanted)


def insufficient_resources(request: Resource, info: NodeInfo) -> list[str]:
    """``fitsRequest``: the resources the node lacks for ``request``, as Kubernetes names them.

    The pod count is always checked; a request of all zeros checks nothing else; each other
    resource is checked only where the pod requests more than 0, against Allocatable minus
    Requested (not NonZeroRequested).
    """
    lacking = []
    if len(info.pods) + 1 > info.allocatable.allowed_pod_number:
        lacking.append("pods")
    free = info.allocatable
    used = info.requested
    checks = (("cpu", request.milli_cpu, free.milli_cpu - used.milli_cpu),
              ("memory", request.memory, free.memory - used.memory),
              ("ephemeral-storage", request.ephemeral_storage, free.ephemeral_storage - used.ephemeral_storage))
    lacking += [name for name, wanted, available in checks if wanted > 0 and wanted > available]
    for name, wanted in request.scalar_resources.items():
        available = free.scalar_resources.get(name, 0) - used.scalar_resources.get(name, 0)
        if wanted > 0 and wanted > available:
            lacking.append(name)
    return lacking


def fits_node_resources(pod: Pod, node: Node, info: NodeInfo) -> bool:
    """NodeResourcesFit: the node has room for the pod's requests and one more pod."""
    return not insufficient_resources(compute_pod_resource(pod).resource, info)


Filter = Callable[[Pod, Node, NodeInfo], bool]

DEFAULT_FILTERS: Final[tuple[tuple[str, Filter], ...]] = (
    ("NodeUnschedulable", fits_node_unschedulable),
    ("NodeName", fits_node_name),
    ("TaintToleration", fits_taint_toleration),
    ("NodeAffinity", fits_node_affinity),
    ("NodePorts", fits_node_ports),
    ("NodeResourcesFit", fits_node_resources),
)
"""The filters of the default profile that the spec models and that read only the node, in the profile's order: the
MultiPoint list of ``getDefaultPlugins`` (pkg/scheduler/apis/config/v1/default_plugins.go) puts NodeUnschedulable
before NodeName."""

SNAPSHOT_FILTERS: Final = (podtopologyspread.NAME, interpodaffinity.NAME)
"""The filters of the default profile whose PreFilter reads every node of the cycle's snapshot, in the profile's
order; they follow NodeResourcesFit (and the volume plugins, which the spec does not model)."""
FILTER_ORDER: Final = (*(name for name, _ in DEFAULT_FILTERS), *SNAPSHOT_FILTERS)
"""Every filter the spec models, in the default profile's order."""


@dataclass(frozen=True)
class PreFilterStates:
    """What the PreFilter of :data:`SNAPSHOT_FILTERS` computes once per cycle for a pod (None: the plugin skips)."""

    pod_topology_spread: podtopologyspread.PreFilterState | None
    inter_pod_affinity: interpodaffinity.PreFilterState | None


@remember_by_identity(maxsize=256)
def pre_filter(pod: Pod, snapshot: Snapshot, namespaces: Namespaces = NO_NAMESPACES) -> PreFilterStates:
    """``RunPreFilterPlugins`` of :data:`SNAPSHOT_FILTERS` for ``pod`` over ``snapshot``, InterPodAffinity's
    namespace lister listing ``namespaces`` (the cycle's cluster's: :attr:`spec.cycle.cycle.Cluster.namespaces`; the
    profile's spread defaulting is the system's). Remembered: each node's filters of one cycle read the same state.

    Kubernetes: `frameworkImpl.RunPreFilterPlugins` (pkg/scheduler/framework/runtime/framework.go)
    Kubernetes: `InterPodAffinity.PreFilter` (pkg/scheduler/framework/plugins/interpodaffinity/filtering.go)
    """
    return PreFilterStates(
        podtopologyspread.pre_filter(pod, snapshot, fits_node_affinity, fits_taint_toleration),
        interpodaffinity.pre_filter(pod, snapshot, namespaces),
    )


def snapshot_filter_rejection(name: str, pod: Pod, node: Node, snapshot: Snapshot,
                              namespaces: Namespaces = NO_NAMESPACES) -> FilterRejection | None:
    """The rejection by filter ``name`` (one of :data:`SNAPSHOT_FILTERS`) of ``pod`` on ``node``, with its code and
    reason, or None if it passes; ``namespaces`` are the namespaces that exist (:func:`pre_filter`).

    Kubernetes: `PodTopologySpread.Filter` (pkg/scheduler/framework/plugins/podtopologyspread/filtering.go)
    Kubernetes: `InterPodAffinity.Filter` (pkg/scheduler/framework/plugins/interpodaffinity/filtering.go)
    """
    states = pre_filter(pod, snapshot, namespaces)
    if name == podtopologyspread.NAME:
        return podtopologyspread.filter_node(states.pod_topology_spread, pod, node)
    return interpodaffinity.filter_node(states.inter_pod_affinity, node)


@remember_by_identity(maxsize=1024)
def failing_filters(pod: Pod, info: NodeInfo, snapshot: Snapshot,
                    namespaces: Namespaces = NO_NAMESPACES) -> tuple[str, ...]:
    """The names of the filters that reject ``pod`` on the node of ``info`` (all of them if it has no node), in
    :data:`FILTER_ORDER`; ``snapshot`` is the cycle's and ``namespaces`` its cluster's (the PreFilter of
    :data:`SNAPSHOT_FILTERS` reads them). Remembered per objects: a cycle's search and its step's guard ask about
    the same nodes."""
    node = info.node
    if node is None:
        return FILTER_ORDER
    failing = tuple(name for name, passes in DEFAULT_FILTERS if not passes(pod, node, info))
    return failing + tuple(name for name in SNAPSHOT_FILTERS
                           if snapshot_filter_rejection(name, pod, node, snapshot, namespaces))


def is_feasible(pod: Pod, info: NodeInfo, snapshot: Snapshot, namespaces: Namespaces = NO_NAMESPACES) -> bool:
    """Whether every filter passes in the cycle's ``snapshot`` with its cluster's ``namespaces``: the pod may be
    placed on the node of ``info``."""
    return not failing_filters(pod, info, snapshot, namespaces)


# ============================================================================================
# The status of a rejection
# ============================================================================================


FILTER_CODES: Final[dict[str, Code]] = {
    "NodeUnschedulable": Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
    "NodeName": Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
    "TaintToleration": Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
    "NodeAffinity": Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
    "NodePorts": Code.UNSCHEDULABLE,
}
"""The code each filter but NodeResourcesFit rejects with (:func:`rejection_code` decides that one): evicting pods
frees host ports, but never changes a node's cordon, name, taints or labels. ``NodeUnschedulable.Filter`` (a node
without a Node object too: its unknown condition), ``NodeName.Filter``, ``TaintToleration.Filter``,
``NodeAffinity.Filter``, ``NodePorts.Filter`` (pkg/scheduler/framework/plugins, v1.35)."""


def unresolvable_resources(request: Resource, info: NodeInfo) -> list[str]:
    """The resources of :func:`insufficient_resources` the pod requests more of than the node's Allocatable
    holds at all (``InsufficientResource.Unresolvable``): no eviction can make room. The pod count never is.

    Kubernetes: `fitsRequest` (pkg/scheduler/framework/plugins/noderesources/fit.go)
    """
    free = info.allocatable
    wanted = {"cpu": request.milli_cpu, "memory": request.memory, "ephemeral-storage": request.ephemeral_storage,
              **request.scalar_resources}
    allocatable = {"cpu": free.milli_cpu, "memory": free.memory, "ephemeral-storage": free.ephemeral_storage,
                   **free.scalar_resources}
    return [name for name in insufficient_resources(request, info)
            if name != "pods" and wanted[name] > allocatable.get(name, 0)]


def rejection_code(name: str, pod: Pod, info: NodeInfo, snapshot: Snapshot,
                   namespaces: Namespaces = NO_NAMESPACES) -> Code:
    """The code of filter ``name``'s status when it rejects ``pod`` on ``info``: the plugin's fixed code
    (:data:`FILTER_CODES`); for NodeResourcesFit UnschedulableAndUnresolvable if some lacking resource is beyond
    the node's Allocatable (:func:`unresolvable_resources`), else Unschedulable; for :data:`SNAPSHOT_FILTERS` the
    code of their rejection (:func:`snapshot_filter_rejection`).

    Kubernetes: `Fit.Filter` (pkg/scheduler/framework/plugins/noderesources/fit.go)
    """
    if name in SNAPSHOT_FILTERS and info.node is not None:
        rejection = snapshot_filter_rejection(name, pod, info.node, snapshot, namespaces)
        assert rejection is not None, f"{name} does not reject the pod"
        return rejection.code
    if name != "NodeResourcesFit":
        return FILTER_CODES[name]
    if unresolvable_resources(compute_pod_resource(pod).resource, info):
        return Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    return Code.UNSCHEDULABLE


@dataclass(frozen=True)
class Rejection:
    """Why a node is not feasible: the first filter that rejects the pod there, and its status code."""

    plugin: str
    code: Code


def first_rejection(pod: Pod, info: NodeInfo, snapshot: Snapshot,
                    namespaces: Namespaces = NO_NAMESPACES) -> Rejection | None:
    """The status the Filter extension point gives ``pod`` on the node of ``info`` (in the cycle's ``snapshot``, with
    its cluster's ``namespaces``): the first filter in the profile's order that rejects it (Filter stops there), with
    its code; None if every filter passes.

    Kubernetes: `frameworkImpl.RunFilterPlugins` (pkg/scheduler/framework/runtime/framework.go)
    """
    failing = failing_filters(pod, info, snapshot, namespaces)
    if not failing:
        return None
    return Rejection(failing[0], rejection_code(failing[0], pod, info, snapshot, namespaces))
