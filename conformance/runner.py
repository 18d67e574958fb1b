"""Running vectors against an implementation and judging its answers.

For each vector the runner resets the implementation (profile, TTL), sends each step, and compares the answer
with the expectation: the status, the error kind (messages are information only) and the full observation
(rebuilt from the vector's merge patches). The first divergence ends the vector. An adapter failure (crash,
hang, garbage, out-of-order answer, protocol mismatch) is an ``error`` for that vector only: the session is
restarted and the run goes on, and every result already recorded is kept.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from conformance.adapters.refimpl_adapter import load_adapter
from conformance.format import Vector
from conformance.observe import merge_patch
from conformance.sessions import AdapterFailure, InProcessSession, Session, SubprocessSession, check_response, handshake

JSON = Any
MAX_DIFF_LINES = 12


class Outcome(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    XFAIL = "xfail"
    """Failed (or errored), and listed in the expected-failures file."""
    XPASS = "xpass"
    """Listed in the expected-failures file, but passed: the list is stale, which fails the run."""
    ERROR = "error"
    """The adapter failed (crash, hang, garbage, protocol): no verdict on the implementation."""
    SKIP = "skip"


@dataclass
class VectorResult:
    id: str
    area: str
    outcome: Outcome
    detail: str = ""
    step: int | None = None
    op: str | None = None
    diff: list[str] = field(default_factory=list)
    profile: str = ""
    seconds: float = 0.0

    def to_json(self) -> JSON:
        data = asdict(self)
        data["outcome"] = self.outcome.value
        return data


@dataclass(frozen=True)
class Target:
    """What to run against: an in-process adapter (``impl``, see ``load_adapter``) or a command (``adapter``)."""

    impl: str | None = "refimpl"
    adapter: str | None = None
    timeout: float = 10.0
    profile: str | None = None
    """Run only vectors that hold for this profile, under it; None runs each vector under a profile it holds for."""

    def open(self) -> Session:
        if self.adapter is not None:
            return SubprocessSession(self.adapter, self.timeout)
        assert self.impl is not None
        return InProcessSession(load_adapter(self.impl)())


# --------------------------------------------------------------------------------------------
# Comparing observations
# --------------------------------------------------------------------------------------------


def _short(value: JSON) -> str:
    import json

    text = json.dumps(value, separators=(",", ":"))
    return text if len(text) <= 100 else text[:97] + "..."


def observation_diff(expected: JSON, actual: JSON, path: str = "") -> list[str]:
    """Where ``actual`` differs from ``expected``, one readable line per leaf (keys the vector does not expect
    are ignored)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        lines = []
        for key in expected:
            where = f"{path}.{key}" if path else key
            if key not in actual:
                lines.append(f"{where}: missing, expected {_short(expected[key])}")
            else:
                lines += observation_diff(expected[key], actual[key], where)
        extra = sorted(set(actual) - set(expected))
        if path and extra:  # inside a map (nodes, calls): an entry the implementation has and should not
            lines += [f"{path}.{k}: unexpected entry {_short(actual[k])}" for k in extra]
        return lines
    if expected != actual:
        return [f"{path}: expected {_short(expected)}, got {_short(actual)}"]
    return []


def judge_step(index: int, step: Any, answer: JSON, expected: JSON) -> tuple[str, list[str]] | None:
    """None if ``answer`` matches; else a one-line verdict and the diff lines."""
    want = step.expect
    status, kind = answer.get("status"), answer.get("kind")
    prefix = f"step {index} ({step.op})"
    if status != want.status or (want.status != "ok" and kind != want.kind):
        got = f"{status}" + (f" kind {kind!r}" if kind else "")
        wanted = f"{want.status}" + (f" kind {want.kind!r}" if want.kind else "")
        message = answer.get("message")
        return f"{prefix}: adapter answered {got}, expected {wanted}" + (f" ({message})" if message else ""), []
    if want.status == "fatal":
        return None
    observation = answer.get("observation")
    if not isinstance(observation, dict):
        return f"{prefix}: the answer has no observation object", []
    lines = observation_diff(expected, observation)
    if lines:
        return f"{prefix}: observation differs in {len(lines)} place(s)", lines[:MAX_DIFF_LINES]
    return None


