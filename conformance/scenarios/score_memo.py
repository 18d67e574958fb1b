"""Curated vectors for issue 24's Score mutants that no vector killed: Kubernetes' own NodeResources score table
tests, ported so that the reference implementation scores the nodes on the paths few vectors reach.

refimpl's NodeResourcesFit and NodeResourcesBalancedAllocation keep each node's score per pod shape in memo columns
beside the snapshot's node rows, up to 32 columns for a node list; past that they score the distinct rows of figures,
and without rows (a cycle with preemption filters node by node) they score the node list one node after another.
Each case is ported twice:

- ``cycle.score.memo.<test>.<case>``: the case's nodes and two tainted nodes join, then :data:`SHAPES` pods of as
  many shapes are scored on the tainted nodes (and deleted), which fills the memo columns; the case's existing pods
  are placed, and the judged pod (which does not tolerate the taint) is scored on the case's nodes;
- ``cycle.score.memo.with_preemption.<test>.<case>``: the same case in a cluster whose scheduler runs
  DefaultPreemption (no pod is preempted; the filtering with nominated pods goes node by node).

The Go tests (k8s.io/kubernetes@v1.35.0 pkg/scheduler/framework/plugins/noderesources) call one plugin's Score on
each node without filtering; here every node gets room for ten pods (``makeNode`` and ``MakeNode`` give none), and
the cases whose pod a node's Filter would reject are not ported (:data:`NOT_PORTED`). The Go tests' expected scores
are :data:`GO_SCORES`; tests/conformance/test_score_memo.py compares the vectors' v1.35 decisions with them. As
everywhere, the vectors' expectations come from the spec (:func:`conformance.traces.expand`), never from here.
MostAllocated and RequestedToCapacityRatio (most_allocated_test.go, requested_to_capacity_ratio_test.go) are
scoring strategies of non-default NodeResourcesFitArgs, which the spec does not model: none of their cases is ported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from conformance.operations import ClusterAddNode, CreatePod, CycleOperation, DeletePod, SchedulePod
from conformance.ported.common import K8S_TESTS, slug
from conformance.scenarios.cycle import placed
from conformance.scenarios.shapes import MI, container
from conformance.traces import ALL_PROFILES, Scenario
from spec.frozenmap import FrozenMap
from spec.objects import Node, Pod, Taint, Toleration
from spec.quantities import resource_list

PREFIX: Final = "cycle.score.memo."
FILE: Final = "framework/plugins/noderesources"
LEAST: Final = ("least_allocated_test.go", "TestLeastAllocatedScoringStrategy", "NodeResourcesFit")
BALANCED: Final = ("balanced_allocation_test.go", "TestNodeResourcesBalancedAllocation",
                   "NodeResourcesBalancedAllocation")
SHAPES: Final = 18
"""Pod shapes scored before the judged cycle: each takes a memo column of NodeResourcesFit's score and one of
NodeResourcesBalancedAllocation's, so 18 shapes ask for 36 columns, more than refimpl's 32."""
SHAPING: Final = FrozenMap({"pool": "shape"})

GO_SCORES: dict[str, tuple[str, dict[str, int] | None]] = {}
"""For each scenario id: the plugin the Go test scores and the score it expects for each node (None: PreScore
skips, no node gets the plugin's score)."""

NOT_PORTED: Final = {
    "TestLeastAllocatedScoringStrategy": {
        "Resources not set, pods scheduled with error": "NodeResourcesFitArgs without resources: the spec models "
        "the default arguments only",
        "requested resources exceed node capacity": "the pod's 3000m does not fit beside the node's 3000m of 4000m: "
        "Filter rejects both nodes, so no node is scored (cycle.score.gaps.least_allocated_non_zero_cpu_beyond_"
        "allocatable scores requests beyond allocatable through the non-zero defaults instead)",
        "zero node resources, pods scheduled with resources": "nodes without cpu: the existing pods' 3000m cannot be "
        "placed on them by a scheduling cycle",
        "nothing scheduled, resources requested with different weight on CPU and memory, differently sized nodes":
            "non-default resource weights",
        "resource with negative weight": "an argument validation error",
        "resource with zero weight": "an argument validation error",
        "resource weight larger than MaxNodeScore": "an argument validation error",
        "bypass extended resource if the pod does not request": "non-default resources (an extended resource)",
        "honor extended resource if the pod requests": "non-default resources (an extended resource)",
        "if the node doesn't have a resource": "non-default resources (an extended resource)",
    },
    "TestNodeResourcesBalancedAllocation": {
        "include scalar resource on a node for balanced resource allocation": "non-default resources (a GPU)",
        "node without the scalar resource should skip the scalar resource": "non-default resources (a GPU)",
        "resources requested, pods scheduled with resources if PreScore not called": "a scheduling cycle always "
        "runs PreScore",
    },
}
"""The cases of the two Go tests that are not ported, with the reason."""


@dataclass(frozen=True)
class Case:
    """One Go table case: its nodes (cpu in millicores, memory in bytes), the existing pods on their nodes, the pod,
    and the Go test's expected scores (None: PreScore skips)."""

    go: tuple[str, str, str]
    name: str
    nodes: tuple[tuple[str, int, int], ...]
    existing: tuple[tuple[Pod, str], ...]
    pod: Pod
    want: dict[str, int] | None


def _requests(uid: str, *pairs: tuple[int, int]) -> Pod:
    """A pod with a container per (cpu, memory) pair (``st.MakePod().Req(...)``); none: no container at all."""
    return Pod(uid, uid, containers=tuple(container(f"c{i}", cpu=c, memory=m) for i, (c, m) in enumerate(pairs)))


def _cpu_and_memory(uid: str) -> Pod:
    """``cpuAndMemory`` of balanced_allocation_test.go (and least_allocated_test.go's two ``Req`` calls)."""
    return _requests(uid, (1000, 2000), (2000, 3000))


def _cpu_only(uid: str) -> Pod:
    """``cpuOnly`` of balanced_allocation_test.go: memory requested as an explicit 0."""
    return _requests(uid, (1000, 0), (2000, 0))


def cases() -> list[Case]:
    """The ported cases of TestLeastAllocatedScoringStrategy and TestNodeResourcesBalancedAllocation (default
    resources: cpu and memory, weight 1 each)."""
    small = (("node1", 4000, 10000), ("node2", 4000, 10000))
    sized = (("node1", 4000, 10000), ("node2", 6000, 10000))
    large = (("node1", 10000, 20000), ("node2", 10000, 20000))
    return [
        Case(LEAST, "nothing scheduled, nothing requested", small, (), _requests("pod"),
             {"node1": 100, "node2": 100}),
        Case(LEAST, "nothing scheduled, resources requested, differently sized nodes", sized, (),
             _cpu_and_memory("pod"), {"node1": 37, "node2": 50}),
        Case(LEAST, "no resources requested, pods scheduled", small,
             ((_requests("e1"), "node1"), (_requests("e2"), "node1"), (_requests("e3"), "node2"),
              (_requests("e4"), "node2")), _requests("pod"), {"node1": 100, "node2": 100}),
        Case(LEAST, "no resources requested, pods scheduled with resources", large,
             ((_requests("e1", (3000, 0)), "node1"), (_requests("e2", (3000, 0)), "node1"),
              (_requests("e3", (3000, 0)), "node2"), (_requests("e4", (3000, 5000)), "node2")),
             _requests("pod"), {"node1": 70, "node2": 57}),
        Case(LEAST, "resources requested, pods scheduled with resources", large,
             ((_requests("e1", (3000, 0)), "node1"), (_requests("e2", (3000, 5000)), "node2")),
             _cpu_and_memory("pod"), {"node1": 57, "node2": 45}),
        Case(LEAST, "resources requested, pods scheduled with resources, differently sized nodes",
             (("node1", 10000, 20000), ("node2", 10000, 50000)),
             ((_requests("e1", (3000, 0)), "node1"), (_requests("e2", (3000, 5000)), "node2")),
             _cpu_and_memory("pod"), {"node1": 57, "node2": 60}),
        Case(BALANCED, "nothing scheduled, nothing requested, skip in PreScore", small, (), _requests("pod"), None),
        Case(BALANCED, "nothing scheduled, resources requested, differently sized nodes", sized, (),
             _cpu_and_memory("pod"), {"node1": 87, "node2": 100}),
        Case(BALANCED, "resources requested, pods scheduled with resources", large,
             ((_cpu_only("e1"), "node1"), (_cpu_and_memory("e2"), "node2")), _cpu_and_memory("pod"),
             {"node1": 82, "node2": 95}),
        Case(BALANCED, "resources requested, pods scheduled with resources, differently sized nodes",
             (("node1", 10000, 20000), ("node2", 10000, 50000)),
             ((_cpu_only("e1"), "node1"), (_cpu_and_memory("e2"), "node2")), _cpu_and_memory("pod"),
             {"node1": 82, "node2": 80}),
        Case(BALANCED, "requested resources at node capacity", (("node1", 6000, 10000), ("node2", 6000, 10000)),
             ((_cpu_only("e1"), "node1"), (_cpu_and_memory("e2"), "node2")), _cpu_only("pod"),
             {"node1": 50, "node2": 75}),
    ]


def _shape_node(name: str) -> Node:
    return Node(name, resource_list(cpu=64000, memory=64 * 1024 * MI, pods=110), labels=SHAPING,
                taints=(Taint("pool", "shape"),))


def memo_filler() -> list[CycleOperation]:
    """:data:`SHAPES` pods of distinct cpu and memory requests, each scheduled on tainted node s1 (only s1 and s2
    are feasible: the pods select and tolerate the pool) and deleted."""
    ops: list[CycleOperation] = []
    for i in range(SHAPES):
        requests = resource_list(cpu=200 + 50 * i, memory=(64 + 16 * i) * MI)
        shape = Pod(f"s{i}", f"pod-s{i}", containers=(container("c", cpu=requests["cpu"],
                                                                memory=requests["memory"]),),
                    node_selector=SHAPING, tolerations=(Toleration("pool", "Equal", "shape"),))
        ops += [CreatePod(shape), SchedulePod(shape.uid, "s1"), DeletePod(shape.uid)]
    return ops


def _ops(case: Case, crowded: bool) -> list[CycleOperation]:
    nodes = [Node(name, resource_list(cpu=cpu, memory=memory, pods=10)) for name, cpu, memory in case.nodes]
    ops: list[CycleOperation] = [ClusterAddNode(n) for n in nodes]
    if crowded:
        ops += [ClusterAddNode(_shape_node("s1")), ClusterAddNode(_shape_node("s2")), *memo_filler()]
    for existing, node_name in case.existing:
        ops += [CreatePod(existing), *placed(existing.uid, node_name)]
    return [*ops, CreatePod(case.pod), SchedulePod(case.pod.uid, case.nodes[-1][0])]


def scenario(case: Case, crowded: bool) -> Scenario:
    """``case`` after the memo filler (``crowded``), or in a cluster with preemption."""
    go_file, test, plugin = case.go
    where = (f"; first {SHAPES} pods of as many shapes are scored on two tainted nodes the pod does not tolerate, "
             "which leaves the reference implementation no memo column for the pod's shape, so it scores the "
             "nodes from their rows' figures" if crowded else
             "; the scheduler runs DefaultPreemption (no pod is preempted), so the reference implementation "
             "filters with nominated pods node by node and scores the node list without its rows")
    description = (f"{test} / {case.name} ({FILE}/{go_file}, {K8S_TESTS}): {plugin}'s scores; every node gets room "
                   f"for ten pods{where}")
    variant = "" if crowded else "with_preemption."
    sid = f"{PREFIX}{variant}{slug(test.removeprefix('Test'))}.{slug(case.name)}"
    GO_SCORES[sid] = (plugin, case.want)
    return Scenario(sid, description, _ops(case, crowded), area="cycle", behaviours=("ported", "score"),
                    profiles=ALL_PROFILES, preemption=not crowded)


def score_memo_scenarios(variants: Sequence[bool] = (True, False)) -> list[Scenario]:
    """Every scenario of this module: each case crowded, then with preemption."""
    return [scenario(case, crowded) for crowded in variants for case in cases()]
