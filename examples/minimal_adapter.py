"""A minimal conformance adapter in Python: the protocol loop written out, around a cache implementation.

    ksspec conform --adapter "python examples/minimal_adapter.py"

Copied into another project, it runs with the Python environment ``ksspec`` is installed in (``pip install``, see
the README); in the checkout it finds the packages next to it.

It serves the cache, snapshot and node_tree areas (the runner skips dispatcher and cycle vectors) with the
reference implementation's :class:`refimpl.cache.Cache` standing in for *your* cache: replace the four marked
places (construction, applying an operation, mapping errors, building the observation) and keep the loop.
Only the standard library and :mod:`conformance.codec` (to read the spec objects of a step's arguments) are used
for the protocol itself; docs/conformance.md explains every message.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere in the checkout

from conformance.codec import CodecError, decode_operation
from refimpl.cache import Cache, FakeClock, GenerationCounter, NodeInfo, Snapshot
from spec.errors import CacheError, SchedulerExit
from spec.versions import PROFILES

AREAS = ["cache", "snapshot", "node_tree"]


class Instance:
    """One implementation instance: a cache and the scheduling cycle's snapshot."""

    def __init__(self, profile: str, ttl_ns: int) -> None:
        # (1) construction: a fresh cache with its own generation counter and a clock you control
        self.cache = Cache(profile=PROFILES[profile], ttl=ttl_ns, clock=FakeClock(0), generations=GenerationCounter())
        self.snapshot = Snapshot()

    def apply(self, op: str, args: dict[str, Any]) -> NodeInfo | None:
        # (2) applying an operation: call your implementation; return what AddNode/UpdateNode returned
        operation = decode_operation(op, args)  # the spec dataclass: AssumePod(pod=Pod(...)), ...
        if op == "update_snapshot":
            self.cache.update_snapshot(self.snapshot)
            return None
        if op == "update_metrics":
            self.cache.update_metrics()
            return None
        method = getattr(self.cache, op)  # assume_pod, finish_binding, forget_pod, add_pod, ... remove_node
        result: NodeInfo | None = method(*vars(operation).values())
        return result

    def observe(self, returned: NodeInfo | None) -> dict[str, Any]:
        # (4) the observation: plain JSON built from your own structures (shapes in conformance/observe.py)
        dump = self.cache.dump()
        size = self.cache.cache_size
        return {
            "nodes": {name: node_json(info) for name, info in sorted(dump.nodes.items())},
            "assumed": sorted(dump.assumed_pods),
            "recency": sorted(dump.nodes, key=lambda name: -dump.nodes[name].generation),
            "snapshot": {
                "list": [i.name for i in self.snapshot.node_info_list],
                "affinity": [i.name for i in self.snapshot.have_pods_with_affinity_node_info_list],
                "anti_affinity": [i.name for i in self.snapshot.have_pods_with_required_anti_affinity_node_info_list],
                "used_pvcs": sorted(self.snapshot.used_pvc_set),
                "nodes": {name: node_json(i) for name, i in sorted(self.snapshot.node_info_map.items())},
            },
            "metrics": {"assumed_pods": size.assumed_pods, "pods": size.pods, "nodes": size.nodes},
            "returned": "none" if returned is None else node_json(returned),
        }


def resources(r: Any, *extra: tuple[str, int]) -> dict[str, Any]:
    scalars = {k: v for k, v in sorted((r.scalar_resources or {}).items()) if v != 0}
    return {"milli_cpu": r.milli_cpu, "memory": r.memory, "ephemeral_storage": r.ephemeral_storage, **dict(extra),
            "scalars": scalars}


def node_json(info: NodeInfo) -> dict[str, Any]:
    a = info.allocatable
    return {
        "node": info.name,
        "pods": [p.pod.uid for p in info.pods],
        "requested": resources(info.requested),
        "non_zero_requested": {"milli_cpu": info.non_zero_requested.milli_cpu,
                               "memory": info.non_zero_requested.memory},
        "allocatable": resources(a, ("pods", a.allowed_pod_number)),
        "used_ports": sorted([ip, proto, port] for ip, ports in info.used_ports.items() for proto, port in ports),
        "pvc_ref_counts": dict(sorted(info.pvc_ref_counts.items())),
        "pods_with_affinity": [p.pod.uid for p in info.pods_with_affinity],
        "pods_with_required_anti_affinity": [p.pod.uid for p in info.pods_with_required_anti_affinity],
        "image_states": {n: {"size": s.size, "num_nodes": s.num_nodes} for n, s in sorted(info.image_states.items())},
    }


def answer(instance: Instance | None, request: dict[str, Any]) -> tuple[dict[str, Any], Instance | None]:
    """The response to one request, and the instance to keep."""
    kind, rid = request["type"], request["id"]
    if kind == "hello":
        capabilities = {"areas": AREAS, "profiles": list(PROFILES)}
        return {"type": "hello", "id": rid, "protocol_version": "1", "implementation": "minimal-python",
                "capabilities": capabilities}, instance
    if kind == "reset":
        if request["area"] not in AREAS:
            return {"type": "failure", "id": rid, "message": f"area {request['area']} not supported"}, None
        return {"type": "ready", "id": rid}, Instance(request["profile"], request["ttl_ns"])
    if kind == "bye":
        return {"type": "bye", "id": rid}, instance
    assert instance is not None and kind == "step"
    try:
        returned = instance.apply(request["op"], request["args"])
    except CodecError as error:
        return {"type": "result", "id": rid, "status": "error", "kind": "BadRequest", "message": str(error)}, instance
    except CacheError as error:  # (3) errors: map yours to the normalised kinds of spec/errors.py
        result = {"status": "error", "kind": str(error.kind), "message": error.message,
                  "observation": instance.observe(None)}
        return {"type": "result", "id": rid, **result}, instance
    except SchedulerExit as error:  # Kubernetes would exit: report it, keep serving
        return {"type": "result", "id": rid, "status": "fatal", "kind": str(error.kind)}, instance
    return {"type": "result", "id": rid, "status": "ok", "observation": instance.observe(returned)}, instance


def main() -> int:
    instance: Instance | None = None
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        response, instance = answer(instance, request)
        sys.stdout.write(json.dumps(response, separators=(",", ":")) + "\n")
        sys.stdout.flush()
        if request["type"] == "bye":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
