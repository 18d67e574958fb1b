"""The fast paths of filtering and scoring give exactly the results of the straightforward ones.

The straightforward paths are Kubernetes' code as it reads: ``findNodesThatPassFilters`` runs ``RunFilterPlugins``
on one node after another, and ``RunScorePlugins`` runs every plugin's ``Score`` node by node, then
``NormalizeScore``, then the weights. The fast paths filter slices of nodes one plugin at a time, read the default
plugins' figures from columns (:mod:`refimpl.scheduler.framework.node_slice`) and score every node of a plugin in
one call. Compared here: whole seeded simulations (every cycle's chosen node, feasible nodes, rejected nodes'
statuses, scores, the round-robin start, every event and the final cluster), the framework's answers on random
nodes and pods (irregular figures, ghosts, scalar resources, taints, ports, images included), and the error paths.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from refimpl.cache import Cache, FakeClock, NodeInfo, Snapshot
from refimpl.dispatcher import FakeAPIServer
from refimpl.scheduler.framework import (
    CycleState,
    Diagnosis,
    FilterPlugin,
    Framework,
    Handle,
    NodeScore,
    ScorePlugin,
    Status,
)
from refimpl.scheduler.framework.node_slice import (
    IMAGES,
    MAX_IMAGE_COLUMNS,
    MAX_MEMO_COLUMNS,
    NO_NODE,
    TAINTED,
    NodeColumns,
    NodeSlice,
)
from refimpl.scheduler.framework.status import Code
from refimpl.scheduler.plugins import DEFAULT_SCORE_WEIGHTS, default_plugins
from refimpl.scheduler.queue import SchedulingQueue
from refimpl.scheduler.schedule_one import (
    MIN_FILTER_SLICE,
    Scheduler,
    _pass_filters_in_slices,
    _pass_filters_node_by_node,
)
from refimpl.simulator import Simulation, SimulationConfig
from refimpl.simulator.simulation import Action
from refimpl.simulator.workload import Churn
from spec.frozenmap import FrozenMap
from spec.objects import LABEL_TOPOLOGY_ZONE, Container, ContainerImage, ContainerPort, Node, Pod, Taint, Toleration
from spec.quantities import resource_list
from tests.support.machines import property_settings

# ================================================================================================
# Whole simulations
# ================================================================================================

Trace = list[tuple[Any, ...]]


class _Recorder:
    """Records every scheduling cycle's result (a simulation :class:`~refimpl.simulator.simulation.Observer`)."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace

    def before(self, sim: Simulation, action: Action) -> None:
        pass

    def after(self, sim: Simulation, action: Action) -> None:
        result = sim.last_result
        if action.kind == "schedule" and result is not None:
            status = result.status
            counts = (result.result.evaluated_nodes, result.result.feasible_nodes) if result.result else None
            self.trace.append(("cycle", result.pod.uid, result.outcome.value, result.node, counts,
                               None if status is None else (status.code, status.message(), status.plugin),
                               sim.scheduler.next_start_node_index))
            sim.last_result = None


def _statuses(diagnosis: Diagnosis) -> tuple[Any, ...]:
    return (tuple(sorted((name, status.code, status.reasons, status.plugin)
                         for name, status in diagnosis.node_to_status.node_to_status.items())),
            sorted(diagnosis.unschedulable_plugins), sorted(diagnosis.pending_plugins))


