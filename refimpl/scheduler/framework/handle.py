"""What plugins may reach besides their arguments: ``fwk.Handle`` (framework/interface.go), reduced to the parts the
default plugins use: the cycle's snapshot, the clock, and the way to the API server."""

from __future__ import annotations

from refimpl.cache import Snapshot
from refimpl.cache.clock import Clock, SystemClock
from refimpl.dispatcher import APICacher, APIClient, Context


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
