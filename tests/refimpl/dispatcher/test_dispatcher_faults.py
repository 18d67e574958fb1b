"""The threaded dispatcher against the fake API server, under slow calls, failures, conflicts and close.

Every test checks that no caller waits forever (each wait has a timeout, and reaching it is asserted only where
Kubernetes really leaves a caller waiting), that no request is executed twice (the server's log), that no call is
lost silently except in the two documented cases, and that ``close`` leaves no thread behind.

The two documented cases, both known violations of ``liveness_every_caller_told`` (spec.dispatcher.invariants):

- v1.34/v1.35: close tells pending calls nothing, and ``add`` after close keeps a call that never runs;
- from v1.35 (PR #135180): a call waiting behind an in-flight call of its UID is replaced, untold, by a call of
  another type.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

import pytest

from refimpl.dispatcher.api_cacher import APICacher, Binder, WaitTimedOut
from refimpl.dispatcher.api_calls import (
    POD_BINDING,
    POD_STATUS_PATCH,
    APICall,
    Binding,
    CallOverwritten,
    CallSkipped,
    PodBindingCall,
    PodCondition,
    PodStatus,
    PodStatusPatchCall,
)
from refimpl.dispatcher.call_queue import DISPATCHER_CLOSED, DispatcherClosed, ResultChannel
from refimpl.dispatcher.context import ContextCanceled
from refimpl.dispatcher.dispatcher import APIDispatcher
from refimpl.dispatcher.fake_api_server import (
    REASON_CONFLICT,
    REASON_INTERNAL_ERROR,
    VERB_BIND,
    VERB_PATCH_STATUS,
    APIError,
    FakeAPIServer,
    LoggedRequest,
    internal_error,
)
from refimpl.dispatcher.metrics import RESULT_ERROR, RESULT_SUCCESS
from refimpl.dispatcher.sleeper import ManualSleeper, RealSleeper
from spec.objects import Pod
from spec.versions import PR_141745, V1_34, V1_35, V1_36, VersionProfile
from tests.refimpl.dispatcher.call_queue_harness import RecordingChannel

NAMESPACE = "default"
WAIT = 5.0
"""Seconds a caller that must be told waits at most: reaching it is a failure."""
NEVER = 0.2
"""Seconds a caller that Kubernetes never tells waits before the test concludes it would wait forever."""
UNSCHEDULABLE = PodCondition("PodScheduled", "False", "Unschedulable")


@pytest.fixture(autouse=True)
def no_thread_outlives_the_test() -> Iterator[None]:
    before = set(threading.enumerate())
    yield
    leaked = [t.name for t in threading.enumerate() if t not in before]
    assert leaked == [], f"threads left running: {leaked}"


@contextmanager
def running(
    profile: VersionProfile = V1_35, latency: float = 1.0, pods: int = 4
) -> Iterator[tuple[APIDispatcher, FakeAPIServer, ManualSleeper]]:
    """A running dispatcher over a fake server with ``pods`` unbound pods p0, p1, ... and manual-time latency."""
    sleeper = ManualSleeper()
    server = FakeAPIServer(sleeper, latency)
    for i in range(pods):
        server.create_pod(NAMESPACE, f"p{i}", f"uid-p{i}")
    dispatcher = APIDispatcher(server, profile)
    dispatcher.run()
    try:
        yield dispatcher, server, sleeper
    finally:
        assert dispatcher.close(), "close() did not stop every thread"


def binding(i: int, node: str = "n1") -> Binding:
    return Binding(NAMESPACE, f"p{i}", f"uid-p{i}", node)


def pod(i: int, node: str = "") -> Pod:
    return Pod(uid=f"uid-p{i}", name=f"p{i}", namespace=NAMESPACE, node_name=node)


def patch(i: int, condition: PodCondition = UNSCHEDULABLE) -> PodStatusPatchCall:
    return PodStatusPatchCall(f"uid-p{i}", NAMESPACE, f"p{i}", PodStatus(), condition)


def assert_no_request_twice(server: FakeAPIServer) -> None:
    payloads = [(r.request.verb, r.request.name, r.request.node_name, r.request.new_status) for r in server.log()]
    assert len(payloads) == len(set(payloads)), f"a request was executed twice: {payloads}"


# ----------------------------------------------------------------------------------------------
# Slow calls, the v1.34.0 limit
# ----------------------------------------------------------------------------------------------


def test_slow_calls_execute_concurrently_and_complete_when_their_latency_passes() -> None:
    with running(V1_35, latency=1.0) as (dispatcher, server, sleeper):
        cacher = APICacher(dispatcher)
        channels = [cacher.bind_pod(binding(i))[0] for i in range(4)]
        assert sleeper.wait_for_sleepers(4, WAIT), "v1.35 has no cap: all four calls execute at once"
        assert all(r.done is False for r in server.log())
        sleeper.advance(1.0)
        assert [cacher.wait_on_finish(ch, WAIT) for ch in channels] == [None] * 4
        assert [server.get_pod(NAMESPACE, f"p{i}").node_name for i in range(4)] == ["n1"] * 4  # type: ignore[union-attr]
        assert [r.applied for r in server.log()] == [True] * 4
        assert dispatcher.metrics.calls_total() == {(POD_BINDING, RESULT_SUCCESS): 4}
        assert dispatcher.metrics.duration(POD_BINDING, RESULT_SUCCESS).count == 4
        assert_no_request_twice(server)


def test_v1_34_executes_at_most_16_calls_at_once() -> None:
    with running(V1_34, latency=1.0, pods=20) as (dispatcher, server, sleeper):
        cacher = APICacher(dispatcher)
        channels = [cacher.bind_pod(binding(i))[0] for i in range(20)]
        assert sleeper.wait_for_sleepers(16, WAIT)
        assert len(dispatcher.queue.state().fifo) == 4, "the loop waits for a slot before it pops"
        sleeper.advance(1.0)
        assert [cacher.wait_on_finish(ch, WAIT) for ch in channels[:16]] == [None] * 16
        assert sleeper.wait_for_sleepers(4, WAIT)
        sleeper.advance(1.0)
        assert [cacher.wait_on_finish(ch, WAIT) for ch in channels[16:]] == [None] * 4
        assert server.max_in_progress == 16
        assert_no_request_twice(server)


def test_v1_35_has_no_limit() -> None:
    with running(V1_35, latency=1.0, pods=20) as (dispatcher, server, sleeper):
        cacher = APICacher(dispatcher)
        channels = [cacher.bind_pod(binding(i))[0] for i in range(20)]
        assert sleeper.wait_for_sleepers(20, WAIT)
        sleeper.advance(1.0)
        assert [cacher.wait_on_finish(ch, WAIT) for ch in channels] == [None] * 20
        assert server.max_in_progress == 20


# ----------------------------------------------------------------------------------------------
# Failures and conflicts
# ----------------------------------------------------------------------------------------------


def test_a_failing_call_reports_its_error_and_is_not_retried() -> None:
    with running(V1_35, latency=0.0) as (dispatcher, server, _):
        server.fail(internal_error("etcd timeout"), index=1)
        cacher = APICacher(dispatcher)
        outcomes = []
        for i in range(3):  # one at a time, so that the failing request is the second call's
            channel, error = cacher.bind_pod(binding(i))
            assert error is None
            outcomes.append(cacher.wait_on_finish(channel, WAIT))
        assert outcomes[0] is None and outcomes[2] is None
        assert isinstance(outcomes[1], APIError) and outcomes[1].reason == REASON_INTERNAL_ERROR
        assert str(outcomes[1]) == "Internal error occurred: etcd timeout"
        assert server.get_pod(NAMESPACE, "p1").node_name == ""  # type: ignore[union-attr]
        assert [r.request.name for r in server.log()] == ["p0", "p1", "p2"]
        assert dispatcher.metrics.calls_total() == {(POD_BINDING, RESULT_SUCCESS): 2, (POD_BINDING, RESULT_ERROR): 1}
        assert dispatcher.queue.state().calls == {}


def test_failures_by_predicate_hit_only_matching_requests() -> None:
    with running(V1_35, latency=0.0) as (dispatcher, server, _):
        server.fail(internal_error(), when=lambda r: r.verb == VERB_PATCH_STATUS, times=None)
        cacher = APICacher(dispatcher)
        patched, error = cacher.patch_pod_status(pod(0), UNSCHEDULABLE, None)
        assert error is None
        bound, _ = cacher.bind_pod(binding(1))
        failed = cacher.wait_on_finish(patched, WAIT)
        assert isinstance(failed, APIError) and failed.reason == REASON_INTERNAL_ERROR
        assert cacher.wait_on_finish(bound, WAIT) is None
        assert server.get_pod(NAMESPACE, "p0").status.conditions == ()  # type: ignore[union-attr]


class RecordingCache:
    def __init__(self) -> None:
        self.finished: list[Pod] = []

    def finish_binding(self, pod: Pod) -> None:
        self.finished.append(pod)


def test_binding_a_bound_pod_is_a_conflict_and_finish_binding_runs_either_way() -> None:
    with running(V1_35, latency=0.0) as (dispatcher, server, _):
        server.create_pod(NAMESPACE, "bound", "uid-bound", node_name="n9")
        cache = RecordingCache()
        binder = Binder(APICacher(dispatcher), cache, V1_35)
        assumed = Pod(uid="uid-bound", name="bound", namespace=NAMESPACE, node_name="n1")
        error = binder.bind(assumed, "n1", timeout=WAIT)
        assert isinstance(error, APIError) and error.reason == REASON_CONFLICT
        assert str(error) == (
            'Operation cannot be fulfilled on pods/binding "bound": pod bound is already assigned to node "n9"'
        )
        assert binder.bind(pod(0, "n1"), "n1", timeout=WAIT) is None
        assert cache.finished == [assumed, pod(0, "n1")]
        stale = Pod(uid="uid-old", name="p1", namespace=NAMESPACE)
        error = binder.bind(stale, "n1", timeout=WAIT)
        assert isinstance(error, APIError) and "Precondition failed: UID in precondition: uid-old" in str(error)


def test_binder_does_not_call_finish_binding_from_v1_36_on() -> None:
    with running(V1_36, latency=0.0) as (dispatcher, _, _):
        cache = RecordingCache()
        assert Binder(APICacher(dispatcher), cache, V1_36).bind(pod(0), "n1", timeout=WAIT) is None
        assert cache.finished == []


def test_a_status_patch_behind_a_binding_is_skipped_and_counts_as_success() -> None:
    with running(V1_35, latency=1.0) as (dispatcher, server, sleeper):
        cacher = APICacher(dispatcher)
        bound, _ = cacher.bind_pod(binding(0))
        assert sleeper.wait_for_sleepers(1, WAIT)
        patched, error = cacher.patch_pod_status(pod(0), UNSCHEDULABLE, None)
        assert error is None, "a skip is not an error for the caller"
        assert cacher.wait_on_finish(patched, WAIT) is None
        sleeper.advance(1.0)
        assert cacher.wait_on_finish(bound, WAIT) is None
        assert [r.request.verb for r in server.log()] == [VERB_BIND]


# ----------------------------------------------------------------------------------------------
# Close
# ----------------------------------------------------------------------------------------------


def test_close_cancels_calls_in_flight_and_their_callers_are_told() -> None:
    with running(V1_35, latency=10.0) as (dispatcher, server, sleeper):
        cacher = APICacher(dispatcher)
        channels = [cacher.bind_pod(binding(i))[0] for i in range(3)]
        assert sleeper.wait_for_sleepers(3, WAIT)
        assert dispatcher.close()
        outcomes = [cacher.wait_on_finish(ch, WAIT) for ch in channels]
        assert all(isinstance(o, ContextCanceled) and str(o) == "context canceled" for o in outcomes), outcomes
        assert [r.done and not r.applied for r in server.log()] == [True] * 3
        assert dispatcher.metrics.calls_total() == {(POD_BINDING, RESULT_ERROR): 3}


def test_v1_35_close_leaves_pending_callers_waiting_forever() -> None:
    """KNOWN VIOLATION (v1.34-v1.37): a call added after close is kept and never run, and its caller never told.

    A call waiting behind an in-flight call is queued when the cancelled in-flight call finalizes; the loop has
    usually exited by then, leaving its caller untold too. As in Kubernetes, a pop racing with close may instead
    hand it out, and it then runs with the cancelled context."""
    with running(V1_35, latency=10.0) as (dispatcher, server, sleeper):
        cacher = APICacher(dispatcher)
        first, _ = cacher.bind_pod(binding(0, "n1"))
        assert sleeper.wait_for_sleepers(1, WAIT)
        waiting, error = cacher.bind_pod(binding(0, "n2"))
        assert error is None
        assert dispatcher.close()
        late, error = cacher.bind_pod(binding(1))
        assert error is None, "v1.35 keeps a call added after close"
        assert cacher.wait_on_finish(first, WAIT) is None  # told "overwritten" first; the cancellation is dropped
        assert isinstance(cacher.wait_on_finish(late, NEVER), WaitTimedOut)
        raced = cacher.wait_on_finish(waiting, NEVER)
        nodes = [r.request.node_name for r in server.log()]
        if isinstance(raced, WaitTimedOut):
            assert dispatcher.queue.state().fifo == ("uid-p0", "uid-p1"), "queued, not lost, but never run or told"
            assert nodes == ["n1"]
        else:
            assert isinstance(raced, ContextCanceled), raced
            assert dispatcher.queue.state().fifo == ("uid-p1",)
            assert nodes == ["n1", "n2"]


def test_v1_34_close_leaves_calls_waiting_for_a_slot_untold() -> None:
    with running(V1_34, latency=10.0, pods=17) as (dispatcher, server, sleeper):
        cacher = APICacher(dispatcher)
        channels = [cacher.bind_pod(binding(i))[0] for i in range(17)]
        assert sleeper.wait_for_sleepers(16, WAIT)
        assert dispatcher.close()
        assert all(isinstance(cacher.wait_on_finish(ch, WAIT), ContextCanceled) for ch in channels[:16])
        assert isinstance(cacher.wait_on_finish(channels[16], NEVER), WaitTimedOut)
        assert len(server.log()) == 16


def test_pr_141745_close_tells_every_caller() -> None:
    """Every call tracked at close is told "api dispatcher is closed"; a call added later is refused.

    PR #141745's pop still has v1.35's race: if the cancelled in-flight call finalizes (queueing the call waiting
    behind it) before the loop wakes from close, pop hands that call out; it then fails with the cancelled context,
    and its caller, told "closed" already, does not see that."""
    with running(PR_141745, latency=10.0) as (dispatcher, server, sleeper):
        cacher = APICacher(dispatcher)
        first, _ = cacher.bind_pod(binding(0, "n1"))
        alone, _ = cacher.bind_pod(binding(1))
        assert sleeper.wait_for_sleepers(2, WAIT)
        waiting, _ = cacher.bind_pod(binding(0, "n2"))
        assert dispatcher.close()
        late, error = cacher.bind_pod(binding(2))
        assert isinstance(error, DispatcherClosed) and str(error) == DISPATCHER_CLOSED
        assert cacher.wait_on_finish(first, WAIT) is None  # "overwritten" came first
        for channel in (alone, waiting, late):
            outcome = cacher.wait_on_finish(channel, WAIT)
            assert isinstance(outcome, DispatcherClosed), outcome
        log = {(r.request.name, r.request.node_name): r for r in server.log()}
        assert len(log) == len(server.log()), "a request was executed twice"
        raced = log.pop(("p0", "n2"), None)
        assert sorted(log) == [("p0", "n1"), ("p1", "n1")]
        if raced is None:
            assert dispatcher.queue.state().fifo == ("uid-p0",), "the waiting call is queued at finalize, never run"
        else:
            assert isinstance(raced.error, ContextCanceled) and dispatcher.queue.state().fifo == ()


def test_from_v1_35_a_call_waiting_behind_an_in_flight_one_is_replaced_untold() -> None:
    """KNOWN VIOLATION (from v1.35, PR #135180): with a status patch executing, a second patch merges and waits
    behind it; a binding then replaces the waiting patch without telling it (``merge`` returns early for an
    in-flight UID)."""
    outcomes = {}
    for profile in (V1_34, V1_35, PR_141745):
        with running(profile, latency=1.0) as (dispatcher, server, sleeper):
            first, second = ResultChannel(), ResultChannel()
            assert dispatcher.add(patch(0), first) is None
            assert sleeper.wait_for_sleepers(1, WAIT)
            assert dispatcher.add(patch(0, PodCondition("PodScheduled", "False", "SchedulerError")), second) is None
            bound = ResultChannel()
            assert dispatcher.add(PodBindingCall(binding(0)), bound) is None
            sleeper.advance(1.0)
            assert isinstance(first.receive(WAIT), CallOverwritten)
            assert sleeper.wait_for_sleepers(1, WAIT)
            sleeper.advance(1.0)
            assert bound.receive(WAIT) is None
            try:
                outcomes[profile.name] = second.receive(NEVER)
            except TimeoutError as never:
                outcomes[profile.name] = never
            assert [r.request.verb for r in server.log()] == [VERB_PATCH_STATUS, VERB_BIND]
    assert isinstance(outcomes["v1.34"], CallOverwritten), "v1.34 tells the replaced call at once"
    assert isinstance(outcomes["v1.35"], TimeoutError), "v1.35 never tells it"
    assert isinstance(outcomes["pr141745"], TimeoutError), "nor does PR #141745"


# ----------------------------------------------------------------------------------------------
# Random faults, many threads
# ----------------------------------------------------------------------------------------------


def call_key(call: APICall) -> tuple[str, str]:
    """What identifies a call's request in the server's log: the binding's node, the patch condition's message."""
    if isinstance(call, PodBindingCall):
        return VERB_BIND, call.binding.node_name
    assert isinstance(call, PodStatusPatchCall) and call.condition is not None
    return VERB_PATCH_STATUS, call.condition.message


def request_key(entry: LoggedRequest) -> tuple[str, str]:
    request = entry.request
    if request.verb == VERB_BIND:
        return VERB_BIND, request.node_name
    assert request.new_status is not None and request.old_status is not None
    added = set(request.new_status.conditions) - set(request.old_status.conditions)
    assert len(added) == 1, request
    return VERB_PATCH_STATUS, added.pop().message


STRESS_PROFILES = [V1_35, replace(V1_34, dispatcher_max_in_flight=4), PR_141745]


@pytest.mark.parametrize("profile", STRESS_PROFILES, ids=lambda p: f"{p.name}-limit{p.dispatcher_max_in_flight}")
def test_under_random_faults_every_caller_is_told_and_nothing_runs_twice(profile: VersionProfile) -> None:
    """Four threads add 600 bindings and status patches for 100 pods while requests are slow or fail at random.

    Under PR #141745 each pod gets calls of one type only: with both, its known violation would leave callers
    untold (see the test above)."""
    rng = random.Random(20250921)
    faults = {i for i in range(4000) if rng.random() < 0.15}
    latencies = [rng.choice((0.0, 0.0, 0.0005, 0.002)) for _ in range(4000)]
    server = FakeAPIServer(RealSleeper(), latency=lambda r: latencies[r.index % len(latencies)])
    server.fail(lambda r: internal_error(f"fault {r.index}"), when=lambda r: r.index in faults, times=None)
    pods = 100
    for i in range(pods):
        server.create_pod(NAMESPACE, f"p{i}", f"uid-p{i}")
    dispatcher = APIDispatcher(server, profile)
    dispatcher.run()
    callers: list[tuple[RecordingChannel, APICall]] = []
    lock = threading.Lock()

    def adder(worker: int) -> None:
        local = random.Random(worker)
        for n in range(150):
            number = worker * 1000 + n
            target = local.randrange(pods)
            binds = local.random() < 0.4 if not profile.dispatcher_waits_behind_in_flight else target % 2 == 0
            call: APICall
            if binds:
                call = PodBindingCall(binding(target, f"node-{number}"))
            else:
                call = patch(target, PodCondition("PodScheduled", "False", "Unschedulable", f"call {number}"))
            channel = RecordingChannel()
            with lock:
                callers.append((channel, call))
            dispatcher.add(call, channel)
            if n % 10 == 9:
                time.sleep(0.001)  # let the dispatcher catch up now and then, so that many calls execute

    adders = [threading.Thread(target=adder, args=(w,)) for w in range(4)]
    for thread in adders:
        thread.start()
    for thread in adders:
        thread.join()
    for channel, _ in callers:  # every caller is told, without close
        channel.receive(WAIT)
    while dispatcher.running_workers() or len(dispatcher.queue):  # the last results, after an early "overwritten"
        threading.Event().wait(0.01)
    assert dispatcher.close()

    offered = {call_key(call): channel.offered for channel, call in callers}
    assert len(offered) == len(callers) == 600
    log = server.log()
    executed = [request_key(entry) for entry in log]
    assert len(executed) == len(set(executed)), "a call was executed twice"
    for entry, key in zip(log, executed, strict=True):
        assert entry.done
        assert offered[key][-1] is entry.error, f"{key}: the caller's last value is not its request's outcome"
    for key, values in offered.items():
        if key not in set(executed):
            assert all(isinstance(v, CallSkipped | CallOverwritten) for v in values), (key, values)
    assert sum(dispatcher.metrics.calls_total().values()) == len(log), "every execution makes one request"
    assert set(dispatcher.metrics.calls_total()) <= {
        (t, r) for t in (POD_BINDING, POD_STATUS_PATCH) for r in (RESULT_SUCCESS, RESULT_ERROR)
    }
    assert any(isinstance(v, APIError) for values in offered.values() for v in values), "no fault was injected"