def simulate(config: SimulationConfig, *, fast: bool) -> Trace:
    """Run ``config`` with the fast paths on or off: what every cycle filtered, scored and chose, every event,
    and the final state."""
    trace: Trace = []
    sim = Simulation(config, (_Recorder(trace),))
    sched = sim.scheduler
    sched.fast_paths = fast
    sched.event_recorder = lambda pod, kind, reason, message: trace.append(("event", pod.uid, kind, reason, message))
    find, prioritize = sched._find_nodes_that_fit_pod, sched._prioritize_nodes

    def recording_find(fwk: Framework, state: CycleState, pod: Pod) -> Any:
        feasible, diagnosis, hint, _ = result = find(fwk, state, pod)
        trace.append(("filter", pod.uid, [info.name for info in feasible], _statuses(diagnosis), hint))
        return result

    def recording_prioritize(fwk: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Any:
        names, keys = result = prioritize(fwk, state, pod, nodes)
        trace.append(("score", pod.uid, list(names), [key if isinstance(key, int) else key[0] for key in keys]))
        return result

    sched._find_nodes_that_fit_pod = recording_find  # type: ignore[method-assign]
    sched._prioritize_nodes = recording_prioritize  # type: ignore[method-assign]
    stats = sim.run()
    trace.append(("end", stats.bound, stats.unschedulable, stats.scheduling_errors, stats.virtual_seconds,
                  sorted((pod.uid, pod.node_name) for pod in sim.world.bound_pods()),
                  sorted(pod.uid for pod in sim.world.unbound_pods())))
    trace.append(("cluster", sorted((name, sorted(p.pod.uid for p in info.pods))
                                    for name, info in sim.scheduler.snapshot.node_info_map.items())))
    return trace


WORKLOADS = {
    # More nodes than numFeasibleNodesToFind's floor of 100, so that filtering stops early and goes round robin.
    "mixed, batching off": SimulationConfig(nodes=300, pods=400, seed=3, opportunistic_batching=False),
    "mixed, batching on": SimulationConfig(nodes=260, pods=300, seed=4),
    "identical pods, batching on": SimulationConfig(nodes=220, pods=260, seed=5, identical_pods=True,
                                                    uniform_nodes=True),
    "identical pods, batching off": SimulationConfig(nodes=220, pods=260, seed=5, identical_pods=True,
                                                     uniform_nodes=True, opportunistic_batching=False),
    # More pods than the nodes hold: late pods are rejected on every node (FitError messages, diagnosis).
    "overfull": SimulationConfig(nodes=110, pods=2300, seed=6, opportunistic_batching=False),
    "churn": SimulationConfig(nodes=200, pods=300, seed=7, arrival_rate=400.0, churn_seconds=2.0,
                              churn=Churn(pod_deletions=40, node_additions=10, node_deletions=10, node_updates=40)),
    "percentage 30": SimulationConfig(nodes=250, pods=250, seed=8, percentage_of_nodes_to_score=30),
}


@pytest.mark.heavy
@pytest.mark.parametrize("workload", sorted(WORKLOADS))
def test_simulations_are_identical_with_the_fast_paths(workload: str) -> None:
    config = WORKLOADS[workload]
    fast, straightforward = simulate(config, fast=True), simulate(config, fast=False)
    assert any(entry[0] == "score" for entry in fast), "the workload never scored a node"
    assert len(fast) == len(straightforward)
    for index, (got, expected) in enumerate(zip(fast, straightforward, strict=True)):
        assert got == expected, f"{workload}: entry {index} differs"


@pytest.mark.heavy
def test_the_overfull_workload_rejects_pods_on_every_node() -> None:
    """The overfull workload does exercise the rejection paths compared above."""
    trace = simulate(WORKLOADS["overfull"], fast=True)
    assert any(entry[0] == "event" and entry[3] == "FailedScheduling" and "Insufficient" in entry[4]
               for entry in trace)


# ================================================================================================
# The framework on random nodes and pods
# ================================================================================================

GIB = 2**30
HUGE = 2**70
"""More than 64 bits hold."""

_taints = st.sampled_from((
    (), (Taint("dedicated", "batch", "NoSchedule"),), (Taint("spot", "", "PreferNoSchedule"),),
    (Taint("spot", "", "PreferNoSchedule"), Taint("gpu", "yes", "NoExecute")),
))
_images = st.lists(st.sampled_from((ContainerImage(("app:v1",), 300 * 2**20), ContainerImage(("db:v2",), 2**30),
                                    ContainerImage(("tool",), 40 * 2**20))), max_size=3, unique=True).map(tuple)


@st.composite
def _node_infos(draw: st.DrawFn) -> list[NodeInfo]:
    """Snapshot clones of NodeInfos: cordoned, tainted, with images, ports, scalar resources, huge figures, and
    ghosts (pods but no node)."""
    infos = []
    for index in range(draw(st.integers(1, 12))):
        info = NodeInfo()
        if draw(st.integers(0, 9)) > 0:
            memory = draw(st.sampled_from((4 * GIB, 16 * GIB, HUGE, 5_000_000_123)))  # the last: not whole MiB
            info.set_node(Node(
                f"n{index}",
                allocatable=resource_list(cpu=draw(st.sampled_from((0, 2000, 8000))), memory=memory,
                                          pods=draw(st.sampled_from((1, 3, 110))), **{"example.com/gpu": 1}),
                labels=FrozenMap({LABEL_TOPOLOGY_ZONE: draw(st.sampled_from(("a", "b")))}),
                taints=draw(_taints), unschedulable=draw(st.booleans()), images=draw(_images)))
        for k in range(draw(st.integers(0, 3))):
            info.add_pod(draw(_pods(f"p{index}-{k}")))
        infos.append(info.snapshot())
    return infos


def _pods(uid: str) -> st.SearchStrategy[Pod]:
    container = st.builds(
        Container, name=st.just("c"),
        requests=st.sampled_from((resource_list(), resource_list(cpu=1500, memory=GIB),
                                  resource_list(memory=300_000_001),
                                  resource_list(cpu=500, ephemeral_storage=10), resource_list(memory=HUGE),
                                  resource_list(cpu=100, **{"example.com/gpu": 1}))),
        ports=st.sampled_from(((), (ContainerPort(80, host_port=8080),))),
        image=st.sampled_from(("", "app:v1", "db:v2", "tool")))
    return st.builds(
        Pod, uid=st.just(uid), name=st.just(uid), namespace=st.just("ns"),
        containers=st.lists(container, min_size=1, max_size=2).map(tuple),
        node_selector=st.sampled_from((FrozenMap(), FrozenMap({LABEL_TOPOLOGY_ZONE: "a"}))),
        tolerations=st.sampled_from(((), (Toleration("dedicated", "Equal", "batch", "NoSchedule"),),
                                     (Toleration(operator="Exists"),))),
    )


def _framework(infos: list[NodeInfo]) -> Framework:
    snapshot = Snapshot()
    snapshot.node_info_list = infos
    handle = Handle(snapshot=snapshot)
    return Framework(default_plugins(handle), score_weights=DEFAULT_SCORE_WEIGHTS, handle=handle)


def _with_rows(infos: list[NodeInfo], *, full: bool = False) -> NodeSlice:
    """The nodes with rows; ``full``: with every memo and image column slot taken, so plugins take their paths
    without memos."""
    columns = NodeColumns(infos)
    if full:
        for k in range(MAX_MEMO_COLUMNS):
            columns.memo_column(("taken", k))
        for k in range(MAX_IMAGE_COLUMNS):
            columns.image_column(f"taken-{k}")
        assert columns.memo_column("one more") is None and columns.image_column("one more") is None
    columns.refresh(infos, range(len(infos)))
    return NodeSlice(infos, columns, range(len(infos)))


FAST_PATH_EXAMPLES = {"ci": 300, "dev": 300, "thorough": 3000, "fast": 50}
"""Three times the profile's examples (the fast paths have many branches); ``fast`` (``ksspec verify``) runs 50."""


@property_settings(FAST_PATH_EXAMPLES)
@given(infos=_node_infos(), pod=_pods("p"))
def test_the_fast_framework_paths_agree_with_the_node_by_node_ones(infos: list[NodeInfo], pod: Pod) -> None:
    fwk = _framework(infos)
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod, infos)
    expected = [(i, status) for i, info in enumerate(infos)
                if (status := fwk.run_filter_plugins(state, pod, info)) is not None]
    run = fwk.nodes_filter_runner(state, pod)
    for nodes in (infos, _with_rows(infos), _with_rows(infos, full=True)):
        assert run(nodes) == expected
        for filter_plugin in fwk.filter_plugins:  # each plugin's own answers, for every node, as filter gives them
            if filter_plugin.name not in state.skip_filter_plugins:
                own = [(i, status) for i, info in enumerate(infos)
                       if (status := filter_plugin.filter(state, pod, info)) is not None
                       and status.code is not Code.SUCCESS]
                assert filter_plugin.filter_nodes(state, pod, nodes) == own, filter_plugin.name
                assert filter_plugin.filter_nodes(state, pod, nodes) == own, "again, with what rows keep"
    feasible = [info for i, info in enumerate(infos) if all(i != j for j, _ in expected)]
    if not feasible:
        return
    assert fwk.run_pre_score_plugins(state, pod, feasible) is None
    scores, status = fwk.run_score_plugins(state, pod, feasible)
    assert status is None
    names = [info.name for info in feasible]
    indices = [i for i, info in enumerate(infos) if info in feasible]
    for nodes in (feasible, NodeSlice(feasible, _with_rows(infos).columns, indices),
                  NodeSlice(feasible, _with_rows(infos, full=True).columns, indices)):
        assert fwk.run_score_plugins_totals(state, pod, nodes, names) == ([s.total_score for s in scores], None)
        for plugin in fwk.score_plugins:
            if plugin.name not in state.skip_score_plugins:
                one_by_one = [plugin.score(state, pod, info)[0] for info in feasible]
                assert plugin.score_nodes(state, pod, nodes) == (one_by_one, None)


