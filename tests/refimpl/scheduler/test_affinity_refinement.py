"""refimpl's InterPodAffinity and PodTopologySpread refine the spec's (:mod:`spec.cycle.interpodaffinity`,
:mod:`spec.cycle.podtopologyspread`): on generated clusters (nodes with topology labels and taints, existing pods
with labels, namespaces and their own affinity terms) and generated incoming pods (required and preferred
(anti-)affinity terms with namespaces and namespace selectors, spread constraints with every option), each plugin's
Filter gives the spec's verdict, code and reason on every node, and PreScore/Score/NormalizeScore the spec's scores
on any set of candidate nodes (or both skip).
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl.cache import Cache
from refimpl.scheduler.framework import CycleState, Handle, NodeScore, Status
from refimpl.scheduler.framework.status import CODE_NAMES
from refimpl.scheduler.plugins import InterPodAffinity, PodTopologySpread
from spec.cache import cache as spec_cache
from spec.cache.snapshot import EMPTY_SNAPSHOT, Snapshot, update_snapshot
from spec.cycle import interpodaffinity, podtopologyspread
from spec.cycle.filters import fits_node_affinity, fits_taint_toleration
from spec.cycle.status import FilterRejection
from spec.frozenmap import FrozenMap
from spec.objects import (
    DO_NOT_SCHEDULE,
    LABEL_HOSTNAME,
    NODE_INCLUSION_HONOR,
    NODE_INCLUSION_IGNORE,
    SCHEDULE_ANYWAY,
    SELECTOR_OPERATORS,
    AffinityTerms,
    Container,
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    Pod,
    PodAffinityTerm,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)
from spec.quantities import resource_list
from spec.versions import DEFAULT_PROFILE

NAMESPACES = ("default", "other", "third")
"""Pods' namespaces; the namespace lister holds the first two (``third`` has no Namespace object)."""
NAMESPACE_LABELS = FrozenMap({"default": FrozenMap({"team": "a"}), "other": FrozenMap({"team": "b"})})
POD_KEYS = ("app", "tier")
VALUES = ("x", "y")
TOPOLOGY_KEYS = (LABEL_HOSTNAME, "zone", "rack")

_pod_labels = st.dictionaries(st.sampled_from(POD_KEYS), st.sampled_from(VALUES), max_size=2).map(FrozenMap)


@st.composite
def _requirement(draw: st.DrawFn, keys: tuple[str, ...]) -> LabelSelectorRequirement:
    operator = draw(st.sampled_from(SELECTOR_OPERATORS))
    values: tuple[str, ...] = ()
    if operator in ("In", "NotIn"):
        values = tuple(draw(st.lists(st.sampled_from(VALUES), min_size=1, max_size=2, unique=True)))
    return LabelSelectorRequirement(draw(st.sampled_from(keys)), operator, values)


def _selectors(keys: tuple[str, ...], values: tuple[str, ...] = VALUES) -> st.SearchStrategy[LabelSelector | None]:
    """None (nil: nothing), the empty selector (everything), or labels and expressions."""
    return st.one_of(
        st.none(),
        st.just(LabelSelector()),
        st.builds(LabelSelector,
                  st.dictionaries(st.sampled_from(keys), st.sampled_from(values), max_size=1).map(FrozenMap),
                  st.lists(_requirement(keys), max_size=2).map(tuple)),
    )


_terms = st.builds(
    PodAffinityTerm,
    label_selector=_selectors(POD_KEYS),
    namespaces=st.lists(st.sampled_from(NAMESPACES), max_size=2, unique=True).map(tuple),
    topology_key=st.sampled_from(TOPOLOGY_KEYS),
    namespace_selector=st.one_of(st.none(), st.just(LabelSelector()),
                                 st.builds(LabelSelector, st.just(FrozenMap({"team": "a"})))),
)
_weighted = st.builds(WeightedPodAffinityTerm, st.integers(1, 100), _terms)
_affinity = st.one_of(st.none(), st.builds(AffinityTerms, required_terms=st.lists(_terms, max_size=2).map(tuple),
                                           preferred_terms=st.lists(_weighted, max_size=2).map(tuple)))
_constraints = st.builds(
    TopologySpreadConstraint,
    max_skew=st.integers(1, 3),
    topology_key=st.sampled_from(TOPOLOGY_KEYS),
    when_unsatisfiable=st.sampled_from((DO_NOT_SCHEDULE, SCHEDULE_ANYWAY)),
    label_selector=_selectors(POD_KEYS),
    min_domains=st.one_of(st.none(), st.integers(1, 4)),
    node_affinity_policy=st.sampled_from((None, NODE_INCLUSION_HONOR, NODE_INCLUSION_IGNORE)),
    node_taints_policy=st.sampled_from((None, NODE_INCLUSION_HONOR, NODE_INCLUSION_IGNORE)),
    match_label_keys=st.lists(st.sampled_from(POD_KEYS), max_size=1).map(tuple),
)


