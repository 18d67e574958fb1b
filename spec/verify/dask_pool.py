"""The partitioned search's workers on a Dask cluster: ``ksspec check --cluster ADDRESS``.

:mod:`spec.verify.parallel` drives its workers in rounds (expand, claim, ship, receive) through a *pool*: its
own forked processes behind pipes for ``-j``, or :class:`DaskPool` here, which keeps each worker's part of the
search (:class:`spec.verify.parallel._Worker`: its seen fingerprints, the states it owns and will expand) in a
`Dask actor <https://distributed.dask.org/en/stable/actors.html>`_ pinned to one Dask worker process. Each round
is one actor call per partition, and only what the coordinator decides with travels to and from it: the
fingerprints and keys of the claim round, the violations, and at the end each partition's figures. In the ship
round the partitions send the states' pickles to their owners' actors themselves, worker to worker (``-j``'s
workers send them through the coordinator's pipes).

There is one partition per Dask worker process; a worker should run one thread (``dask worker --nthreads 1``):
the search is pure Python, so a second partition in the same process would wait for the first's GIL.

``distributed`` is an optional dependency (the ``distributed`` extra): it is imported only when a cluster is
asked for, and :func:`connect` names the extra when it is missing.
"""

from __future__ import annotations

import logging
import re
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final

from spec.verify.exploration import fewer_collections
from spec.verify.transition_system import TransitionSystem

if TYPE_CHECKING:
    from distributed import Client

LOCAL: Final = re.compile(r"local:(\d+)")
"""``local:N``: start a cluster of N worker processes on this machine for the run (and stop it after)."""
MAX_LOCAL_WORKERS: Final = 256
MISSING: Final = (
    "--cluster needs Dask's distributed scheduler, which is not installed: "
    "pip install 'kube-scheduler-spec[distributed]' (or: pip install 'dask[distributed]'); "
    "without it, use -j N on one machine"
)
COMMANDS: Final = frozenset({"seed", "expand", "claim", "ship", "receive", "commit", "hop", "totals"})
"""The rounds and queries of :class:`spec.verify.parallel._Worker` the coordinator may call."""


class EngineMissing(RuntimeError):
    """``--cluster`` was given but ``distributed`` is not installed."""


class ClusterFailed(RuntimeError):
    """A Dask worker could not run its part: a partition of the search, a seed of a sweep (most often because it
    has another version of the package installed, or none)."""


SAME_VERSION: Final = "every worker needs the same version of kube-scheduler-spec installed as this process"


def cluster_address(text: str) -> str:
    """Check a ``--cluster`` value: ``local:N`` (1 <= N <= 256) or a scheduler address such as
    ``tcp://host:8786``. Fails with ``ValueError`` saying what is wanted."""
    local = LOCAL.fullmatch(text)
    if local is not None:
        if not 1 <= int(local.group(1)) <= MAX_LOCAL_WORKERS:
            raise ValueError(f"--cluster local:N wants 1 <= N <= {MAX_LOCAL_WORKERS}, got {text!r}")
        return text
    if "://" not in text or text.endswith("://"):
        raise ValueError(
            f"--cluster wants a Dask scheduler address (tcp://host:8786) or local:N (N local workers), got {text!r}"
        )
    return text


