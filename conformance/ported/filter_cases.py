"""A ported Filter table case (a pod, the existing pods, the nodes, Go's expected code per node) and its cycle
vector.

The vector adds the nodes, creates each existing pod and places it on its node through the scheduler (in an order
the spec's filters allow; a case with no such order is not a vector), creates the incoming pod, asks to schedule it
on each node the spec rejects (the step observes the first filter and its code), then on one node it accepts, or
fails the cycle when there is none. Expected outcomes are the spec's, as for every vector.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from conformance.operations import (
    BindPod,
    ClusterAddNamespace,
    ClusterAddNode,
    ClusterUpdateNode,
    ConfirmBinding,
    CreatePod,
    CycleOperation,
    FailScheduling,
    SchedulePod,
    apply_cycle,
    refreshed_snapshot,
)
from conformance.ported.common import go_case
from conformance.traces import Scenario
from spec.cycle.cycle import Cluster, new_cluster
from spec.cycle.filters import failing_filters
from spec.cycle.status import Code
from spec.frozenmap import FrozenMap
from spec.objects import Namespace, Node, Pod


@dataclass(frozen=True)
class FilterCase:
    """One Go table case: ``want`` maps each node to the code Go expects from the plugin (None: success);
    ``namespaces`` are the namespace lister's (name -> labels), created first in the vector."""

    test: str
    name: str
    pod: Pod
    pods: tuple[Pod, ...]
    nodes: tuple[Node, ...]
    want: dict[str, Code | None]
    namespaces: FrozenMap[str, FrozenMap[str, str]] = field(default_factory=FrozenMap)


def _placed(cluster: Cluster, pod: Pod) -> tuple[Cluster, list[CycleOperation]] | None:
    """Create ``pod`` unscheduled and place it on its node; None if the spec's filters reject it there."""
    unscheduled = replace(pod, node_name="")
    ops: list[CycleOperation] = [CreatePod(unscheduled), SchedulePod(pod.uid, pod.node_name), BindPod(pod.uid),
                                 ConfirmBinding(pod.uid)]
    after = cluster
    for op in ops:
        after, outcome = apply_cycle(after, op)
        if outcome.kind is not None:
            return None
    return after, ops


def place(nodes: tuple[Node, ...], pods: tuple[Pod, ...],
          namespaces: FrozenMap[str, FrozenMap[str, str]] = FrozenMap()) -> tuple[Cluster, list[CycleOperation]] | None:
    """The cluster with ``namespaces`` (name -> labels, each created first, in name order), ``nodes`` and the existing
    ``pods`` on their nodes, and the steps that built it; None if no order of the pods passes the filters. A node with
    taints is added without them and updated to have them once the existing pods are placed (Go's table tests put
    pods on tainted nodes directly)."""
    cluster = new_cluster()
    ops: list[CycleOperation] = []
    for name in sorted(namespaces):
        create = ClusterAddNamespace(Namespace(name, namespaces[name]))
        cluster, _ = apply_cycle(cluster, create)
        ops.append(create)
    for node in nodes:
        add = ClusterAddNode(replace(node, taints=()))
        cluster, _ = apply_cycle(cluster, add)
        ops.append(add)
    waiting = list(pods)
    while waiting:
        for pod in waiting:
            placed = _placed(cluster, pod)
            if placed is not None:
                cluster, steps = placed
                ops += steps
                waiting.remove(pod)
                break
        else:
            return None
    for node in nodes:
        if node.taints:
            cluster, _ = apply_cycle(cluster, ClusterUpdateNode(node))
            ops.append(ClusterUpdateNode(node))
    return cluster, ops


def setup(case: FilterCase) -> tuple[Cluster, list[CycleOperation]] | None:
    """:func:`place` of the case's namespaces, nodes and existing pods."""
    return place(case.nodes, case.pods, case.namespaces)


def scenario(case: FilterCase, go_file: str, *labels: str) -> Scenario | None:
    """The cycle vector of ``case`` (None if its existing pods cannot be placed through the scheduler, or if the
    incoming pod already names a node: a pod the scheduler schedules is created unscheduled)."""
    if case.pod.node_name:
        return None
    built = setup(case)
    if built is None:
        return None
    cluster, ops = built
    cluster, _ = apply_cycle(cluster, CreatePod(case.pod))
    ops.append(CreatePod(case.pod))
    snapshot = refreshed_snapshot(cluster)
    feasible = [n.name for n in case.nodes
                if not failing_filters(case.pod, snapshot.node_info_map[n.name], snapshot, cluster.namespaces)]
    ops += [SchedulePod(case.pod.uid, n.name) for n in case.nodes if n.name not in feasible]
    ops.append(SchedulePod(case.pod.uid, feasible[0]) if feasible else FailScheduling(case.pod.uid))
    return go_case("cycle", go_file, case.test, case.name, ops, *labels)


def unique_ids(scenarios: list[Scenario]) -> list[Scenario]:
    """``scenarios`` with ids made unique: a case name whose slug (cut at 64 characters) repeats an earlier one's
    gets ``_2``, ``_3``... (the description keeps the whole Go case name)."""
    seen: dict[str, int] = {}
    out = []
    for s in scenarios:
        seen[s.id] = seen.get(s.id, 0) + 1
        out.append(s if seen[s.id] == 1 else replace(s, id=f"{s.id}_{seen[s.id]}"))
    return out
