"""NodeUnschedulable: a cordoned node takes only pods that tolerate its unschedulable taint
(plugins/nodeunschedulable/node_unschedulable.go, v1.35)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from refimpl.cache import NodeInfo
from refimpl.scheduler.framework import CycleState, FilterPlugin, SignFragment, SignPlugin, Status
from refimpl.scheduler.framework.interfaces import filter_each
from refimpl.scheduler.framework.node_slice import NO_NODE, UNSCHEDULABLE, columns_of, flagged
from refimpl.scheduler.framework.status import Code
from refimpl.scheduler.plugins.taint_toleration import NO_SCHEDULE, sign_tolerations, tolerations_tolerate_taint
from spec.objects import Pod, Taint

NAME: Final = "NodeUnschedulable"
TAINT_NODE_UNSCHEDULABLE: Final = "node.kubernetes.io/unschedulable"
"""``v1.TaintNodeUnschedulable``."""
ERR_REASON_UNKNOWN_CONDITION: Final = "node(s) had unknown conditions"
ERR_REASON_UNSCHEDULABLE: Final = "node(s) were unschedulable"
_UNSCHEDULABLE_TAINT: Final = Taint(TAINT_NODE_UNSCHEDULABLE, effect=NO_SCHEDULE)


class NodeUnschedulable(FilterPlugin, SignPlugin):
    """``NodeUnschedulable``."""

    name = NAME
    filters_any_node = True

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: UnschedulableAndUnresolvable on an unschedulable node, unless the pod tolerates
        ``node.kubernetes.io/unschedulable:NoSchedule``."""
        node = node_info.node
        if node is None:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNKNOWN_CONDITION)
        if node.unschedulable and not tolerations_tolerate_taint(pod.tolerations, _UNSCHEDULABLE_TAINT):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSCHEDULABLE)
        return None

    def filter_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[tuple[int, Status]]:
        """:meth:`filter` of each node: only a node without a Node object, or cordoned when the pod does not
        tolerate that, can fail."""
        tolerated = tolerations_tolerate_taint(pod.tolerations, _UNSCHEDULABLE_TAINT)
        columns = columns_of(nodes)
        if columns is not None:
            suspects = flagged(*columns, NO_NODE if tolerated else NO_NODE | UNSCHEDULABLE)
        elif tolerated:
            suspects = [i for i, info in enumerate(nodes) if info.node is None]
        else:
            suspects = [i for i, info in enumerate(nodes) if (node := info.node) is None or node.unschedulable]
        return filter_each(self, state, pod, nodes, suspects) if suspects else []

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], Status | None]:
        return [sign_tolerations(pod)], None