@st.composite
def _nodes(draw: st.DrawFn) -> tuple[Node, ...]:
    count = draw(st.integers(1, 4))
    nodes = []
    for i in range(count):
        name = f"n{i}"
        labels = {LABEL_HOSTNAME: name} if draw(st.booleans()) or i == 0 else {}
        labels |= draw(st.dictionaries(st.sampled_from(("zone", "rack", "disk")), st.sampled_from(("1", "2")),
                                       max_size=2))
        taints = (Taint("dedicated", "x", "NoSchedule"),) if draw(st.integers(0, 3)) == 0 else ()
        nodes.append(Node(name, resource_list(cpu=8000, memory=2**34, pods=110), labels=FrozenMap(labels),
                          taints=taints))
    return tuple(nodes)


@st.composite
def _pod(draw: st.DrawFn, uid: str, node: str = "", incoming: bool = False) -> Pod:
    spread = draw(st.lists(_constraints, max_size=2).map(tuple)) if incoming else ()
    selector = draw(st.dictionaries(st.just("disk"), st.sampled_from(("1", "2")), max_size=1)) if incoming else {}
    tolerations = (Toleration("dedicated", "Exists"),) if incoming and draw(st.booleans()) else ()
    return Pod(uid, name=uid, namespace=draw(st.sampled_from(NAMESPACES)), node_name=node,
               containers=(Container("c"),), labels=draw(_pod_labels), pod_affinity=draw(_affinity),
               pod_anti_affinity=draw(_affinity), topology_spread_constraints=spread,
               node_selector=FrozenMap(selector), tolerations=tolerations)


@st.composite
def clusters(draw: st.DrawFn) -> tuple[tuple[Node, ...], tuple[Pod, ...], Pod]:
    """Nodes, existing pods placed on them, and an incoming pod."""
    nodes = draw(_nodes())
    existing = tuple(draw(_pod(f"e{i}", draw(st.sampled_from(nodes)).name)) for i in range(draw(st.integers(0, 6))))
    return nodes, existing, draw(_pod("incoming", incoming=True))


def spec_snapshot(nodes: tuple[Node, ...], pods: tuple[Pod, ...]) -> Snapshot:
    state = spec_cache.new_cache(DEFAULT_PROFILE)
    for node in nodes:
        state = spec_cache.add_node(state, node)
    for pod in pods:
        state = spec_cache.add_pod(state, pod)
    return update_snapshot(state, EMPTY_SNAPSHOT)


def refimpl_handle(nodes: tuple[Node, ...], pods: tuple[Pod, ...]) -> Handle:
    cache = Cache(profile=DEFAULT_PROFILE)
    for node in nodes:
        cache.add_node(node)
    for pod in pods:
        cache.add_pod(pod)
    handle = Handle()
    cache.update_snapshot(handle.snapshot)
    return handle


def _verdict(status: Status | None) -> tuple[str, str] | None:
    return None if status is None or status.is_success() else (CODE_NAMES[status.code], status.message())


def _spec_verdict(rejection: FilterRejection | None) -> tuple[str, str] | None:
    return None if rejection is None else (str(rejection.code), rejection.reason)


def refimpl_filter(plugin: InterPodAffinity | PodTopologySpread, handle: Handle, pod: Pod,
                   nodes: tuple[Node, ...]) -> dict[str, tuple[str, str] | None]:
    state = CycleState()
    _, pre = plugin.pre_filter(state, pod, handle.snapshot.list_nodes())
    if pre is not None and pre.is_skip():
        return dict.fromkeys((n.name for n in nodes), None)
    assert pre is None or pre.is_success(), pre
    return {n.name: _verdict(plugin.filter(state, pod, handle.snapshot.get(n.name))) for n in nodes}


def refimpl_scores(plugin: InterPodAffinity | PodTopologySpread, handle: Handle, pod: Pod,
                   feasible: list[str]) -> dict[str, int] | None:
    state = CycleState()
    infos = [handle.snapshot.get(name) for name in feasible]
    status = plugin.pre_score(state, pod, infos)
    if status is not None:
        assert status.is_skip(), status
        return None
    scores = []
    for info in infos:
        value, status = plugin.score(state, pod, info)
        assert status is None or status.is_success(), status
        scores.append(NodeScore(info.name, value))
    status = plugin.normalize_score(state, pod, scores)
    assert status is None or status.is_success(), status
    return {s.name: s.score for s in scores}


