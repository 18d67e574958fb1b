"""The background cleanup worker: expiry on a fake clock, metrics, start and stop, and no leaked threads.

Every test drives time with :class:`~refimpl.cache.FakeClock`; nothing reads the wall clock. The worker runs its
cycle at once on start and then each time the fake clock has moved a full period past the end of the last cycle,
like ``wait.Until``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from refimpl.cache import Cache, CacheSize, CleanupWorker, FakeClock, GenerationCounter, SystemClock
from refimpl.cache.cleanup import THREAD_NAME
from spec.errors import CacheError, ErrorKind, FatalKind, SchedulerExit
from spec.objects import Pod
from spec.quantities import SECOND
from spec.versions import V1_35, V1_36, V1_37, VersionProfile

TTL = 10 * SECOND


def cleanup_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == THREAD_NAME]


@pytest.fixture(autouse=True)
def no_leaked_threads() -> Iterator[None]:
    """Every test must end with exactly the threads it started with."""
    before = set(threading.enumerate())
    yield
    leaked = [t for t in threading.enumerate() if t not in before]
    assert leaked == [], f"threads left running: {leaked}"
    assert cleanup_threads() == []


def pod(uid: str, node: str = "node") -> Pod:
    return Pod(uid=uid, name=f"pod-{uid}", node_name=node)


def new_cache(clock: FakeClock, ttl: int = TTL, profile: VersionProfile = V1_35) -> Cache:
    return Cache(profile=profile, ttl=ttl, clock=clock, generations=GenerationCounter())


def test_worker_expires_a_binding_finished_pod_only_strictly_after_its_deadline() -> None:
    clock = FakeClock()
    cache = new_cache(clock)
    cache.assume_pod(pod("a"))
    cache.finish_binding(pod("a"))  # at 0 from the clock: deadline 10 s
    cache.assume_pod(pod("b"))  # binding still in flight: never expires
    worker = cache.start_cleanup(period=1.0)
    try:
        assert worker.wait_for_ticks(1)  # wait.Until runs the cycle at once
        clock.advance(TTL)
        assert worker.wait_for_ticks(2)  # the cycle at exactly the deadline keeps the pod
        assert cache.is_assumed_pod(pod("a"))
        clock.advance(1)
        assert not worker.wait_for_ticks(3, timeout=0.05), "the next cycle is a full period after the last"
        clock.advance(SECOND)
        assert worker.wait_for_ticks(3)
        assert not cache.is_assumed_pod(pod("a"))
        assert cache.is_assumed_pod(pod("b"))
        assert cache.cache_size == CacheSize(assumed_pods=1, pods=1, nodes=1)
    finally:
        cache.stop()
    assert not worker.running
    assert worker.error is None


def test_worker_publishes_metrics_every_cycle() -> None:
    clock = FakeClock()
    cache = new_cache(clock)
    assert cache.cache_size == CacheSize()
    with cache:
        worker = cache.start_cleanup()
        assert worker.wait_for_ticks(1)
        assert cache.cache_size == CacheSize(0, 0, 0)
        cache.add_pod(pod("a", "n1"))
        cache.assume_pod(pod("b", "n2"))
        clock.advance(SECOND)
        assert worker.wait_for_ticks(2)
        assert cache.cache_size == CacheSize(assumed_pods=1, pods=2, nodes=2)
        assert cache.metrics.labelled() == {"assumed_pods": 1, "pods": 2, "nodes": 2}
    assert not worker.running


@pytest.mark.parametrize("profile", [V1_36, V1_37], ids=lambda p: p.name)
def test_without_expiry_the_worker_only_publishes_metrics(profile: VersionProfile) -> None:
    clock = FakeClock()
    cache = new_cache(clock, ttl=0, profile=profile)
    cache.assume_pod(pod("a"))
    with cache:
        worker = cache.start_cleanup()
        assert worker.wait_for_ticks(1)
        assert cache.cache_size == CacheSize(assumed_pods=1, pods=1, nodes=1)
    assert worker.error is None


def test_a_ttl_of_zero_never_expires() -> None:
    clock = FakeClock()
    cache = new_cache(clock, ttl=0)
    cache.assume_pod(pod("a"))
    cache.finish_binding(pod("a"))
    with cache:
        worker = cache.start_cleanup()
        for tick in range(2, 6):
            clock.advance(1000 * SECOND)
            assert worker.wait_for_ticks(tick)
    assert cache.is_assumed_pod(pod("a"))


def test_stop_joins_the_thread_and_leaves_none_behind() -> None:
    clock = FakeClock()
    cache = new_cache(clock)
    worker = cache.start_cleanup()
    assert worker.wait_for_ticks(1)
    assert len(cleanup_threads()) == 1
    assert clock.waiters == 1  # blocked until the fake clock moves a period on
    cache.stop()
    assert cleanup_threads() == []
    assert clock.waiters == 0
    cache.stop()  # stopping twice is harmless


def test_start_twice_is_refused_and_a_stopped_cache_can_start_again() -> None:
    clock = FakeClock()
    cache = new_cache(clock)
    cache.start_cleanup()
    with pytest.raises(RuntimeError, match="already running"):
        cache.start_cleanup()
    cache.stop()
    worker = cache.start_cleanup()
    assert worker.wait_for_ticks(1)
    cache.stop()


def test_a_worker_cannot_be_started_twice() -> None:
    worker = CleanupWorker(lambda: None, FakeClock())
    worker.start()
    try:
        with pytest.raises(RuntimeError, match="already started"):
            worker.start()
    finally:
        worker.stop()


def test_a_failing_cycle_stops_the_worker_and_is_kept() -> None:
    def fatal() -> None:
        raise SchedulerExit(FatalKind.ASSUMED_POD_WITHOUT_STATE, "key x found in assumed set but not in podStates")

    worker = CleanupWorker(fatal, FakeClock())
    worker.start()
    assert not worker.wait_for_ticks(1)
    worker.stop()
    assert isinstance(worker.error, SchedulerExit)
    assert worker.error.kind is FatalKind.ASSUMED_POD_WITHOUT_STATE


def test_period_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        CleanupWorker(lambda: None, FakeClock(), period=0)


def test_the_fake_clock_only_moves_forward() -> None:
    clock = FakeClock(5)
    with pytest.raises(ValueError, match="forward"):
        clock.set(4)
    with pytest.raises(ValueError, match="forward"):
        clock.advance(-1)
    clock.set(7)
    assert clock.now() == 7


def test_system_clock_wait_returns_when_stopped() -> None:
    stop = threading.Event()
    stop.set()
    assert SystemClock().wait(stop, 60.0) is True


def test_cleanup_is_unsupported_without_expiry() -> None:
    cache = Cache(profile=V1_37, clock=FakeClock())
    with pytest.raises(CacheError) as raised:
        cache.cleanup_assumed_pods(0)
    assert raised.value.kind is ErrorKind.UNSUPPORTED_OPERATION
    with pytest.raises(ValueError, match="ttl must be 0"):
        Cache(profile=V1_37, ttl=SECOND)
    with pytest.raises(ValueError, match="negative"):
        Cache(ttl=-1)