@given(infos=_node_infos())
def test_a_row_holds_the_node_infos_figures(infos: list[NodeInfo]) -> None:
    rows = _with_rows(infos)
    assert rows.columns is not None
    columns = rows.columns
    for row, info in enumerate(infos):
        flags = columns.flags[row]
        node = info.node
        assert bool(flags & NO_NODE) == (node is None)
        assert bool(flags & TAINTED) == (node is not None and bool(node.taints))
        assert bool(flags & IMAGES) == bool(info.image_states)
        free, used = info.allocatable, info.requested
        assert columns.pod_room[row] == free.allowed_pod_number - len(info.pods)
        assert columns.free_memory[row] == free.memory - used.memory
        assert columns.allocatable_memory[row] == free.memory
        assert columns.non_zero_milli_cpu[row] == info.non_zero_requested.milli_cpu
        assert set(columns.labels[row]) == (set() if node is None else set(node.labels.items()))
    assert rows.names() == [info.name for info in infos]


def test_a_row_is_refreshed_when_its_node_info_changes() -> None:
    cache = Cache(clock=FakeClock())
    cache.add_node(Node("n1", allocatable=resource_list(cpu=4000, memory=8 * GIB, pods=110)))
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    nodes = snapshot.list_nodes()
    columns = NodeColumns(nodes)
    columns.refresh(nodes, [0])
    assert columns.free_milli_cpu[0] == 4000
    cache.add_pod(Pod("u1", name="p1", node_name="n1",
                      containers=(Container("c", requests=resource_list(cpu=1000)),)))
    cache.update_snapshot(snapshot)
    assert snapshot.list_nodes() is nodes  # the entry was refreshed in place
    columns.refresh(nodes, [0])
    assert columns.free_milli_cpu[0] == 3000 and columns.pod_room[0] == 109


