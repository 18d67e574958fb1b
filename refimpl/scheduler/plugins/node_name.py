"""NodeName: a pod that names a node fits only that node (plugins/nodename/node_name.go, v1.35)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Final

from refimpl.cache import NodeInfo
from refimpl.scheduler.framework import CycleState, FilterPlugin, SignFragment, SignPlugin, Status
from refimpl.scheduler.framework.status import Code
from spec.objects import Pod

NAME: Final = "NodeName"
ERR_REASON: Final = "node(s) didn't match the requested node name"
"""``ErrReason``."""
SIGNATURE_KEY: Final = "v1.Pod.Spec.NodeName"


class NodeName(FilterPlugin, SignPlugin):
    """``NodeName``: Filter rejects (UnschedulableAndUnresolvable) every node but the one in ``Spec.NodeName``."""

    name = NAME
    filters_any_node = True

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: ``Fits(pod, nodeInfo)``."""
        if pod.node_name and (node_info.node is None or pod.node_name != node_info.node.name):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON)
        return None

    def passes_every_node(self, state: CycleState, pod: Pod) -> bool:
        return not pod.node_name

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], Status | None]:
        return [(SIGNATURE_KEY, json.dumps(pod.node_name))], None


def names(nodes: Sequence[NodeInfo]) -> list[str]:
    """The node names of NodeInfos (for tests and messages)."""
    return [info.name for info in nodes]
