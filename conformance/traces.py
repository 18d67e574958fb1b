"""Running operation sequences through the spec (the oracle) and turning them into vectors.

A :class:`Scenario` is a named sequence of operations and the profiles it applies to. :func:`expand` runs it
under each profile, groups the profiles whose expected traces are the same, and returns one vector per group: a
behaviour that differs between Kubernetes versions thus yields several vectors, each tagged with the profiles
it holds for (and with the label ``version-dependent``). Every vector is tagged with the scenario's hand-chosen labels
and with the behaviours its steps were *observed* to exercise (:mod:`conformance.behaviours`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from conformance.behaviours import cache_step_behaviours, checked, cycle_step_behaviours, dispatcher_step_behaviours
from conformance.behaviours.queue import queue_step_behaviours
from conformance.codec import encode_operation
from conformance.format import Expect, Step, Tags, Vector
from conformance.observe import (
    INITIAL_CACHE_OBSERVATION,
    INITIAL_CYCLE_OBSERVATION,
    INITIAL_DISPATCHER_OBSERVATION,
    INITIAL_QUEUE_OBSERVATION,
    NOTHING,
    NOTHING_RETURNED,
    diff,
    node_info_json,
    observe_cluster,
    observe_queue,
    observe_scheduling_queue,
    observe_world,
)
from conformance.operations import CycleOperation, UpdateMetrics, apply_cycle, apply_update_metrics
from spec.cache.cache import clone_node_info, new_cache
from spec.cache.operations import OK, AddNode, Operation, Outcome, Status, UpdateNode, World, apply
from spec.cycle.cycle import CycleNotEnabled, new_cluster
from spec.dispatcher.call_queue import can_pop, new_call_queue
from spec.dispatcher.operations import CallQueueOperation, apply_call_queue, is_enabled
from spec.queue.operations import NewQueue, QueueOperation, apply_queue_operation, new_queue_world
from spec.queue.state import QueueNotEnabled
from spec.versions import PROFILES, VersionProfile

ALL_PROFILES = tuple(PROFILES)
EXPIRY_PROFILES = tuple(name for name, p in PROFILES.items() if p.assumed_pod_expiry)


@dataclass(frozen=True)
class Scenario:
    """A named sequence of operations: call-queue operations in the dispatcher area, cycle operations
    (:mod:`conformance.operations`) in the cycle area, scheduling-queue operations
    (:mod:`spec.queue.operations`) in the queue area, cache operations in the others."""

    id: str
    description: str
    ops: Sequence[Any]
    area: str = "cache"
    behaviours: tuple[str, ...] = ()
    origin: str = "curated"
    ttl: int = 0
    profiles: tuple[str, ...] = ALL_PROFILES
    preemption: bool = False
    """Cycle area: the scheduler runs DefaultPreemption as its PostFilter
    (:attr:`spec.cycle.cycle.Cluster.preemption`)."""


def observe_dispatcher(queue: Any, sends_before: int) -> Any:
    """The dispatcher observation plus ``can_pop`` (the run loop would pop now)."""
    return {**observe_queue(queue, sends_before), "can_pop": can_pop(queue)}


INITIAL_DISPATCHER = {**INITIAL_DISPATCHER_OBSERVATION, "can_pop": False}


def apply_cache_step(
    world: World, op: Operation | UpdateMetrics, observe_returned: bool = True
) -> tuple[World, Outcome, Any]:
    """:func:`spec.cache.operations.apply`, also for :class:`UpdateMetrics`, with what the call returned (JSON; not
    computed without ``observe_returned``)."""
    if isinstance(op, UpdateMetrics):
        return World(apply_update_metrics(world.cache), world.snapshot), OK, NOTHING_RETURNED
    after, outcome = apply(world, op)
    returned: Any = NOTHING_RETURNED
    if observe_returned and isinstance(op, AddNode | UpdateNode) and outcome.status is Status.OK:
        name = op.node.name if isinstance(op, AddNode) else op.new.name
        if after.cache.profile.node_operations_return_node_info:
            returned = node_info_json(clone_node_info(after.cache, name))
    return after, outcome, returned


_ENCODED: dict[int, tuple[object, tuple[str, dict[str, Any]]]] = {}
"""Encoded operations by operation object (kept alive with its entry, so its id stays its own)."""


def encoded_operation(op: object) -> tuple[str, dict[str, Any]]:
    """:func:`conformance.codec.encode_operation`, computed once per operation object: scenarios share operation
    objects (the universe's), and each profile's run encodes every step again. The steps share the JSON, which
    nothing changes."""
    entry = _ENCODED.get(id(op))
    if entry is None or entry[0] is not op:
        entry = _ENCODED[id(op)] = (op, encode_operation(op))
    return entry[1]


Trace = tuple[list[Step], frozenset[str]]
"""A trace's steps and the behaviours they exercised."""


def cache_steps(profile: VersionProfile, ttl: int, ops: Sequence[Operation | UpdateMetrics]) -> Trace:
    """Apply ``ops`` from an empty cache; the steps end at the first fatal outcome."""
    world = World(new_cache(profile, ttl))
    previous = INITIAL_CACHE_OBSERVATION
    steps: list[Step] = []
    seen: set[str] = set()
    for op in ops:
        before = world
        world, outcome, returned = apply_cache_step(world, op)
        seen |= cache_step_behaviours(before, op, world, outcome, returned)
        name, args = encoded_operation(op)
        if outcome.status is Status.FATAL:
            steps.append(Step(name, args, Expect("fatal", outcome.kind, outcome.message)))
            break
        current = observe_world(world, returned)
        kind = outcome.kind if outcome.status is Status.ERROR else None
        steps.append(Step(name, args, Expect(outcome.status.value, kind, outcome.message, diff(previous, current))))
        previous = current
    return steps, checked(seen)


def dispatcher_steps(profile: VersionProfile, ops: Sequence[CallQueueOperation]) -> Trace:
    """Apply ``ops`` from an empty call queue; an operation that is not enabled ends the steps."""
    queue = new_call_queue(profile)
    previous = INITIAL_DISPATCHER
    steps: list[Step] = []
    seen: set[str] = set()
    for op in ops:
        if not is_enabled(queue, op):
            break
        old = queue
        before = len(queue.sends)
        queue, error = apply_call_queue(queue, op)
        seen |= dispatcher_step_behaviours(old, op, queue, error)
        current = observe_dispatcher(queue, before)
        name, args = encoded_operation(op)
        if error is None:
            expect = Expect("ok", None, "", diff(previous, current))
        else:
            expect = Expect("error", str(error.kind.value), error.message, diff(previous, current))
        steps.append(Step(name, args, expect))
        previous = current
    return steps, checked(seen)


def cycle_steps(profile: VersionProfile, ttl: int, ops: Sequence[CycleOperation], preemption: bool = False) -> Trace:
    """Apply ``ops`` from an empty cluster (with DefaultPreemption if ``preemption``). Fails with ``ValueError``
    naming the first step whose guard is false: a scenario must contain only steps that can happen (a rejected
    ``schedule_pod`` can)."""
    cluster = new_cluster(profile, ttl, preemption)
    previous = INITIAL_CYCLE_OBSERVATION
    steps: list[Step] = []
    seen: set[str] = set()
    for index, op in enumerate(ops):
        before = cluster
        try:
            cluster, outcome = apply_cycle(cluster, op)
        except CycleNotEnabled as error:
            raise ValueError(f"step {index} ({op!r}) cannot happen under {profile.name}: {error}") from None
        seen |= cycle_step_behaviours(before, op, cluster, outcome)
        current = observe_cluster(cluster, outcome.filters, outcome.decision, outcome.preemption)
        name, args = encoded_operation(op)
        status = "ok" if outcome.kind is None else "error"
        steps.append(Step(name, args, Expect(status, outcome.kind, outcome.message, diff(previous, current))))
        previous = current
    return steps, checked(seen)


def queue_steps(profile: VersionProfile, ops: Sequence[QueueOperation]) -> tuple[list[Step], frozenset[str]]:
    """Apply ``ops`` to an empty scheduling queue of ``profile``. Fails with ``ValueError`` naming the first step
    that cannot be a vector's: a pop that would block, or one among pods that compare equal (an implementation's
    heap may take either). Returns the steps and the behaviours they were observed to exercise."""
    world = new_queue_world(profile)
    previous = INITIAL_QUEUE_OBSERVATION
    steps = []
    seen: set[str] = set()
    for index, op in enumerate(ops):
        before = world
        try:
            world, outcome = apply_queue_operation(world, op)
        except (QueueNotEnabled, ValueError) as error:
            raise ValueError(f"step {index} ({op!r}) cannot be a vector step under {profile.name}: {error}") from None
        popped = NOTHING if outcome.popped is None else outcome.popped.uid
        went = NOTHING if outcome.went is None else outcome.went.value
        current = observe_scheduling_queue(world.queue, popped, went)
        name, args = encoded_operation(op)
        if outcome.error is None:
            expect = Expect("ok", None, "", diff(previous, current))
        else:
            expect = Expect("error", outcome.error.kind.value, outcome.error.message, diff(previous, current))
        steps.append(Step(name, args, expect))
        seen |= queue_step_behaviours(before, op, world, outcome)
        previous = current
    return steps, checked(seen)


INITIAL_OBSERVATIONS = {
    "dispatcher": INITIAL_DISPATCHER, "cycle": INITIAL_CYCLE_OBSERVATION, "queue": INITIAL_QUEUE_OBSERVATION,
}
"""The initial observation by area (the cache one for the others)."""


def _comparable(steps: Sequence[Step]) -> tuple[Any, ...]:
    """What makes two profiles' traces the same expectation (messages are information only)."""
    return tuple((s.op, repr(s.args), s.expect.status, s.expect.kind, repr(s.expect.observation)) for s in steps)


def _turns_hints_off(scenario: Scenario) -> bool:
    """Whether a queue scenario makes a queue with QueueingHints off."""
    return any(isinstance(op, NewQueue) and op.queueing_hints is False for op in scenario.ops)


def _applicable(scenario: Scenario) -> list[str]:
    """The scenario's profiles that can run it: a TTL needs assumed-pod expiry, and QueueingHints off needs the
    SchedulerQueueingHints gate (gone in v1.37: :attr:`spec.versions.VersionProfile.queueing_hints_gate`)."""
    return [
        n for n in scenario.profiles
        if (scenario.ttl == 0 or PROFILES[n].assumed_pod_expiry)
        and (PROFILES[n].queueing_hints_gate or not _turns_hints_off(scenario))
    ]


def steps_under(scenario: Scenario, profile: VersionProfile) -> Trace | None:
    """The steps of ``scenario`` under ``profile`` and the behaviours they exercised; None for a generated cycle or
    queue trace that cannot happen under ``profile`` (a curated one fails with ``ValueError``)."""
    if scenario.area == "dispatcher":
        return dispatcher_steps(profile, scenario.ops)
    if scenario.area == "cycle":
        try:
            return cycle_steps(profile, scenario.ttl, scenario.ops, scenario.preemption)
        except ValueError:
            if scenario.origin == "curated":
                raise
            return None  # a generated trace found under one profile that cannot happen under this one
    if scenario.area == "queue":
        try:
            return queue_steps(profile, scenario.ops)
        except ValueError:
            if scenario.origin == "curated":
                raise
            return None  # a generated trace with a step this profile does not enable (an Add that v1.37 leaves
            # in two sub-queues: VersionProfile.add_leaves_backoff_entry)
    return cache_steps(profile, scenario.ttl, scenario.ops)


PROFILE_FIELDS: Final = frozenset(field.name for field in dataclasses.fields(VersionProfile))


class RecordingProfile(VersionProfile):
    """A profile that records which of its fields are read (:func:`traces_by_profile`).

    A read of any other attribute (its ``__dict__``, a pickling or copying hook, ...) counts as a read of every
    field, and so do ``==``, ``hash`` and ``repr``, which give what they give for the plain profile with the same
    fields; only ``__class__`` is read freely (the same class for every recording). A copy made with ``replace``
    reads every field of the original."""

    def __init__(self, profile: VersionProfile | None = None, /, **fields: Any) -> None:
        values = {name: getattr(profile, name) for name in PROFILE_FIELDS} if profile is not None else fields
        for name, value in values.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_reads", set())

    def __getattribute__(self, name: str) -> Any:
        if name in PROFILE_FIELDS:
            object.__getattribute__(self, "_reads").add(name)
        elif name != "__class__":  # (a copy made without __init__ has its set made here, by reading __dict__)
            object.__getattribute__(self, "__dict__").setdefault("_reads", set()).update(PROFILE_FIELDS)
        return object.__getattribute__(self, name)

    def plain(self) -> VersionProfile:
        """The plain profile with the same fields, every field counted as read."""
        reads: set[str] = object.__getattribute__(self, "_reads")
        reads.update(PROFILE_FIELDS)
        return VersionProfile(**{f.name: object.__getattribute__(self, f.name) for f in dataclasses.fields(self)})

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RecordingProfile):
            other = RecordingProfile.plain(other)
        return RecordingProfile.plain(self) == other

    def __hash__(self) -> int:
        return hash(RecordingProfile.plain(self))

    def __repr__(self) -> str:
        return repr(RecordingProfile.plain(self))

    def reads(self) -> dict[str, Any]:
        """The fields read so far, with their values."""
        return {name: object.__getattribute__(self, name) for name in object.__getattribute__(self, "_reads")}