@settings(deadline=None)
@given(cluster=clusters(), data=st.data())
def test_inter_pod_affinity_refines_the_spec(cluster: tuple[tuple[Node, ...], tuple[Pod, ...], Pod],
                                             data: st.DataObject) -> None:
    nodes, existing, pod = cluster
    snapshot = spec_snapshot(nodes, existing)
    handle = refimpl_handle(nodes, existing)
    state = interpodaffinity.pre_filter(pod, snapshot, NAMESPACE_LABELS)
    want = {n.name: _spec_verdict(interpodaffinity.filter_node(state, n)) for n in nodes}
    plugin = InterPodAffinity(handle, NAMESPACE_LABELS)
    assert refimpl_filter(plugin, handle, pod, nodes) == want

    feasible = data.draw(st.lists(st.sampled_from([n.name for n in nodes]), min_size=1, unique=True), label="feasible")
    weight = data.draw(st.sampled_from((0, 1, 5)), label="hardPodAffinityWeight")
    assert (refimpl_scores(InterPodAffinity(handle, NAMESPACE_LABELS, weight), handle, pod, feasible)
            == interpodaffinity.node_scores(pod, snapshot, feasible, NAMESPACE_LABELS, weight))


@settings(deadline=None)
@given(cluster=clusters(), data=st.data())
def test_pod_topology_spread_refines_the_spec(cluster: tuple[tuple[Node, ...], tuple[Pod, ...], Pod],
                                              data: st.DataObject) -> None:
    nodes, existing, pod = cluster
    snapshot = spec_snapshot(nodes, existing)
    handle = refimpl_handle(nodes, existing)
    default_selector = data.draw(_selectors(POD_KEYS), label="default selector")
    system = data.draw(st.booleans(), label="system defaulting")
    defaults = () if system else tuple(data.draw(st.lists(_constraints, max_size=2), label="default constraints"))
    args = podtopologyspread.SpreadArgs(podtopologyspread.DefaultingType.SYSTEM if system
                                        else podtopologyspread.DefaultingType.LIST, defaults)
    plugin = PodTopologySpread(handle, args.defaulting_type.value, defaults, lambda _: default_selector)

    state = podtopologyspread.pre_filter(pod, snapshot, fits_node_affinity, fits_taint_toleration, args,
                                         default_selector)
    want = {n.name: _spec_verdict(podtopologyspread.filter_node(state, pod, n)) for n in nodes}
    assert refimpl_filter(plugin, handle, pod, nodes) == want

    feasible = data.draw(st.lists(st.sampled_from([n.name for n in nodes]), min_size=1, unique=True), label="feasible")
    assert (refimpl_scores(plugin, handle, pod, feasible)
            == podtopologyspread.node_scores(pod, snapshot, feasible, fits_node_affinity, fits_taint_toleration,
                                             args, default_selector))


def test_the_generators_reach_every_verdict() -> None:
    # The strategies are not vacuous: a fixed cluster gives each plugin's rejections, as the Filter rules state.
    zone = {"zone": "1"}
    nodes = (Node("n0", resource_list(cpu=8000, memory=2**34, pods=110), labels=FrozenMap(zone)),
             Node("n1", resource_list(cpu=8000, memory=2**34, pods=110)))
    app = FrozenMap({"app": "x"})
    existing = (Pod("e0", namespace="default", node_name="n0", labels=app, containers=(Container("c"),)),)
    anti = AffinityTerms(required_terms=(PodAffinityTerm(LabelSelector(app), topology_key="zone"),))
    pod = replace(existing[0], uid="incoming", name="incoming", node_name="", pod_anti_affinity=anti,
                  topology_spread_constraints=(TopologySpreadConstraint(1, "zone", label_selector=LabelSelector(app)),))
    snapshot = spec_snapshot(nodes, existing)
    handle = refimpl_handle(nodes, existing)
    ipa = refimpl_filter(InterPodAffinity(handle, NAMESPACE_LABELS), handle, pod, nodes)
    assert ipa == {"n0": ("Unschedulable", interpodaffinity.ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH), "n1": None}
    state = interpodaffinity.pre_filter(pod, snapshot, NAMESPACE_LABELS)
    assert {n.name: _spec_verdict(interpodaffinity.filter_node(state, n)) for n in nodes} == ipa
    pts = refimpl_filter(PodTopologySpread(handle), handle, pod, nodes)
    assert pts == {"n0": None,
                   "n1": ("UnschedulableAndUnresolvable", podtopologyspread.ERR_REASON_NODE_LABEL_NOT_MATCH)}
