"""Running vectors against an implementation and judging its answers.

For each vector the runner resets the implementation (profile, TTL), sends each step, and compares the answer
with the expectation: the status, the error kind (messages are information only) and the full observation
(rebuilt from the vector's merge patches). The first divergence ends the vector. An adapter failure (crash,
hang, garbage, out-of-order answer, protocol mismatch) is an ``error`` for that vector only: the session is
restarted and the run goes on, and every result already recorded is kept.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Final

from conformance import protocol
from conformance.adapters.refimpl_adapter import load_adapter
from conformance.format import Vector
from conformance.observe import merge_patch
from conformance.sessions import (
    DEFAULT_STARTUP_TIMEOUT,
    EXIT_GRACE,
    AdapterFailure,
    GroupTracker,
    InProcessSession,
    Session,
    StaleAnswer,
    SubprocessSession,
    check_response,
    handshake,
)
from conformance.worker_pool import run_pool

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
    NOT_RUN = "not_run"
    """The run was interrupted (Ctrl-C, SIGTERM) before this vector had a result."""


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


DEFAULT_TIMEOUT = 10.0
"""Seconds an adapter may take to answer a request (``--timeout``)."""
DEFAULT_HANDSHAKE_FAILURES = 3
"""After this many handshakes in a row fail, the adapter's remaining vectors are errors at once."""


@dataclass(frozen=True)
class Target:
    """What to run against: an in-process adapter (``impl``, see ``load_adapter``) or a command (``adapter``)."""

    impl: str | None = "refimpl"
    adapter: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    profile: str | None = None
    """Run only vectors that hold for this profile, under it; None runs each vector under a profile it holds for."""
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    """Seconds the hello request may take (the adapter's process is starting)."""
    handshake_failures: int = DEFAULT_HANDSHAKE_FAILURES
    """The handshake failure policy: after this many consecutive handshake failures the adapter's remaining
    vectors are reported as errors without starting it again."""

    def open(self, groups: GroupTracker | None = None) -> Session:
        if self.adapter is not None:
            return SubprocessSession(self.adapter, self.timeout, self.startup_timeout, groups=groups)
        assert self.impl is not None
        return InProcessSession(load_adapter(self.impl)())

    def vector_budget(self, vector: Vector) -> float:
        """The most wall time one vector may take in a worker process (``-j 2`` and more): a handshake and every
        request at their timeouts, plus closing a failed session; an in-process implementation is held to it too."""
        requests = len(vector.steps) + 2  # the reset, each step, and one more to read an answer given twice
        return self.startup_timeout + requests * self.timeout + 2 * EXIT_GRACE


# --------------------------------------------------------------------------------------------
# Comparing observations
# --------------------------------------------------------------------------------------------


def _short(value: JSON) -> str:
    import json

    text = json.dumps(value, separators=(",", ":"))
    return text if len(text) <= 100 else text[:97] + "..."


ABSENT_MEANS: Final[Mapping[str, JSON]] = MappingProxyType({
    "nominated": {},
    "scheduler": {"running": True, "orphaned": {}},
    "kubelet": {"admitted": [], "failed": {}},
    "failures": {},
})
"""Top-level observation keys the spec leaves out while they hold their default (conformance/observe.py: the
nominator while no pod is nominated, the scheduler while it runs with no orphaned request, the kubelets while they
handled nothing, the failure handler's writes while it wrote none). An observation that has one of them where the
vector's has not is compared with this default, so an implementation that nominates, stops, admits or writes a
failure where the spec does not is caught rather than ignored."""


def observation_diff(expected: JSON, actual: JSON, path: str = "") -> list[str]:
    """Where ``actual`` differs from ``expected``, one readable line per leaf (keys the vector does not expect
    are ignored, except the :data:`ABSENT_MEANS` keys, which are compared with their default)."""
    if expected == actual:  # the common case, compared in C; the walk below would find nothing either
        return []
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
        if not path:  # an observation's own key left out by the spec: it must hold its default
            for key in extra:
                if key in ABSENT_MEANS:
                    lines += observation_diff(ABSENT_MEANS[key], actual[key], key)
        return lines
    if expected != actual:
        return [f"{path}: expected {_short(expected)}, got {_short(actual)}"]
    return []