def _figures(columns: NodeColumns) -> list[Any]:
    return [list(columns.flags), columns.pod_room, columns.free_milli_cpu, columns.free_memory,
            columns.free_ephemeral_storage, columns.allocatable_milli_cpu, columns.allocatable_memory,
            columns.non_zero_milli_cpu, columns.non_zero_memory, columns.names,
            [set(labels) for labels in columns.labels]]


@pytest.mark.parametrize("updates", [1, 3, 12])
def test_rows_that_follow_the_snapshot_log_are_those_computed_afresh(updates: int) -> None:
    """Rows refreshed from the snapshot's log of refreshed entries (the scheduler's) equal rows computed from
    every entry, also when the log overflowed unread (12 updates of one pod each on 5 nodes)."""
    cache = Cache(clock=FakeClock())
    for index in range(5):
        cache.add_node(Node(f"n{index}", allocatable=resource_list(cpu=4000, memory=8 * GIB, pods=110)))
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    nodes = snapshot.list_nodes()
    following = NodeColumns(nodes)
    following.follow(snapshot)
    lost = snapshot.refreshed_lost
    for k in range(updates):
        cache.add_pod(Pod(f"u{k}", name=f"p{k}", node_name=f"n{k % 5}",
                          containers=(Container("c", requests=resource_list(cpu=100 + k, memory=GIB)),)))
        cache.update_snapshot(snapshot)
    assert snapshot.list_nodes() is nodes
    assert (snapshot.refreshed_lost > lost) == (updates > 5)
    following.refresh(nodes[1:3], range(1, 3))  # any slice: every logged entry's row is refreshed
    afresh = NodeColumns(nodes)
    afresh.refresh(nodes, range(len(nodes)))
    assert _figures(following) == _figures(afresh)
    assert following.free_milli_cpu[0] == 4000 - sum(100 + k for k in range(0, updates, 5))  # the pods on n0
    assert not snapshot.refreshed  # read and cleared


