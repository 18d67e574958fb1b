"""Several schedulers over one API server, crashing and restarting, with a kubelet on every node.

A :class:`ClusterSimulation` runs ``schedulers`` scheduler processes, each a :class:`~refimpl.simulator.simulation.
Simulation` with its own cache, queue, informer, dispatcher and binding cycles, over one shared
:class:`~refimpl.simulator.world.World` and one clock. Scheduler ``i`` serves the scheduler name
:func:`scheduler_name` ``(i)``; the workload's pods name the schedulers in turn. The nodes' kubelets
(:mod:`refimpl.simulator.kubelets`) admit or reject every bound pod.

Besides the single scheduler's steps (see :mod:`refimpl.simulator.simulation`), the cluster takes these:

=========================  =================================================================================
step                       what happens
=========================  =================================================================================
``crash``                  right after a scheduling cycle, with probability ``crash_rate``: the process dies,
                           its cache, queue, binding cycles and undelivered events are gone; the API calls it
                           had in flight still reach the API server (a bind may land late), the calls still
                           queued in its dispatcher never leave
``complete_orphan``        a crashed process's in-flight call executes at the API server
``restart``                ``restart_delay`` after a crash: a new process starts; its informers list the API
                           server's nodes (by name) and non-terminal pods (by key) and its handlers receive
                           them all before its first scheduling cycle (``WaitForCacheSync``)
``admit``                  a bound pod reaches its node's kubelet, which admits it or rejects it (``Failed``)
``finish``                 with a pod lifetime (``SimulationConfig.pod_lifetime``), that long after its
                           admission a pod's containers finish: its kubelet frees its room and marks it
                           ``Succeeded``; every informer delivers it as deleted; the pod garbage collector
                           deletes the oldest terminated pods beyond ``terminated_pod_gc_threshold``
=========================  =================================================================================

Crashes happen while pods arrive and churn goes on (:meth:`ClusterSimulation.run`), never while the cluster settles
(:meth:`ClusterSimulation.drain`), so that a run ends. Every random choice comes from RNGs seeded from the seed
(each process's from the seed and its incarnation), so a seed reproduces a run exactly.

Kubernetes: `runCommand` (cmd/kube-scheduler/app/server.go), `Scheduler.addPod` and `responsibleForPod`
(pkg/scheduler/eventhandlers.go), `Kubelet.HandlePodAdditions` (pkg/kubelet/kubelet.go)
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Final, Protocol

from refimpl.cache import FakeClock
from refimpl.dispatcher.api_calls import POD_BINDING
from refimpl.simulator.informer import EventType, Kind, pod_key
from refimpl.simulator.kubelets import Admission, Kubelets
from refimpl.simulator.simulation import (
    BACKOFF_FLUSH_PERIOD,
    CLEANUP_PERIOD,
    MAX_DRAIN_ROUNDS,
    UNSCHEDULABLE_FLUSH_PERIOD,
    UNSCHEDULABLE_TIMEOUT,
    Action,
    Observer,
    Simulation,
    SimulationConfig,
)
from refimpl.simulator.workload import make_node, make_pod, next_arrival
from refimpl.simulator.world import TERMINATED_POD_GC_THRESHOLD, World
from spec.objects import DEFAULT_SCHEDULER_NAME, Pod
from spec.quantities import MILLISECOND, SECOND

MAX_SCHEDULERS: Final = 16


def scheduler_name(index: int) -> str:
    """The scheduler name of the ``index``-th scheduler: ``default-scheduler``, then ``scheduler-1``, ..."""
    return DEFAULT_SCHEDULER_NAME if index == 0 else f"scheduler-{index}"


@dataclass(frozen=True)
class ClusterConfig:
    """What to simulate: ``simulation`` for the workload, API server and each scheduler; then the cluster's own."""

    simulation: SimulationConfig = SimulationConfig()
    schedulers: int = 2
    crash_rate: float = 0.0
    """The probability that a scheduler process crashes right after a scheduling cycle."""
    restart_delay: int = 2 * SECOND
    """How long a crashed scheduler stays down (a new process wins the lease and starts)."""
    min_kubelet_delay: int = 0
    max_kubelet_delay: int = 10 * MILLISECOND
    """Each bound pod reaches its node's kubelet this long after its binding."""
    terminated_pod_gc_threshold: int = TERMINATED_POD_GC_THRESHOLD
    """How many terminated (``Failed``, ``Succeeded``) pods the API server keeps before the pod garbage collector
    deletes the oldest; 0 keeps them all."""

    def __post_init__(self) -> None:
        if not 1 <= self.schedulers <= MAX_SCHEDULERS:
            raise ValueError(f"the cluster needs 1 to {MAX_SCHEDULERS} schedulers, got {self.schedulers}")
        if not 0.0 <= self.crash_rate < 1.0:
            raise ValueError(f"the crash rate must be at least 0 and below 1, got {self.crash_rate}")
        if self.restart_delay < 0:
            raise ValueError(f"the restart delay must not be negative, got {self.restart_delay} ns")
        if self.terminated_pod_gc_threshold < 0:
            raise ValueError(f"the terminated pod GC threshold must not be negative, got "
                             f"{self.terminated_pod_gc_threshold}")
        if not 0 <= self.min_kubelet_delay <= self.max_kubelet_delay:
            raise ValueError(f"kubelet delay bounds must satisfy 0 <= min <= max, got {self.min_kubelet_delay}.."
                             f"{self.max_kubelet_delay} ns")


