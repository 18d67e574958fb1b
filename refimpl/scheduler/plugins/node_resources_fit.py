"""NodeResourcesFit: Filter on free resources, Score with the default LeastAllocated strategy
(plugins/noderesources/fit.go, least_allocated.go, resource_allocation.go, v1.35).

The default scoring strategy is ``LeastAllocated`` over cpu and memory, weight 1 each: per resource
``(allocatable - requested) * 100 / allocatable`` (0 when requested exceeds allocatable; a resource the node has
none of is left out), averaged by weight with integer division. "Requested" is the node's NonZeroRequested plus the
pod's requests with the non-zero defaults (100m cpu, 200Mi memory) for containers that request none.
Ignored extended resources and DRA-backed extended resources (alpha in v1.35) are not modelled.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import compress, count, repeat
from operator import is_not, le, lt
from typing import Final, cast

from refimpl.cache import NodeInfo, PodResource, compute_pod_resource
from refimpl.cache.resources import NON_ZERO_DEFAULTS, pod_requests
from refimpl.scheduler.framework import (
    MAX_NODE_SCORE,
    CycleState,
    FilterPlugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ScorePlugin,
    SignFragment,
    SignPlugin,
    Status,
)
from refimpl.scheduler.framework.interfaces import filter_each
from refimpl.scheduler.framework.node_slice import NodeColumns, columns_of, gather
from refimpl.scheduler.framework.status import Code
from spec.objects import Container, Pod
from spec.quantities import CPU, MEMORY

NAME: Final = "NodeResourcesFit"
SIGNATURE_KEY: Final = "v1.Pod.Spec.ContainerRequestsAndOverheads()"
DEFAULT_RESOURCE_WEIGHTS: Final = (("cpu", 1), ("memory", 1))
"""``NodeResourcesFitArgs`` default: LeastAllocated over cpu and memory, weight 1 each."""
_PRE_FILTER_KEY: Final = "PreFilter" + NAME
_PRE_SCORE_KEY: Final = "PreScore" + NAME


def insufficient_resources(request: PodResource, node_info: NodeInfo) -> list[tuple[str, bool]]:
    """``fitsRequest``: (reason, unresolvable) for each resource the node lacks, in Kubernetes' order: pods, cpu,
    memory, ephemeral storage, then scalar resources (sorted by name; Go visits its map at random)."""
    lacking: list[tuple[str, bool]] = []
    allocatable = node_info.allocatable
    requested = node_info.requested
    if len(node_info.pods) + 1 > allocatable.allowed_pod_number:
        lacking.append(("Too many pods", False))
    wanted = request.resource
    scalars = wanted.scalar_resources
    if wanted.milli_cpu == 0 and wanted.memory == 0 and wanted.ephemeral_storage == 0 and not scalars:
        return lacking
    if wanted.milli_cpu > 0 and wanted.milli_cpu > allocatable.milli_cpu - requested.milli_cpu:
        lacking.append(("Insufficient cpu", wanted.milli_cpu > allocatable.milli_cpu))
    if wanted.memory > 0 and wanted.memory > allocatable.memory - requested.memory:
        lacking.append(("Insufficient memory", wanted.memory > allocatable.memory))
    if wanted.ephemeral_storage > 0 and (
        wanted.ephemeral_storage > allocatable.ephemeral_storage - requested.ephemeral_storage
    ):
        lacking.append(("Insufficient ephemeral-storage", wanted.ephemeral_storage > allocatable.ephemeral_storage))
    if scalars:
        free = allocatable.scalar_resources or {}
        used = requested.scalar_resources or {}
        for name in sorted(scalars):
            quantity = scalars[name]
            if quantity == 0:
                continue
            if quantity > free.get(name, 0) - used.get(name, 0):
                lacking.append((f"Insufficient {name}", quantity > free.get(name, 0)))
    return lacking


def least_requested_score(requested: int, capacity: int) -> int:
    """``leastRequestedScore``: the unused share of ``capacity`` on a 0-100 scale.

    pre: requested >= 0 and capacity >= 0
    post: 0 <= __return__ <= 100
    post: capacity == 0 or requested > capacity or __return__ == (capacity - requested) * 100 // capacity
    """
    if capacity == 0 or requested > capacity:
        return 0
    return (capacity - requested) * MAX_NODE_SCORE // capacity


def least_allocated_score(pod_cpu: int, pod_memory: int, node_info: NodeInfo) -> int:
    """``leastResourceScorer`` with the default weights: cpu and memory (non-zero requests) against allocatable."""
    allocatable = node_info.allocatable
    non_zero = node_info.non_zero_requested
    return least_allocated_figures(pod_cpu, pod_memory, allocatable.milli_cpu, allocatable.memory,
                                   non_zero.milli_cpu, non_zero.memory)


def least_allocated_figures(pod_cpu: int, pod_memory: int, capacity_cpu: int, capacity_memory: int, used_cpu: int,
                            used_memory: int) -> int:
    """:func:`least_allocated_score` of a node of these allocatable (capacity) and non-zero requested figures."""
    node_score = weight_sum = 0
    if capacity_cpu:
        node_score += least_requested_score(used_cpu + pod_cpu, capacity_cpu)
        weight_sum += 1
    if capacity_memory:
        node_score += least_requested_score(used_memory + pod_memory, capacity_memory)
        weight_sum += 1
    return node_score // weight_sum if weight_sum else 0


def _code(full: bool, lacks_cpu: bool, over_cpu: bool, lacks_memory: bool, over_memory: bool) -> int:
    """The five comparisons of ``fitsRequest`` on a node as a 5-bit number (0: none holds)."""
    return full | lacks_cpu << 1 | over_cpu << 2 | lacks_memory << 3 | over_memory << 4


def _bits(code: int) -> tuple[bool, bool, bool, bool, bool]:
    """The comparisons :func:`_code` made ``code`` of."""
    return bool(code & 1), bool(code & 2), bool(code & 4), bool(code & 8), bool(code & 16)


def _container_requests(containers: Sequence[Container]) -> list[object]:
    return [[sorted(c.requests.items()), c.restart_policy or ""] for c in containers]


class NodeResourcesFit(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, SignPlugin):
    """``Fit`` with the LeastAllocated scoring strategy."""

    name = NAME
    filters_any_node = True

    def __init__(self, pod_level_resources: bool = True) -> None:
        self.pod_level_resources = pod_level_resources
        self._statuses: dict[tuple[tuple[str, bool], ...], Status] = {}

    def _resource(self, state: CycleState, pod: Pod) -> PodResource:
        resource = state.get(_PRE_FILTER_KEY)
        if isinstance(resource, PodResource):
            return resource
        return compute_pod_resource(pod, pod_level_resources=self.pod_level_resources)

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter``: compute the pod's requests once (``computePodResourceRequest``)."""
        state.write(_PRE_FILTER_KEY, compute_pod_resource(pod, pod_level_resources=self.pod_level_resources))
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: Unschedulable listing every lacking resource; UnschedulableAndUnresolvable if the pod asks
        for more of some resource than the node has allocatable at all."""
        resource = state.get(_PRE_FILTER_KEY)
        if not isinstance(resource, PodResource):
            resource = self._resource(state, pod)
        wanted = resource.resource
        allocatable = node_info.allocatable
        requested = node_info.requested
        if (  # the common case, decided without building the list of reasons
            len(node_info.pods) < allocatable.allowed_pod_number
            and wanted.milli_cpu <= allocatable.milli_cpu - requested.milli_cpu
            and wanted.memory <= allocatable.memory - requested.memory
            and wanted.ephemeral_storage <= allocatable.ephemeral_storage - requested.ephemeral_storage
            and not wanted.scalar_resources
        ):
            return None
        lacking = insufficient_resources(resource, node_info)
        if not lacking:
            return None
        return self._status(lacking)

    def filter_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[tuple[int, Status]]:
        """:meth:`filter` of each node: the common case of ``fitsRequest`` (room for one more pod, and for every
        resource the pod requests) over all the nodes at once; only the nodes it does not decide are filtered one by
        one, for their exact reasons."""
        resource = state.get(_PRE_FILTER_KEY)
        if not isinstance(resource, PodResource):
            resource = self._resource(state, pod)
        wanted = resource.resource
        if wanted.scalar_resources:
            return filter_each(self, state, pod, nodes, range(len(nodes)))
        cpu, memory, storage = wanted.milli_cpu, wanted.memory, wanted.ephemeral_storage
        columns = columns_of(nodes)
        if columns is not None:  # the same test on the rows
            table, rows = columns
            if not storage and (NAME, "Filter", cpu, memory) in table.memos:  # the rows' verdicts are kept
                return self._filter_rows(table, rows, cpu, memory)
            if rows and (  # every node passes when the least free figures do (gathered in C)
                    min(gather(table.pod_room, rows)) > 0 and cpu <= min(gather(table.free_milli_cpu, rows))
                    and memory <= min(gather(table.free_memory, rows))
                    and (not storage or storage <= min(gather(table.free_ephemeral_storage, rows)))):
                return []
            if not storage:
                return self._filter_rows(table, rows, cpu, memory)
            room, free_cpu, free_memory, free_storage = (table.pod_room, table.free_milli_cpu, table.free_memory,
                                                         table.free_ephemeral_storage)
            suspects = [i for i, row in enumerate(rows)
                        if not (room[row] > 0 and cpu <= free_cpu[row] and memory <= free_memory[row]
                                and storage <= free_storage[row])]
            return filter_each(self, state, pod, nodes, suspects) if suspects else []
        suspects = [
            i for i, info in enumerate(nodes)
            if not (len(info.pods) < (free := info.allocatable).allowed_pod_number
                    and cpu <= free.milli_cpu - (used := info.requested).milli_cpu
                    and memory <= free.memory - used.memory
                    and storage <= free.ephemeral_storage - used.ephemeral_storage)
        ]
        return filter_each(self, state, pod, nodes, suspects) if suspects else []

    def _filter_rows(self, table: NodeColumns, rows: Sequence[int], cpu: int, memory: int) -> list[tuple[int, Status]]:
        """:meth:`filter` of the nodes of ``rows`` for a pod requesting ``cpu`` and ``memory`` only, all in C but
        for one Python step per distinct verdict. A row's verdict is five comparisons of ``fitsRequest`` (no room
        for a pod; cpu, memory lacking; cpu, memory beyond allocatable), kept as a 5-bit code (0: fits) in a memo
        column for pods of these requests until the row is refreshed, so a cycle computes only the rows that
        changed; the few codes present are turned into statuses as :meth:`filter` makes them (a loop over
        thousands of full nodes, each through :meth:`filter`, cost ten times as much)."""
        memo = table.memo_column((NAME, "Filter", cpu, memory))
        if memo is None:  # no memo column left: the comparisons of every row, in C
            keys = list(zip(map(le, gather(table.pod_room, rows), repeat(0)),
                            map(lt, gather(table.free_milli_cpu, rows), repeat(cpu)),
                            map(lt, gather(table.allocatable_milli_cpu, rows), repeat(cpu)),
                            map(lt, gather(table.free_memory, rows), repeat(memory)),
                            map(lt, gather(table.allocatable_memory, rows), repeat(memory)), strict=True))
            by_key = {key: self._verdict(cpu, memory, *key) for key in set(keys)}
            found = list(map(by_key.__getitem__, keys))
            missing = compress(zip(count(), found), map(is_not, found, repeat(None)))
            return cast(list[tuple[int, Status]], list(missing))  # the None statuses were left out
        codes: Sequence[int | None] = gather(memo, rows)
        if None in codes:  # the rows refreshed since they were last filtered for pods of these requests
            codes = list(codes)
            for i, code in enumerate(codes):
                if code is None:
                    row = rows[i]
                    codes[i] = memo[row] = _code(
                        table.pod_room[row] <= 0, table.free_milli_cpu[row] < cpu,
                        table.allocatable_milli_cpu[row] < cpu, table.free_memory[row] < memory,
                        table.allocatable_memory[row] < memory)
        known = cast(Sequence[int], codes)
        if not any(known):
            return []
        verdicts = {code: self._verdict(cpu, memory, *_bits(code)) for code in set(known)}
        if all(verdicts[code] is not None for code in verdicts if code):  # every code but 0 rejects: taken in C
            taken = zip(compress(count(), known), map(verdicts.__getitem__, filter(None, known)), strict=True)
            return cast(list[tuple[int, Status]], list(taken))
        statuses = list(map(verdicts.__getitem__, known))
        rejected = compress(zip(count(), statuses), map(is_not, statuses, repeat(None)))
        return cast(list[tuple[int, Status]], list(rejected))  # the None statuses were left out

    def _verdict(self, cpu: int, memory: int, full: bool, lacks_cpu: bool, over_cpu: bool, lacks_memory: bool,
                 over_memory: bool) -> Status | None:
        """:meth:`filter`'s status on a node of these comparisons (see :meth:`_filter_rows`) for a pod requesting
        ``cpu`` and ``memory`` only: ``insufficient_resources`` read from them."""
        lacking: list[tuple[str, bool]] = []
        if full:
            lacking.append(("Too many pods", False))
        if cpu > 0 and lacks_cpu:
            lacking.append(("Insufficient cpu", over_cpu))
        if memory > 0 and lacks_memory:
            lacking.append(("Insufficient memory", over_memory))
        return self._status(lacking) if lacking else None

    def _status(self, lacking: list[tuple[str, bool]]) -> Status:
        """The status listing ``lacking`` (reason, unresolvable): one shared per set of reasons, since statuses are
        never changed once made."""
        key = tuple(lacking)
        status = self._statuses.get(key)
        if status is None:
            unresolvable = any(flag for _, flag in lacking)
            code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else Code.UNSCHEDULABLE
            status = self._statuses[key] = Status(code, *(reason for reason, _ in lacking), plugin=NAME)
        return status

    def score_requests(self, pod: Pod) -> tuple[int, int]:
        """The pod's cpu and memory as LeastAllocated scores them: ``PodRequests`` with 100m cpu and 200Mi memory for
        every container that requests none (``calculatePodResourceRequest``, ``useRequested`` false). Unlike the
        non-zero figures of ``PodInfo.CalculateResource``, the defaults apply per container; pod-level requests are
        ignored, as ``NewFit`` builds its ``resourceAllocationScorer`` without ``enablePodLevelResources`` (the
        Filter reads them: :func:`spec.cycle.scores.fit_requests`)."""
        requests = pod_requests(pod, pod_level_resources=False, non_missing=NON_ZERO_DEFAULTS)
        return requests.get(CPU, 0), requests.get(MEMORY, 0)

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """``PreScore``: the pod's cpu and memory requests with the non-zero defaults (:meth:`score_requests`)."""
        state.write(_PRE_SCORE_KEY, self.score_requests(pod))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """``Score``: LeastAllocated."""
        requests = state.get(_PRE_SCORE_KEY)
        if not isinstance(requests, tuple):
            requests = self.score_requests(pod)
        return least_allocated_score(requests[0], requests[1], node_info), None

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[list[int], Status | None]:
        """:meth:`score` for every node (``leastResourceScorer`` over cpu and memory)."""
        requests = state.get(_PRE_SCORE_KEY)
        if not isinstance(requests, tuple):
            requests = self.score_requests(pod)
        cpu, memory = requests
        columns = columns_of(nodes)
        if columns is not None:  # the same on the rows
            table, rows = columns
            memo = table.memo_column((NAME, cpu, memory))
            if memo is not None:  # a row's score for pods of these requests, kept until the row changes
                held: Sequence[int | None] = gather(memo, rows)
                if None not in held:
                    return list(cast(Sequence[int], held)), None
                scores_now = list(held)
                for i, score in enumerate(held):
                    if score is None:
                        row = rows[i]
                        scores_now[i] = memo[row] = least_allocated_figures(
                            cpu, memory, table.allocatable_milli_cpu[row], table.allocatable_memory[row],
                            table.non_zero_milli_cpu[row], table.non_zero_memory[row])
                return cast(list[int], scores_now), None
            # Nodes of one machine shape holding the same requests score the same: each distinct row of figures
            # is scored once (a few dozen among hundreds of nodes), and the rows are gathered and matched in C.
            figures = list(zip(gather(table.allocatable_milli_cpu, rows), gather(table.allocatable_memory, rows),
                               gather(table.non_zero_milli_cpu, rows), gather(table.non_zero_memory, rows),
                               strict=True))
            score_of: dict[tuple[int, int, int, int], int | None] = {}
            for key in set(figures):
                capacity_cpu, capacity_memory, used_cpu, used_memory = key
                score_of[key] = (  # None: a capacity is 0, for least_allocated_score to decide
                    (((capacity_cpu - used_cpu - cpu) * MAX_NODE_SCORE // capacity_cpu
                      if used_cpu + cpu <= capacity_cpu else 0)
                     + ((capacity_memory - used_memory - memory) * MAX_NODE_SCORE // capacity_memory
                        if used_memory + memory <= capacity_memory else 0)) // 2
                    if capacity_cpu and capacity_memory else None)
            fast = list(map(score_of.__getitem__, figures))
            return [least_allocated_score(cpu, memory, nodes[i]) if score is None else score
                    for i, score in enumerate(fast)] if None in fast else cast(list[int], fast), None
        scores: list[int] = []
        append = scores.append
        for info in nodes:  # least_allocated_score, inlined for the usual node that has both resources
            free = info.allocatable
            capacity_cpu, capacity_memory = free.milli_cpu, free.memory
            if capacity_cpu and capacity_memory:
                used = info.non_zero_requested
                wanted_cpu, wanted_memory = used.milli_cpu + cpu, used.memory + memory
                append((((capacity_cpu - wanted_cpu) * MAX_NODE_SCORE // capacity_cpu
                         if wanted_cpu <= capacity_cpu else 0)
                        + ((capacity_memory - wanted_memory) * MAX_NODE_SCORE // capacity_memory
                           if wanted_memory <= capacity_memory else 0)) // 2)
            else:
                append(least_allocated_score(cpu, memory, info))
        return scores, None

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], Status | None]:
        value = json.dumps([
            _container_requests(pod.containers),
            _container_requests(pod.init_containers),
            sorted(pod.overhead.items()),
            sorted(pod.pod_level_requests.items()),
        ])
        return [(SIGNATURE_KEY, value)], None