# ================================================================================================
# Error paths and slicing
# ================================================================================================


class _Scripted(FilterPlugin, ScorePlugin):
    """Filter and Score answers by node name; records nothing (Filter plugins read only their arguments)."""

    def __init__(self, name: str, filters: dict[str, Status] | None = None, scores: dict[str, int] | None = None,
                 score_errors: Sequence[str] = (), normalize: Status | None = None) -> None:
        self.name = name
        self._filters = filters or {}
        self._scores = scores or {}
        self._score_errors = set(score_errors)
        self._normalize = normalize
        self.has_normalize = normalize is not None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return self._filters.get(node_info.name)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        if node_info.name in self._score_errors:
            return 0, Status(Code.ERROR, f"cannot score {node_info.name}")
        return self._scores.get(node_info.name, 50), None

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        return self._normalize


class _FilterOnly(FilterPlugin):
    """Filter answers by node name, and no Score (so one feasible node is enough)."""

    def __init__(self, name: str, filters: dict[str, Status]) -> None:
        self.name = name
        self._filters = filters

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return self._filters.get(node_info.name)


def _plain_nodes(count: int) -> list[NodeInfo]:
    infos = []
    for index in range(count):
        info = NodeInfo()
        info.set_node(Node(f"n{index}", allocatable=resource_list(cpu=1000, memory=GIB, pods=10)))
        infos.append(info.snapshot())
    return infos


def _both_searches(fwk: Framework, nodes: list[NodeInfo], start: int, to_find: int) -> list[Any]:
    outcomes = []
    for search in ("slices", "node by node", "slices with rows"):
        state, diagnosis = CycleState(), Diagnosis()
        if search == "node by node":
            feasible, error = _pass_filters_node_by_node(fwk, state, POD, diagnosis, nodes[start:] + nodes[:start],
                                                         to_find)
        else:
            columns = NodeColumns(nodes) if search == "slices with rows" else None
            feasible, error = _pass_filters_in_slices(fwk, state, POD, diagnosis, nodes, start, to_find, columns)
        outcomes.append(([info.name for info in feasible], error, _statuses(diagnosis)))
    return outcomes


POD = Pod("p", name="p", namespace="ns")
UNSCHEDULABLE = Status(Code.UNSCHEDULABLE, "no")


@pytest.mark.parametrize("start", [0, 7, 150, 299])
@pytest.mark.parametrize("to_find", [1, 3, 100, 300])
def test_slices_stop_where_the_node_by_node_search_stops(start: int, to_find: int) -> None:
    nodes = _plain_nodes(300)
    rejected = {f"n{i}": UNSCHEDULABLE for i in range(0, 300, 3)}
    fwk = Framework([_Scripted("A", filters=rejected), _Scripted("B", filters={"n4": UNSCHEDULABLE, "n5": Status(
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "never")})])
    slices, node_by_node, with_rows = _both_searches(fwk, nodes, start, to_find)
    assert slices == node_by_node == with_rows
    assert len(slices[0]) == min(to_find, 300 - len(rejected) - 2)