class ClusterObserver(Protocol):
    """Sees every step of the cluster after it is taken (the processes' own observers see theirs)."""

    def after_cluster_step(self, sim: ClusterSimulation, action: Action) -> None:
        """Called after the step."""
        ...


@dataclass
class SchedulerRecord:
    """One scheduler across its incarnations: the latest process, and the counts of those before it (a crashed
    process is not kept once its successor starts, so that a long run with crashes does not grow)."""

    name: str
    latest: Simulation | None = None
    """The process started last (it may have crashed since)."""
    incarnations: int = 0
    """How many processes of this scheduler have started."""
    crashes: int = 0
    restarts: int = 0
    in_flight_at_crash: set[str] = field(default_factory=set)
    """Pods in a binding cycle of this scheduler when one of its processes crashed (those the API server no longer
    has are dropped at the next crash)."""
    in_flight_count: int = 0
    """How many binding cycles were in flight at this scheduler's crashes, all told."""
    _before: dict[str, int] = field(default_factory=dict)

    def started(self, process: Simulation) -> None:
        """``process`` is the scheduler's new incarnation: keep the counts of the one before."""
        if self.latest is not None:
            for name, value in vars(self.latest.stats).items():
                if isinstance(value, int) and not isinstance(value, bool):
                    self._before[name] = self._before.get(name, 0) + value
        self.latest = process
        self.incarnations += 1

    def total(self, stat: str) -> int:
        """A count of :class:`~refimpl.simulator.simulation.Stats` summed over the incarnations."""
        latest = int(getattr(self.latest.stats, stat)) if self.latest is not None else 0
        return self._before.get(stat, 0) + latest


@dataclass
class ClusterStats:
    """Counts of the cluster's own steps."""

    pods_created: int = 0
    pods_deleted: int = 0
    crashes: int = 0
    restarts: int = 0
    orphaned_calls: int = 0
    """API calls in flight at a crash (they still reach the API server)."""
    orphaned_binds_landed: int = 0
    orphaned_binds_failed: int = 0
    steps: int = 0
    virtual_seconds: float = 0.0
    wall_seconds: float = 0.0
    quiet: bool = False


def _rng(seed: int, stream: str) -> random.Random:
    return random.Random(f"{seed}/cluster/{stream}")


