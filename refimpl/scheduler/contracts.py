"""CrossHair contracts for the scheduler's functions that take API objects or NodeInfo.

CrossHair cannot generate a ``spec.objects.Pod`` or a ``NodeInfo`` (see ``refimpl/cache/contracts.py``), so each
function here builds them from plain integers, calls the reference implementation, and states the Kubernetes rule
as ``post:`` conditions.
"""

from __future__ import annotations

from typing import Final

from refimpl.cache import NodeInfo, PodResource, Resource
from refimpl.cache.generation import GenerationCounter
from refimpl.scheduler.plugins.node_resources_fit import insufficient_resources
from spec.objects import Pod

GPU: Final = "example.com/gpu"
"""The one extended (scalar) resource the fit contract draws."""
MAX_PODS_ON_NODE: Final = 3
_NAMES: Final = ("cpu", "memory", "ephemeral-storage", GPU)


def fit_reasons(
    pods_on_node: int,
    allowed_pods: int,
    allocatable: tuple[int, int, int, int],
    requested: tuple[int, int, int, int],
    wanted: tuple[int, int, int, int],
) -> set[tuple[str, bool]]:
    """``fitsRequest`` (plugins/noderesources/fit.go, v1.35) on a node holding ``pods_on_node`` pods, with
    (cpu, memory, ephemeral storage, gpu) ``allocatable`` and ``requested``, for a pod wanting ``wanted``: the set of
    (reason, unresolvable) pairs. The rule in closed form: "Too many pods" when one more pod exceeds the node's pod
    count; a resource is insufficient when the pod wants some of it and more than is free, unresolvably so when it
    wants more than the node has at all.

    pre: 0 <= pods_on_node <= MAX_PODS_ON_NODE and allowed_pods >= 0
    pre: all(q >= 0 for q in allocatable + requested + wanted)
    post: (("Too many pods", False) in __return__) == (pods_on_node + 1 > allowed_pods)
    post: all((_insufficient(*r) in __return__) == _lacks(*r) for r in _rows(allocatable, requested, wanted))
    post: len(__return__) == (pods_on_node + 1 > allowed_pods) + _count_lacking(allocatable, requested, wanted)
    """
    info = NodeInfo(GenerationCounter())
    for index in range(pods_on_node):
        info.add_pod(Pod(uid=f"p{index}"))
    cpu, memory, storage, gpu = allocatable
    info.allocatable = Resource(milli_cpu=cpu, memory=memory, ephemeral_storage=storage,
                                allowed_pod_number=allowed_pods, scalar_resources={GPU: gpu})
    cpu, memory, storage, gpu = requested
    info.requested = Resource(milli_cpu=cpu, memory=memory, ephemeral_storage=storage,
                              scalar_resources={GPU: gpu})
    cpu, memory, storage, gpu = wanted
    request = PodResource(Resource(milli_cpu=cpu, memory=memory, ephemeral_storage=storage,
                                   scalar_resources={GPU: gpu} if gpu else None), cpu, memory)
    return set(insufficient_resources(request, info))


Row = tuple[str, int, int, int]
"""(resource name, allocatable, requested, wanted)."""


def _rows(allocatable: tuple[int, ...], requested: tuple[int, ...], wanted: tuple[int, ...]) -> list[Row]:
    return list(zip(_NAMES, allocatable, requested, wanted, strict=True))


def _lacks(name: str, allocatable: int, requested: int, wanted: int) -> bool:
    """The rule: the pod wants some of the resource and more than is free."""
    return wanted > 0 and wanted > allocatable - requested


def _insufficient(name: str, allocatable: int, requested: int, wanted: int) -> tuple[str, bool]:
    """The reason Kubernetes gives, unresolvable when the pod wants more than the node has at all."""
    return (f"Insufficient {name}", wanted > allocatable)


def _count_lacking(allocatable: tuple[int, ...], requested: tuple[int, ...], wanted: tuple[int, ...]) -> int:
    return sum(_lacks(*row) for row in _rows(allocatable, requested, wanted))
