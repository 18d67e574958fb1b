"""The framework runner: one profile's plugins, sorted into extension points, and the ``Run*Plugins`` methods.

``frameworkImpl`` (pkg/scheduler/framework/runtime/framework.go, v1.35). The order of the plugins given is their
order at every extension point (Kubernetes' ``MultiPoint`` order); Score plugins carry a weight. Error wrapping and
the early returns follow Kubernetes: Filter stops at the first rejecting plugin; PreFilter keeps going after an
Unschedulable (so that preemption has every plugin's data) but stops at UnschedulableAndUnresolvable; Reserve and
PreBind stop at the first failure; Unreserve runs every Reserve plugin in reverse order.

Kubernetes filters and scores nodes on 16 goroutines; this runs them one after another, which is one of the
orders Kubernetes may produce (digest §C.2c). :meth:`Framework.run_filter_plugins_with_nominated_pods` adds the
pods nominated to a node (of equal or higher priority) before filtering, as ``RunFilterPluginsWithNominatedPods``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from itertools import filterfalse, repeat
from operator import add, itemgetter, mul
from typing import Final

from refimpl.cache import NodeInfo
from refimpl.cache.clock import Clock
from refimpl.cache.node_tree import go_quote
from refimpl.scheduler.events import (
    DEFAULT_PLUGIN_EVENTS,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHintMap,
    build_queueing_hint_map,
    default_plugin_events,
)
from refimpl.scheduler.framework.cycle_state import CycleState
from refimpl.scheduler.framework.handle import Handle
from refimpl.scheduler.framework.interfaces import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    BindPlugin,
    FilterPlugin,
    NodeScore,
    PermitPlugin,
    Plugin,
    PostBindPlugin,
    PostFilterPlugin,
    PreBindPlugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ReservePlugin,
    ScorePlugin,
    SignPlugin,
)
from refimpl.scheduler.framework.node_slice import NodeSlice, gather
from refimpl.scheduler.framework.status import CODE_NAMES, Code, NodeToStatus, Status, as_status, is_success
from refimpl.scheduler.framework.waiting_pods import REMOVED_MESSAGE, WaitingPod, WaitingPods
from spec.objects import DEFAULT_SCHEDULER_NAME, Pod

_VALID_SCORES: Final = frozenset(range(MIN_NODE_SCORE, MAX_NODE_SCORE + 1))
MAX_PERMIT_TIMEOUT: Final = 15 * 60 * 1_000_000_000
"""``maxTimeout``: a Permit wait is capped at 15 minutes (nanoseconds)."""
SCHEDULER_NAME_SIGNATURE_KEY: Final = "v1.Pod.Spec.SchedulerName"


class PluginScore:
    """``fwk.PluginScore``: one plugin's weighted score of a node."""

    __slots__ = ("name", "score")

    def __init__(self, name: str, score: int) -> None:
        self.name = name
        self.score = score


class NodePluginScores:
    """``fwk.NodePluginScores``: a node's weighted plugin scores and their total. ``randomizer`` breaks ties in
    v1.35's host selection; it is set only from extender scores, which this scheduler has none of, so it is 0."""

    __slots__ = ("name", "randomizer", "scores", "total_score")

    def __init__(self, name: str, scores: list[PluginScore], total_score: int, randomizer: int = 0) -> None:
        self.name = name
        self.scores = scores
        self.total_score = total_score
        self.randomizer = randomizer

    def __repr__(self) -> str:
        return f"NodePluginScores({self.name!r}, total_score={self.total_score})"


class FrameworkError(Exception):
    """A plugin returned an error, or a profile is misconfigured."""


