"""``ksspec conform --smoke``: a few vectors per area the adapter declares, and the first failure explained.

A smoke run answers "is my adapter wired up right?" in seconds, before the whole suite: the handshake (the
adapter's ``hello``, which also gives the reports its metadata), then :data:`PER_AREA` curated vectors of each
declared area that hold for a declared profile, then, for the first vector that did not pass, everything needed to
reproduce it: the vector, the step, the request sent, what was expected and what came back, and the contract page
that states the rule.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

from conformance.format import Vector
from conformance.runner import Outcome, Target, VectorResult, choose_profile
from conformance.sessions import AdapterFailure, handshake

JSON = Any
PER_AREA: Final = 3
"""Vectors per declared area in a smoke run."""
METADATA_FIELDS: Final = ("language", "version", "homepage")
"""Optional ``hello`` fields the reports carry (:data:`conformance.schemas.HELLO_METADATA` says what each means)."""
MAX_METADATA: Final = 200
"""Characters kept of a metadata value (an adapter's text goes into reports)."""


def probe(target: Target) -> JSON:
    """Start the target, shake hands and stop it: its ``hello`` response. Fails with
    :class:`conformance.sessions.AdapterFailure` when the handshake fails."""
    session = target.open()
    try:
        return handshake(session)
    finally:
        session.close()


def metadata(hello: JSON, name: str) -> JSON:
    """What the reports say about the implementation: its name (``name`` when the adapter gives none), the
    metadata fields it gave as strings, and the areas and profiles it declared."""
    capabilities = hello.get("capabilities", {}) if isinstance(hello, dict) else {}
    out: JSON = {"name": str(hello.get("implementation") or name)[:MAX_METADATA] if isinstance(hello, dict) else name}
    for field in METADATA_FIELDS:
        value = hello.get(field) if isinstance(hello, dict) else None
        if isinstance(value, str) and value:
            out[field] = value[:MAX_METADATA]
    out["areas"] = sorted(a for a in capabilities.get("areas", []) if isinstance(a, str))
    out["profiles"] = [p for p in capabilities.get("profiles", []) if isinstance(p, str)]
    return out


def smoke_selection(vectors: Sequence[Vector], hello: JSON, profile: str | None,
                    per_area: int = PER_AREA) -> list[Vector]:
    """For each area the adapter declares, ``per_area`` curated vectors that hold for a profile it supports (and
    ``profile``, if given): spread over the shorter half of the area's vectors by step count, so the run is quick
    but does not only send one-step traces. Deterministic."""
    capabilities = hello["capabilities"]
    chosen: list[Vector] = []
    for area in sorted(set(capabilities["areas"])):
        candidates = sorted((v for v in vectors if v.tags.area == area and v.tags.origin == "curated"
                             and choose_profile(v, capabilities.get("profiles", []), profile) is not None),
                            key=lambda v: (len(v.steps), v.id))
        shorter = candidates[:max(per_area, len(candidates) // 2)]
        if len(shorter) <= per_area:
            chosen += shorter
            continue
        stride = (len(shorter) - 1) / (per_area - 1) if per_area > 1 else 0
        chosen += [shorter[round(i * stride)] for i in range(per_area)]
    return chosen


def explain(result: VectorResult, vector: Vector) -> list[str]:
    """The first failure of a smoke run, in full: what was sent, what was expected, what came back, where the rule
    is stated."""
    lines = [f"{result.outcome.value.upper()} {vector.id} (area {vector.tags.area}, profile {result.profile or '-'})",
             f"  vector: {vector.description}"]
    if result.step is not None and result.step < len(vector.steps):
        step = vector.steps[result.step]
        request = {"type": "step", "index": result.step, "op": step.op, "args": step.args}
        expected = {"status": step.expect.status, **({"kind": step.expect.kind} if step.expect.kind else {})}
        before = f", after the {result.step} step(s) before it passed" if result.step else " (the first)"
        lines += [f"  at step {result.step} of {len(vector.steps)}{before}",
                  f"  sent:     {json.dumps(request, separators=(',', ':'))[:600]}",
                  f"  expected: {json.dumps(expected)} and the observation below"]
    lines.append(f"  got:      {result.detail}")
    lines += [f"    {line}" for line in result.diff]
    lines.append(f"  the contract: docs/contract/{vector.tags.area}.md"
                 + (f" (operation {vector.steps[result.step].op})" if result.step is not None
                    and result.step < len(vector.steps) else ""))
    lines.append(f"  rerun it alone: ksspec conform ... --tag {vector.id}")
    return lines


def first_failure(results: Sequence[VectorResult]) -> VectorResult | None:
    """The first result that is neither a pass nor a skip."""
    return next((r for r in results if r.outcome not in (Outcome.PASS, Outcome.SKIP, Outcome.XFAIL)), None)


__all__ = ("AdapterFailure", "explain", "first_failure", "metadata", "probe", "smoke_selection")
