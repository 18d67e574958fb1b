"""The deterministic simulation: one scheduler, its cluster and its API server, on one thread, in virtual time.

Kubernetes runs the scheduling loop, one goroutine per binding cycle, the dispatcher's loop and one goroutine per
API call, two informers and two periodic flushes of the queue plus the cache's cleanup, all concurrently. Here each
of them is a step a driver takes on one thread, against a :class:`~refimpl.cache.clock.FakeClock`:

=========================  =================================================================================
step                       what happens
=========================  =================================================================================
``schedule_one``           one scheduling cycle (``ScheduleOne``); a success registers a binding cycle
``step_binding_cycles``    every live binding cycle runs until it waits (PreBind, then the bind call) or ends
``pop_calls``              the dispatcher's loop pops every pending API call: each is now in flight
``complete``               an in-flight call executes at the API server; its binding cycle resumes at once
``deliver``                the informer delivers a watch event to the event handlers
``cleanup``                the cache's 1 s cleanup (assumed-pod expiry where the profile has it)
``flush_backoff``          the queue's 1 s backoff flush; ``flush_unschedulable``: its 30 s leftover flush
user actions               create or delete a pod; add, change or delete a node (at the API server)
``advance``                virtual time passes
=========================  =================================================================================

:meth:`Simulation.run` drives them by the clock: calls complete and events arrive when their drawn latency or delay
has passed, a scheduling cycle costs ``cycle_cost`` of virtual time, ticks come every period, and pods arrive and
churn happens at the configured rates; ties are broken in a fixed order, and every random choice comes from RNGs
seeded from ``seed``, so a seed reproduces a run exactly. A test can instead take the steps in any order it likes
(the Hypothesis test in tests/refimpl/simulator does), since every step is a public method.

An :class:`Observer` sees every step before and after it; the invariant checks live in observers
(conformance/simulation/checks.py translates the state to the spec's terms), since refimpl may not import the
spec's invariants.
"""

from __future__ import annotations

import heapq
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Final, Protocol

from refimpl.cache import Cache, FakeClock
from refimpl.dispatcher.api_calls import POD_BINDING
from refimpl.dispatcher.dispatcher import APIDispatcher
from refimpl.scheduler.binding_cycle import BindingCycle
from refimpl.scheduler.event_handlers import EventHandlers
from refimpl.scheduler.framework.interfaces import Plugin
from refimpl.scheduler.plugins import SYSTEM_DEFAULTING, DefaultPreemption, new_default_framework
from refimpl.scheduler.queue import QueueName, SchedulingQueue
from refimpl.scheduler.schedule_one import Outcome, ScheduleOneResult, Scheduler
from refimpl.simulator.dispatch import InFlight, SteppedDispatcher
from refimpl.simulator.informer import EventType, Informer, WatchEvent
from refimpl.simulator.workload import Churn, make_node, make_pod, next_arrival, toggled
from refimpl.simulator.world import Faults, World
from spec.objects import DEFAULT_SCHEDULER_NAME, Node, Pod
from spec.quantities import MILLISECOND, SECOND
from spec.versions import DEFAULT_PROFILE, VersionProfile

CLEANUP_PERIOD: Final = SECOND
"""``cleanAssumedPeriod``."""
BACKOFF_FLUSH_PERIOD: Final = SECOND
"""``flushBackoffQCompleted`` runs every second."""
UNSCHEDULABLE_FLUSH_PERIOD: Final = 30 * SECOND
"""``flushUnschedulablePodsLeftover`` runs every 30 seconds."""
UNSCHEDULABLE_TIMEOUT: Final = 300 * SECOND
"""``podMaxInUnschedulablePodsDuration``: a pod unschedulable this long is retried."""
IDLE_AFTER: Final = 60 * SECOND
"""Pods still backing off do not keep the cluster from being quiet once no pod was placed for this long (six
times the 10 s maximum backoff)."""
MAX_DRAIN_ROUNDS: Final = 50
""":meth:`Simulation.drain` gives up after this many rounds that each found a node for some pod."""


