"""The operation universe of :mod:`tests.support.universe`, drawn faster (the state machines draw from these).

The universe draws a pod as ``sampled_from(POD_UIDS).flatmap(pods_with_uid)``, which builds and validates a new
strategy on every draw; over thousands of state-machine steps that dominates the run time. These strategies draw
the same values (a pod of :func:`pods_with_uid` given one of the UIDs, a node of :func:`node_variants` given one of
the names) from strategies built once.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import strategies as st

from spec.objects import Node, Pod, with_node_name
from tests.support.universe import NODE_NAMES, POD_UIDS, node_variants, pods_with_uid, renamed


def _named(node: Node, name: str) -> Node:
    return replace(node, name=name)


def _with_uid(pod: Pod, uid: str) -> Pod:
    return renamed(pod, uid)


pods = st.builds(_with_uid, pods_with_uid(POD_UIDS[0]), st.sampled_from(POD_UIDS))
"""Any pod of the universe, without a node name (as ``universe.pods``)."""

placed_pods = st.builds(with_node_name, pods, st.sampled_from((*NODE_NAMES, "n9")))
"""Pods with a node name, possibly one that never exists (as ``universe.placed_pods``)."""

any_pod = st.one_of(placed_pods, placed_pods.map(lambda p: replace(p, uid="")), pods)
"""Any pod object, including one with an empty UID."""

node_shapes = node_variants(NODE_NAMES[0])
"""A node object of the universe, to be renamed (as ``universe.node_variants``)."""

nodes = st.builds(_named, node_shapes, st.sampled_from(NODE_NAMES))
"""Any node object of the universe (as ``universe.nodes``)."""