# --------------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------------


def choose_profile(vector: Vector, supported: Sequence[str], wanted: str | None) -> str | None:
    """The profile to run ``vector`` under, or None to skip it."""
    if wanted is not None:
        return wanted if wanted in vector.tags.profiles and wanted in supported else None
    if vector.profile in supported:
        return vector.profile
    return next((p for p in vector.tags.profiles if p in supported), None)


class Worker:
    """Runs vectors one after the other over one session, restarting it after each adapter failure."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.session: Session | None = None
        self.hello: JSON = None
        self.next_id = 2

    def _ensure(self) -> JSON:
        if self.session is None:
            self.session = self.target.open()
            self.next_id = 2
            try:
                self.hello = handshake(self.session)
            except AdapterFailure:
                self._drop()
                raise
        return self.hello

    def _drop(self) -> None:
        if self.session is not None:
            self.session.close()
        self.session = None

    def _request(self, message: JSON) -> JSON:
        assert self.session is not None
        message["id"] = self.next_id
        self.next_id += 1
        return check_response(message, self.session.request(message))

    def run(self, vector: Vector) -> VectorResult:
        started = time.perf_counter()
        result = self._run(vector)
        result.seconds = time.perf_counter() - started
        return result

    def _run(self, vector: Vector) -> VectorResult:
        area = vector.tags.area
        try:
            hello = self._ensure()
        except AdapterFailure as failure:
            return VectorResult(vector.id, area, Outcome.ERROR, f"handshake failed: {failure}")
        capabilities = hello["capabilities"]
        if area not in capabilities["areas"]:
            return VectorResult(vector.id, area, Outcome.SKIP, f"adapter does not support area {area!r}")
        profile = choose_profile(vector, capabilities.get("profiles", []), self.target.profile)
        if profile is None:
            return VectorResult(vector.id, area, Outcome.SKIP,
                                f"expectations hold for {', '.join(vector.tags.profiles)}, not a selected profile")
        index, op = None, None
        try:
            reset = {"type": "reset", "vector": vector.id, "area": area, "profile": profile, "ttl_ns": vector.ttl_ns}
            if self._request(reset).get("type") != "ready":
                raise AdapterFailure("expected a ready response to reset")
            expected = vector.initial_observation
            for index, step in enumerate(vector.steps):
                op = step.op
                answer = self._request({"type": "step", "index": index, "op": step.op, "args": step.args})
                if answer.get("type") != "result":
                    raise AdapterFailure(f"expected a result response, got {answer.get('type')!r}")
                if step.expect.observation is not None:
                    expected = merge_patch(expected, step.expect.observation)
                verdict = judge_step(index, step, answer, expected)
                if verdict is not None:
                    return VectorResult(vector.id, area, Outcome.FAIL, verdict[0], index, op, verdict[1], profile)
        except AdapterFailure as failure:
            self._drop()
            where = "reset" if index is None else f"step {index} ({op})"
            return VectorResult(vector.id, area, Outcome.ERROR, f"{where}: {failure}", index, op, [], profile)
        return VectorResult(vector.id, area, Outcome.PASS, profile=profile)

    def close(self) -> None:
        self._drop()


_PROCESS_WORKER: Worker | None = None
"""In a pool process: the worker (and its adapter session) kept across chunks."""


def _run_chunk(args: tuple[Target, list[Vector]]) -> list[VectorResult]:
    global _PROCESS_WORKER
    target, vectors = args
    if _PROCESS_WORKER is None or _PROCESS_WORKER.target != target:
        _PROCESS_WORKER = Worker(target)
    return [_PROCESS_WORKER.run(v) for v in vectors]


def run_vectors(
    target: Target, vectors: Sequence[Vector], workers: int = 1, on_result: Callable[[VectorResult], None] | None = None
) -> list[VectorResult]:
    """Run every vector; ``on_result`` sees each result as soon as it is recorded. Results come back in
    ``vectors`` order. A vector whose worker process died gets an error result, never silence."""
    results: dict[str, VectorResult] = {}

    def record(result: VectorResult) -> None:
        results[result.id] = result
        if on_result is not None:
            on_result(result)

    if workers <= 1:
        worker = Worker(target)
        try:
            for vector in vectors:
                record(worker.run(vector))
        finally:
            worker.close()
    else:
        size = max(1, min(16, len(vectors) // (workers * 4)))
        chunks = [list(vectors[i:i + size]) for i in range(0, len(vectors), size)]
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            try:
                for chunk_results in pool.imap_unordered(_run_chunk, [(target, c) for c in chunks]):
                    for result in chunk_results:
                        record(result)
            except Exception as error:  # a worker process died: keep what was recorded
                for vector in vectors:
                    if vector.id not in results:
                        record(VectorResult(vector.id, vector.tags.area, Outcome.ERROR,
                                            f"not run: a worker process failed ({error})"))
    return [results[v.id] for v in vectors]


# --------------------------------------------------------------------------------------------
# Selection and expected failures
# --------------------------------------------------------------------------------------------


def select(vectors: Sequence[Vector], tags: Sequence[str] = (), shard: tuple[int, int] | None = None) -> list[Vector]:
    """Vectors matching any of ``tags`` (all if none), then shard ``i`` of ``n`` (1-based, by sorted id)."""
    chosen = sorted((v for v in vectors if not tags or any(v.matches_tag(t) for t in tags)), key=lambda v: v.id)
    if shard is not None:
        i, n = shard
        chosen = [v for k, v in enumerate(chosen) if k % n == i - 1]
    return chosen


def parse_shard(text: str) -> tuple[int, int]:
    """``i/n`` with 1 <= i <= n; fails with ``ValueError`` saying what is expected."""
    try:
        i, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard {text!r}: expected i/n, for example 1/4") from None
    if not 1 <= i <= n:
        raise ValueError(f"--shard {text!r}: need 1 <= i <= n")
    return i, n


def read_expected_failures(text: str) -> set[str]:
    """Vector ids, one per line; ``#`` starts a comment."""
    return {line.split("#", 1)[0].strip() for line in text.splitlines()} - {""}


