"""The spec's InterPodAffinity and PodTopologySpread Filters, and refimpl's plugins, give the codes Kubernetes' own
table tests expect (interpodaffinity/filtering_test.go, podtopologyspread/filtering_test.go, v1.35.0), case by case.

Each case runs the plugin alone, as the Go test does (PreFilter over the snapshot, then Filter on each node), on the
spec (:mod:`spec.cycle.interpodaffinity`, :mod:`spec.cycle.podtopologyspread`) and on refimpl's plugin.
"""

from __future__ import annotations

import pytest

from conformance.operations import CreatePod, apply_cycle, refreshed_snapshot
from conformance.ported import interpodaffinity_filtering as ported_ipa
from conformance.ported import podtopologyspread_filtering as ported_pts
from conformance.ported.filter_cases import FilterCase, setup
from refimpl.cache import Cache
from refimpl.scheduler.framework import CycleState, Handle
from refimpl.scheduler.framework.status import CODE_NAMES
from refimpl.scheduler.plugins import InterPodAffinity, PodTopologySpread
from spec.cache import cache as spec_cache
from spec.cache.snapshot import EMPTY_SNAPSHOT, Snapshot, update_snapshot
from spec.cycle import interpodaffinity, podtopologyspread
from spec.cycle.filters import FILTER_ORDER, first_rejection, fits_node_affinity, fits_taint_toleration
from spec.cycle.status import Code
from spec.versions import DEFAULT_PROFILE

IPA_CASES = ported_ipa.cases()
PTS_CASES = ported_pts.cases()


def spec_snapshot(case: FilterCase) -> Snapshot:
    state = spec_cache.new_cache(DEFAULT_PROFILE)
    for node in case.nodes:
        state = spec_cache.add_node(state, node)
    for pod in case.pods:
        state = spec_cache.add_pod(state, pod)
    return update_snapshot(state, EMPTY_SNAPSHOT)


def refimpl_codes(case: FilterCase, spread: bool) -> dict[str, Code | None]:
    cache = Cache(profile=DEFAULT_PROFILE)
    for node in case.nodes:
        cache.add_node(node)
    for pod in case.pods:
        cache.add_pod(pod)
    handle = Handle()
    cache.update_snapshot(handle.snapshot)
    plugin = PodTopologySpread(handle, "List") if spread else InterPodAffinity(handle, case.namespaces)
    state = CycleState()
    _, pre = plugin.pre_filter(state, case.pod, handle.snapshot.list_nodes())
    codes: dict[str, Code | None] = {}
    for node in case.nodes:
        if pre is not None and pre.is_skip():
            codes[node.name] = None
            continue
        status = plugin.filter(state, case.pod, handle.snapshot.get(node.name))
        codes[node.name] = None if status is None or status.is_success() else Code(CODE_NAMES[status.code])
    return codes


@pytest.mark.parametrize("case", IPA_CASES, ids=lambda c: c.name[:70])
def test_inter_pod_affinity_filter_agrees_with_go(case: FilterCase) -> None:
    snapshot = spec_snapshot(case)
    state = interpodaffinity.pre_filter(case.pod, snapshot, case.namespaces)
    got = {}
    for node in case.nodes:
        rejection = interpodaffinity.filter_node(state, node)
        got[node.name] = None if rejection is None else rejection.code
    assert got == case.want, f"{case.test} / {case.name}"
    assert refimpl_codes(case, spread=False) == case.want


@pytest.mark.parametrize("case", PTS_CASES, ids=lambda c: c.name[:70])
def test_pod_topology_spread_filter_agrees_with_go(case: FilterCase) -> None:
    snapshot = spec_snapshot(case)
    args = podtopologyspread.SpreadArgs(podtopologyspread.DefaultingType.LIST)  # the Go tests' ListDefaulting
    state = podtopologyspread.pre_filter(case.pod, snapshot, fits_node_affinity, fits_taint_toleration, args)
    got = {}
    for node in case.nodes:
        rejection = podtopologyspread.filter_node(state, case.pod, node)
        got[node.name] = None if rejection is None else rejection.code
    assert got == case.want, f"{case.test} / {case.name}"
    assert refimpl_codes(case, spread=True) == case.want


def test_reasons_are_kubernetes_err_reasons() -> None:
    # filtering.go's ErrReason constants and plugin.go's, byte for byte.
    assert interpodaffinity.ERR_REASON_AFFINITY_RULES_NOT_MATCH == "node(s) didn't match pod affinity rules"
    assert interpodaffinity.ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH == "node(s) didn't match pod anti-affinity rules"
    assert (interpodaffinity.ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH
            == "node(s) didn't satisfy existing pods anti-affinity rules")
    assert (podtopologyspread.ERR_REASON_NODE_LABEL_NOT_MATCH
            == "node(s) didn't match pod topology spread constraints (missing required label)")


@pytest.mark.parametrize("case", [*IPA_CASES, *PTS_CASES], ids=lambda c: f"{c.test}/{c.name[:60]}")
def test_vector_cluster_gives_go_codes_where_the_plugin_decides(case: FilterCase) -> None:
    # The cycle vector's cluster (conformance.ported.filter_cases.setup: the existing pods placed through the
    # scheduler, taints added afterwards) with the incoming pod: on each node where no filter before the plugin
    # rejects, the first rejection is the plugin's with Go's code, or none where Go expects success.
    plugin = interpodaffinity.NAME if case in IPA_CASES else podtopologyspread.NAME
    if case in IPA_CASES and case.name in ported_ipa.NOT_VECTORS:
        pytest.skip(f"not a vector: {ported_ipa.NOT_VECTORS[case.name]}")
    built = setup(case)
    assert built is not None, case.name
    cluster, _ = built
    cluster, outcome = apply_cycle(cluster, CreatePod(case.pod))
    assert outcome.kind is None
    snapshot = refreshed_snapshot(cluster)
    decided = 0
    for node in case.nodes:
        rejection = first_rejection(case.pod, snapshot.node_info_map[node.name], snapshot, cluster.namespaces)
        if rejection is not None and FILTER_ORDER.index(rejection.plugin) < FILTER_ORDER.index(plugin):
            continue
        decided += 1
        got = None if rejection is None else rejection.code
        assert rejection is None or rejection.plugin == plugin
        assert got == case.want[node.name], f"{case.test} / {case.name}: {node.name}"
    assert decided, "the plugin decides at least one node"