@pytest.mark.parametrize("error_at", [0, 5, MIN_FILTER_SLICE + 3, 250])
def test_a_filter_error_stops_both_searches_at_the_same_node(error_at: int) -> None:
    nodes = _plain_nodes(300)
    filters = {f"n{i}": UNSCHEDULABLE for i in range(1, 300, 4)} | {f"n{error_at}": Status(Code.ERROR, "on fire")}
    fwk = Framework([_Scripted("A", filters=filters)])
    slices, node_by_node, with_rows = _both_searches(fwk, nodes, 0, 200)
    assert slices == node_by_node == with_rows
    feasible, error, _ = slices
    if error_at < 260:
        assert error is not None and error.message() == 'running Filter plugin "A": on fire'
        assert f"n{error_at}" not in feasible


def _scheduler(fwk: Framework, fast: bool) -> Scheduler:
    clock = FakeClock()
    sched = Scheduler(Cache(clock=clock), SchedulingQueue(clock), fwk, client=FakeAPIServer(), clock=clock,
                      rng=random.Random(0))
    sched.fast_paths = fast
    return sched


@pytest.mark.parametrize(
    ("plugins", "message"),
    [
        # The first node that fails, and on it the first plugin: B at n1, though A fails (later) at n3.
        ([_Scripted("A", score_errors=["n3"]), _Scripted("B", score_errors=["n1", "n2"])],
         'running Score plugins: plugin "B" failed with: cannot score n1'),
        # Every Score runs before any NormalizeScore: B's Score error wins over A's normalize error.
        ([_Scripted("A", normalize=Status(Code.ERROR, "bad")), _Scripted("B", score_errors=["n2"])],
         'running Score plugins: plugin "B" failed with: cannot score n2'),
        ([_Scripted("A"), _Scripted("B", normalize=Status(Code.ERROR, "bad"))],
         'running Normalize on Score plugins: plugin "B" failed with: bad'),
        # The range check goes node by node: B's 101 at n0 before A's -1 at n2.
        ([_Scripted("A", scores={"n2": -1}), _Scripted("B", scores={"n0": 101})],
         'applying score defaultWeights on Score plugins: plugin "B" returns an invalid score 101, it should in the '
         'range of [0, 100] after normalizing'),
    ],
)
def test_score_failures_are_the_same_on_both_paths(plugins: list[_Scripted], message: str) -> None:
    nodes = _plain_nodes(4)
    fwk = Framework(plugins)
    outcomes = []
    for fast in (True, False):
        sched = _scheduler(fwk, fast)
        with pytest.raises(Exception) as raised:
            sched._prioritize_nodes(fwk, CycleState(), POD, nodes)
        outcomes.append(str(raised.value))
    assert outcomes == [message, message]


def test_scores_and_weights_are_the_same_on_both_paths() -> None:
    nodes = _plain_nodes(5)
    fwk = Framework([_Scripted("A", scores={"n1": 80, "n3": 0}), _Scripted("B", scores={"n2": 10})],
                    score_weights={"A": 3})
    results = [_scheduler(fwk, fast)._prioritize_nodes(fwk, CycleState(), POD, nodes) for fast in (True, False)]
    assert results[0] == results[1] == ([f"n{i}" for i in range(5)], [200, 290, 160, 50, 200])


@pytest.mark.parametrize("fast", [True, False])
def test_a_filter_error_on_the_hinted_node_is_only_logged(fast: bool, caplog: pytest.LogCaptureFixture) -> None:
    """``evaluateNominatedNode``'s error is logged and the search goes on over every node (findNodesThatFitPod);
    an error in that search fails the cycle, after the round-robin start moved past the nodes processed."""
    clock = FakeClock()
    cache = Cache(clock=clock)
    for index in range(4):
        cache.add_node(Node(f"n{index}", allocatable=resource_list(cpu=1000, memory=GIB, pods=10)))
    hinted_error = _FilterOnly("A", filters={"n1": Status(Code.ERROR, "on fire")})
    fwk = Framework([hinted_error])
    sched = Scheduler(cache, SchedulingQueue(clock), fwk, client=FakeAPIServer(), clock=clock,
                      rng=random.Random(0), opportunistic_batching=True)
    sched.fast_paths = fast
    assert sched.batches is not None
    sched.batches[fwk.scheduler_name].get_node_hint = lambda *_: ("n1", None)  # type: ignore[method-assign]
    cache.update_snapshot(sched.snapshot)
    feasible, _, hint, _ = sched._find_nodes_that_fit_pod(fwk, CycleState(), POD)
    assert hint == "n1" and "on fire" in caplog.text
    assert [info.name for info in feasible] == ["n0"]  # no Score plugin: one feasible node is enough
    assert sched.next_start_node_index == 1
    with pytest.raises(Exception, match="on fire"):
        sched._find_nodes_that_fit_pod(fwk, CycleState(), POD)  # n1 now comes first: an error, not a hint
    assert sched.next_start_node_index == 1  # nothing passed before n1, and its error is not counted


