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


@dataclass(frozen=True)
class Shape:
    """A curated case (no Go test): what it shows, its nodes (name, millicores, bytes), the existing pods on their
    nodes and the pod."""

    name: str
    what: str
    nodes: tuple[tuple[str, int, int], ...]
    existing: tuple[tuple[Pod, str], ...]
    pod: Pod


HUGE: Final = 281474976710629
"""An allocatable figure above 2**48 with 69 * HUGE - 1 a multiple of 100."""
JUST_BELOW: Final = HUGE - (69 * HUGE - 1) // 100
"""A request that leaves (69 * HUGE - 1) / 100 of HUGE: LeastAllocated's quotient is 69 - 1/HUGE."""


def shapes() -> list[Shape]:
    """LeastAllocated at figures the ported cases do not reach: a node without cpu or without memory, non-zero
    requests beyond the allocatable with the other resource's score odd (a wrong 1 instead of 0 would show), and a
    quotient a hair below an integer (a floating-point division would show)."""
    no_requests = Pod("pod", "pod", containers=(container("c"),))
    beyond = tuple((Pod(f"e{i}", f"e{i}", containers=(container("c"),)), node_name)
                   for node_name in ("a", "b") for i in ((0, 1, 2, 3, 4) if node_name == "a" else (5, 6, 7, 8, 9)))
    return [
        Shape("least_allocated_zero_capacity",
              "leastResourceScorer (noderesources/least_allocated.go) leaves out a resource the node has none of: a "
              "pod without requests (100m and 200 MiB counted, GetNonzeroRequests; BalancedAllocation skips it) on "
              "n1 (4 cpu, 4 GiB) scores the mean of cpu and memory, on n2 (4 cpu, no memory) its cpu score alone, "
              "on n3 (no cpu, 4 GiB) its memory score alone; the Filter passes a pod that requests nothing",
              (("n1", 4000, 4096 * MI), ("n2", 4000, 0), ("n3", 0, 4096 * MI)), (), no_requests),
        Shape("least_allocated_non_zero_beyond_allocatable_odd",
              "leastRequestedScore (noderesources/least_allocated.go) scores 0 a resource whose non-zero requests "
              "exceed the allocatable: five pods without requests on each node (100m and 200 MiB counted for each) "
              "and the pod's own make 600m and 1200 MiB; on a (500m, 2 GiB) cpu scores 0 and memory 41, on b "
              "(1100m, 1 GiB) memory scores 0 and cpu 45: both odd, so a 1 in place of either 0 would raise the "
              "mean by one",
              (("a", 500, 2048 * MI), ("b", 1100, 1024 * MI)), beyond, no_requests),
        Shape("least_allocated_quotient_just_below_an_integer",
              "leastRequestedScore (noderesources/least_allocated.go) divides integers: (capacity - requested) * "
              f"100 / capacity truncates. With capacity {HUGE} (cpu in millicores on n1, memory in bytes on n2) "
              f"and the pod's {JUST_BELOW} of it, the exact quotient is 69 - 1/capacity, so that resource scores 68 "
              "(a floating-point division would round it to 69.0); the other resource, four times the pod's request "
              "on n1 and eight times on n2, scores 75 and 87, so n1 scores (68 + 75) / 2 = 71 and n2 (87 + 68) / 2 "
              "= 77 (with 69, 72 and 78)",
              (("n1", HUGE, 4 * JUST_BELOW), ("n2", 8 * JUST_BELOW, HUGE)), (),
              Pod("pod", "pod", containers=(container("c", cpu=JUST_BELOW, memory=JUST_BELOW),))),
    ]


def shape_scenario(shape: Shape, crowded: bool) -> Scenario:
    """``shape`` after the memo filler (``crowded``), or in a cluster with preemption."""
    variant = "" if crowded else "with_preemption."
    case = Case(LEAST, shape.name, shape.nodes, shape.existing, shape.pod, None)
    where = (f"; first {SHAPES} pods of as many shapes are scored on two tainted nodes the pod does not tolerate, so "
             "the reference implementation has no memo column left for the pod's shape" if crowded else
             "; the scheduler runs DefaultPreemption (no pod is preempted), so the reference implementation scores "
             "the node list without its rows")
    return Scenario(f"{PREFIX}{variant}{shape.name}", shape.what + where, _ops(case, crowded), area="cycle",
                    behaviours=("score", "resources"), profiles=ALL_PROFILES, preemption=not crowded)


def held_scenario() -> Scenario:
    """Two pods of one shape, the second scored only on nodes the first left unchanged."""
    pool = FrozenMap({"pool": "b"})
    nodes = [Node("n1", resource_list(cpu=4000, memory=4096 * MI, pods=10)),
             Node("n2", resource_list(cpu=2000, memory=4096 * MI, pods=10), labels=pool),
             Node("n3", resource_list(cpu=4000, memory=2048 * MI, pods=10), labels=pool)]
    first = Pod("a", "pod-a", containers=(container("c", cpu=500, memory=256 * MI),))
    second = Pod("b", "pod-b", containers=(container("c", cpu=500, memory=256 * MI),), node_selector=pool)
    return Scenario(f"{PREFIX}least_allocated_same_shape_on_unchanged_nodes",
                    "Fit.Score (noderesources/fit.go) of two pods of the same requests (500m, 256 MiB): the first is "
                    "scored on n1, n2 and n3 and placed on n1; the second selects pool b, so it is scored on n2 "
                    "(2 cpu, 4 GiB: 75 and 93, 84) and n3 (4 cpu, 2 GiB: 87 and 87, 87), which did not change in "
                    "between; the reference implementation then reads every score from the memo column the first "
                    "cycle filled",
                    [*(ClusterAddNode(n) for n in nodes), CreatePod(first), *placed("a", "n1"), CreatePod(second),
                     SchedulePod("b", "n3")], area="cycle", behaviours=("score", "resources"), profiles=ALL_PROFILES)


def score_memo_scenarios(variants: Sequence[bool] = (True, False)) -> list[Scenario]:
    """Every scenario of this module: each case crowded, then with preemption; the same for the curated shapes;
    then two pods of one shape (:func:`held_scenario`)."""
    return [*(scenario(case, crowded) for crowded in variants for case in cases()),
            *(shape_scenario(shape, crowded) for crowded in variants for shape in shapes()), held_scenario()]