@dataclass(frozen=True)
class SimulationConfig:
    """What to simulate. Times are integer nanoseconds."""

    nodes: int = 10
    pods: int = 100
    seed: int = 0
    profile: VersionProfile = DEFAULT_PROFILE
    ttl: int = 0
    """The assumed-pod TTL (0, the scheduler's production value, means assumed pods never expire)."""
    faults: Faults = Faults()
    min_latency: int = 1 * MILLISECOND
    max_latency: int = 20 * MILLISECOND
    """Each API request takes between these two (uniformly drawn)."""
    min_informer_delay: int = 0
    max_informer_delay: int = 50 * MILLISECOND
    """Each watch event reaches the scheduler this long after the change (per object in order)."""
    arrival_rate: float = 0.0
    """Pods created per second of virtual time (a Poisson process); 0 creates them all at the start."""
    churn: Churn = Churn()
    churn_seconds: float = 10.0
    """Churn goes on for this long after the last pod arrived."""
    pod_lifetime: int = 0
    """How long a pod runs once bound (ns): it then finishes and is deleted. 0: pods run for ever. With an
    ``arrival_rate`` of R per second, pods finish at the rate they arrive once about R x lifetime of them run: a
    cluster in a steady state, whose memory should stay flat however long it runs."""
    cycle_cost: int = 1 * MILLISECOND
    """Virtual time one scheduling cycle takes (the scheduler runs one cycle at a time)."""
    identical_pods: bool = False
    uniform_nodes: bool = False
    opportunistic_batching: bool = True
    spread_defaulting: str = SYSTEM_DEFAULTING
    """PodTopologySpread's ``defaultingType``: System (the default profile's) makes every pod unsignable, so
    opportunistic batching never applies; List (no default constraints) lets pods without spread constraints or
    affinity be batched."""
    percentage_of_nodes_to_score: int | None = None
    max_virtual_time: int = 3_600 * SECOND
    """The run stops here even if the cluster is not quiet yet."""
    priorities: tuple[int, ...] = ()
    """Pod priorities the workload draws from; with any, the profile runs DefaultPreemption (PostFilter) and the
    victims it picks are deleted at the API server."""

    def __post_init__(self) -> None:
        if self.nodes < 0 or self.pods < 0:
            raise ValueError(f"node and pod counts must not be negative, got {self.nodes} nodes, {self.pods} pods")
        if self.ttl < 0 or self.cycle_cost < 0 or self.max_virtual_time <= 0:
            raise ValueError("the TTL and cycle cost must not be negative, and the time limit must be positive")
        if self.arrival_rate < 0 or self.churn_seconds < 0 or self.pod_lifetime < 0:
            raise ValueError("the arrival rate, churn duration and pod lifetime must not be negative")
        if not 0 <= self.min_latency <= self.max_latency:
            raise ValueError(f"latency bounds must satisfy 0 <= min <= max, got {self.min_latency}.."
                             f"{self.max_latency} ns")
        if not 0 <= self.min_informer_delay <= self.max_informer_delay:
            raise ValueError(f"informer delay bounds must satisfy 0 <= min <= max, got {self.min_informer_delay}.."
                             f"{self.max_informer_delay} ns")


@dataclass(frozen=True)
class Action:
    """A step the simulation took: its kind (see the module table) and what it was applied to."""

    kind: str
    detail: str = ""


class Observer(Protocol):
    """Sees every step: ``before`` it is taken and ``after`` (also after a step that raised)."""

    def before(self, sim: Simulation, action: Action) -> None:
        """Called before the step changes anything."""
        ...

    def after(self, sim: Simulation, action: Action) -> None:
        """Called after the step."""
        ...