@contextmanager
def connect(address: str) -> Iterator[Client]:
    """A client of the Dask cluster at ``address`` (see :func:`cluster_address`), closed on leaving; for
    ``local:N``, a cluster of N single-threaded worker processes on this machine, stopped on leaving.
    Fails with :class:`EngineMissing` if ``distributed`` is not installed."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as error:
        raise EngineMissing(MISSING) from error
    local = LOCAL.fullmatch(cluster_address(address))
    if local is None:
        # direct_to_workers: an actor call goes to its worker, not through the scheduler (its default).
        with Client(address, direct_to_workers=True) as client, _quiet_if_cut_short():  # type: ignore[no-untyped-call]
            yield client
        return
    with _sigint_ignored():  # the workers start with SIGINT ignored, and so keep it ignored
        cluster = LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=int(local.group(1)), threads_per_worker=1, processes=True, dashboard_address=":0",
            silence_logs=logging.CRITICAL,  # what the workers log as they are stopped in the middle of a task
        )
    with cluster, Client(cluster, direct_to_workers=True) as client, _quiet_if_cut_short():  # type: ignore[no-untyped-call]
        yield client


@contextmanager
def _quiet_if_cut_short() -> Iterator[None]:
    """If the run leaves by an exception (a Ctrl-C, an error), silence Dask's loggers in this process before the
    client and the local cluster close: closing them with tasks still running logs warnings and tracebacks that say
    nothing about the run."""
    try:
        yield
    except BaseException:
        for name in list(logging.root.manager.loggerDict):
            if name.split(".")[0] in ("distributed", "tornado"):
                logging.getLogger(name).disabled = True
        raise


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Ignore SIGINT while the local cluster's worker processes start, so that they inherit it ignored (CPython
    leaves an ignored SIGINT ignored): a Ctrl-C at the terminal reaches the whole process group, and then only
    ``ksspec`` acts on it, stopping its workers as it leaves :func:`connect`, instead of every worker printing
    its own traceback. A Ctrl-C during those seconds is lost. Outside the main thread, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def worker_addresses(client: Client) -> list[str]:
    """The addresses of the cluster's worker processes, sorted (so the partitions' order is reproducible).
    Fails with ``ValueError`` if the cluster has none."""
    addresses = sorted(client.nthreads())  # type: ignore[no-untyped-call]
    if not addresses:
        raise ValueError("the Dask cluster has no workers: start some with `dask worker ADDRESS --nthreads 1`")
    return addresses


WorkerFactory = Callable[[TransitionSystem[Any], int, int], Any]
"""Makes a partition's worker from (system, partition index, partitions): :class:`spec.verify.parallel._Worker`
(passed in, so that this module does not import the one that imports it)."""


class _Partition:
    """A Dask actor: one partition's worker (:class:`spec.verify.parallel._Worker`), living on a Dask worker."""

    def __init__(self, make: WorkerFactory, system: TransitionSystem[Any], index: int, jobs: int) -> None:
        self.worker = make(system, index, jobs)
        self.index = index
        self.peers: list[Any] = []
        """The partitions' actors, by index (this one's included)."""
        self.inbox: dict[int, bytes] = {}
        """The pickled states shipped to this partition at this level, by the index of the one that shipped them."""

    def run(self, command: str, args: tuple[Any, ...]) -> Any:
        """Run one round (or query) of the search on this partition."""
        if command not in COMMANDS:
            raise ValueError(f"unknown command {command!r}")
        with fewer_collections():
            return getattr(self.worker, command)(*args)

    def meet(self, peers: list[Any]) -> int:
        """Learn the partitions' actors, to ship states to them directly; how many there are."""
        self.peers = peers
        return len(peers)

    def ship(self, wanted: dict[int, list[int]], remaining: float | None) -> bool:
        """The ship round, each owner's pickles sent straight to its actor; whether the time limit cut it short."""
        with fewer_collections():
            messages, cut = self.worker.ship(wanted, remaining)
        sent = []
        for owner, data in messages.items():
            if owner == self.index:
                self.inbox[owner] = data
            else:
                sent.append(self.peers[owner].deliver(self.index, data))
        for delivery in sent:
            delivery.result()
        return bool(cut)

    async def deliver(self, sender: int, data: bytes) -> None:
        """Take the states another partition shipped (a coroutine: it runs on the worker's event loop, so it is
        served while this partition's own thread waits in :meth:`ship` for its deliveries)."""
        self.inbox[sender] = data

    def receive(self, remaining: float | None) -> Any:
        """The receive round on the states shipped here, in the order of the partitions that shipped them."""
        messages = [self.inbox[sender] for sender in sorted(self.inbox)]
        self.inbox = {}
        with fewer_collections():
            return self.worker.receive(messages, remaining)


class DaskPool:
    """The partitions of a search, one actor per worker of a Dask cluster; the interface of
    :class:`spec.verify.parallel._Pool` (:class:`spec.verify.parallel.Pool`), but for the ship round, in which the
    partitions send the states to one another directly."""

    def __init__(self, client: Client, system: TransitionSystem[Any], make: WorkerFactory) -> None:
        self.client = client
        addresses = worker_addresses(client)
        self.size = len(addresses)
        self.futures = [
            client.submit(_Partition, make, system, index, self.size, actor=True, workers=[address],
                          allow_other_workers=False, pure=False)
            for index, address in enumerate(addresses)
        ]  # fmt: skip
        try:
            self.actors = [future.result() for future in self.futures]
        except Exception as error:
            self.close()
            raise ClusterFailed(
                f"a Dask worker could not set up its partition of the search ({type(error).__name__}: {error}); "
                f"{SAME_VERSION}"
            ) from error
        self._gather([actor.meet(self.actors) for actor in self.actors])

    def _gather(self, pending: list[Any]) -> list[Any]:
        """The answers of actor calls made at once (on a failure, the actors are released and it is raised)."""
        try:
            return [answer.result() for answer in pending]
        except BaseException:
            self.close()
            raise

    def call(self, command: str, per_worker: Iterable[tuple[Any, ...]]) -> list[Any]:
        """Send each partition its arguments, then gather the answers (the partitions run at once)."""
        return self._gather([actor.run(command, args) for actor, args in zip(self.actors, per_worker, strict=True)])

    def ship(self, wanted: list[dict[int, list[int]]], remaining: float | None) -> bool:
        """The ship round, each partition sending its pickles to their owners' actors itself: the states go from
        worker to worker, never through this process."""
        return any(self._gather([actor.ship(w, remaining) for actor, w in zip(self.actors, wanted, strict=True)]))

    def receive(self, remaining: float | None) -> list[Any]:
        """The receive round, each partition on the states shipped to it."""
        return self._gather([actor.receive(remaining) for actor in self.actors])

    def all(self, command: str, *args: Any) -> list[Any]:
        return self.call(command, [args] * self.size)

    def ask(self, worker: int, command: str, *args: Any) -> Any:
        try:
            return self.actors[worker].run(command, args).result()
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Release the actors (the cluster drops their state)."""
        self.actors = []
        for future in self.futures:
            future.release()  # type: ignore[no-untyped-call]
        self.futures = []
