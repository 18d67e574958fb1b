"""The informer contract: what the scheduler may assume about the events that feed its cache.

Kubernetes' cache keeps several invariants only for event streams a real informer and a real
scheduler produce (errata, "Quirks"). This module states that environment assumption as one
predicate over the current state and the next operation, so tests can drive the spec with
contract-following streams (where every invariant must hold) and with adversarial ones (where
only the ``always`` invariants of :mod:`spec.cache.invariants` must hold).

Under the contract:

- the pod object passed to ``ForgetPod``, ``UpdatePod`` (as old) and ``RemovePod`` is the object
  the cache holds for that UID, or for ``RemovePod`` that object with an empty node name (the
  last state known after a missed delete); ``UpdatePod`` keeps the UID and, for the informer,
  never changes the node of a bound pod;
- no two pods on one node share a host port (the NodePorts filter and the kubelet refuse it);
- ``AddNode`` names a node the cache does not have (a placeholder or ghost NodeInfo is fine);
  ``UpdateNode`` and ``RemoveNode`` pass the node object the cache holds for a node it has.

Operations outside the contract that Kubernetes answers with an ordinary error (a pod or node
it does not know, a pod in the wrong state) are still contract-following: they are what the
scheduler and informer do when they race.
"""

from __future__ import annotations

from spec.cache.cache import CacheState
from spec.cache.nodeinfo import host_port
from spec.cache.operations import (
    AddNode,
    AddPod,
    AssumePod,
    ForgetPod,
    Operation,
    RemoveNode,
    RemovePod,
    UpdateNode,
    UpdatePod,
)
from spec.objects import Pod
from spec.resources import get_host_ports
from spec.valuetypes import replace


def _is_cached_object(state: CacheState, pod: Pod) -> bool:
    current = state.pod_states.get(pod.uid)
    return current is None or current.pod == pod


def _ports_free(state: CacheState, pod: Pod, ignoring_uid: str = "") -> bool:
    """No pod on ``pod.node_name`` other than ``ignoring_uid`` uses a host port ``pod`` wants."""
    info = state.nodes.get(pod.node_name)
    if info is None:
        return True
    wanted = {host_port(p.host_ip, p.protocol, p.host_port) for p in get_host_ports(pod)}
    used = {
        host_port(p.host_ip, p.protocol, p.host_port)
        for other in info.pods
        if other.uid not in (pod.uid, ignoring_uid)
        for p in get_host_ports(other)
    }
    return not wanted & used


def _is_live_node(state: CacheState, name: str) -> bool:
    info = state.nodes.get(name)
    return info is not None and info.node is not None


def follows_informer_contract(state: CacheState, op: Operation) -> bool:
    """Whether ``op`` is one a real informer and scheduler could issue in ``state``."""
    match op:
        case AssumePod(pod) | AddPod(pod):
            return _ports_free(state, pod)
        case ForgetPod(pod):
            return _is_cached_object(state, pod)
        case UpdatePod(old, new):
            current = state.pod_states.get(old.uid)
            return (
                _is_cached_object(state, old)
                and new.uid == old.uid
                and (current is None or current.pod.node_name == new.node_name)
                and _ports_free(state, new)
            )
        case RemovePod(pod):
            current = state.pod_states.get(pod.uid)
            return current is None or pod in (current.pod, replace(current.pod, node_name=""))
        case AddNode(node):
            return not _is_live_node(state, node.name)
        case UpdateNode(old, new):
            return (
                _is_live_node(state, new.name)
                and old is not None
                and state.nodes[new.name].node == old
            )
        case RemoveNode(node):
            return node.name not in state.nodes or state.nodes[node.name].node == node
    return True

