"""What the committed vectors show of the adapter contract: the result kinds each operation has per version profile,
how often each operation is exercised, and one example step per operation.

These are read off the vectors (which :mod:`conformance.generate` computes from the spec), so the contract pages
list exactly the kinds a conforming adapter must answer, and each kind's meaning comes from the docstring where the
spec names it (:class:`spec.errors.ErrorKind`, :class:`spec.errors.FatalKind`, the dispatcher's and the queue's
outcome kinds, :mod:`conformance.operations`' cycle kinds).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from conformance import operations
from conformance.format import Step, Vector
from conformance.schemas import field_docs
from spec.dispatcher.call_queue import OutcomeKind
from spec.errors import ErrorKind, FatalKind
from spec.queue.state import QueueErrorKind
from spec.versions import PROFILES

JSON = Any
KIND_SOURCES: Final = (ErrorKind, FatalKind, OutcomeKind, QueueErrorKind)
"""Where error and fatal kinds are named, with a docstring each."""


def kind_meanings() -> dict[str, str]:
    """Every normalised kind the suite uses, with what it means (the docstring where the spec names it)."""
    meanings: dict[str, str] = {}
    for enum in KIND_SOURCES:
        docs = field_docs(enum)
        for member in enum:
            meanings[str(member.value)] = docs.get(member.name, "")
    docs = field_docs(operations)
    for name in ("UNSCHEDULABLE", "NODE_NOT_IN_SNAPSHOT", "ALREADY_EXISTS", "NOT_ENABLED"):
        meanings[getattr(operations, name)] = docs.get(name, "")
    return meanings


@dataclass(frozen=True)
class ResultKind:
    """A non-ok result an operation's steps expect: its status, kind and the profiles whose vectors expect it."""

    status: str
    kind: str
    profiles: tuple[str, ...]


def result_kinds(vectors: Iterable[Vector], area: str) -> dict[str, list[ResultKind]]:
    """For each operation of ``area``'s vectors, the error and fatal kinds its steps expect, with the profiles."""
    found: dict[str, dict[tuple[str, str], set[str]]] = {}
    for vector in vectors:
        if vector.tags.area != area:
            continue
        for step in vector.steps:
            if step.expect.status != "ok" and step.expect.kind is not None:
                key = (step.expect.status, step.expect.kind)
                found.setdefault(step.op, {}).setdefault(key, set()).update(vector.tags.profiles)
    order = list(PROFILES)
    return {op: [ResultKind(status, kind, tuple(sorted(profiles, key=order.index)))
                 for (status, kind), profiles in sorted(kinds.items())]
            for op, kinds in sorted(found.items())}


def step_counts(vectors: Iterable[Vector], area: str) -> dict[str, int]:
    """How many steps of ``area``'s vectors name each operation."""
    counts: dict[str, int] = {}
    for vector in vectors:
        if vector.tags.area == area:
            for step in vector.steps:
                counts[step.op] = counts.get(step.op, 0) + 1
    return counts


def _size(step: Step) -> int:
    return len(json.dumps(step.args, separators=(",", ":")))


MIN_EXAMPLE: Final = 40
"""An example's arguments are the shortest of at least this many characters, when one exists (so that an example
shows a pod or a node with a few fields rather than the emptiest one)."""


def example_step(vectors: Sequence[Vector], op: str, areas: Sequence[str]) -> tuple[Vector, int] | None:
    """A curated step naming ``op`` in a vector of one of ``areas`` (the first area that has one), as (vector, index):
    among the steps expected ``ok`` (if any), the one with the shortest arguments of at least :data:`MIN_EXAMPLE`
    characters (else the longest), ties broken by vector id and index; None if no such step exists."""
    for area in areas:
        candidates = [(vector, index) for vector in vectors if vector.tags.area == area
                      and vector.tags.origin == "curated" for index, step in enumerate(vector.steps) if step.op == op]
        if candidates:
            ok = [c for c in candidates if c[0].steps[c[1]].expect.status == "ok"]
            candidates = ok or candidates
            big = [c for c in candidates if _size(c[0].steps[c[1]]) >= MIN_EXAMPLE]
            if big:
                return min(big, key=lambda c: (_size(c[0].steps[c[1]]), c[0].id, c[1]))
            return max(candidates, key=lambda c: (_size(c[0].steps[c[1]]), c[0].id, -c[1]))
    return None


def step_request(step: Step, index: int) -> str:
    """The protocol's ``step`` request for ``step``, the vector's ``index``-th, as one JSON line (the id it has when
    the vector is the session's first: hello 1, reset 2)."""
    return json.dumps({"type": "step", "id": index + 3, "index": index, "op": step.op, "args": step.args},
                      separators=(",", ":"), ensure_ascii=False)
