"""The scheduling queue under threads: producers add pods, schedulers pop with ``pop_blocking`` and either finish
or fail them, while another thread sends cluster events and flushes. No pod is ever held by two schedulers at once,
and at the end every pod is either finished or in exactly one sub-queue."""

from __future__ import annotations

import random
import threading

from refimpl.cache.clock import FakeClock
from refimpl.scheduler.backoff import SECOND
from refimpl.scheduler.events import EVENT_NODE_ADD
from refimpl.scheduler.queue import QueueName, SchedulingQueue
from spec.objects import Pod

PRODUCERS, PODS_EACH, SCHEDULERS = 3, 150, 3


def test_concurrent_producers_schedulers_and_events() -> None:
    clock = FakeClock(1_000 * SECOND)
    queue = SchedulingQueue(clock)
    held: set[str] = set()
    finished: set[str] = set()
    guard = threading.Lock()
    errors: list[str] = []
    failures = [0]
    stop = threading.Event()

    def produce(n: int) -> None:
        for i in range(PODS_EACH):
            queue.add(Pod(uid=f"{n}-{i}", name=f"{n}-{i}", priority=i % 3))

    def schedule(seed: int) -> None:
        rng = random.Random(seed)
        while not stop.is_set():
            pinfo = queue.pop_blocking(timeout=0.01)
            if pinfo is None:
                continue
            with guard:
                if pinfo.uid in held or pinfo.uid in finished:
                    errors.append(f"{pinfo.uid} popped twice")
                held.add(pinfo.uid)
            if rng.random() < 0.5:
                with guard:
                    held.discard(pinfo.uid)
                    finished.add(pinfo.uid)
                queue.done(pinfo.uid)
            else:
                pinfo.unschedulable_plugins.add("NodeResourcesFit")
                with guard:
                    held.discard(pinfo.uid)
                    failures[0] += 1
                queue.add_unschedulable_if_not_present(pinfo, queue.scheduling_cycle())

    def churn() -> None:
        while not stop.is_set():
            queue.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD)
            clock.advance(SECOND)
            queue.flush_backoff_q_completed()
            queue.flush_unschedulable_pods_leftover()
            stop.wait(0.002)

    producers = [threading.Thread(target=produce, args=(n,)) for n in range(PRODUCERS)]
    workers = [threading.Thread(target=schedule, args=(s,)) for s in range(SCHEDULERS)]
    churner = threading.Thread(target=churn)
    for thread in [*producers, *workers, churner]:
        thread.start()
    for thread in producers:
        thread.join(30)
    for _ in range(2000):  # until every pod finished (the churn keeps requeueing the failed ones)
        with guard:
            if len(finished) == PRODUCERS * PODS_EACH:
                break
        stop.wait(0.005)
    stop.set()
    for thread in [*workers, churner]:
        thread.join(30)
    queue.close()

    assert errors == []
    assert failures[0] > 0 and finished, "the run exercised neither failures nor successes"
    everyone = {f"{n}-{i}" for n in range(PRODUCERS) for i in range(PODS_EACH)}
    queued = [p.uid for p in queue.pending_pods()[0]]
    assert len(queued) == len(set(queued))
    assert finished | set(queued) == everyone and not finished & set(queued)
    assert queue.in_flight_pods() == [] and queue.in_flight_event_count() == 0
    assert all(queue.where(uid) is not QueueName.IN_FLIGHT for uid in everyone)