class ClusterSimulation:
    """Several scheduler processes, the API server and the kubelets; see the module docstring. Not thread-safe.

    ``scheduler_observers(i)`` gives the observers of each process of scheduler ``i`` (its every incarnation).
    """

    def __init__(self, config: ClusterConfig = ClusterConfig(), observers: tuple[ClusterObserver, ...] = (),
                 scheduler_observers: Callable[[int], tuple[Observer, ...]] = lambda i: ()) -> None:
        self.config = config
        self.observers = list(observers)
        self._scheduler_observers = scheduler_observers
        base = config.simulation
        seed = base.seed
        self.clock = FakeClock()
        self._process_config = replace(base, pod_lifetime=0)  # the kubelets finish the pods, not the processes
        first = Simulation(self._process_config, scheduler_observers(0), clock=self.clock)
        self.world: World = first.world
        self.world.terminated_pod_gc_threshold = config.terminated_pod_gc_threshold
        self.records = [SchedulerRecord(scheduler_name(i)) for i in range(config.schedulers)]
        self.records[0].started(first)
        self.processes: list[Simulation | None] = [first]
        for index in range(1, config.schedulers):
            self.processes.append(self._start(index))
        self.kubelets = Kubelets(self.world, _rng(seed, "kubelets"), config.min_kubelet_delay,
                                 config.max_kubelet_delay, base.pod_lifetime)
        self.orphans: list[Simulation] = []
        """Crashed processes whose API calls are still in flight."""
        self.restart_at: dict[int, int] = {}
        self.stats = ClusterStats()
        self.last_admission: Admission | None = None
        self._workload_rng = _rng(seed, "workload")
        self._churn_rng = _rng(seed, "churn")
        self._crash_rng = _rng(seed, "crashes")
        self._next_pod = 0
        self._next_node = 0

    def _start(self, index: int) -> Simulation:
        record = self.records[index]
        process = Simulation(self._process_config, self._scheduler_observers(index), world=self.world,
                             clock=self.clock, scheduler_name=record.name,
                             incarnation=f"{index}.{record.incarnations}")
        record.started(process)
        return process

    # ========================================================================================
    # Observation
    # ========================================================================================

    @contextmanager
    def _step(self, kind: str, detail: str = "") -> Iterator[None]:
        try:
            yield
        finally:
            self.stats.steps += 1
            action = Action(kind, detail)
            for observer in self.observers:
                observer.after_cluster_step(self, action)

    def live(self) -> list[tuple[int, Simulation]]:
        """The running processes, by scheduler index."""
        return [(i, p) for i, p in enumerate(self.processes) if p is not None]

    def quiet(self) -> bool:
        """Every scheduler runs and is quiet, no crashed process's call is in flight, no bound pod is on its way
        to its kubelet, no admitted pod is still to finish."""
        return (
            not self.restart_at
            and not self.orphans
            and self.kubelets.pending() == 0
            and self.kubelets.finishing() == 0
            and all(p is not None and p.quiet() for p in self.processes)
        )

    # ========================================================================================
    # The cluster's steps
    # ========================================================================================

    def crash(self, index: int) -> None:
        """Scheduler ``index``'s process dies (see the module docstring). Fails with ``ValueError`` if it is down."""
        process = self.processes[index]
        if process is None:
            raise ValueError(f"scheduler {index} is not running")
        with self._step("crash", self.records[index].name):
            record = self.records[index]
            record.crashes += 1
            pods = self.world.pods
            record.in_flight_at_crash = {uid for uid in record.in_flight_at_crash if uid in pods}
            in_flight = set(process.binding_pods())
            record.in_flight_at_crash |= in_flight
            record.in_flight_count += len(in_flight)
            self.stats.crashes += 1
            self.world.unwatch(process.informer)
            process.observers.clear()
            if process.calls.in_flight:
                self.stats.orphaned_calls += len(process.calls.in_flight)
                self.orphans.append(process)
            self.processes[index] = None
            self.restart_at[index] = self.clock.now() + self.config.restart_delay

    def restart(self, index: int) -> Simulation:
        """A new process of scheduler ``index`` starts, lists the API server's nodes and pods, and has its handlers
        receive them all (``WaitForCacheSync``). Fails with ``ValueError`` if the scheduler runs.

        Kubernetes: `runCommand` (cmd/kube-scheduler/app/server.go), `newPodInformer` (pkg/scheduler/scheduler.go)
        """
        if self.processes[index] is not None:
            raise ValueError(f"scheduler {index} is running")
        with self._step("restart", self.records[index].name):
            self.restart_at.pop(index, None)
            process = self._start(index)
            self.records[index].restarts += 1
            self.stats.restarts += 1
            now, informer = self.clock.now(), process.informer
            for name, node in sorted(self.world.nodes.items()):
                informer.emit(now, Kind.NODE, EventType.ADDED, name, None, node)
            for pod in self.listed_pods():
                informer.emit(now, Kind.POD, EventType.ADDED, pod_key(pod), None, pod)
            while informer.deliver_next() is not None:
                pass
            self.processes[index] = process
            return process

    def listed_pods(self) -> list[Pod]:
        """What a starting scheduler's pod informer lists: the API server's non-terminal pods, by key.

        Kubernetes: `newPodInformer` (pkg/scheduler/scheduler.go): ``status.phase!=Failed,Succeeded``
        """
        return sorted(self.world.pods.values(), key=lambda p: (p.namespace, p.name, p.uid))

    def complete_orphan(self, process: Simulation) -> None:
        """The first in-flight call of a crashed ``process`` executes at the API server; nobody hears the answer."""
        flight = process.calls.next_due()
        assert flight is not None
        with self._step("complete_orphan", flight.describe()):
            error = process.calls.complete(flight)
            if flight.queued.call.call_type == POD_BINDING:
                if error is None:
                    self.stats.orphaned_binds_landed += 1
                else:
                    self.stats.orphaned_binds_failed += 1
            if not process.calls.in_flight:
                self.orphans.remove(process)

    def admit(self) -> Admission | None:
        """The next bound pod reaches its kubelet (:meth:`~refimpl.simulator.kubelets.Kubelets.admit_next`)."""
        with self._step("admit"):
            self.last_admission = self.kubelets.admit_next()
            return self.last_admission

    def finish(self) -> Pod | None:
        """The next admitted pod's containers finish (:meth:`~refimpl.simulator.kubelets.Kubelets.finish_next`)."""
        with self._step("finish"):
            return self.kubelets.finish_next()

    def new_pod(self) -> Pod:
        """The workload's next pod, for the schedulers in turn."""
        pod = make_pod(self._next_pod, self._workload_rng, identical=self.config.simulation.identical_pods)
        pod = replace(pod, scheduler_name=scheduler_name(self._next_pod % self.config.schedulers))
        self._next_pod += 1
        return pod

    def create_pod(self, pod: Pod) -> None:
        """A user creates ``pod`` at the API server."""
        with self._step("create_pod", pod.uid):
            self.world.create_pod(pod)
            self.stats.pods_created += 1

    # ========================================================================================
    # The clock-driven run
    # ========================================================================================

    def run(self, progress: Callable[[ClusterSimulation], None] | None = None, progress_every: int = 1000) -> None:
        """Add the nodes, create the pods (at once or at the arrival rate) and run until quiet or the time limit,
        with crashes. ``progress`` is called every ``progress_every`` steps and at the end."""
        base = self.config.simulation
        started = time.perf_counter()
        for _ in range(base.nodes):
            with self._step("add_node"):
                self.world.add_node(make_node(self._next_node, self._workload_rng, uniform=base.uniform_nodes))
                self._next_node += 1
        arrivals = base.pods
        if base.arrival_rate == 0:
            for _ in range(arrivals):
                self.create_pod(self.new_pod())
            arrivals = 0
        self._loop(arrivals, progress, progress_every, crashes=True)
        self._finish(started, progress)

    def drain(self, progress: Callable[[ClusterSimulation], None] | None = None, progress_every: int = 1000) -> None:
        """After :meth:`run`, without crashes or arrivals: in rounds, let time pass beyond the unschedulable pods'
        5-minute limit so that every waiting pod is retried, until a round binds nothing new."""
        started = time.perf_counter() - self.stats.wall_seconds
        base = self.config.simulation
        for _ in range(MAX_DRAIN_ROUNDS):
            before = self._drain_progress()
            self.clock.advance(max(base.ttl, UNSCHEDULABLE_TIMEOUT) + CLEANUP_PERIOD)
            for _, process in self.live():
                process.cleanup()
                process.flush_unschedulable()
                process.flush_backoff()
            self._loop(0, progress, progress_every, crashes=False)
            if self._drain_progress() == before or not self.stats.quiet:
                break
        self._finish(started, progress)

    def _drain_progress(self) -> tuple[int, int]:
        return sum(r.total("nodes_found") for r in self.records), sum(r.total("bound") for r in self.records)

    def _finish(self, started: float, progress: Callable[[ClusterSimulation], None] | None) -> None:
        self.stats.virtual_seconds = self.clock.now() / SECOND
        self.stats.wall_seconds = time.perf_counter() - started
        if progress is not None:
            progress(self)

    def _steps(self) -> int:
        return self.stats.steps + sum(r.total("steps") for r in self.records)

    def _immediate(self, free_at: dict[int, int], idle: set[int], crashes: bool) -> bool:
        """Take one step a process can take at once (pop its calls, run a scheduling cycle); whether it did."""
        now = self.clock.now()
        for index, process in self.live():
            if process.calls.pending() and process.calls.can_pop():
                process.pop_calls()
                return True
            if any(cycle.ready() for cycle in process.scheduler.binding_cycles.values()):
                process.step_binding_cycles()
                return True
            if index in idle or free_at.get(index, now) > now:
                continue
            if process.schedule_one() is None:
                idle.add(index)
                return True
            free_at[index] = now + self.config.simulation.cycle_cost
            if process.scheduler.binding_cycles:
                process.step_binding_cycles()
            if crashes and self.config.crash_rate > 0 and self._crash_rng.random() < self.config.crash_rate:
                self.crash(index)
            return True
        return False

    def _loop(self, arrivals_left: int, progress: Callable[[ClusterSimulation], None] | None, progress_every: int,
              *, crashes: bool) -> None:
        """Take the steps in clock order until quiet or the time limit (see :meth:`Simulation._loop`)."""
        base = self.config.simulation
        start = self.clock.now()
        for _, process in self.live():
            process._last_placed = start  # each process's idle timer starts now
        next_arrival_at = start
        churn_until: int | None = None
        next_churn = next_arrival(self._churn_rng, start, base.churn.total) if crashes and base.churn.total else None
        next_cleanup = start + CLEANUP_PERIOD
        next_backoff_flush = start + BACKOFF_FLUSH_PERIOD
        next_unschedulable_flush = start + UNSCHEDULABLE_FLUSH_PERIOD
        free_at: dict[int, int] = {}
        idle: set[int] = set()
        last_report = self._steps()
        self.stats.quiet = False
        while True:
            if progress is not None and self._steps() - last_report >= progress_every:
                last_report = self._steps()
                progress(self)
            if self._immediate(free_at, idle, crashes):
                continue
            now = self.clock.now()
            if arrivals_left == 0 and churn_until is None:
                churn_until = now + round(base.churn_seconds * SECOND)
            churning = next_churn is not None and churn_until is not None and next_churn <= churn_until
            if arrivals_left == 0 and not churning and self.quiet():
                self.stats.quiet = True
                return
            candidates: list[tuple[int, int, int, str]] = []
            for index, process in self.live():
                flight = process.calls.next_due()
                if flight is not None:
                    candidates.append((flight.due, 0, index, "complete"))
                event = process.informer.next_due()
                if event is not None:
                    candidates.append((event.due, 1, index, "deliver"))
                if index not in idle and index in free_at:
                    candidates.append((free_at[index], 6, index, "schedule"))
            for position, orphan in enumerate(self.orphans):
                flight = orphan.calls.next_due()
                assert flight is not None
                candidates.append((flight.due, 0, -1 - position, "complete_orphan"))
            kubelet_due = self.kubelets.next_due()
            if kubelet_due is not None:
                candidates.append((kubelet_due, 2, 0, "admit"))
            finish_due = self.kubelets.next_finish()
            if finish_due is not None:
                candidates.append((finish_due, 2, 1, "finish"))
            candidates += [(when, 3, index, "restart") for index, when in self.restart_at.items()]
            if arrivals_left:
                candidates.append((next_arrival_at, 4, 0, "arrive"))
            if churning and next_churn is not None:
                candidates.append((next_churn, 5, 0, "churn"))
            candidates += [(next_cleanup, 7, 0, "cleanup"), (next_backoff_flush, 8, 0, "flush_backoff"),
                           (next_unschedulable_flush, 9, 0, "flush_unschedulable")]
            when, _, index, what = min(candidates)
            if when > base.max_virtual_time:
                return
            if when > now:
                self.clock.set(when)
            idle.clear()  # anything may have made a pod poppable
            if what in ("complete", "deliver"):
                self._process_step(index, what)
            elif what == "complete_orphan":
                self.complete_orphan(self.orphans[-1 - index])
            elif what == "admit":
                self.admit()
            elif what == "finish":
                self.finish()
            elif what == "restart":
                self.restart(index)
            elif what == "arrive":
                self.create_pod(self.new_pod())
                arrivals_left -= 1
                next_arrival_at = next_arrival(self._workload_rng, when, base.arrival_rate)
            elif what == "churn":
                self._churn_once()
                next_churn = next_arrival(self._churn_rng, when, base.churn.total)
            elif what == "schedule":
                pass  # the scheduler is free again: _immediate runs its cycle
            else:
                for _, process in self.live():
                    getattr(process, what)()
                if what == "cleanup":
                    next_cleanup = when + CLEANUP_PERIOD
                elif what == "flush_backoff":
                    next_backoff_flush = when + BACKOFF_FLUSH_PERIOD
                else:
                    next_unschedulable_flush = when + UNSCHEDULABLE_FLUSH_PERIOD

    def _process_step(self, index: int, what: str) -> None:
        """Scheduler ``index``'s first due API call completes, or its first due watch event is delivered."""
        process = self.processes[index]
        assert process is not None
        if what == "complete":
            flight = process.calls.next_due()
            assert flight is not None
            process.complete(flight)
        else:
            event = process.informer.next_due()
            assert event is not None
            process.deliver(event)

    def _churn_once(self) -> None:
        """Delete a random pod (the only churn of the cluster simulation)."""
        with self._step("delete_pod"):
            if self.world.pods:
                self.world.delete_pod(self._churn_rng.choice(sorted(self.world.pods)))
                self.stats.pods_deleted += 1
