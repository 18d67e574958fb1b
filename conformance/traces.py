"""Running operation sequences through the spec (the oracle) and turning them into vectors.

A :class:`Scenario` is a named sequence of operations and the profiles it applies to. :func:`expand` runs it
under each profile, groups the profiles whose expected traces are the same, and returns one vector per group: a
behaviour that differs between Kubernetes versions thus yields several vectors, each tagged with the profiles
it holds for (and with the behaviour ``version-dependent``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from conformance.codec import encode_operation
from conformance.format import Expect, Step, Tags, Vector
from conformance.observe import (
    INITIAL_CACHE_OBSERVATION,
    INITIAL_DISPATCHER_OBSERVATION,
    diff,
    observe_queue,
    observe_world,
)
from spec.cache import new_cache
from spec.call_queue import can_pop, new_call_queue
from spec.call_queue_operations import CallQueueOperation, apply_call_queue, is_enabled
from spec.operations import Operation, Status, World, apply
from spec.versions import PROFILES, VersionProfile

ALL_PROFILES = tuple(PROFILES)
EXPIRY_PROFILES = tuple(name for name, p in PROFILES.items() if p.assumed_pod_expiry)


@dataclass(frozen=True)
class Scenario:
    """A named sequence of operations; ``area`` dispatcher means call-queue operations, else cache ones."""

    id: str
    description: str
    ops: Sequence[Any]
    area: str = "cache"
    behaviours: tuple[str, ...] = ()
    origin: str = "curated"
    ttl: int = 0
    profiles: tuple[str, ...] = ALL_PROFILES


def observe_dispatcher(queue: Any, sends_before: int) -> Any:
    """The dispatcher observation plus ``can_pop`` (the run loop would pop now)."""
    return {**observe_queue(queue, sends_before), "can_pop": can_pop(queue)}


INITIAL_DISPATCHER = {**INITIAL_DISPATCHER_OBSERVATION, "can_pop": False}


def cache_steps(profile: VersionProfile, ttl: int, ops: Sequence[Operation]) -> list[Step]:
    """Apply ``ops`` from an empty cache; the steps end at the first fatal outcome."""
    world = World(new_cache(profile, ttl))
    previous = INITIAL_CACHE_OBSERVATION
    steps = []
    for op in ops:
        world, outcome = apply(world, op)
        name, args = encode_operation(op)
        if outcome.status is Status.FATAL:
            steps.append(Step(name, args, Expect("fatal", outcome.kind, outcome.message)))
            break
        current = observe_world(world)
        kind = outcome.kind if outcome.status is Status.ERROR else None
        steps.append(Step(name, args, Expect(outcome.status.value, kind, outcome.message, diff(previous, current))))
        previous = current
    return steps


def dispatcher_steps(profile: VersionProfile, ops: Sequence[CallQueueOperation]) -> list[Step]:
    """Apply ``ops`` from an empty call queue; an operation that is not enabled ends the steps."""
    queue = new_call_queue(profile)
    previous = INITIAL_DISPATCHER
    steps = []
    for op in ops:
        if not is_enabled(queue, op):
            break
        before = len(queue.sends)
        queue, error = apply_call_queue(queue, op)
        current = observe_dispatcher(queue, before)
        name, args = encode_operation(op)
        if error is None:
            expect = Expect("ok", None, "", diff(previous, current))
        else:
            expect = Expect("error", str(error.kind.value), error.message, diff(previous, current))
        steps.append(Step(name, args, expect))
        previous = current
    return steps


def _comparable(steps: Sequence[Step]) -> tuple[Any, ...]:
    """What makes two profiles' traces the same expectation (messages are information only)."""
    return tuple((s.op, repr(s.args), s.expect.status, s.expect.kind, repr(s.expect.observation)) for s in steps)


def _applicable(scenario: Scenario) -> list[str]:
    return [n for n in scenario.profiles if scenario.ttl == 0 or PROFILES[n].assumed_pod_expiry]


def expand(scenario: Scenario) -> list[Vector]:
    """One vector per group of profiles with the same expected trace."""
    groups: dict[tuple[Any, ...], tuple[list[str], list[Step]]] = {}
    for name in _applicable(scenario):
        profile = PROFILES[name]
        if scenario.area == "dispatcher":
            steps = dispatcher_steps(profile, scenario.ops)
        else:
            steps = cache_steps(profile, scenario.ttl, scenario.ops)
        if steps:
            groups.setdefault(_comparable(steps), ([], steps))[0].append(name)
    vectors = []
    split = len(groups) > 1
    for names, steps in groups.values():
        behaviours = scenario.behaviours + (("version-dependent",) if split else ())
        vector_id = scenario.id + (f".{names[0].replace('.', '_')}" if split else "")
        initial = INITIAL_DISPATCHER if scenario.area == "dispatcher" else INITIAL_CACHE_OBSERVATION
        vectors.append(Vector(
            id=vector_id,
            description=scenario.description + (f" (profiles {', '.join(names)})" if split else ""),
            tags=Tags(scenario.area, scenario.origin, behaviours, tuple(names)),
            profile=names[0], ttl_ns=scenario.ttl, initial_observation=initial, steps=tuple(steps),
        ))
    return vectors
