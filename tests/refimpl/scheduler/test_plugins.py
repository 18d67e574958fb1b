"""The default plugins against Kubernetes' rules and test tables, and the filter verdict against the spec's.

Expected values come from the Kubernetes plugin tests named in each test (least_allocated_test.go,
image_locality_test.go, fit_test.go, node_ports_test.go, taint_toleration_test.go) or from the formulas of the
plugin sources, worked out in the comments; the Hypothesis test compares with :func:`spec.cycle.filters.is_feasible`.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.adapters.refimpl_abstraction import abstract_node_info
from refimpl.cache import Cache, NodeInfo, Snapshot
from refimpl.scheduler.framework import CycleState, Handle, NodeScore, PreFilterPlugin
from refimpl.scheduler.framework.status import CODE_NAMES, Code
from refimpl.scheduler.plugins import (
    ImageLocality,
    NodeAffinity,
    NodeName,
    NodePorts,
    NodeResourcesFit,
    NodeUnschedulable,
    TaintToleration,
    default_filter_plugins,
    first_failing_filter,
    new_default_framework,
    snapshot_filter_plugins,
)
from refimpl.scheduler.plugins.image_locality import calculate_priority, normalized_image_name
from refimpl.scheduler.plugins.node_resources_fit import least_requested_score
from refimpl.scheduler.plugins.taint_toleration import default_normalize_score
from spec.cache.nodeinfo import NodeInfo as SpecNodeInfo
from spec.cache.snapshot import Snapshot as SpecSnapshot
from spec.cycle.filters import (
    DEFAULT_FILTERS,
    FILTER_CODES,
    SNAPSHOT_FILTERS,
    Rejection,
    failing_filters,
    first_rejection,
    is_feasible,
    unresolvable_resources,
)
from spec.cycle.filters import Code as SpecCode
from spec.frozenmap import FrozenMap
from spec.objects import Container, ContainerImage, ContainerPort, Node, Pod, Taint, Toleration, with_node_name
from spec.quantities import resource_list
from spec.resources import compute_pod_resource
from spec.versions import V1_34, V1_35
from tests.support.universe import IMAGES, pods_with_uid

MB = 1024 * 1024


def node(name: str = "node1", cpu: int = 4000, memory: int = 10000, pods: int = 32, **fields: object) -> Node:
    return Node(name, allocatable=resource_list(cpu=cpu, memory=memory, pods=pods), **fields)  # type: ignore[arg-type]


def pod(uid: str = "p", *requests: dict[str, int], **fields: object) -> Pod:
    containers = tuple(Container(f"c{i}", requests=resource_list(**r)) for i, r in enumerate(requests))
    return Pod(uid, name=uid, containers=containers, **fields)  # type: ignore[arg-type]


def node_info(n: Node, *existing: Pod) -> NodeInfo:
    """A read-only NodeInfo clone of ``n`` with ``existing`` pods charged to it."""
    info = NodeInfo()
    info.set_node(n)
    for i, p in enumerate(existing):
        info.add_pod(with_node_name(replace(p, uid=p.uid or f"existing-{i}"), n.name))
    return info.snapshot()


# ============================================================================================
# NodeResourcesFit: Filter (fit.go fitsRequest)
# ============================================================================================


def test_fit_reports_every_lacking_resource_in_kubernetes_order() -> None:
    # fit_test.go "too many resources fails": the node's cpu and memory are used up.
    info = node_info(node(cpu=10, memory=20), pod("e", {"cpu": 10, "memory": 20}))
    status = NodeResourcesFit().filter(CycleState(), pod("p", {"cpu": 1, "memory": 1}), info)
    assert status is not None and status.code is Code.UNSCHEDULABLE
    assert status.reasons == ("Insufficient cpu", "Insufficient memory")


def test_fit_is_unresolvable_when_the_request_exceeds_allocatable() -> None:
    # fitsRequest sets Unresolvable when podRequest > Allocatable: preemption cannot help.
    status = NodeResourcesFit().filter(CycleState(), pod("p", {"cpu": 11}), node_info(node(cpu=10)))
    assert status is not None and status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.reasons == ("Insufficient cpu",)


def test_fit_counts_pods_even_for_a_pod_requesting_nothing() -> None:
    # "Too many pods" is checked before the all-zero early return.
    info = node_info(node(pods=1), pod("e"))
    status = NodeResourcesFit().filter(CycleState(), pod("p"), info)
    assert status is not None and status.reasons == ("Too many pods",) and status.code is Code.UNSCHEDULABLE
    assert NodeResourcesFit().filter(CycleState(), pod("p"), node_info(node(pods=2), pod("e"))) is None


def test_fit_checks_scalar_resources_by_name() -> None:
    n = Node("n", allocatable=resource_list(cpu=1000, pods=10, **{"example.com/gpu": 2}))
    wants = Pod("p", containers=(Container("c", requests=resource_list(**{"example.com/gpu": 3})),))
    status = NodeResourcesFit().filter(CycleState(), wants, node_info(n))
    assert status is not None and status.reasons == ("Insufficient example.com/gpu",)
    fits = Pod("p", containers=(Container("c", requests=resource_list(**{"example.com/gpu": 2})),))
    assert NodeResourcesFit().filter(CycleState(), fits, node_info(n)) is None


# ============================================================================================
# NodeResourcesFit: LeastAllocated score (least_allocated_test.go TestLeastAllocatedScoringStrategy)
# ============================================================================================


def _score(p: Pod, info: NodeInfo) -> int:
    plugin = NodeResourcesFit()
    state = CycleState()
    plugin.pre_filter(state, p, [info])
    plugin.pre_score(state, p, [info])
    value, status = plugin.score(state, p, info)
    assert status is None
    return value


@pytest.mark.parametrize(
    ("requested", "nodes", "existing", "expected"),
    [
        # "nothing scheduled, nothing requested" (a pod without containers requests nothing)
        ((), [node("node1"), node("node2")], {}, [100, 100]),
        # "nothing scheduled, resources requested, differently sized nodes": (25+50)/2=37, (50+50)/2=50
        (({"cpu": 1000, "memory": 2000}, {"cpu": 2000, "memory": 3000}),
         [node("node1", 4000, 10000), node("node2", 6000, 10000)], {}, [37, 50]),
        # "no resources requested, pods scheduled with resources": (40+100)/2=70, (40+75)/2=57
        ((), [node("node1", 10000, 20000), node("node2", 10000, 20000)],
         {"node1": [{"cpu": 3000, "memory": 0}, {"cpu": 3000, "memory": 0}],
          "node2": [{"cpu": 3000, "memory": 0}, {"cpu": 3000, "memory": 5000}]}, [70, 57]),
        # "resources requested, pods scheduled with resources, differently sized nodes": 57, 60
        (({"cpu": 1000, "memory": 2000}, {"cpu": 2000, "memory": 3000}),
         [node("node1", 10000, 20000), node("node2", 10000, 50000)],
         {"node1": [{"cpu": 3000, "memory": 0}], "node2": [{"cpu": 3000, "memory": 5000}]}, [57, 60]),
        # "requested resources exceed node capacity": cpu scores 0; (0+100)/2=50, (0+50)/2=25
        (({"cpu": 3000, "memory": 0},), [node("node1", 4000, 10000), node("node2", 4000, 10000)],
         {"node1": [{"cpu": 3000, "memory": 0}], "node2": [{"cpu": 3000, "memory": 5000}]}, [50, 25]),
    ],
)
def test_least_allocated_scores_match_kubernetes_table(
    requested: tuple[dict[str, int], ...], nodes: list[Node], existing: dict[str, list[dict[str, int]]],
    expected: list[int],
) -> None:
    p = pod("p", *requested)
    infos = [node_info(n, *(pod(f"{n.name}-{i}", r) for i, r in enumerate(existing.get(n.name, ())))) for n in nodes]
    assert [_score(p, info) for info in infos] == expected


def test_least_allocated_ignores_resources_the_node_has_none_of() -> None:
    # "zero node resources, pods scheduled with resources": no allocatable cpu or memory -> MinNodeScore.
    assert _score(pod("p"), node_info(Node("n", allocatable=resource_list(pods=10)))) == 0


def test_least_requested_score_formula() -> None:
    assert least_requested_score(0, 4000) == 100
    assert least_requested_score(3000, 4000) == 25
    assert least_requested_score(5000, 4000) == 0
    assert least_requested_score(1, 0) == 0


def test_a_pod_without_requests_counts_as_the_non_zero_defaults_when_scoring() -> None:
    # A container without requests counts as 100m cpu and 200 MiB (DefaultMilliCPURequest/DefaultMemoryRequest):
    # cpu (1000-100)*100/1000 = 90; memory (1000 MiB - 200 MiB)*100/1000 MiB = 80; (90+80)/2 = 85.
    p = Pod("p", containers=(Container("c"),))
    assert _score(p, node_info(node(cpu=1000, memory=1000 * MB))) == 85


# ============================================================================================
# NodePorts (node_ports_test.go TestNodePorts)
# ============================================================================================


def _ports_pod(uid: str, *ports: tuple[str, str, int]) -> Pod:
    container = Container("c", ports=tuple(ContainerPort(p, host_port=p, protocol=proto, host_ip=ip)
                                           for ip, proto, p in ports))
    return Pod(uid, containers=(container,))


@pytest.mark.parametrize(
    ("wanted", "used", "conflicts"),
    [
        ([("127.0.0.1", "UDP", 8080)], [("127.0.0.1", "UDP", 9090)], False),  # "other port"
        ([("127.0.0.1", "UDP", 8080)], [("127.0.0.1", "UDP", 8080)], True),  # "same udp port"
        ([("127.0.0.1", "TCP", 8080)], [("127.0.0.1", "UDP", 8080)], False),  # "same port, different protocol"
        ([("127.0.0.2", "UDP", 8080)], [("127.0.0.1", "UDP", 8080)], False),  # "same port, different ip"
        ([("0.0.0.0", "TCP", 8001)], [("127.0.0.1", "TCP", 8001)], True),  # "first 0.0.0.0, second specific"
        ([("127.0.0.1", "TCP", 8001)], [("0.0.0.0", "TCP", 8001)], True),  # "second 0.0.0.0"
        ([("", "", 8001)], [("0.0.0.0", "TCP", 8001)], True),  # empty IP and protocol are 0.0.0.0/TCP
    ],
)
def test_node_ports_conflicts(wanted: list[tuple[str, str, int]], used: list[tuple[str, str, int]],
                              conflicts: bool) -> None:
    info = node_info(node(), _ports_pod("e", *used))
    p = _ports_pod("p", *wanted)
    state = CycleState()
    NodePorts().pre_filter(state, p, [info])
    status = NodePorts().filter(state, p, info)
    if conflicts:
        assert status is not None and status.code is Code.UNSCHEDULABLE
        assert status.reasons == ("node(s) didn't have free ports for the requested pod ports",)
    else:
        assert status is None


def test_node_ports_pre_filter_skips_a_pod_without_host_ports() -> None:
    _, status = NodePorts().pre_filter(CycleState(), pod("p", {"cpu": 1}), [])
    assert status is not None and status.code is Code.SKIP


# ============================================================================================
# TaintToleration, NodeUnschedulable, NodeName, NodeAffinity
# ============================================================================================


def test_taint_toleration_filter_rejects_the_first_untolerated_hard_taint() -> None:
    n = node(taints=(Taint("dedicated", "user1", "PreferNoSchedule"), Taint("dedicated", "user2", "NoSchedule")))
    status = TaintToleration().filter(CycleState(), pod("p"), node_info(n))
    assert status is not None and status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.reasons == ("node(s) had untolerated taint(s)",)  # v1.35: the taint is only logged
    named = TaintToleration(reason_names_the_taint=True).filter(CycleState(), pod("p"), node_info(n))
    assert named is not None and named.reasons == ("node(s) had untolerated taint {dedicated: user2}",)  # v1.34
    tolerant = pod("p", tolerations=(Toleration("dedicated", "Equal", "user2", "NoSchedule"),))
    assert TaintToleration().filter(CycleState(), tolerant, node_info(n)) is None
    exists_all = pod("p", tolerations=(Toleration(operator="Exists"),))
    assert TaintToleration().filter(CycleState(), exists_all, node_info(n)) is None


def test_each_release_gives_its_own_taint_reason() -> None:
    """A profile that names the taint (v1.34.0's) gets a framework that names it; v1.34.12 and v1.35 do not
    (spec.versions)."""
    from dataclasses import replace

    n = node(taints=(Taint("dedicated", "user2", "NoSchedule"),))
    for profile, reason in ((replace(V1_34, taint_reason_names_the_taint=True),
                             "node(s) had untolerated taint {dedicated: user2}"),
                            (V1_34, "node(s) had untolerated taint(s)"),
                            (V1_35, "node(s) had untolerated taint(s)")):
        fwk = new_default_framework(profile=profile)
        status = fwk.run_filter_plugins(CycleState(), pod("p"), node_info(n))
        assert status is not None and status.reasons == (reason,), profile.name


def test_taint_toleration_score_prefers_fewer_untolerated_soft_taints() -> None:
    # taint_toleration_test.go: intolerable PreferNoSchedule taints counted, then DefaultNormalizeScore reversed:
    # counts 0, 1, 2 -> 100 - 100*c/2 = 100, 50, 0.
    soft = [Taint(f"k{i}", "v", "PreferNoSchedule") for i in range(2)]
    nodes = [node("n0"), node("n1", taints=(soft[0],)), node("n2", taints=tuple(soft))]
    plugin = TaintToleration()
    state = CycleState()
    p = pod("p", tolerations=(Toleration("other", "Exists"),))
    infos = [node_info(n) for n in nodes]
    plugin.pre_score(state, p, infos)
    scores = [NodeScore(i.name, plugin.score(state, p, i)[0]) for i in infos]
    plugin.normalize_score(state, p, scores)
    assert [s.score for s in scores] == [100, 50, 0]


def test_default_normalize_score_all_zero() -> None:
    scores = [NodeScore("a", 0), NodeScore("b", 0)]
    default_normalize_score(100, True, scores)
    assert [s.score for s in scores] == [100, 100]
    scores = [NodeScore("a", 0)]
    default_normalize_score(100, False, scores)
    assert scores[0].score == 0


def test_node_unschedulable_takes_only_tolerating_pods() -> None:
    cordoned = node_info(node(unschedulable=True))
    status = NodeUnschedulable().filter(CycleState(), pod("p"), cordoned)
    assert status is not None and status.reasons == ("node(s) were unschedulable",)
    assert status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    tolerant = pod("p", tolerations=(Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule"),))
    assert NodeUnschedulable().filter(CycleState(), tolerant, cordoned) is None


def test_node_name_and_node_affinity_selector() -> None:
    labelled = node_info(node("node1", labels=FrozenMap({"disk": "ssd"})))
    assert NodeName().filter(CycleState(), pod("p", node_name="node1"), labelled) is None
    status = NodeName().filter(CycleState(), pod("p", node_name="node2"), labelled)
    assert status is not None and status.reasons == ("node(s) didn't match the requested node name",)
    assert NodeAffinity().filter(CycleState(), pod("p", node_selector=FrozenMap({"disk": "ssd"})), labelled) is None
    status = NodeAffinity().filter(CycleState(), pod("p", node_selector=FrozenMap({"disk": "hdd"})), labelled)
    assert status is not None and status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.reasons == ("node(s) didn't match Pod's node affinity/selector",)


# ============================================================================================
# ImageLocality (image_locality_test.go)
# ============================================================================================


def _image_scores(p: Pod, nodes: list[Node]) -> list[int]:
    cache = Cache()
    for n in nodes:
        cache.add_node(n)
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    plugin = ImageLocality(Handle(snapshot=snapshot))
    return [plugin.score(CycleState(), p, snapshot.get(n.name))[0] for n in nodes]


def test_image_locality_prefers_the_node_with_the_larger_image() -> None:
    # "two images spread on two nodes, prefer the larger image one": each image is on 1 of 2 nodes, so it counts
    # half its size. node1: 40 MB/2 = 20 MB < 23 MB -> 0. node2: 250 MB/2 = 125 MB ->
    # 100 * (125-23) / (2*1000-23) = 5 (integer division).
    p = Pod("p", containers=(Container("a", image="gcr.io/40"), Container("b", image="gcr.io/250")))
    nodes = [Node("node1", images=(ContainerImage(("gcr.io/40:latest",), 40 * MB),)),
             Node("node2", images=(ContainerImage(("gcr.io/250:latest",), 250 * MB),))]
    assert _image_scores(p, nodes) == [0, 5]


def test_image_locality_thresholds_and_names() -> None:
    assert calculate_priority(0, 1) == 0
    assert calculate_priority(1000 * MB, 1) == 100
    assert calculate_priority(5000 * MB, 2) == 100
    assert normalized_image_name("nginx") == "nginx:latest"
    assert normalized_image_name("nginx:1") == "nginx:1"
    assert normalized_image_name("localhost:5000/nginx") == "localhost:5000/nginx:latest"


# ============================================================================================
# The filter verdict equals the spec's (spec/cycle/filters.py)
# ============================================================================================

_taints = st.lists(
    st.builds(Taint, st.sampled_from(("dedicated", "gpu")), st.sampled_from(("", "a", "b")),
              st.sampled_from(("NoSchedule", "NoExecute", "PreferNoSchedule"))),
    max_size=2,
).map(tuple)
_tolerations = st.lists(
    st.builds(Toleration, st.sampled_from(("", "dedicated", "gpu", "node.kubernetes.io/unschedulable")),
              st.sampled_from(("Equal", "Exists", "")), st.sampled_from(("", "a", "b")),
              st.sampled_from(("", "NoSchedule", "NoExecute", "PreferNoSchedule"))),
    max_size=2,
).map(tuple)
_labels = st.dictionaries(st.sampled_from(("disk", "zone")), st.sampled_from(("ssd", "hdd", "z1")), max_size=2)

_nodes = st.builds(
    Node,
    name=st.just("n1"),
    allocatable=st.sampled_from((
        resource_list(cpu=4000, memory=8 * 2**30, pods=110, **{"example.com/gpu": 2}),
        resource_list(cpu=1000, memory=2**30, pods=2),
        resource_list(cpu=2000, memory=2**31, ephemeral_storage=1000, pods=3),
    )),
    labels=_labels.map(FrozenMap),
    taints=_taints,
    unschedulable=st.booleans(),
    images=st.lists(st.sampled_from(IMAGES), max_size=2, unique=True).map(tuple),
)
_candidate_pods = st.builds(
    replace,
    pods_with_uid("p"),
    node_name=st.sampled_from(("", "n1", "n2")),
    tolerations=_tolerations,
    node_selector=_labels.map(FrozenMap),
)


def alone(info: SpecNodeInfo) -> SpecSnapshot:
    """The spec's snapshot of a cluster with only this node (the PreFilter of the snapshot-wide filters reads it)."""
    name = info.name
    return SpecSnapshot(FrozenMap({name: info}), (name,), (name,) if info.pods_with_affinity else (),
                        (name,) if info.pods_with_required_anti_affinity else ())


@given(candidate=_candidate_pods, n=_nodes,
       existing=st.lists(st.sampled_from(("u1", "u2", "u3")).flatmap(pods_with_uid), max_size=3,
                         unique_by=lambda p: p.uid))
def test_filter_verdict_equals_spec_is_feasible(candidate: Pod, n: Node, existing: list[Pod]) -> None:
    info = node_info(n, *existing)
    spec_info = abstract_node_info(info)
    refimpl_failing = first_failing_filter(candidate, info)
    state = CycleState()
    if refimpl_failing is None:  # then the plugins whose PreFilter reads every node (here the one)
        for plugin in snapshot_filter_plugins(Handle()):
            assert isinstance(plugin, PreFilterPlugin)
            _, pre = plugin.pre_filter(state, candidate, [info])
            if pre is not None and pre.is_skip():
                continue
            found = plugin.filter(state, candidate, info)
            if found is not None and not found.is_success():
                refimpl_failing = plugin.name
                break
    assert (refimpl_failing is None) == is_feasible(candidate, spec_info, alone(spec_info))
    spec_failing = failing_filters(candidate, spec_info, alone(spec_info))
    assert refimpl_failing == (spec_failing[0] if spec_failing else None)
    statuses = (plugin.filter(CycleState(), candidate, info) for plugin in default_filter_plugins())
    status = next((s for s in statuses if s is not None and not s.is_success()), None)
    rejection = first_rejection(candidate, spec_info, alone(spec_info))
    if status is None and rejection is not None:  # a snapshot-wide filter rejected: its code is the spec's too
        assert rejection.plugin in SNAPSHOT_FILTERS and refimpl_failing == rejection.plugin
    elif status is not None and rejection is not None:  # the code too (spec.cycle.filters.rejection_code)
        assert (CODE_NAMES[status.code], refimpl_failing) == (rejection.code, rejection.plugin)
    else:
        assert status is None and rejection is None


def test_spec_codes_follow_kubernetes_filters() -> None:
    # fit.go Fit.Filter: UnschedulableAndUnresolvable only when some lacking resource is beyond Allocatable; the
    # pod count never is (fitsRequest); NodePorts is Unschedulable, the other filters UnschedulableAndUnresolvable.
    full = abstract_node_info(node_info(node(cpu=10, pods=1), pod("e", {"cpu": 5})))
    assert first_rejection(pod("p", {"cpu": 6}), full, alone(full)) == Rejection("NodeResourcesFit",
                                                                                  SpecCode.UNSCHEDULABLE)
    assert first_rejection(pod("p", {"cpu": 11}), full, alone(full)) == Rejection(
        "NodeResourcesFit", SpecCode.UNSCHEDULABLE_AND_UNRESOLVABLE)
    assert unresolvable_resources(compute_pod_resource(pod("p", {"cpu": 11, "memory": 1})).resource, full) == ["cpu"]
    roomy = abstract_node_info(node_info(node(cpu=10, pods=2), pod("e", {"cpu": 5})))
    assert first_rejection(pod("p", {"cpu": 6}), roomy, alone(roomy)) == Rejection("NodeResourcesFit",
                                                                                    SpecCode.UNSCHEDULABLE)
    assert first_rejection(pod("p", {"cpu": 5}), roomy, alone(roomy)) is None
    cordoned = abstract_node_info(node_info(node(unschedulable=True)))
    assert first_rejection(pod("p"), cordoned, alone(cordoned)) == Rejection("NodeUnschedulable",
                                                            SpecCode.UNSCHEDULABLE_AND_UNRESOLVABLE)
    assert {name: code for name, code in FILTER_CODES.items() if code is SpecCode.UNSCHEDULABLE} == {
        "NodePorts": SpecCode.UNSCHEDULABLE}


def test_default_filter_plugins_are_the_spec_filters_in_kubernetes_order() -> None:
    # Kubernetes' default MultiPoint order (default_plugins.go) puts NodeUnschedulable before NodeName.
    names = [p.name for p in default_filter_plugins()]
    assert names == [name for name, _ in DEFAULT_FILTERS]  # those that read only the node
    assert names == ["NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts",
                     "NodeResourcesFit"]
