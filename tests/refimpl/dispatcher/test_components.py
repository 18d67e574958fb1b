"""The dispatcher's small parts: channels, context, limiter, metrics, calls, the API cacher, the fake server."""

from __future__ import annotations

import threading

import pytest

from refimpl.dispatcher.api_cacher import APICacher, WaitTimedOut
from refimpl.dispatcher.api_calls import (
    Binding,
    CallOverwritten,
    CallSkipped,
    MergeError,
    NominatingInfo,
    NominatingMode,
    PodBindingCall,
    PodCondition,
    PodStatus,
    PodStatusPatchCall,
    is_unexpected_error,
)
from refimpl.dispatcher.call_queue import SKIPPED_LESS_RELEVANT, CallQueue, DispatcherClosed, MergeFailed, ResultChannel
from refimpl.dispatcher.context import Context, ContextCanceled
from refimpl.dispatcher.dispatcher import APIDispatcher, GoroutinesLimiter
from refimpl.dispatcher.fake_api_server import (
    REASON_CONFLICT,
    REASON_NOT_FOUND,
    APIError,
    FakeAPIServer,
    internal_error,
)
from refimpl.dispatcher.metrics import DURATION_BUCKETS, DispatcherMetrics
from refimpl.dispatcher.sleeper import ManualSleeper
from spec.objects import Pod

UNSCHEDULABLE = PodCondition("PodScheduled", "False", "Unschedulable")
ERROR = PodCondition("PodScheduled", "False", "SchedulerError")


def test_a_result_channel_keeps_one_value_and_drops_the_rest() -> None:
    channel = ResultChannel()
    assert channel.offer(None)
    assert not channel.offer(CallSkipped("x"))
    assert channel.receive(0) is None
    with pytest.raises(TimeoutError):
        channel.receive(0.01)
    with pytest.raises(ValueError, match="at least 1"):
        ResultChannel(0)


def test_unexpected_errors_are_all_but_skips_and_overwrites() -> None:
    assert not is_unexpected_error(None)
    assert not is_unexpected_error(CallSkipped("call skipped"))
    assert not is_unexpected_error(CallOverwritten("call overwritten"))
    assert is_unexpected_error(DispatcherClosed())
    assert is_unexpected_error(MergeFailed("failed to merge API calls: x"))
    assert is_unexpected_error(ContextCanceled())


def test_context_runs_after_cancel_functions_once_and_stop_unregisters() -> None:
    ctx = Context()
    ran: list[str] = []
    ctx.after_cancel(lambda: ran.append("a"))
    stop_b = ctx.after_cancel(lambda: ran.append("b"))
    assert stop_b() is True
    assert not ctx.wait(0)
    ctx.cancel()
    ctx.cancel()
    assert ran == ["a"] and ctx.cancelled and ctx.wait(0)
    ctx.after_cancel(lambda: ran.append("late"))
    assert ran == ["a", "late"]


def test_limiter_blocks_at_its_limit_and_refuses_once_closed() -> None:
    limiter = GoroutinesLimiter(2)
    assert limiter.acquire() and limiter.try_acquire()
    assert not limiter.try_acquire()
    result: list[bool] = []
    waiter = threading.Thread(target=lambda: result.append(limiter.acquire()))
    waiter.start()
    limiter.release()
    waiter.join(5)
    assert result == [True]
    blocked = threading.Thread(target=lambda: result.append(limiter.acquire()))
    blocked.start()
    limiter.close()
    blocked.join(5)
    assert result == [True, False]
    with pytest.raises(ValueError, match="at least 1"):
        GoroutinesLimiter(0)


def test_metrics_histogram_uses_kubernetes_buckets() -> None:
    metrics = DispatcherMetrics()
    metrics.call_executed("pod_binding", "success", 0.0005)
    metrics.call_executed("pod_binding", "success", 0.003)
    metrics.call_executed("pod_binding", "success", 100.0)
    histogram = metrics.duration("pod_binding", "success")
    assert DURATION_BUCKETS[0] == 0.001 and DURATION_BUCKETS[-1] == 0.001 * 2**14
    assert histogram.count == 3 and histogram.sum == pytest.approx(100.0035)
    assert histogram.bucket_counts[0] == 1 and histogram.bucket_counts[2] == 2 and histogram.bucket_counts[-1] == 3
    assert metrics.duration("pod_binding", "error").count == 0


def test_status_patch_merge_keeps_old_intent_the_new_call_lacks() -> None:
    override = NominatingInfo(NominatingMode.OVERRIDE, "n2")
    old = PodStatusPatchCall("u", "ns", "p", PodStatus(), UNSCHEDULABLE, override)
    new = PodStatusPatchCall("u", "ns", "p", PodStatus(), None, NominatingInfo(NominatingMode.NOOP))
    new.merge(old)
    assert new.condition == UNSCHEDULABLE and new.nominating_info == override
    with pytest.raises(MergeError, match=r"call of type PodBindingCall is not of type \*PodStatusPatchCall"):
        new.merge(PodBindingCall(Binding("ns", "p", "u", "n1")))


def test_status_patch_sync_refreshes_its_base_until_it_executes() -> None:
    call = PodStatusPatchCall("u", "ns", "p", PodStatus(), UNSCHEDULABLE)
    already = PodStatus((UNSCHEDULABLE,))
    assert call.sync(already) == already and call.is_no_op()
    call = PodStatusPatchCall("u", "ns", "p", PodStatus(), ERROR)
    assert call.sync(already).conditions == (ERROR,), "the condition of the same type is replaced in place"
    server = FakeAPIServer()
    server.create_pod("ns", "p", "u")
    call.execute(Context(), server)
    assert call.executed and server.get_pod("ns", "p").status == PodStatus((ERROR,))  # type: ignore[union-attr]
    call.sync(PodStatus())
    assert call.status == already, "an executing call keeps its base status"
    PodStatusPatchCall("u", "ns", "p", PodStatus((ERROR,)), ERROR).execute(Context(), server)
    assert len(server.log()) == 1, "a patch that changes nothing makes no request"