def test_normalize_values_agrees_with_normalize_score_for_the_taint_plugin() -> None:
    taint = next(p for p in default_plugins(Handle()) if p.name == "TaintToleration")
    assert isinstance(taint, ScorePlugin)
    for values in ([], [0, 0], [0, 3, 1], [5], [2, 2, 0]):
        scores = [NodeScore(f"n{i}", value) for i, value in enumerate(values)]
        taint.normalize_score(CycleState(), POD, scores)
        assert taint.normalize_values(CycleState(), POD, [s.name for s in scores], list(values)) == (
            [s.score for s in scores], None)


def test_a_cordoned_node_is_rejected_with_its_reason_on_the_fast_path() -> None:
    infos = _plain_nodes(2)
    cordoned = NodeInfo()
    cordoned.set_node(Node("c", allocatable=resource_list(cpu=1000, memory=GIB, pods=10), unschedulable=True))
    nodes = [infos[0], cordoned.snapshot(), infos[1]]
    fwk = _framework(nodes)
    state = CycleState()
    fwk.run_pre_filter_plugins(state, POD, nodes)
    assert fwk.nodes_filter_runner(state, POD)(_with_rows(nodes)) == [
        (1, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) were unschedulable", plugin="NodeUnschedulable"))]


class _SurvivorsOnly(FilterPlugin):
    """Records the nodes it is asked about; it may only be asked about nodes every earlier plugin passed."""

    def __init__(self, name: str, filters: dict[str, Status]) -> None:
        self.name = name
        self._filters = filters
        self.asked: list[str] = []

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        self.asked.append(node_info.name)
        return self._filters.get(node_info.name)


class _AnyNode(_Scripted):
    """A Filter plugin that answers for any node, so it is given the rejected nodes as well."""

    filters_any_node = True


def test_plugins_that_filter_any_node_keep_the_first_rejection_and_the_others_see_only_survivors() -> None:
    """``filters_any_node`` plugins are given nodes an earlier plugin rejected: each node still gets the first
    plugin's rejection, and a plugin that is not such a plugin is asked only about the survivors, as
    ``RunFilterPlugins`` asks it."""
    nodes = _plain_nodes(40)
    first = _AnyNode("A", filters={f"n{i}": UNSCHEDULABLE for i in range(0, 40, 2)})
    second = _AnyNode("B", filters={f"n{i}": Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "never")
                                    for i in range(0, 40, 3)})
    third = _SurvivorsOnly("C", filters={f"n{i}": UNSCHEDULABLE for i in range(0, 40, 5)})
    last = _AnyNode("D", filters={f"n{i}": Status(Code.UNSCHEDULABLE, "last") for i in range(40)})
    fwk = Framework([first, second, third, last])
    state = CycleState()
    expected = [(i, status) for i, info in enumerate(nodes)
                if (status := fwk.run_filter_plugins(state, POD, info)) is not None]
    survivors = [f"n{i}" for i in range(40) if i % 2 and i % 3]
    assert third.asked == survivors  # node by node, the same nodes
    third.asked.clear()
    run = fwk.nodes_filter_runner(state, POD)
    for candidates in (nodes, _with_rows(nodes)):
        assert run(candidates) == expected
        assert third.asked == survivors
        third.asked.clear()
    assert {status.plugin for _, status in expected} == {"A", "B", "C", "D"}