def without_choice(observation: JSON) -> JSON:
    """``observation`` without its decision's ``chosen``, which :func:`judge_choice` judges instead of comparing."""
    decision = observation.get("decision")
    if not isinstance(decision, dict) or "chosen" not in decision:
        return observation
    return {**observation, "decision": {k: v for k, v in decision.items() if k != "chosen"}}


def judge_choice(expected: JSON, observation: JSON) -> list[str]:
    """The node the implementation chose in a scheduling cycle must be one of the nodes the spec allows (any node
    with the highest total score); when none is allowed it must be "" or absent. [] when the step's expected
    observation has no decision, or when the answer lacks one (the diff reports that)."""
    want, got = expected.get("decision"), observation.get("decision")
    if not isinstance(want, dict) or not isinstance(got, dict):
        return []
    allowed, chosen = want.get("allowed", []), got.get("chosen")
    if allowed and chosen is None:
        return [f"decision.chosen: missing, expected one of {_short(allowed)}"]
    if allowed and chosen not in allowed:
        return [f"decision.chosen: expected one of {_short(allowed)}, got {_short(chosen)}"]
    if not allowed and chosen not in (None, ""):
        return [f"decision.chosen: expected none (no node may be chosen), got {_short(chosen)}"]
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
    lines = judge_choice(expected, observation) + observation_diff(expected, without_choice(observation))
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


@dataclass
class _Ran:
    """The last vector a session ran: its result and the ids of its requests, so that an answer the adapter
    gives twice can be blamed on the vector it belongs to."""

    vector: Vector
    result: VectorResult
    first_id: int
    """The id of its reset request; step ``i`` is ``first_id + 1 + i``."""
    last_id: int