def test_cacher_returns_only_unexpected_errors_and_wait_counts_skips_as_success() -> None:
    queue_owner = APIDispatcher(FakeAPIServer())  # never run: calls stay queued
    cacher = APICacher(queue_owner)
    bound, error = cacher.bind_pod(Binding("ns", "p", "u", "n1"))
    assert error is None
    pod = Pod(uid="u", name="p", namespace="ns")
    patched, error = cacher.patch_pod_status(pod, UNSCHEDULABLE, None)
    assert error is None
    assert cacher.wait_on_finish(patched, 0) is None  # skipped: a binding is more relevant
    timed_out = cacher.wait_on_finish(bound, 0.01)
    assert isinstance(timed_out, WaitTimedOut) and "context deadline exceeded" in str(timed_out)
    assert queue_owner.close()
    assert queue_owner.add(PodBindingCall(Binding("ns", "p", "u", "n2")), ResultChannel()) is None
    assert isinstance(bound.receive(0), CallOverwritten), "v1.35 still merges calls added after close"


def test_call_queue_refuses_a_less_relevant_call_with_the_spec_message() -> None:
    queue = CallQueue()
    assert queue.add(PodBindingCall(Binding("ns", "p", "u", "n1"))) is None
    refused = queue.add(PodStatusPatchCall("u", "ns", "p", PodStatus(), UNSCHEDULABLE))
    assert isinstance(refused, CallSkipped) and str(refused) == SKIPPED_LESS_RELEVANT
    assert len(queue) == 1


def test_fake_server_applies_bindings_and_patches_and_logs_every_request() -> None:
    server = FakeAPIServer()
    server.create_pod("ns", "p", "u")
    ctx = Context()
    server.bind(Binding("ns", "p", "u", "n1"), ctx)
    with pytest.raises(APIError) as conflict:
        server.bind(Binding("ns", "p", "u", "n2"), ctx)
    assert conflict.value.reason == REASON_CONFLICT
    with pytest.raises(APIError) as missing:
        server.bind(Binding("ns", "q", "v", "n1"), ctx)
    assert missing.value.reason == REASON_NOT_FOUND and str(missing.value) == 'pods "q" not found'
    server.patch_pod_status("ns", "p", PodStatus(), PodStatus((UNSCHEDULABLE,), "n3"), ctx)
    server.patch_pod_status("ns", "p", PodStatus((UNSCHEDULABLE,)), PodStatus((ERROR,)), ctx)
    stored = server.get_pod("ns", "p")
    assert stored is not None and stored.node_name == "n1"
    assert stored.status == PodStatus((ERROR,), "n3")
    assert [r.applied for r in server.log()] == [True, False, False, True, True]


def test_fake_server_faults_by_index_and_by_predicate_with_a_budget() -> None:
    server = FakeAPIServer()
    for name in ("a", "b", "c", "d"):
        server.create_pod("ns", name, name)
    server.fail(internal_error("first"), index=0)
    server.fail(lambda r: internal_error(f"on {r.name}"), when=lambda r: r.name in {"c", "d"}, times=1)
    outcomes = []
    for name in ("a", "b", "c", "d"):
        try:
            server.bind(Binding("ns", name, name, "n1"), Context())
            outcomes.append("ok")
        except APIError as error:
            outcomes.append(str(error))
    assert outcomes == ["Internal error occurred: first", "ok", "Internal error occurred: on c", "ok"]
    with pytest.raises(ValueError, match="exactly one of"):
        server.fail(internal_error())


def test_a_cancelled_request_is_logged_and_not_applied() -> None:
    sleeper = ManualSleeper()
    server = FakeAPIServer(sleeper, latency=5.0)
    server.create_pod("ns", "p", "u")
    ctx = Context()
    errors: list[Exception] = []

    def bind() -> None:
        try:
            server.bind(Binding("ns", "p", "u", "n1"), ctx)
        except Exception as error:
            errors.append(error)

    thread = threading.Thread(target=bind)
    thread.start()
    assert sleeper.wait_for_sleepers(1, 5)
    ctx.cancel()
    thread.join(5)
    assert [str(e) for e in errors] == ["context canceled"]
    assert server.get_pod("ns", "p").node_name == ""  # type: ignore[union-attr]
    assert [(r.done, r.applied) for r in server.log()] == [(True, False)]
    with pytest.raises(ContextCanceled):
        server.bind(Binding("ns", "p", "u", "n1"), ctx)  # already cancelled: fails at once


def test_manual_sleeper_advances_deterministically() -> None:
    sleeper = ManualSleeper()
    ctx = Context()
    woke: list[float] = []

    def sleep(seconds: float) -> None:
        assert sleeper.sleep(seconds, ctx)
        woke.append(seconds)

    threads = [threading.Thread(target=sleep, args=(s,)) for s in (1.0, 2.0)]
    for thread in threads:
        thread.start()
    assert sleeper.wait_for_sleepers(2, 5)
    sleeper.advance(1.0)
    assert woke == [1.0] and sleeper.sleepers == 1
    sleeper.advance(1.0)
    assert woke == [1.0, 2.0] and sleeper.sleepers == 0
    for thread in threads:
        thread.join(5)
    with pytest.raises(ValueError, match="forward"):
        sleeper.advance(-1)
