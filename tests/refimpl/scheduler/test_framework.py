"""The framework runner's rules (runtime/framework.go, v1.35): early returns, attribution, wrapping, weights,
Permit waits, and the speed-ups that must not change a verdict or a score."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from refimpl.cache import Cache, FakeClock, NodeInfo, Snapshot
from refimpl.scheduler.framework import (
    CycleState,
    FilterPlugin,
    Framework,
    FrameworkError,
    Handle,
    PermitPlugin,
    PreFilterPlugin,
    PreFilterResult,
    ReservePlugin,
    ScorePlugin,
    Status,
)
from refimpl.scheduler.framework.runtime import MAX_PERMIT_TIMEOUT
from refimpl.scheduler.framework.status import Code
from refimpl.scheduler.framework.waiting_pods import go_duration
from refimpl.scheduler.plugins import new_default_framework
from spec.objects import Pod, Taint, Toleration
from tests.support.universe import NODE_NAMES, node_variants, pods_with_uid

POD = Pod("p", name="p")


class Fixed(PreFilterPlugin, FilterPlugin, ScorePlugin, ReservePlugin, PermitPlugin):
    """A plugin answering with fixed statuses; it records the calls it gets."""

    def __init__(self, name: str, *, pre_filter: Status | None = None, filter_: Status | None = None,
                 score: int = 0, reserve: Status | None = None, permit: tuple[Status | None, int] = (None, 0),
                 restrict: frozenset[str] | None = None) -> None:
        self.name = name
        self._pre_filter, self._filter, self._score = pre_filter, filter_, score
        self._reserve, self._permit, self._restrict = reserve, permit, restrict
        self.calls: list[str] = []

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        self.calls.append("PreFilter")
        return PreFilterResult(self._restrict), self._pre_filter

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        self.calls.append("Filter")
        return self._filter

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        return self._score, None

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        self.calls.append("Reserve")
        return self._reserve

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        self.calls.append("Unreserve")

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, int]:
        self.calls.append("Permit")
        return self._permit


def a_node_info() -> NodeInfo:
    info = NodeInfo()
    return info.snapshot()


def test_filter_stops_at_the_first_rejection_and_names_the_plugin() -> None:
    a = Fixed("A", filter_=Status(Code.UNSCHEDULABLE, "nope"))
    b = Fixed("B", filter_=Status(Code.UNSCHEDULABLE, "also"))
    fwk = Framework([a, b])
    status = fwk.run_filter_plugins(CycleState(), POD, a_node_info())
    assert status == Status(Code.UNSCHEDULABLE, "nope", plugin="A")
    assert b.calls == []
    assert fwk.filter_runner(CycleState(), POD)(a_node_info()) == status


def test_a_filter_error_is_wrapped() -> None:
    fwk = Framework([Fixed("A", filter_=Status(Code.ERROR, "disk on fire"))])
    status = fwk.run_filter_plugins(CycleState(), POD, a_node_info())
    assert status is not None and status.code is Code.ERROR
    assert status.message() == 'running Filter plugin "A": disk on fire' and status.plugin == "A"


def test_pre_filter_unschedulable_runs_the_others_but_unresolvable_stops() -> None:
    a = Fixed("A", pre_filter=Status(Code.UNSCHEDULABLE, "a"))
    b = Fixed("B")
    _, status, _ = Framework([a, b]).run_pre_filter_plugins(CycleState(), POD, [])
    assert status == Status(Code.UNSCHEDULABLE, "a", plugin="A") and b.calls == ["PreFilter"]
    c = Fixed("C", pre_filter=Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "c"))
    d = Fixed("D")
    _, status, _ = Framework([c, d]).run_pre_filter_plugins(CycleState(), POD, [])
    assert status is not None and status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE and d.calls == []


def test_pre_filter_skip_skips_the_filter() -> None:
    a = Fixed("A", pre_filter=Status(Code.SKIP), filter_=Status(Code.UNSCHEDULABLE, "never"))
    fwk = Framework([a])
    state = CycleState()
    fwk.run_pre_filter_plugins(state, POD, [])
    assert state.skip_filter_plugins == {"A"}
    assert fwk.run_filter_plugins(state, POD, a_node_info()) is None
    assert fwk.filter_runner(state, POD)(a_node_info()) is None


def test_disjoint_pre_filter_results_leave_no_node() -> None:
    fwk = Framework([Fixed("A", restrict=frozenset({"n1"})), Fixed("B", restrict=frozenset({"n2"}))])
    result, status, narrowing = fwk.run_pre_filter_plugins(CycleState(), POD, [])
    assert result == PreFilterResult(frozenset()) and narrowing == {"A", "B"}
    assert status == Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                            "node(s) didn't satisfy plugin(s) [A B] simultaneously")


def test_scores_are_weighted_and_range_checked() -> None:
    info = a_node_info()
    fwk = Framework([Fixed("A", score=10), Fixed("B", score=7)], score_weights={"A": 3})
    scores, status = fwk.run_score_plugins(CycleState(), POD, [info])
    assert status is None and scores[0].total_score == 3 * 10 + 7
    _, status = Framework([Fixed("A", score=101)]).run_score_plugins(CycleState(), POD, [info])
    # RunScorePlugins (runtime/framework.go, v1.35) wraps the range error in "applying score defaultWeights ...".
    assert status is not None and status.message() == (
        'applying score defaultWeights on Score plugins: plugin "A" returns an invalid score 101, it should in the '
        'range of [0, 100] after normalizing')


def test_profiles_are_validated() -> None:
    with pytest.raises(FrameworkError, match="unique"):
        Framework([Fixed("A"), Fixed("A")])
    with pytest.raises(FrameworkError, match="at least 1"):
        Framework([Fixed("A")], score_weights={"A": 0})


class Recorder(ReservePlugin):
    """Appends its name to a shared log on Unreserve."""

    def __init__(self, name: str, log: list[str], reserve: Status | None = None) -> None:
        self.name, self.log, self._reserve = name, log, reserve

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return self._reserve

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        self.log.append(self.name)


def test_reserve_error_is_wrapped_and_unreserve_runs_in_reverse_order() -> None:
    log: list[str] = []
    fwk = Framework([Recorder("A", log), Recorder("B", log, Status(Code.ERROR, "x")), Recorder("C", log)])
    status = fwk.run_reserve_plugins_reserve(CycleState(), POD, "n1")
    assert status is not None and status.code is Code.ERROR and status.message() == 'running Reserve plugin "B": x'
    fwk.run_reserve_plugins_unreserve(CycleState(), POD, "n1")
    assert log == ["C", "B", "A"]


def test_permit_rejection_returns_at_once_and_waits_are_capped() -> None:
    clock = FakeClock()
    rejecting = Fixed("A", permit=(Status(Code.UNSCHEDULABLE, "no"), 0))
    later = Fixed("B")
    assert Framework([rejecting, later], clock=clock).run_permit_plugins(CycleState(), POD, "n1") == Status(
        Code.UNSCHEDULABLE, "no", plugin="A")
    assert later.calls == []
    waiting = Fixed("W", permit=(Status(Code.WAIT), 2 * MAX_PERMIT_TIMEOUT))
    fwk = Framework([waiting], clock=clock)
    status = fwk.run_permit_plugins(CycleState(), POD, "n1")
    assert status is not None and status.code is Code.WAIT
    pod = fwk.get_waiting_pod("p")
    assert pod is not None and not pod.poll()
    clock.advance(MAX_PERMIT_TIMEOUT)
    assert pod.poll()
    assert pod.status() == Status(Code.UNSCHEDULABLE, "rejected due to timeout after waiting 15m0s at plugin W",
                                  plugin="W")


def test_go_duration_strings() -> None:
    assert [go_duration(n) for n in (0, 500_000_000, 5_000_000_000, 90_000_000_000, 3_600_000_000_000)] == [
        "0s", "500ms", "5s", "1m30s", "1h0m0s"]


# The speed-ups must not change what Kubernetes' per-node loops compute.

_tainted_nodes = st.builds(
    lambda node, taints: replace(node, taints=taints),
    st.sampled_from(NODE_NAMES).flatmap(node_variants),
    st.lists(st.builds(Taint, st.sampled_from(("a", "b")), st.just(""),
                       st.sampled_from(("PreferNoSchedule", "NoSchedule"))), max_size=2).map(tuple),
)


@given(nodes=st.lists(_tainted_nodes, min_size=1, max_size=3, unique_by=lambda n: n.name),
       pod=pods_with_uid("p").map(lambda p: replace(p, tolerations=(Toleration("a", "Exists"),))))
def test_score_nodes_equals_score_per_node(nodes: list[object], pod: Pod) -> None:
    cache = Cache()
    for node in nodes:
        cache.add_node(node)  # type: ignore[arg-type]
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    fwk = new_default_framework(handle=Handle(snapshot=snapshot))
    infos = snapshot.list_nodes()
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod, infos)
    fwk.run_pre_score_plugins(state, pod, infos)
    for plugin in fwk.score_plugins:
        if plugin.name in state.skip_score_plugins:
            continue  # PreScore skipped it: Kubernetes never calls its Score (InterPodAffinity's has no state then)
        one_by_one = [plugin.score(state, pod, info)[0] for info in infos]
        assert plugin.score_nodes(state, pod, infos) == (one_by_one, None)