class Worker:
    """Runs vectors one after the other over one session, restarting it after each adapter failure.

    The handshake failure policy: after ``target.handshake_failures`` handshakes in a row fail, every further
    vector is an error at once, without starting the adapter again. Blame: an adapter that answers a request twice
    is found out when the extra answer arrives; the vector that request belongs to becomes an error (its result
    amended, if it had already ended), and a vector that merely received the extra answer keeps its verdict.
    """

    def __init__(self, target: Target, groups: GroupTracker | None = None) -> None:
        self.target = target
        self.groups = groups
        self.session: Session | None = None
        self.hello: JSON = None
        self.next_id = 2
        self.failed_handshakes = 0
        self.last_handshake_failure = ""
        self.previous: _Ran | None = None
        self.amendments: list[VectorResult] = []

    def _ensure(self) -> JSON:
        if self.session is None:
            try:
                self.session = self.target.open(self.groups)
                self.next_id = 2
                self.hello = handshake(self.session)
            except AdapterFailure as failure:
                self._drop()
                self.failed_handshakes += 1
                self.last_handshake_failure = str(failure)
                raise
            self.failed_handshakes = 0
        return self.hello

    def _drop(self) -> None:
        if self.session is not None:
            self.session.close()
        self.session = None
        self.previous = None

    def _request(self, message: JSON) -> JSON:
        assert self.session is not None
        message["id"] = self.next_id
        self.next_id += 1
        response = self.session.request(message)
        try:
            return check_response(message, response)
        except StaleAnswer as stale:
            # An earlier id: an extra answer to that request if this one's own answer follows, else a wrong id.
            receive = getattr(self.session, "receive", None)
            try:
                again = receive(message) if receive is not None else None
            except AdapterFailure:
                again = None
            if again is None or again.get("id") != message["id"]:
                raise AdapterFailure(str(stale)) from None
            amended = self._blame_previous(stale.request_id)
            if amended is None:
                raise
            self.amendments.append(amended)
            return check_response(message, again)

    def run(self, vector: Vector) -> list[VectorResult]:
        """The vector's result, last; before it, the amended result of an earlier vector found to have been
        answered twice."""
        started = time.perf_counter()
        try:
            result = self._run(vector)
        except Exception as error:  # a reply (or a runner bug) the checks above missed: this vector's error only
            self.abort()
            self.previous = None
            result = VectorResult(vector.id, vector.tags.area, Outcome.ERROR,
                                  f"the runner could not judge the adapter's answer ({type(error).__name__}: "
                                  f"{str(error)[:300]})")
        result.seconds = time.perf_counter() - started
        amendments, self.amendments = self.amendments, []
        return [*amendments, result]

    def _run(self, vector: Vector) -> VectorResult:
        area = vector.tags.area
        if self.session is None and self.failed_handshakes >= self.target.handshake_failures:
            return VectorResult(vector.id, area, Outcome.ERROR,
                                f"not run: the adapter failed its handshake {self.failed_handshakes} times in a row "
                                f"(last: {self.last_handshake_failure})")
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
        first_id = self.next_id
        result: VectorResult | None = None
        try:
            result = self._steps(vector, profile)
            self._check_unsolicited()
        except StaleAnswer as stale:  # a request answered twice: this vector's, or (late) the previous one's
            amended = self._blame_previous(stale.request_id)
            self._drop()  # the extra line is still buffered: start afresh
            if amended is not None and result is not None:  # found after this vector ended: it keeps its verdict
                self.amendments.append(amended)
                return result
            index = stale.request_id - first_id - 1 if stale.request_id > first_id else None
            op = vector.steps[index].op if index is not None and index < len(vector.steps) else None
            where = "reset" if index is None else f"step {index} ({op})"
            detail = f"{where}: the adapter answered request {stale.request_id} twice"
            return VectorResult(vector.id, area, Outcome.ERROR, detail, index, op, [], profile)
        except _StepFailure as failure:
            self._drop()
            return VectorResult(vector.id, area, Outcome.ERROR, f"{failure.where}: {failure.cause}", failure.index,
                                failure.op, [], profile)
        assert result is not None
        self.previous = _Ran(vector, result, first_id, self.next_id - 1)
        return result

    def _steps(self, vector: Vector, profile: str) -> VectorResult:
        """Reset the implementation and send the vector's steps up to the first divergence."""
        area = vector.tags.area
        index, op = None, None
        try:
            reset = {"type": "reset", "vector": vector.id, "area": area, "profile": profile, "ttl_ns": vector.ttl_ns,
                     **({"preemption": True} if vector.preemption else {})}
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
        except StaleAnswer:
            raise
        except AdapterFailure as failure:
            raise _StepFailure("reset" if index is None else f"step {index} ({op})", index, op, failure) from None
        return VectorResult(vector.id, area, Outcome.PASS, profile=profile)

    def _check_unsolicited(self) -> None:
        """Fail if the adapter has already written a line nobody asked for (an answer given twice, for one)."""
        unsolicited = getattr(self.session, "unsolicited", None)
        lines: list[bytes] = unsolicited() if unsolicited is not None else []
        if not lines:
            return
        text = lines[0].decode("utf-8", "replace")
        try:
            rid = protocol.decode(text).get("id")
        except protocol.ProtocolError:
            rid = None
        if isinstance(rid, int) and not isinstance(rid, bool) and 1 <= rid < self.next_id:
            raise StaleAnswer(f"an extra response for id {rid} arrived after the answer", rid)
        shown = text if len(text) <= 80 else text[:77] + "..."
        raise _StepFailure("after its last answer", None, None,
                           AdapterFailure(f"adapter printed a line nobody asked for: {shown!r}"))

    def _blame_previous(self, request_id: int) -> VectorResult | None:
        """The previous vector's result turned into an error, if ``request_id`` was one of its requests."""
        ran = self.previous
        if ran is None or not ran.first_id <= request_id <= ran.last_id:
            return None
        index = request_id - ran.first_id - 1
        op = ran.vector.steps[index].op if index >= 0 else None
        where = "reset" if index < 0 else f"step {index} ({op})"
        was = ran.result
        detail = (f"{where}: the adapter answered request {request_id} twice; the second answer arrived after the "
                  f"vector ended (its verdict had been {was.outcome.value})")
        return VectorResult(was.id, was.area, Outcome.ERROR, detail, None if index < 0 else index, op, [],
                            was.profile, was.seconds)

    def close(self) -> list[VectorResult]:
        """End the session; the amended result of the last vector if the adapter had answered it twice."""
        amended = []
        if self.session is not None and self.previous is not None:
            try:
                self._check_unsolicited()
            except StaleAnswer as stale:
                blamed = self._blame_previous(stale.request_id)
                amended = [blamed] if blamed is not None else []
            except _StepFailure:
                pass
        self._drop()
        return amended

    def abort(self) -> None:
        """Kill the adapter at once (an interruption): no goodbye."""
        kill = getattr(self.session, "kill", None)
        if kill is not None:
            kill()
        self.session = None


