"""Observations of reference-implementation objects, in the canonical shapes of :mod:`conformance.observe`.

Shared by the reference adapter (:mod:`conformance.adapters.refimpl_adapter`) and its cycle harness
(:mod:`conformance.adapters.refimpl_cycle`), which both import it; it imports neither.
"""

from __future__ import annotations

from typing import Any

from conformance.observe import allocatable_json, ports_json, requested_json
from refimpl.cache import Cache, NodeInfo, Snapshot

JSON = Any


def node_info_json(info: NodeInfo) -> JSON:
    """A refimpl NodeInfo clone as the canonical ``NODE`` object (:func:`conformance.observe.node_info_json`)."""
    r, n, a = info.requested, info.non_zero_requested, info.allocatable
    return {
        "node": info.name,
        "pods": [p.pod.uid for p in info.pods],
        "requested": requested_json(r.milli_cpu, r.memory, r.ephemeral_storage, r.scalar_resources),
        "non_zero_requested": {"milli_cpu": n.milli_cpu, "memory": n.memory},
        "allocatable": allocatable_json(a.milli_cpu, a.memory, a.ephemeral_storage, a.allowed_pod_number,
                                        a.scalar_resources),
        "used_ports": ports_json((ip, proto, port) for ip, ports in info.used_ports.items() for proto, port in ports),
        "pvc_ref_counts": dict(sorted(info.pvc_ref_counts.items())),
        "pods_with_affinity": [p.pod.uid for p in info.pods_with_affinity],
        "pods_with_required_anti_affinity": [p.pod.uid for p in info.pods_with_required_anti_affinity],
        "image_states": {name: {"size": s.size, "num_nodes": s.num_nodes}
                         for name, s in sorted(info.image_states.items())},
    }


def cache_json(cache: Cache) -> JSON:
    """``Dump()``: every NodeInfo, the assumed pods, and the NodeInfo names newest generation first."""
    dump = cache.dump()
    return {
        "nodes": {name: node_info_json(info) for name, info in sorted(dump.nodes.items())},
        "assumed": sorted(dump.assumed_pods),
        "recency": sorted(dump.nodes, key=lambda name: -dump.nodes[name].generation),
    }


def snapshot_json(snapshot: Snapshot) -> JSON:
    """The snapshot's lists, used claims and every NodeInfo in its map (:func:`conformance.observe.snapshot_json`)."""
    return {
        "list": [i.name for i in snapshot.node_info_list],
        "affinity": [i.name for i in snapshot.have_pods_with_affinity_node_info_list],
        "anti_affinity": [i.name for i in snapshot.have_pods_with_required_anti_affinity_node_info_list],
        "used_pvcs": sorted(snapshot.used_pvc_set),
        "nodes": {name: node_info_json(info) for name, info in sorted(snapshot.node_info_map.items())},
    }