@dataclass
class Stats:
    """Counts of what happened in a run."""

    pods_created: int = 0
    pods_deleted: int = 0
    nodes_added: int = 0
    nodes_deleted: int = 0
    nodes_updated: int = 0
    scheduling_attempts: int = 0
    retries: int = 0
    """Scheduling attempts of a pod after its first."""
    unbound_at_end: int = 0
    """Pods the API server has unbound when the run ended."""
    scheduled: int = 0
    """Scheduling cycles that assumed the pod and started a binding cycle."""
    nodes_found: int = 0
    """Scheduling cycles that chose a node (whether or not Reserve and Permit then let the pod through)."""
    unschedulable: int = 0
    """Scheduling cycles that found no node (or were rejected at Reserve/Permit)."""
    scheduling_errors: int = 0
    skipped: int = 0
    bound: int = 0
    """Binding cycles that succeeded."""
    binding_failures: int = 0
    """Binding cycles that failed (the pod was forgotten and requeued, or was gone)."""
    failed_bind_requests: int = 0
    """Bind requests the API server answered with an error (injected, conflict, not found)."""
    api_requests: int = 0
    events_delivered: int = 0
    steps: int = 0
    virtual_seconds: float = 0.0
    wall_seconds: float = 0.0
    quiet: bool = False
    """The run ended because nothing was left to do (not because of the time limit)."""
    outcomes: dict[str, int] = field(default_factory=dict)
    preemptions: int = 0
    """Victims DefaultPreemption picked (and the simulation deleted)."""

    def pods_per_wall_second(self) -> float:
        """Bound pods per second of wall time."""
        return self.bound / self.wall_seconds if self.wall_seconds > 0 else 0.0

    def pods_per_virtual_second(self) -> float:
        """Bound pods per second of virtual time."""
        return self.bound / self.virtual_seconds if self.virtual_seconds > 0 else 0.0


def _rng(seed: int | str, stream: str) -> random.Random:
    """An independent, reproducible RNG per concern, so that adding draws to one does not shift the others."""
    return random.Random(f"{seed}/{stream}")


