"""What plugins may reach besides their arguments: ``fwk.Handle`` (framework/interface.go), reduced to the parts the
default plugins use: the cycle's snapshot, the clock, the way to the API server, the nominator, and the namespace
lister."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from refimpl.cache import Snapshot
from refimpl.cache.clock import Clock, SystemClock
from refimpl.dispatcher import APICacher, APIClient, Context
from spec.objects import Pod


class Handle:
    """``fwk.Handle``: shared by a profile's plugins. The scheduler refreshes :attr:`snapshot` at the start of
    every scheduling cycle (``SnapshotSharedLister``)."""

    def __init__(
        self,
        *,
        clock: Clock | None = None,
        client: APIClient | None = None,
        api_cacher: APICacher | None = None,
        snapshot: Snapshot | None = None,
    ) -> None:
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.client = client
        """The API client used for synchronous calls (``SchedulerAsyncAPICalls`` off)."""
        self.api_cacher = api_cacher
        """``APICacher()``: non-None when API calls go through the dispatcher."""
        self.snapshot = snapshot if snapshot is not None else Snapshot()
        self.context = Context()
        """The context synchronous API calls run under; cancelled when the scheduler stops."""
        self.nominated_pods_for_node: Callable[[str], list[Pod]] = _no_nominated_pods
        """``PodNominator.NominatedPodsForNode``: the scheduler points it at its queue's nominator."""
        self.clear_nominated_node_name: Callable[[Pod], None] = _ignore
        """``clearNominatedNodeName`` for one pod (a status patch); the scheduler points it at its API access."""
        self.namespaces: Mapping[str, Mapping[str, str]] = {}
        """The namespace informer's lister (``SharedInformerFactory().Core().V1().Namespaces().Lister()``): each
        namespace's labels, by name; whoever plays the API server points it at its namespaces. None by default."""


def _no_nominated_pods(node: str) -> list[Pod]:
    return []


def _ignore(pod: Pod) -> None:
    return None