def traces_by_profile(scenario: Scenario) -> dict[str, Trace | None]:
    """:func:`steps_under` for each profile ``scenario`` applies to, run once per group of profiles that agree on
    every field the run read: the spec and the observations are pure functions of the scenario and of the fields
    they read, so a profile that agrees with an earlier run's on all of them would repeat that run step for step.
    Equal to calling :func:`steps_under` for each (tests/conformance/test_generate.py compares them)."""
    runs: list[tuple[dict[str, Any], Trace | None]] = []
    traces: dict[str, Trace | None] = {}
    for name in _applicable(scenario):
        profile = PROFILES[name]
        same = [trace for reads, trace in runs if all(getattr(profile, f) == value for f, value in reads.items())]
        if same:
            traces[name] = same[0]
            continue
        recording = RecordingProfile(profile)
        traces[name] = steps_under(scenario, recording)
        runs.append((RecordingProfile.reads(recording), traces[name]))
    return traces


def expand(scenario: Scenario) -> list[Vector]:
    """One vector per group of profiles with the same expected trace, tagged with the scenario's labels, then the
    behaviours observed under any profile of the group (sorted)."""
    groups: dict[tuple[Any, ...], tuple[list[str], list[Step], set[str]]] = {}
    for name, trace in traces_by_profile(scenario).items():
        if trace is None:
            continue
        steps, seen = trace
        if steps:
            group = groups.setdefault(_comparable(steps), ([], steps, set()))
            group[0].append(name)
            group[2].update(seen)
    vectors = []
    split = len(groups) > 1
    for names, steps, observed in groups.values():
        labels = scenario.behaviours + (("version-dependent",) if split else ())
        behaviours = (*labels, *sorted(observed - set(labels)))
        vector_id = scenario.id + (f".{names[0].replace('.', '_')}" if split else "")
        initial = INITIAL_OBSERVATIONS.get(scenario.area, INITIAL_CACHE_OBSERVATION)
        vectors.append(Vector(
            id=vector_id,
            description=scenario.description + (f" (profiles {', '.join(names)})" if split else ""),
            tags=Tags(scenario.area, scenario.origin, behaviours, tuple(names)),
            profile=names[0], ttl_ns=scenario.ttl, initial_observation=initial, steps=tuple(steps),
            preemption=scenario.preemption,
        ))
    return vectors