class Simulation:
    """One simulated scheduler and cluster; see the module docstring. Not thread-safe."""

    def __init__(self, config: SimulationConfig = SimulationConfig(), observers: tuple[Observer, ...] = (),
                 *, extra_plugins: tuple[Plugin, ...] = (), world: World | None = None, clock: FakeClock | None = None,
                 scheduler_name: str = DEFAULT_SCHEDULER_NAME, incarnation: str = "") -> None:
        """``extra_plugins`` (e.g. a ``FaultInjector``) run before the default plugins at every extension point.

        A scheduler process in a larger cluster (:mod:`refimpl.simulator.cluster`) is given the shared ``world``
        and ``clock``; its informer then watches that world, its profile serves ``scheduler_name``, and its RNGs
        are drawn from streams named by ``incarnation`` as well as the seed."""
        self.config = config
        self.observers = list(observers)
        self.scheduler_name = scheduler_name
        seed = config.seed if not incarnation else f"{config.seed}/{incarnation}"
        self.clock = clock if clock is not None else FakeClock()
        self.cache = Cache(profile=config.profile, ttl=config.ttl, clock=self.clock)
        self.queue = SchedulingQueue(self.clock)
        self.informer = Informer(_rng(seed, "informer"), config.min_informer_delay, config.max_informer_delay)
        if world is None:
            self.world = World(self.informer, self.clock.now, _rng(seed, "faults"), config.faults)
        else:
            self.world = world
            world.watch(self.informer)
        self.dispatcher = APIDispatcher(self.world, config.profile)
        self.calls = SteppedDispatcher(self.dispatcher, self.world, _rng(seed, "latency"), config.min_latency,
                                       config.max_latency)
        self.framework = new_default_framework(
            profile=config.profile, percentage_of_nodes_to_score=config.percentage_of_nodes_to_score,
            extra_plugins=extra_plugins, scheduler_name=scheduler_name, spread_defaulting=config.spread_defaulting,
            preemption=bool(config.priorities))
        self.scheduler = Scheduler(
            self.cache, self.queue, self.framework, client=self.world, dispatcher=self.dispatcher,
            pod_lister=self.informer.get_pod, profile=config.profile, clock=self.clock, rng=_rng(seed, "scheduler"),
            opportunistic_batching=config.opportunistic_batching)
        self.handlers = EventHandlers(self.cache, self.queue, profile=config.profile,
                                      reject_waiting_pod=self.scheduler.reject_waiting_pod,
                                      scheduler_names=(scheduler_name,))
        self.informer.set_handlers(self.handlers)
        self.stats = Stats()
        self._workload_rng = _rng(seed, "workload")
        self._churn_rng = _rng(seed, "churn")
        self._next_pod = 0
        self._next_node = 0
        self._live_cycles: dict[str, BindingCycle] = {}  # binding cycles whose end is not counted yet
        self._attempted: set[str] = set()  # pods scheduled at least once and not deleted
        self._last_placed = 0  # when a scheduling cycle last placed a pod
        self._finishing: list[tuple[int, int, str]] = []  # (when, bind number, uid): bound pods, by finish time
        self.last_result: ScheduleOneResult | None = None
        """The last scheduling cycle's result (``ScheduleOneResult``), or None."""
        self.preemptions: list[tuple[Pod, Pod]] = []
        """Every (preemptor, victim) DefaultPreemption picked, in order (its victims are deleted at the API)."""

    # ========================================================================================
    # Observation
    # ========================================================================================

    @contextmanager
    def _step(self, kind: str, detail: str = "") -> Iterator[None]:
        action = Action(kind, detail)
        for observer in self.observers:
            observer.before(self, action)
        try:
            yield
        finally:
            self.stats.steps += 1
            for observer in self.observers:
                observer.after(self, action)

    def binding_pods(self) -> dict[str, Pod]:
        """The assumed pod of every binding cycle that has not ended, by UID."""
        return {uid: cycle.assumed_pod for uid, cycle in self.scheduler.binding_cycles.items() if not cycle.done}

    def quiet(self) -> bool:
        """Nothing is in motion: no event undelivered, no API call pending or in flight, no binding cycle live, no
        pod in the active queue, and either none in the backoff queue or no pod placed for :data:`IDLE_AFTER` (pods
        that keep failing cycle through backoff for ever, as with no nodes at all; the unschedulable pool waits
        for events)."""
        counts = self.queue.counts()
        return (
            self.informer.pending() == 0
            and not self.calls.busy()
            and not self.binding_pods()
            and counts.get(QueueName.ACTIVE, 0) == 0
            and (counts.get(QueueName.BACKOFF, 0) == 0 or self.clock.now() - self._last_placed >= IDLE_AFTER)
        )

    # ========================================================================================
    # Steps
    # ========================================================================================

    def schedule_one(self) -> ScheduleOneResult | None:
        """One scheduling cycle; None (and no step) if the queue had nothing to pop."""
        with self._step("schedule"):
            result = self.last_result = self.scheduler.schedule_one()
            if result is None:
                return None
            self.stats.scheduling_attempts += 1
            if result.pod.uid in self._attempted:
                self.stats.retries += 1
            self._attempted.add(result.pod.uid)
            outcome = result.outcome
            if result.node is not None:
                self.stats.nodes_found += 1
            self.stats.outcomes[outcome.value] = self.stats.outcomes.get(outcome.value, 0) + 1
            if outcome is Outcome.BINDING:
                assert result.binding_cycle is not None
                self._last_placed = self.clock.now()
                self.stats.scheduled += 1
                self._live_cycles[result.pod.uid] = result.binding_cycle
            elif outcome is Outcome.UNSCHEDULABLE:
                self.stats.unschedulable += 1
                self._delete_victims()
            elif outcome is Outcome.ERROR:
                self.stats.scheduling_errors += 1
            else:
                self.stats.skipped += 1
            return result

    def _delete_victims(self) -> None:
        """``prepareCandidate``'s API calls: delete each victim DefaultPreemption picked (one still at the API
        server), as its goroutine does once PostFilter returns."""
        plugin = next((p for p in self.framework.post_filter_plugins if isinstance(p, DefaultPreemption)), None)
        if plugin is None or not plugin.preempted:
            return
        for preemption in plugin.preempted:
            self.preemptions.append((preemption.preemptor, preemption.victim))
            self.stats.preemptions += 1
            if preemption.victim.uid in self.world.pods:
                self.world.delete_pod(preemption.victim.uid)
        plugin.preempted.clear()

    def step_binding_cycles(self) -> int:
        """Step every live binding cycle once; how many progressed."""
        with self._step("step_binding_cycles"):
            progressed: int = self.scheduler.step_binding_cycles()
            self._count_ended_cycles()
            return progressed

    def _count_ended_cycles(self) -> None:
        for uid, cycle in list(self._live_cycles.items()):
            if cycle.done:
                del self._live_cycles[uid]
                status = cycle.status
                if status is not None and status.is_success():
                    self.stats.bound += 1
                else:
                    self.stats.binding_failures += 1

    def pop_calls(self) -> int:
        """The dispatcher's loop pops every pending call; how many."""
        with self._step("pop_calls"):
            return self.calls.pop_all(self.clock.now())

    def complete(self, flight: InFlight) -> Exception | None:
        """An in-flight call executes at the API server; the binding cycles waiting on it resume."""
        with self._step("complete", flight.describe()):
            error = self.calls.complete(flight)
            self.stats.api_requests += 1
            if flight.queued.call.call_type == POD_BINDING:
                if error is not None:
                    self.stats.failed_bind_requests += 1
                elif self.config.pod_lifetime:
                    finish = (self.clock.now() + self.config.pod_lifetime, self.stats.api_requests,
                              flight.queued.call.uid)
                    heapq.heappush(self._finishing, finish)
            self._settle_binding_cycles()
            return error

    def _settle_binding_cycles(self) -> None:
        while self.scheduler.step_binding_cycles():
            pass
        self._count_ended_cycles()

    def deliver(self, event: WatchEvent) -> None:
        """The informer delivers ``event`` (it must be the first pending event of its object)."""
        with self._step("deliver", event.describe()):
            self.informer.deliver(event)
            self.stats.events_delivered += 1
            if event.type is EventType.DELETED and isinstance(event.new, Pod):  # the pod is gone for good
                self.world.forget_deleted(event.new.uid, self.informer)
                self._attempted.discard(event.new.uid)

    def cleanup(self) -> None:
        """The cache's periodic cleanup at the current time."""
        with self._step("cleanup"):
            self.cache.cleanup_tick()

    def flush_backoff(self) -> None:
        """The queue's backoff flush."""
        with self._step("flush_backoff"):
            self.queue.flush_backoff_q_completed()

    def flush_unschedulable(self) -> None:
        """The queue's flush of pods unschedulable for longer than 5 minutes."""
        with self._step("flush_unschedulable"):
            self.queue.flush_unschedulable_pods_leftover()

    def advance(self, nanoseconds: int) -> None:
        """Virtual time passes."""
        with self._step("advance", f"{nanoseconds} ns"):
            self.clock.advance(nanoseconds)

    def create_pod(self, pod: Pod) -> None:
        """A user creates ``pod`` at the API server."""
        with self._step("create_pod", pod.uid):
            self.world.create_pod(pod)
            self.stats.pods_created += 1

    def delete_pod(self, uid: str) -> None:
        """A user deletes pod ``uid`` at the API server."""
        with self._step("delete_pod", uid):
            self.world.delete_pod(uid)
            self.stats.pods_deleted += 1

    def add_node(self, node: Node) -> None:
        """A node joins the cluster."""
        with self._step("add_node", node.name):
            self.world.add_node(node)
            self.stats.nodes_added += 1

    def update_node(self, node: Node) -> None:
        """A node changes."""
        with self._step("update_node", node.name):
            self.world.update_node(node)
            self.stats.nodes_updated += 1

    def delete_node(self, name: str) -> None:
        """A node leaves the cluster."""
        with self._step("delete_node", name):
            self.world.delete_node(name)
            self.stats.nodes_deleted += 1

    def new_pod(self) -> Pod:
        """The workload's next pod (not created yet)."""
        pod = make_pod(self._next_pod, self._workload_rng, identical=self.config.identical_pods,
                       priorities=self.config.priorities)
        self._next_pod += 1
        return pod

    def new_node(self) -> Node:
        """The workload's next node (not added yet)."""
        node = make_node(self._next_node, self._workload_rng, uniform=self.config.uniform_nodes)
        self._next_node += 1
        return node

    # ========================================================================================
    # The clock-driven run
    # ========================================================================================

    def run(self, progress: Callable[[Simulation], None] | None = None, progress_every: int = 1000) -> Stats:
        """Run the configured workload until the cluster is quiet (or the time limit); return the counts.

        ``progress`` is called every ``progress_every`` steps and at the end.
        """
        config = self.config
        started = time.perf_counter()
        for _ in range(config.nodes):
            self.add_node(self.new_node())
        arrivals = config.pods
        if config.arrival_rate == 0:
            for _ in range(arrivals):
                self.create_pod(self.new_pod())
            arrivals = 0
        self._loop(arrivals, progress, progress_every, churn=True)
        self._finish(started, progress)
        return self.stats

    def drain(self, progress: Callable[[Simulation], None] | None = None, progress_every: int = 1000) -> Stats:
        """After :meth:`run`, with nothing changing any more: in rounds, let time pass beyond the TTL and the
        unschedulable pods' 5-minute limit, so that every waiting pod is retried, and run until quiet again; stop
        after a round in which no scheduling cycle found a node and no binding cycle ended (or after
        :data:`MAX_DRAIN_ROUNDS`, or if a round hit the time limit).
        Then the cluster is settled: no assumed pod should be left and every unbound pod should fit nowhere."""
        started = time.perf_counter() - self.stats.wall_seconds
        for _ in range(MAX_DRAIN_ROUNDS):
            progress_before = self._drain_progress()
            self.advance(max(self.config.ttl, UNSCHEDULABLE_TIMEOUT) + CLEANUP_PERIOD)
            self.cleanup()
            self.flush_unschedulable()
            self.flush_backoff()
            self._loop(0, progress, progress_every, churn=False)
            if self._drain_progress() == progress_before or not self.stats.quiet:
                break
        self._finish(started, progress)
        return self.stats

    def _drain_progress(self) -> tuple[int, int, int]:
        return self.stats.nodes_found, self.stats.bound, self.stats.binding_failures

    def run_for(self, nanoseconds: int) -> None:
        """Take the steps in clock order for ``nanoseconds`` of virtual time (or until quiet), without arrivals or
        churn: the clock-driven run, for a driver that otherwise picks the steps itself."""
        self._loop(0, None, 1, churn=False, until=self.clock.now() + nanoseconds)

    def _finish(self, started: float, progress: Callable[[Simulation], None] | None) -> None:
        self.stats.virtual_seconds = self.clock.now() / SECOND
        self.stats.wall_seconds = time.perf_counter() - started
        self.stats.unbound_at_end = len(self.world.unbound_pods())
        if progress is not None:
            progress(self)

    def _loop(self, arrivals_left: int, progress: Callable[[Simulation], None] | None, progress_every: int,
              *, churn: bool, until: int | None = None) -> None:
        """Take the steps in clock order until quiet (or the clock would pass ``until``), with ``arrivals_left``
        pods still to arrive, and churn (if ``churn`` and configured) until ``churn_seconds`` after the last
        arrival."""
        config = self.config
        start = self.clock.now()
        self._last_placed = start  # the idle timer of quiet() starts now
        next_arrival_at = start
        churn_until: int | None = None
        next_churn = None
        if churn and config.churn.total > 0:
            next_churn = next_arrival(self._churn_rng, start, config.churn.total)
        next_cleanup = start + CLEANUP_PERIOD
        next_backoff_flush = start + BACKOFF_FLUSH_PERIOD
        next_unschedulable_flush = start + UNSCHEDULABLE_FLUSH_PERIOD
        scheduler_free_at = start
        scheduler_idle = False
        time_moved = True
        last_report = self.stats.steps
        self.stats.quiet = False
        while True:
            now = self.clock.now()
            if progress is not None and self.stats.steps - last_report >= progress_every:
                last_report = self.stats.steps
                progress(self)
            if self.calls.pending() and self.calls.can_pop():
                self.pop_calls()
                continue
            if time_moved:  # a Permit wait may have timed out (completions resume their cycles themselves)
                time_moved = False
                if any(cycle.ready() for cycle in self.scheduler.binding_cycles.values()):
                    self.step_binding_cycles()
                    continue
            if not scheduler_idle and scheduler_free_at <= now:
                if self.schedule_one() is None:
                    scheduler_idle = True
                else:
                    scheduler_free_at = now + config.cycle_cost
                    if self.scheduler.binding_cycles:
                        self.step_binding_cycles()  # the new binding cycle's goroutine runs up to its bind call
                continue
            if arrivals_left == 0 and churn_until is None:
                churn_until = now + round(config.churn_seconds * SECOND)
            churning = next_churn is not None and (churn_until is None or next_churn <= churn_until)
            if arrivals_left == 0 and not churning and not self._finishing and self.quiet():
                self.stats.quiet = True
                return
            # The next thing to happen, in a fixed order on ties.
            candidates: list[tuple[int, int, str]] = []
            flight = self.calls.next_due()
            if flight is not None:
                candidates.append((flight.due, 0, "complete"))
            event = self.informer.next_due()
            if event is not None:
                candidates.append((event.due, 1, "deliver"))
            if arrivals_left:
                candidates.append((next_arrival_at, 2, "arrive"))
            if self._finishing:
                candidates.append((self._finishing[0][0], 2, "finish"))
            if churning and next_churn is not None:
                candidates.append((next_churn, 3, "churn"))
            if not scheduler_idle:
                candidates.append((scheduler_free_at, 4, "schedule"))
            candidates += [(next_cleanup, 5, "cleanup"), (next_backoff_flush, 6, "flush_backoff"),
                           (next_unschedulable_flush, 7, "flush_unschedulable")]
            when, _, what = min(candidates)
            if when > config.max_virtual_time:
                return
            if until is not None and when > until:
                if until > now:
                    self.clock.set(until)
                return
            if when > now:
                self.clock.set(when)
                time_moved = True
            scheduler_idle = False  # anything may have made a pod poppable
            if what == "complete":
                assert flight is not None
                self.complete(flight)
            elif what == "deliver":
                assert event is not None
                self.deliver(event)
            elif what == "finish":
                _, _, uid = heapq.heappop(self._finishing)
                if uid in self.world.pods:  # churn may have deleted it already
                    self.delete_pod(uid)
            elif what == "arrive":
                self.create_pod(self.new_pod())
                arrivals_left -= 1
                next_arrival_at = next_arrival(self._workload_rng, when, config.arrival_rate)
            elif what == "churn":
                self._churn_once()
                next_churn = next_arrival(self._churn_rng, when, config.churn.total)
            elif what == "cleanup":
                self.cleanup()
                next_cleanup = when + CLEANUP_PERIOD
            elif what == "flush_backoff":
                self.flush_backoff()
                next_backoff_flush = when + BACKOFF_FLUSH_PERIOD
            elif what == "flush_unschedulable":
                self.flush_unschedulable()
                next_unschedulable_flush = when + UNSCHEDULABLE_FLUSH_PERIOD

    def _churn_once(self) -> None:
        """One random change, chosen in proportion to the churn rates."""
        churn, rng = self.config.churn, self._churn_rng
        roll = rng.random() * churn.total
        if roll < churn.pod_deletions:
            if self.world.pods:
                self.delete_pod(rng.choice(sorted(self.world.pods)))
            return
        roll -= churn.pod_deletions
        if roll < churn.node_additions:
            self.add_node(self.new_node())
            return
        roll -= churn.node_additions
        names = sorted(self.world.nodes)
        if not names:
            return
        if roll < churn.node_deletions:
            self.delete_node(rng.choice(names))
        else:
            self.update_node(toggled(self.world.nodes[rng.choice(names)], rng))
