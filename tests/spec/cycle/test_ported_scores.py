"""The spec's pure InterPodAffinity and PodTopologySpread score functions, and refimpl's plugins, give the scores
Kubernetes' own table tests expect (interpodaffinity/scoring_test.go, podtopologyspread/scoring_test.go, v1.35.0),
case by case.

Each case runs the plugin alone, as the Go test does: PreScore over the candidate nodes with the snapshot holding
every node and pod, Score on each candidate, NormalizeScore over the list. The expected values are Go's
(:mod:`conformance.ported.interpodaffinity_scoring`, :mod:`conformance.ported.podtopologyspread_scoring`).
"""

from __future__ import annotations

import pytest

from conformance.ported import interpodaffinity_scoring as ported_ipa
from conformance.ported import node_affinity as ported_na
from conformance.ported import podtopologyspread_scoring as ported_pts
from conformance.ported.score_cases import ScoreCase
from refimpl.cache import Cache
from refimpl.scheduler.framework import CycleState, Handle, NodeScore
from refimpl.scheduler.plugins import InterPodAffinity, NodeAffinity, PodTopologySpread
from refimpl.scheduler.plugins.pod_topology_spread import LIST_DEFAULTING, SYSTEM_DEFAULTING
from spec.cache import cache as spec_cache
from spec.cache.snapshot import EMPTY_SNAPSHOT, Snapshot, update_snapshot
from spec.cycle import interpodaffinity, podtopologyspread, scores
from spec.cycle.filters import fits_node_affinity, fits_taint_toleration
from spec.objects import LabelSelector, Pod
from spec.versions import DEFAULT_PROFILE

IPA_CASES = ported_ipa.cases()
PTS_CASES = ported_pts.cases()
NA_CASES = [c for c in ported_na.cases() if c.added_affinity is None]


def spec_snapshot(case: ScoreCase) -> Snapshot:
    state = spec_cache.new_cache(DEFAULT_PROFILE)
    for node in case.all_nodes:
        state = spec_cache.add_node(state, node)
    for pod in case.pods:
        state = spec_cache.add_pod(state, pod)
    return update_snapshot(state, EMPTY_SNAPSHOT)


def refimpl_handle(case: ScoreCase) -> Handle:
    cache = Cache(profile=DEFAULT_PROFILE)
    for node in case.all_nodes:
        cache.add_node(node)
    for pod in case.pods:
        cache.add_pod(pod)
    handle = Handle()
    cache.update_snapshot(handle.snapshot)
    return handle


def refimpl_scores(plugin: InterPodAffinity | PodTopologySpread | NodeAffinity, handle: Handle,
                   case: ScoreCase) -> dict[str, int] | None:
    """PreScore, Score and NormalizeScore of refimpl's plugin; None when PreScore skips."""
    state = CycleState()
    infos = [handle.snapshot.get(n.name) for n in case.nodes]
    status = plugin.pre_score(state, case.pod, infos)
    if status is not None:
        assert status.is_skip(), status
        return None
    scores = []
    for info in infos:
        value, status = plugin.score(state, case.pod, info)
        assert status is None or status.is_success(), status
        scores.append(NodeScore(info.name, value))
    status = plugin.normalize_score(state, case.pod, scores)
    assert status is None or status.is_success(), status
    return {s.name: s.score for s in scores}


def test_every_case_is_ported_with_a_distinct_name() -> None:
    # 29 of TestPreferredAffinity's 31 and TestPreferredAffinityWithHardPodAffinitySymmetricWeight's 5 cases; 24 of
    # TestPodTopologySpreadScore's 28 and TestPreScoreSkip's 2 (the module docstrings list the others).
    assert len(IPA_CASES) == 29 and len(PTS_CASES) == 26
    for cases in (IPA_CASES, PTS_CASES):
        assert len({(c.test, c.name) for c in cases}) == len(cases)


@pytest.mark.parametrize("case", IPA_CASES, ids=lambda c: c.name[:70])
def test_inter_pod_affinity_scores_agree_with_go(case: ScoreCase) -> None:
    snapshot = spec_snapshot(case)
    topology_score = interpodaffinity.pre_score(case.pod, snapshot, case.namespaces, case.hard_pod_affinity_weight,
                                                case.ignore_preferred_terms_of_existing_pods)
    if topology_score is None:
        got = None
    else:
        raw = [interpodaffinity.score(topology_score, node) for node in case.nodes]
        got = dict(zip((n.name for n in case.nodes), interpodaffinity.normalize_score(topology_score, raw),
                       strict=True))
    assert got == case.want, f"{case.test} / {case.name}"
    handle = refimpl_handle(case)
    plugin = InterPodAffinity(handle, case.namespaces, case.hard_pod_affinity_weight,
                              case.ignore_preferred_terms_of_existing_pods)
    assert refimpl_scores(plugin, handle, case) == case.want


def _spread_args(case: ScoreCase) -> podtopologyspread.SpreadArgs:
    if case.system_defaulting:
        return podtopologyspread.SpreadArgs()
    return podtopologyspread.SpreadArgs(podtopologyspread.DefaultingType.LIST, case.default_constraints)


@pytest.mark.parametrize("case", PTS_CASES, ids=lambda c: c.name[:70])
def test_pod_topology_spread_scores_agree_with_go(case: ScoreCase) -> None:
    snapshot = spec_snapshot(case)
    names = [n.name for n in case.nodes]
    got = podtopologyspread.node_scores(case.pod, snapshot, names, fits_node_affinity, fits_taint_toleration,
                                        _spread_args(case), case.default_selector)
    assert got == case.want, f"{case.test} / {case.name}"

    def default_selector(pod: Pod) -> LabelSelector | None:
        return case.default_selector

    handle = refimpl_handle(case)
    plugin = PodTopologySpread(handle, SYSTEM_DEFAULTING if case.system_defaulting else LIST_DEFAULTING,
                               case.default_constraints, default_selector)
    assert refimpl_scores(plugin, handle, case) == case.want


def test_inter_pod_affinity_node_scores_is_pre_score_score_and_normalize() -> None:
    # node_scores, the entry point a Score phase calls, gives the same scores as the three steps run by hand.
    for case in IPA_CASES:
        if case.ignore_preferred_terms_of_existing_pods:
            continue
        got = interpodaffinity.node_scores(case.pod, spec_snapshot(case), [n.name for n in case.nodes],
                                           case.namespaces, case.hard_pod_affinity_weight)
        assert got == case.want, case.name


@pytest.mark.parametrize("case", NA_CASES, ids=lambda c: c.name[:70])
def test_node_affinity_scores_agree_with_go(case: ScoreCase) -> None:
    # node_affinity_test.go's cases without addedAffinity (neither the spec nor refimpl takes plugin arguments).
    snapshot = spec_snapshot(case)
    context = scores.ScoreContext(snapshot, tuple(snapshot.node_info_map[n.name] for n in case.nodes))
    if scores.node_affinity_skips(case.pod, context):
        got = None
    else:
        raw = tuple((info.name, scores.node_affinity_score(case.pod, info, context)) for info in context.feasible)
        got = dict(zip((n for n, _ in raw), scores.node_affinity_normalize(case.pod, raw, context), strict=True))
    assert got == case.want, f"{case.test} / {case.name}"
    handle = refimpl_handle(case)
    assert refimpl_scores(NodeAffinity(), handle, case) == case.want