def apply_expected_failures(results: Sequence[VectorResult], expected: set[str]) -> None:
    """Turn listed failures into XFAIL and listed passes into XPASS (a stale list fails the run)."""
    for result in results:
        if result.id not in expected:
            continue
        if result.outcome in (Outcome.FAIL, Outcome.ERROR):
            result.detail = f"expected failure: {result.detail}"
            result.outcome = Outcome.XFAIL
        elif result.outcome is Outcome.PASS:
            result.outcome = Outcome.XPASS
            result.detail = "listed in the expected-failures file but passed: remove it from the list"


EXIT_OK = 0
"""Every selected vector passed, was skipped, or failed as expected."""
EXIT_DIVERGENCE = 1
"""At least one vector failed unexpectedly, or an expected failure passed."""
EXIT_USAGE_OR_ADAPTER = 2
"""Bad arguments or vector files, or at least one adapter error (crash, hang, garbage, protocol)."""


def exit_code(results: Sequence[VectorResult]) -> int:
    outcomes = {r.outcome for r in results}
    if Outcome.ERROR in outcomes:
        return EXIT_USAGE_OR_ADAPTER
    if outcomes & {Outcome.FAIL, Outcome.XPASS}:
        return EXIT_DIVERGENCE
    return EXIT_OK


def iter_failures(results: Sequence[VectorResult]) -> Iterator[VectorResult]:
    yield from (r for r in results if r.outcome in (Outcome.FAIL, Outcome.ERROR, Outcome.XPASS))
