"""NodePorts: a pod's host ports must be free on the node (plugins/nodeports/node_ports.go and
``HostPortInfo.CheckConflict``, v1.35)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Final

from refimpl.cache import NodeInfo
from refimpl.cache.resources import get_host_ports
from refimpl.scheduler.framework import (
    CycleState,
    FilterPlugin,
    PreFilterPlugin,
    PreFilterResult,
    SignFragment,
    SignPlugin,
    Status,
)
from refimpl.scheduler.framework.interfaces import filter_each
from refimpl.scheduler.framework.node_slice import USED_PORTS, columns_of, flagged
from refimpl.scheduler.framework.status import Code
from spec.objects import Pod

NAME: Final = "NodePorts"
ERR_REASON: Final = "node(s) didn't have free ports for the requested pod ports"
"""``ErrReason``."""
SIGNATURE_KEY: Final = "v1.Pod.Spec.HostPorts()"
_PRE_FILTER_KEY: Final = "PreFilter" + NAME
_SKIP: Final = Status(Code.SKIP)

WantedPort = tuple[str, str, int]
"""A sanitized (host IP, protocol, port)."""


def wanted_ports(pod: Pod) -> list[WantedPort]:
    """``GetHostPorts``: the pod's host ports (sidecar init containers first)."""
    return [(p.host_ip, p.protocol, p.host_port) for p in get_host_ports(pod)]


class NodePorts(PreFilterPlugin, FilterPlugin, SignPlugin):
    """``NodePorts``."""

    name = NAME
    filters_any_node = True

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter``: Skip a pod without host ports; otherwise remember them."""
        ports = wanted_ports(pod)
        if not ports:
            return None, _SKIP
        state.write(_PRE_FILTER_KEY, ports)
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: Unschedulable if a wanted port conflicts with one in use."""
        ports = state.get(_PRE_FILTER_KEY)
        if not isinstance(ports, list):
            ports = wanted_ports(pod)
        used = node_info.used_ports
        if not used:
            return None
        for ip, protocol, port in ports:
            if used.check_conflict(ip, protocol, port):  # fitsPorts
                return Status(Code.UNSCHEDULABLE, ERR_REASON)
        return None

    def filter_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[tuple[int, Status]]:
        """:meth:`filter` of each node: only a node with host ports in use can fail."""
        columns = columns_of(nodes)
        if columns is not None:
            suspects = flagged(*columns, USED_PORTS)
        else:
            suspects = [i for i, info in enumerate(nodes) if info.used_ports]
        return filter_each(self, state, pod, nodes, suspects) if suspects else []

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], Status | None]:
        return [(SIGNATURE_KEY, json.dumps(sorted(wanted_ports(pod))))], None
