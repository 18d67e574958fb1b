"""The plugin interfaces of the scheduling framework, one class per extension point.

``fwk.PreFilterPlugin`` ... ``fwk.PostBindPlugin`` and ``fwk.SignPlugin`` (k8s.io/kube-scheduler
framework/interface.go, v0.35.0), without Go's ``context`` argument. A plugin is an object with a ``name`` that
subclasses the classes of the extension points it implements; the framework sorts the plugins of a profile into
the points by ``isinstance`` once, at construction.

A success may be returned as ``None`` (Go's nil ``*Status``). Two extension points may have to *wait*: Permit
(``Wait`` plus a timeout) and Bind (the DefaultBinder waits for the API dispatcher's outcome). A Bind plugin that
must wait returns an :class:`Awaiting`; the binding cycle (:mod:`refimpl.scheduler.binding_cycle`) then suspends
until the outcome is there, which lets a driver step binding cycles on one thread, or block on their own threads.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from refimpl.cache import NodeInfo
from refimpl.scheduler.framework.cycle_state import CycleState
from refimpl.scheduler.framework.status import Code, NodeToStatus, Status
from spec.objects import Pod

MAX_NODE_SCORE: Final = 100
"""``fwk.MaxNodeScore``."""
MIN_NODE_SCORE: Final = 0
"""``fwk.MinNodeScore``."""
MAX_TOTAL_SCORE: Final = (1 << 63) - 1
"""``fwk.MaxTotalScore`` (math.MaxInt64)."""


class Plugin:
    """``fwk.Plugin``: every plugin has a name, unique within a profile."""

    name: str = ""


@dataclass(frozen=True)
class PreFilterResult:
    """``fwk.PreFilterResult``: the only nodes worth filtering (None: all of them)."""

    node_names: frozenset[str] | None = None

    def all_nodes(self) -> bool:
        """``AllNodes``."""
        return self.node_names is None

    def merge(self, other: PreFilterResult | None) -> PreFilterResult:
        """``Merge``: the intersection of two restrictions."""
        if other is None or other.node_names is None:
            return self
        if self.node_names is None:
            return other
        return PreFilterResult(self.node_names & other.node_names)


class PreFilterPlugin(Plugin, ABC):
    """``PreFilterPlugin``: runs once per cycle before Filter; may narrow the nodes, or return Skip."""

    @abstractmethod
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]: ...


class FilterPlugin(Plugin, ABC):
    """``FilterPlugin``: may ``pod`` run on this node? Success (None), or a rejection naming why."""

    filters_any_node: bool = False
    """True if :meth:`filter_nodes` may be given nodes an earlier plugin rejected (Kubernetes asks a plugin only
    about the nodes every earlier plugin passed): it reads only its arguments and answers for any NodeInfo. The
    framework then keeps each node's first rejection instead of taking the rejected nodes out of the slice first.
    The default plugins are such plugins."""

    @abstractmethod
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None: ...

    def passes_every_node(self, state: CycleState, pod: Pod) -> bool:
        """True if :meth:`filter` passes ``pod`` on any node whatsoever, so a cycle may leave it out (a speed-up
        with no visible effect; Kubernetes calls the plugin anyway)."""
        return False

    def filter_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[tuple[int, Status]]:
        """:meth:`filter` of each of ``nodes``: the index and status of every node it does not pass (any status
        but a success), in index order. A plugin may override it with a faster loop that must give the same
        statuses as :meth:`filter` node by node (Kubernetes filters nodes on 16 goroutines, so a Filter plugin
        reads only its arguments and may be called for the nodes in any order)."""
        return filter_each(self, state, pod, nodes, range(len(nodes)))


def filter_each(
    plugin: FilterPlugin, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo], indices: Iterable[int]
) -> list[tuple[int, Status]]:
    """``plugin.filter`` of ``nodes[i]`` for each of ``indices`` (ascending): the (index, status) of every node it
    does not pass. A fast :meth:`FilterPlugin.filter_nodes` finds the nodes its quick test cannot pass and asks
    this for their exact statuses."""
    check = plugin.filter
    rejected: list[tuple[int, Status]] = []
    for index in indices:
        status = check(state, pod, nodes[index])
        if status is not None and status.code is not Code.SUCCESS:
            rejected.append((index, status))
    return rejected


class PostFilterPlugin(Plugin, ABC):
    """``PostFilterPlugin``: runs when no node fits (preemption); its result may nominate a node."""

    @abstractmethod
    def post_filter(self, state: CycleState, pod: Pod, node_to_status: NodeToStatus) -> tuple[str | None, Status]: ...


class PreScorePlugin(Plugin, ABC):
    """``PreScorePlugin``: runs once before Score over the feasible nodes; may return Skip."""

    @abstractmethod
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None: ...


class NodeScore:
    """``fwk.NodeScore``: a node's name and one plugin's score for it (mutable: NormalizeScore rewrites it)."""

    __slots__ = ("name", "score")

    def __init__(self, name: str, score: int) -> None:
        self.name = name
        self.score = score

    def __repr__(self) -> str:
        return f"NodeScore({self.name!r}, {self.score})"


class ScorePlugin(Plugin, ABC):
    """``ScorePlugin``: a score in [0, 100] per feasible node; ``normalize_score`` (``ScoreExtensions``) is
    called after all nodes are scored if :attr:`has_normalize` is True."""

    has_normalize: bool = False

    @abstractmethod
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]: ...

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[list[int], Status | None]:
        """Score every node: the loop Kubernetes runs on 16 goroutines. A plugin may override it with a faster
        loop that must give the same scores as :meth:`score` node by node."""
        values: list[int] = []
        append = values.append
        score = self.score
        for info in nodes:
            value, status = score(state, pod, info)
            if status is not None and status.code is not Code.SUCCESS:
                return values, status
            append(value)
        return values, None

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """``NormalizeScore``: rewrite ``scores`` in place."""
        return None

    def normalize_values(
        self, state: CycleState, pod: Pod, names: Sequence[str], values: list[int]
    ) -> tuple[list[int], Status | None]:
        """:meth:`normalize_score` of the nodes ``names`` scored ``values``: the normalized values. A plugin may
        override it with a loop over the integers that must give the same values as :meth:`normalize_score`."""
        scores = [NodeScore(name, value) for name, value in zip(names, values, strict=True)]
        status = self.normalize_score(state, pod, scores)
        return [s.score for s in scores], status


class ReservePlugin(Plugin, ABC):
    """``ReservePlugin``: Reserve after assume; Unreserve, which must be idempotent, on any later failure."""

    @abstractmethod
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...

    @abstractmethod
    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None: ...


class PermitPlugin(Plugin, ABC):
    """``PermitPlugin``: Success, a rejection, or Wait with a timeout in nanoseconds."""

    @abstractmethod
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, int]: ...


class PreBindPlugin(Plugin, ABC):
    """``PreBindPlugin``: work before the bind (volumes, claims). ``pre_bind_pre_flight`` answers Skip when
    PreBind would do nothing (v1.34+)."""

    def pre_bind_pre_flight(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return None

    @abstractmethod
    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...


class Wait(Protocol):
    """Something a binding cycle waits for: a driver asks :meth:`poll` (single-threaded) or calls :meth:`block`."""

    description: str

    def poll(self) -> bool:
        """Whether the outcome is available now (never blocks)."""
        ...

    def block(self) -> None:
        """Block the calling thread until the outcome is available."""
        ...


class Receivable(Protocol):
    """The receiving end of a result channel (``refimpl.dispatcher.ResultChannel`` is one)."""

    def receive(self, timeout: float | None = None) -> Exception | None: ...

    def ready(self) -> bool:
        """Whether a value is waiting, so that ``receive(0)`` returns it (the channel has one receiver)."""
        ...


class Awaiting:
    """A Bind in progress: its status is ``finish(outcome)`` once ``channel`` delivers the call's outcome."""

    __slots__ = ("_outcome", "_received", "channel", "description", "finish")

    def __init__(
        self, channel: Receivable, finish: Callable[[Exception | None], Status | None], description: str
    ) -> None:
        self.channel = channel
        self.finish = finish
        self.description = description
        self._received = False
        self._outcome: Exception | None = None

    def poll(self) -> bool:
        if not self._received:
            if not self.channel.ready():  # asked first: a driver polls often, and a TimeoutError costs
                return False
            self._outcome = self.channel.receive(0)
            self._received = True
        return True

    def block(self) -> None:
        if not self._received:
            self._outcome = self.channel.receive(None)
            self._received = True

    def status(self) -> Status | None:
        """The final status; only after :meth:`poll` returned True or :meth:`block` returned."""
        assert self._received, "the outcome was not received yet"
        return self.finish(self._outcome)


class BindPlugin(Plugin, ABC):
    """``BindPlugin``: Skip (let the next binder try), a status, or an :class:`Awaiting` for an asynchronous bind."""

    @abstractmethod
    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | Awaiting | None: ...


class PostBindPlugin(Plugin, ABC):
    """``PostBindPlugin``: informational, after a successful bind."""

    @abstractmethod
    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None: ...


SignFragment = tuple[str, str]
"""``fwk.SignFragment``: a key (``v1.Pod.Spec...``) and a canonical JSON value."""


class SignPlugin(Plugin, ABC):
    """``SignPlugin`` (KEP-5598): the fragments of the pod that this plugin's verdicts depend on; a rejection
    means the pod cannot be batched."""

    @abstractmethod
    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], Status | None]: ...