class Framework:
    """``frameworkImpl`` for one profile (scheduler name)."""

    def __init__(
        self,
        plugins: Sequence[Plugin],
        *,
        score_weights: Mapping[str, int] | None = None,
        scheduler_name: str = DEFAULT_SCHEDULER_NAME,
        percentage_of_nodes_to_score: int | None = None,
        clock: Clock | None = None,
        signing: bool = True,
        handle: Handle | None = None,
    ) -> None:
        """``handle`` is the one the plugins were built with (a fresh one if None). Fails with
        :class:`FrameworkError` on duplicate plugin names, a weight given for a plugin that does not score, or a
        weight below 1 (Kubernetes' profile validation)."""
        names = [p.name for p in plugins]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates or "" in names:
            raise FrameworkError(f"every plugin needs a unique, non-empty name; duplicated or empty: {duplicates}")
        self.scheduler_name = scheduler_name
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score
        self.handle = handle if handle is not None else Handle(clock=clock)
        self.clock: Clock = clock if clock is not None else self.handle.clock
        self.plugins = tuple(plugins)
        self.pre_filter_plugins = [p for p in plugins if isinstance(p, PreFilterPlugin)]
        self.filter_plugins = [p for p in plugins if isinstance(p, FilterPlugin)]
        self.post_filter_plugins = [p for p in plugins if isinstance(p, PostFilterPlugin)]
        self.pre_score_plugins = [p for p in plugins if isinstance(p, PreScorePlugin)]
        self.score_plugins = [p for p in plugins if isinstance(p, ScorePlugin)]
        self.reserve_plugins = [p for p in plugins if isinstance(p, ReservePlugin)]
        self.permit_plugins = [p for p in plugins if isinstance(p, PermitPlugin)]
        self.pre_bind_plugins = [p for p in plugins if isinstance(p, PreBindPlugin)]
        self.bind_plugins = [p for p in plugins if isinstance(p, BindPlugin)]
        self.post_bind_plugins = [p for p in plugins if isinstance(p, PostBindPlugin)]
        weights = dict(score_weights or {})
        scoring = {p.name for p in self.score_plugins}
        stray = sorted(set(weights) - scoring)
        if stray:
            raise FrameworkError(f"score weights given for plugins that do not score: {stray}")
        bad = sorted(name for name, weight in weights.items() if weight < 1)
        if bad:
            raise FrameworkError(f"score weights must be at least 1; got {[(n, weights[n]) for n in bad]}")
        self.score_weights = {name: weights.get(name, 1) for name in scoring}
        self.waiting_pods = WaitingPods()
        for plugin in self.post_filter_plugins:
            bind = getattr(plugin, "bind_framework", None)
            if bind is not None:
                bind(self)
        self._signers = self._batchable_plugins() if signing else None

    # -- queries ---------------------------------------------------------------------------

    def has_filter_plugins(self) -> bool:
        return bool(self.filter_plugins)

    def has_score_plugins(self) -> bool:
        return bool(self.score_plugins)

    def has_post_filter_plugins(self) -> bool:
        return bool(self.post_filter_plugins)

    def plugin(self, name: str) -> Plugin:
        """The plugin called ``name``. Fails with ``KeyError``."""
        for plugin in self.plugins:
            if plugin.name == name:
                return plugin
        raise KeyError(f"profile {self.scheduler_name!r} has no plugin {name!r}")

    # -- PreFilter, Filter, PostFilter -----------------------------------------------------

    def run_pre_filter_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None, set[str]]:
        """``RunPreFilterPlugins``: the merged node restriction, the status, and the plugins that narrowed."""
        result: PreFilterResult | None = None
        narrowing: set[str] = set()
        skipped: set[str] = set()
        returned: Status | None = None
        for plugin in self.pre_filter_plugins:
            restriction, status = plugin.pre_filter(state, pod, nodes)
            if status is not None and status.code is Code.SKIP:
                skipped.add(plugin.name)
                continue
            if not is_success(status):
                assert status is not None
                status = status.with_plugin(plugin.name)
                if status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                    return None, status, set()
                if status.code is Code.UNSCHEDULABLE:
                    returned = status
                    continue
                return None, _wrapped("running PreFilter plugin", plugin.name, status), set()
            if restriction is not None and not restriction.all_nodes():
                narrowing.add(plugin.name)
            result = restriction if result is None else result.merge(restriction)
            if result is not None and result.node_names is not None and not result.node_names:
                names = sorted(narrowing)
                if len(names) == 1:
                    message = f"node(s) didn't satisfy plugin {names[0]}"
                else:
                    message = f"node(s) didn't satisfy plugin(s) [{' '.join(names)}] simultaneously"
                return result, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, message), narrowing
        state.skip_filter_plugins = frozenset(skipped)
        return result, returned, narrowing

    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``RunFilterPlugins``: None if every (non-skipped) plugin passes, else the first rejection, attributed."""
        skip = state.skip_filter_plugins
        for plugin in self.filter_plugins:
            if skip and plugin.name in skip:
                continue
            status = plugin.filter(state, pod, node_info)
            if status is not None and status.code is not Code.SUCCESS:
                if not status.is_rejected():
                    return _wrapped("running Filter plugin", plugin.name, status)
                return status.with_plugin(plugin.name)
        return None

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``RunFilterPluginsWithNominatedPods``: first with the pods nominated to the node whose priority is at least
        the pod's (not the pod itself) added to a copy of the NodeInfo; then, if that passed and some pod was added,
        on the NodeInfo as it is. An Error stops at once; the result is the last status."""
        nominated = [p for p in self.handle.nominated_pods_for_node(node_info.name)
                     if p.priority >= pod.priority and p.uid != pod.uid]
        if nominated:  # addGENominatedPods: each pod added to a copy of the node and of the cycle state
            augmented = node_info.snapshot()
            state_out = state.clone()
            for other in nominated:
                augmented.add_pod(other)
                error = self.run_pre_filter_extension_add_pod(state_out, pod, other, augmented)
                if error is not None:
                    return error
            status = self.run_filter_plugins(state_out, pod, augmented)
            if status is not None:
                return status
        return self.run_filter_plugins(state, pod, node_info)

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status | None:
        """``RunPreFilterExtensionAddPod``: each PreFilter plugin with PreFilterExtensions (not skipped at
        PreFilter) counts ``pod_to_add`` on ``node_info``'s node in its cycle state; the first failure, as an
        Error."""
        return self._run_pre_filter_extension("AddPod", state, pod, pod_to_add, node_info)

    def run_pre_filter_extension_remove_pod(
        self, state: CycleState, pod: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status | None:
        """``RunPreFilterExtensionRemovePod``: as :meth:`run_pre_filter_extension_add_pod`, ``pod_to_remove``
        no longer counted on the node."""
        return self._run_pre_filter_extension("RemovePod", state, pod, pod_to_remove, node_info)

    def _run_pre_filter_extension(
        self, method: str, state: CycleState, pod: Pod, other: Pod, node_info: NodeInfo
    ) -> Status | None:
        skip = state.skip_filter_plugins
        for plugin in self.pre_filter_plugins:
            extension = getattr(plugin, _EXTENSION_METHODS[method], None)
            if extension is None or plugin.name in skip:
                continue
            status = extension(state, pod, other, node_info)
            if not is_success(status):
                assert status is not None
                return as_status(RuntimeError(
                    f"running {method} on PreFilter plugin {go_quote(plugin.name)}: {status.message()}"))
        return None

    def filter_runner(self, state: CycleState, pod: Pod) -> Callable[[NodeInfo], Status | None]:
        """:meth:`run_filter_plugins` for one cycle's pod, as a function of the node: the plugins skipped at
        PreFilter, and those that pass the pod everywhere, are left out once rather than per node."""
        skip = state.skip_filter_plugins
        plugins = [p for p in self.filter_plugins
                   if p.name not in skip and not p.passes_every_node(state, pod)]
        checks = [(p.filter, p.name) for p in plugins]

        def run(node_info: NodeInfo) -> Status | None:
            for check, name in checks:
                status = check(state, pod, node_info)
                if status is not None and status.code is not Code.SUCCESS:
                    if not status.is_rejected():
                        return _wrapped("running Filter plugin", name, status)
                    return status if status.plugin == name else status.with_plugin(name)
            return None

        return run

    def nodes_filter_runner(
        self, state: CycleState, pod: Pod
    ) -> Callable[[Sequence[NodeInfo]], list[tuple[int, Status]]]:
        """:meth:`run_filter_plugins` for one cycle's pod, as a function of a list of nodes: the index and status
        of every node that does not pass, in index order (the nodes not listed pass).

        Each plugin filters, in one call (:meth:`FilterPlugin.filter_nodes`), the nodes every earlier plugin
        passed, so each node gets the status :meth:`run_filter_plugins` gives it: the first plugin, in profile
        order, that does not pass it. A plugin that answers for any node (``filters_any_node``, the default
        plugins) is given the earlier plugins' rejected nodes as well, which saves copying the survivors; their
        first rejection stands. Kubernetes runs ``RunFilterPlugins`` for the nodes on 16 goroutines; this
        is one of the orders they may run the plugins in, and Filter plugins read only their arguments."""
        skip = state.skip_filter_plugins
        plugins = [p for p in self.filter_plugins
                   if p.name not in skip and not p.passes_every_node(state, pod)]

        def run(nodes: Sequence[NodeInfo]) -> list[tuple[int, Status]]:
            only: list[tuple[int, Status]] | None = None  # while one plugin rejected nodes: its rejections, in order
            rejected: dict[int, Status] = {}  # once several did: node index -> the first rejection
            candidates = nodes
            positions: Sequence[int] = range(len(nodes))  # candidates[j] is nodes[positions[j]]
            for plugin in plugins:
                count_rejected = len(rejected) if only is None else len(only)
                if len(positions) > len(nodes) - count_rejected and not plugin.filters_any_node:
                    if only is not None:
                        rejected, only = dict(only), None
                    positions = list(filterfalse(rejected.__contains__, positions))  # the survivors, taken in C
                    candidates = _subset(nodes, positions)
                found = plugin.filter_nodes(state, pod, candidates)
                if not found:
                    continue
                name = plugin.name
                statuses = list(map(_second, found))
                distinct = dict(zip(map(id, statuses), statuses, strict=True))  # plugins share statuses
                attributed = {key: _attributed(name, status) for key, status in distinct.items()}
                renamed = any(attributed[key] is not status for key, status in distinct.items())
                if renamed:
                    statuses = list(map(attributed.__getitem__, map(id, statuses)))
                identity = isinstance(positions, range) and not positions.start  # candidates[j] is nodes[j]
                if only is None and not rejected:  # the first plugin to reject any: its list, as it is if it can be
                    only = found if identity and not renamed else list(zip(
                        map(_first, found) if identity else map(positions.__getitem__, map(_first, found)),
                        statuses, strict=True))
                    continue
                if only is not None:
                    rejected, only = dict(only), None
                indices: Sequence[int] = list(map(_first, found))
                if not identity:
                    indices = list(map(positions.__getitem__, indices))
                found_now = dict(zip(indices, statuses, strict=True))
                found_now.update(rejected)  # a node an earlier plugin rejected keeps that status
                rejected = found_now
            if only is not None:
                return only
            return sorted(rejected.items()) if len(rejected) > 1 else list(rejected.items())

        return run

    def run_post_filter_plugins(
        self, state: CycleState, pod: Pod, node_to_status: NodeToStatus
    ) -> tuple[str | None, Status]:
        """``RunPostFilterPlugins``: stop at the first Success, UnschedulableAndUnresolvable or Error; otherwise
        Unschedulable with every plugin's reasons. Returns the nominated node (if any) and the status."""
        reasons: list[str] = []
        rejector = ""
        nominated: str | None = None
        for plugin in self.post_filter_plugins:
            node, status = plugin.post_filter(state, pod, node_to_status)
            if status.is_success():
                return node, status
            if status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return node, status.with_plugin(plugin.name)
            if not status.is_rejected():
                return None, as_status(RuntimeError(status.message())).with_plugin(plugin.name)
            reasons.extend(status.reasons)
            rejector = rejector or plugin.name
            nominated = node if node is not None else nominated
        return nominated, Status(Code.UNSCHEDULABLE, *reasons, plugin=rejector)

    # -- PreScore, Score -------------------------------------------------------------------

    def run_pre_score_plugins(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """``RunPreScorePlugins``: Skip removes the plugin from scoring; any other failure is an Error."""
        skipped: set[str] = set()
        for plugin in self.pre_score_plugins:
            status = plugin.pre_score(state, pod, nodes)
            if status is not None and status.code is Code.SKIP:
                skipped.add(plugin.name)
                continue
            if not is_success(status):
                assert status is not None
                return _wrapped("running PreScore plugin", plugin.name, status)
        state.skip_score_plugins = frozenset(skipped)
        return None

    def run_score_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[NodePluginScores], Status | None]:
        """``RunScorePlugins`` as Kubernetes writes it, node by node: every (non-skipped) plugin's Score of each
        node, then each plugin's NormalizeScore, then the range check and the weights, keeping each plugin's
        weighted score per node. Go runs each phase on 16 goroutines; this is the sequential order (the first
        node, and on it the first plugin, that fails). :meth:`run_score_plugins_totals` is the fast path."""
        skip = state.skip_score_plugins
        plugins = [p for p in self.score_plugins if p.name not in skip]
        names = [info.name for info in nodes]
        plugin_scores = {p.name: [NodeScore(name, 0) for name in names] for p in plugins}
        for index, info in enumerate(nodes):
            for plugin in plugins:
                value, status = plugin.score(state, pod, info)
                if not is_success(status):
                    assert status is not None
                    return [], _plugin_failed("running Score plugins", plugin.name, status)
                plugin_scores[plugin.name][index].score = value
        for plugin in plugins:
            if plugin.has_normalize:
                status = plugin.normalize_score(state, pod, plugin_scores[plugin.name])
                if not is_success(status):
                    assert status is not None
                    return [], _plugin_failed("running Normalize on Score plugins", plugin.name, status)
        result: list[NodePluginScores] = []
        for index, name in enumerate(names):
            scores: list[PluginScore] = []
            total = 0
            for plugin in plugins:
                value = plugin_scores[plugin.name][index].score
                if not MIN_NODE_SCORE <= value <= MAX_NODE_SCORE:
                    return [], _invalid_score(plugin.name, value)
                weighted = value * self.score_weights[plugin.name]
                scores.append(PluginScore(plugin.name, weighted))
                total += weighted
            result.append(NodePluginScores(name, scores, total))
        return result, None

    def run_score_plugins_totals(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo], names: Sequence[str]
    ) -> tuple[list[int], Status | None]:
        """:meth:`run_score_plugins`' totals, in the order of ``nodes``, and the same status, faster: each plugin
        scores all the nodes in one call (:meth:`ScorePlugin.score_nodes`) and normalizes a list of integers
        (:meth:`ScorePlugin.normalize_values`), and no per-plugin breakdown is kept. Where several nodes fail, the
        one reported is the one :meth:`run_score_plugins` reports: the first node, and on it the first plugin."""
        skip = state.skip_score_plugins
        plugins = [p for p in self.score_plugins if p.name not in skip]
        scored: list[list[int]] = []
        failed: tuple[int, int, Status] | None = None  # (node index, plugin index, status) of the first failure
        for k, plugin in enumerate(plugins):
            values, status = plugin.score_nodes(state, pod, nodes)
            failing = status is not None and status.code is not Code.SUCCESS  # values: the nodes before it
            if failing and (failed is None or len(values) < failed[0]):
                assert status is not None
                failed = (len(values), k, status)
            scored.append(values)
        if failed is not None:
            return [], _plugin_failed("running Score plugins", plugins[failed[1]].name, failed[2])
        for k, plugin in enumerate(plugins):
            if plugin.has_normalize:
                values, status = plugin.normalize_values(state, pod, names, scored[k])
                if not is_success(status):
                    assert status is not None
                    return [], _plugin_failed("running Normalize on Score plugins", plugin.name, status)
                scored[k] = values
        invalid: tuple[int, int] | None = None  # (node index, plugin index) of the first score out of range
        for k, values in enumerate(scored):
            if not _VALID_SCORES.issuperset(values) and (  # the set: one pass in C for the usual integers
                    min(values) < MIN_NODE_SCORE or max(values) > MAX_NODE_SCORE):
                index = next(i for i, v in enumerate(values) if not MIN_NODE_SCORE <= v <= MAX_NODE_SCORE)
                if invalid is None or index < invalid[0]:
                    invalid = (index, k)
        if invalid is not None:
            index, k = invalid
            return [], _invalid_score(plugins[k].name, scored[k][index])
        totals = [0] * len(nodes)
        for plugin, values in zip(plugins, scored, strict=True):
            weight = self.score_weights[plugin.name]
            weighted = values if weight == 1 else map(mul, values, repeat(weight))
            totals = list(map(add, totals, weighted))  # map: a loop in C, not a bytecode loop
        return totals, None

    # -- Reserve, Permit -------------------------------------------------------------------

    def run_reserve_plugins_reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """``RunReservePluginsReserve``: stop at the first failure."""
        for plugin in self.reserve_plugins:
            status = plugin.reserve(state, pod, node_name)
            if not is_success(status):
                assert status is not None
                if status.is_rejected():
                    return status.with_plugin(plugin.name)
                return _wrapped("running Reserve plugin", plugin.name, status, attribute=False)
        return None

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """``RunReservePluginsUnreserve``: every Reserve plugin, in reverse order."""
        for plugin in reversed(self.reserve_plugins):
            plugin.unreserve(state, pod, node_name)

    def run_permit_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """``RunPermitPlugins``: a rejection returns at once; Wait (timeout capped at 15 minutes) from any plugin
        adds a waiting pod and returns Wait; other failures are Errors."""
        waits: dict[str, int] = {}
        for plugin in self.permit_plugins:
            status, timeout = plugin.permit(state, pod, node_name)
            if is_success(status):
                continue
            assert status is not None
            if status.is_rejected():
                return status.with_plugin(plugin.name)
            if status.code is Code.WAIT:
                waits[plugin.name] = min(timeout, MAX_PERMIT_TIMEOUT)
                continue
            return _wrapped("running Permit plugin", plugin.name, status)
        if waits:
            self.waiting_pods.add(WaitingPod(pod, node_name, waits, self.clock))
            message = f"one or more plugins asked to wait and no plugin rejected pod {go_quote(pod.name)}"
            return Status(Code.WAIT, message)
        return None

    def get_waiting_pod(self, uid: str) -> WaitingPod | None:
        """``GetWaitingPod``."""
        return self.waiting_pods.get(uid)

    def reject_waiting_pod(self, uid: str) -> bool:
        """``RejectWaitingPod``: reject a waiting pod with "removed"; False if it is not waiting."""
        waiting = self.waiting_pods.get(uid)
        if waiting is None:
            return False
        waiting.reject("", REMOVED_MESSAGE)
        return True

    # -- PreBind, Bind, PostBind -----------------------------------------------------------

    def run_pre_bind_pre_flights(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """``RunPreBindPreFlights``: success if any plugin's pre-flight succeeds, Skip if all skip (or there are
        none); the skipping plugins' PreBind is then not run."""
        skipped: set[str] = set()
        returned: Status | None = Status(Code.SKIP)
        for plugin in self.pre_bind_plugins:
            status = plugin.pre_bind_pre_flight(state, pod, node_name)
            code = Code.SUCCESS if status is None else status.code
            if code is Code.ERROR:
                assert status is not None
                return _wrapped("running PreBindPreFlight", plugin.name, status, attribute=False)
            if code is Code.SUCCESS:
                returned = None
            elif code is Code.SKIP:
                skipped.add(plugin.name)
            else:
                return as_status(RuntimeError(
                    f"PreBindPreFlight {plugin.name} returned {go_quote(CODE_NAMES[code])}, which is unsupported. It "
                    "is supposed to return Success, Skip, or Error status"))
        state.skip_pre_bind_plugins = frozenset(skipped)
        return returned

    def run_pre_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """``RunPreBindPlugins``: stop at the first failure."""
        skip = state.skip_pre_bind_plugins
        for plugin in self.pre_bind_plugins:
            if plugin.name in skip:
                continue
            status = plugin.pre_bind(state, pod, node_name)
            if not is_success(status):
                assert status is not None
                if status.is_rejected():
                    return status.with_plugin(plugin.name)
                return _wrapped("running PreBind plugin", plugin.name, status)
        return None

    def run_post_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """``RunPostBindPlugins``."""
        for plugin in self.post_bind_plugins:
            plugin.post_bind(state, pod, node_name)

    # -- Events that may make a rejected pod schedulable ------------------------------------

    def queueing_hint_map(self, queueing_hints_enabled: bool = True) -> QueueingHintMap:
        """``EnqueueExtensions`` turned into the queue's hint map (``buildQueueingHintMap``): every plugin that can
        reject a pod (PreFilter, Filter, Reserve, Permit, PreBind) registers its events: a default plugin its
        v1.35 ``EventsToRegister``, a plugin with an ``events_to_register()`` method those, and any other plugin
        every Pod and Node event (``defaultEnqueueExtension``: "we don't know which events the plugin is
        interested in")."""
        registrations: dict[str, list[ClusterEventWithHint]] = {}
        rejectors: list[Sequence[Plugin]] = [self.pre_filter_plugins, self.filter_plugins, self.reserve_plugins,
                                             self.permit_plugins, self.pre_bind_plugins]
        for point in rejectors:
            for plugin in point:
                if plugin.name in registrations:
                    continue
                if plugin.name in DEFAULT_PLUGIN_EVENTS:
                    events = default_plugin_events(plugin.name, queueing_hints_enabled)
                    registrations[plugin.name] = [ClusterEventWithHint(event) for event in events]
                    continue
                custom = getattr(plugin, "events_to_register", None)
                if callable(custom):
                    registrations[plugin.name] = list(custom())
                else:
                    registrations[plugin.name] = [ClusterEventWithHint(ClusterEvent(resource, ActionType.ALL))
                                                  for resource in (EventResource.POD, EventResource.NODE)]
        return build_queueing_hint_map(registrations, queueing_hints_enabled)

    # -- Signatures (KEP-5598) -------------------------------------------------------------

    def _batchable_plugins(self) -> list[SignPlugin] | None:
        """``computeBatchablePlugins``: signing is possible only if every PreFilter, Filter, PreScore and Score
        plugin can sign; the signers, each once, in that order. None if some plugin cannot."""
        signers: list[SignPlugin] = []
        seen: set[str] = set()
        points: list[Sequence[Plugin]] = [self.pre_filter_plugins, self.filter_plugins, self.pre_score_plugins,
                                          self.score_plugins]
        for point in points:
            for plugin in point:
                if not isinstance(plugin, SignPlugin):
                    return None
                if plugin.name not in seen:
                    seen.add(plugin.name)
                    signers.append(plugin)
        return signers

    @property
    def signing_enabled(self) -> bool:
        return self._signers is not None

    def sign_pod(self, pod: Pod) -> bytes | None:
        """``SignPod``: the canonical JSON of every signer's fragments and the scheduler name; None if signing is
        disabled or a plugin refuses."""
        if self._signers is None:
            return None
        fragments = {SCHEDULER_NAME_SIGNATURE_KEY: pod.scheduler_name}
        for plugin in self._signers:
            parts, status = plugin.sign_pod(pod)
            if not is_success(status):
                return None
            for key, value in parts:
                fragments[key] = value
        return json.dumps(fragments, sort_keys=True, separators=(",", ":")).encode()


_first, _second = itemgetter(0), itemgetter(1)


_EXTENSION_METHODS: Final = {"AddPod": "add_pod", "RemovePod": "remove_pod"}
"""PreFilterExtensions' methods by their Go names: a PreFilter plugin that has them has PreFilterExtensions."""


def _attributed(plugin: str, status: Status) -> Status:
    """``RunFilterPlugins``' status for ``plugin``'s ``status``: a rejection names the plugin, an error is
    wrapped."""
    if not status.is_rejected():
        return _wrapped("running Filter plugin", plugin, status)
    return status if status.plugin == plugin else status.with_plugin(plugin)


def _subset(nodes: Sequence[NodeInfo], positions: list[int]) -> Sequence[NodeInfo]:
    """The nodes at ``positions`` (a NodeSlice keeps their rows)."""
    infos = list(gather(nodes, positions))
    if isinstance(nodes, NodeSlice) and nodes.columns is not None:
        return NodeSlice(infos, nodes.columns, list(gather(nodes.rows, positions)))
    return infos


def _plugin_failed(prefix: str, plugin: str, status: Status) -> Status:
    """The Error status of a failed Score or NormalizeScore: "<prefix>: plugin "<plugin>" failed with: <error>"."""
    return as_status(RuntimeError(f"{prefix}: plugin {go_quote(plugin)} failed with: {status.as_error()}"))


def _invalid_score(plugin: str, score: int) -> Status:
    """The Error status of a score outside [0, 100] after normalizing."""
    return as_status(RuntimeError(
        f"applying score defaultWeights on Score plugins: plugin {go_quote(plugin)} returns an invalid score "
        f"{score}, it should in the range of [{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"))


def _wrapped(prefix: str, plugin: str, status: Status, *, attribute: bool = True) -> Status:
    """An Error status "<prefix> "<plugin>": <message>", as Kubernetes wraps a plugin's unexpected status."""
    error = RuntimeError(f"{prefix} {go_quote(plugin)}: {status.message()}")
    wrapped = Status(Code.ERROR, str(error), error=error)
    return wrapped.with_plugin(plugin) if attribute else wrapped