class _StepFailure(Exception):
    """An adapter failure at a known place of the vector: ``where`` says it, ``index`` and ``op`` name the step
    (None: not at a step)."""

    def __init__(self, where: str, index: int | None, op: str | None, cause: AdapterFailure) -> None:
        super().__init__(str(cause))
        self.where, self.index, self.op, self.cause = where, index, op, cause


class RunInterrupted(KeyboardInterrupt):
    """The run was interrupted (Ctrl-C, or SIGTERM turned into one): ``results`` holds every vector's result so
    far, in the order given, with :attr:`Outcome.NOT_RUN` for the vectors that had none yet."""

    def __init__(self, results: list[VectorResult]) -> None:
        super().__init__("the conformance run was interrupted")
        self.results = results


def run_vectors(
    target: Target, vectors: Sequence[Vector], workers: int = 1, on_result: Callable[[VectorResult], None] | None = None
) -> list[VectorResult]:
    """Run every vector; ``on_result`` sees each result as soon as it is recorded. Results come back in
    ``vectors`` order. A vector whose worker process died or hung gets an error result, never silence; no adapter
    or worker process outlives the call. On ``KeyboardInterrupt`` raises :class:`RunInterrupted` with the results
    so far (every process already killed)."""
    results: dict[str, VectorResult] = {}

    def record(result: VectorResult) -> None:
        new = result.id not in results
        results[result.id] = result  # a later result for the same vector amends it (an answer given twice)
        if new and on_result is not None:
            on_result(result)

    def lost(vector: Vector, why: str) -> VectorResult:
        return VectorResult(vector.id, vector.tags.area, Outcome.ERROR, f"not finished: {why}")

    try:
        if workers <= 1:
            worker = Worker(target)
            try:
                for vector in vectors:
                    for result in worker.run(vector):
                        record(result)
            except BaseException:
                worker.abort()
                raise
            for result in worker.close():
                record(result)
        else:
            run_pool(vectors, workers, lambda groups: Worker(target, groups), target.vector_budget, record, lost)
    except KeyboardInterrupt:
        raise RunInterrupted([results.get(v.id) or not_run([v])[0] for v in vectors]) from None
    return [results[v.id] for v in vectors]


def not_run(vectors: Sequence[Vector]) -> list[VectorResult]:
    """A :attr:`Outcome.NOT_RUN` result for each vector (the run was interrupted before it had one)."""
    return [VectorResult(v.id, v.tags.area, Outcome.NOT_RUN, "not run: the run was interrupted before this vector "
                         "had a result") for v in vectors]


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
EXIT_INTERRUPTED = 128 + 2
"""The run was interrupted by SIGINT (Ctrl-C), as a shell reports it; SIGTERM gives 128 + 15."""


def exit_code(results: Sequence[VectorResult]) -> int:
    """The run's exit code from its results (a run with :attr:`Outcome.NOT_RUN` results was interrupted)."""
    outcomes = {r.outcome for r in results}
    if Outcome.NOT_RUN in outcomes:
        return EXIT_INTERRUPTED
    if Outcome.ERROR in outcomes:
        return EXIT_USAGE_OR_ADAPTER
    if outcomes & {Outcome.FAIL, Outcome.XPASS}:
        return EXIT_DIVERGENCE
    return EXIT_OK


def executed(results: Sequence[VectorResult]) -> int:
    """How many vectors the implementation actually ran (passed, failed or errored; not skipped, not run)."""
    return sum(r.outcome not in (Outcome.SKIP, Outcome.NOT_RUN) for r in results)


def nothing_executed(results: Sequence[VectorResult]) -> str | None:
    """Why a run with results executed none of its vectors, in one line (every one skipped: the adapter declares
    no area or profile they need); None if at least one ran or none was selected. Such a run proves nothing, so
    ``ksspec conform`` fails it unless told otherwise."""
    if not results or executed(results) or any(r.outcome is Outcome.NOT_RUN for r in results):
        return None
    reasons = sorted({r.detail for r in results if r.outcome is Outcome.SKIP})
    shown = "; ".join(reasons[:3]) + (f"; and {len(reasons) - 3} more reasons" if len(reasons) > 3 else "")
    return f"no vector ran: all {len(results)} selected were skipped ({shown})"


def iter_failures(results: Sequence[VectorResult]) -> Iterator[VectorResult]:
    yield from (r for r in results if r.outcome in (Outcome.FAIL, Outcome.ERROR, Outcome.XPASS))
