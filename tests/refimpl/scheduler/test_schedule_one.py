"""``ScheduleOne`` scenarios: a fit, no fit, Reserve/Permit rejections, bind failures, a pod deleted while bound.

Each scenario drives the scheduler single-threaded: ``schedule_one``, then the binding cycle stepped and the
dispatcher pumped by hand (:class:`~refimpl.scheduler.manual_dispatch.ManualDispatcher`). Expectations follow
schedule_one.go (digest §C): what the cache, the queue and the API server hold afterwards.
"""

from __future__ import annotations

import random
import threading
from dataclasses import replace

import pytest

from refimpl.cache import Cache, FakeClock, Resource
from refimpl.dispatcher import APIDispatcher, FakeAPIServer
from refimpl.dispatcher.fake_api_server import VERB_BIND, VERB_PATCH_STATUS, internal_error, not_found
from refimpl.scheduler.binding_cycle import BindingCycle
from refimpl.scheduler.event_handlers import EventHandlers
from refimpl.scheduler.events import node_scheduling_properties_change
from refimpl.scheduler.framework.status import Code
from refimpl.scheduler.manual_dispatch import ManualDispatcher
from refimpl.scheduler.plugins import new_default_framework
from refimpl.scheduler.plugins.fault_injection import FaultInjector, FaultPoint
from refimpl.scheduler.queue import QueueName, SchedulingQueue
from refimpl.scheduler.schedule_one import Outcome, ScheduleOneResult, Scheduler
from spec.frozenmap import FrozenMap
from spec.objects import Container, Node, Pod
from spec.quantities import SECOND, resource_list
from spec.versions import V1_34, V1_35, V1_36, VersionProfile


def make_node(name: str, cpu: int = 1000) -> Node:
    return Node(name, allocatable=resource_list(cpu=cpu, memory=2**30, pods=10))


def make_pod(uid: str, cpu: int = 300) -> Pod:
    return Pod(uid, name=f"pod-{uid}", containers=(Container("c", requests=resource_list(cpu=cpu)),))


class Harness:
    """A scheduler over a fake API server, an informer view (a dict) and a hand-pumped dispatcher."""

    def __init__(self, profile: VersionProfile = V1_35, *, dispatcher: bool = True, **scheduler_args: object) -> None:
        self.clock = FakeClock()
        self.cache = Cache(profile=profile, clock=self.clock)
        self.server = FakeAPIServer()
        self.api = APIDispatcher(self.server, profile) if dispatcher else None
        self.pump = ManualDispatcher(self.api, self.server) if self.api is not None else None
        self.injector = FaultInjector()
        self.framework = new_default_framework(profile=profile, extra_plugins=(self.injector,))
        hints = {"default-scheduler": self.framework.queueing_hint_map()}
        self.queue = SchedulingQueue(self.clock, queueing_hints=hints)
        self.informer: dict[tuple[str, str], Pod] = {}
        self.scheduler = Scheduler(
            self.cache, self.queue, self.framework, client=self.server, dispatcher=self.api,
            pod_lister=lambda ns, name: self.informer.get((ns, name)), profile=profile, clock=self.clock,
            rng=random.Random(0), **scheduler_args,  # type: ignore[arg-type]
        )
        self.handlers = EventHandlers(self.cache, self.queue, profile=profile,
                                      reject_waiting_pod=self.scheduler.reject_waiting_pod)

    def add_nodes(self, *nodes: Node) -> None:
        for node in nodes:
            self.cache.add_node(node)

    def create(self, *pods: Pod) -> None:
        for pod in pods:
            self.server.create_pod(pod.namespace, pod.name, pod.uid)
            self.informer[(pod.namespace, pod.name)] = pod
            self.queue.add(pod)

    def schedule(self) -> ScheduleOneResult:
        result = self.scheduler.schedule_one()
        assert result is not None, "the queue had no pod"
        return result

    def settle(self, cycle: BindingCycle) -> None:
        """Step the cycle and pump the dispatcher until the cycle ends."""
        for _ in range(100):
            cycle.step()
            if cycle.done:
                return
            if self.pump is not None:
                self.pump.run_all()
        raise AssertionError(f"{cycle} did not end")

    def bound_node(self, pod: Pod) -> str | None:
        stored = self.server.get_pod(pod.namespace, pod.name)
        return stored.node_name if stored is not None else None


def node_accounting(cache: Cache) -> dict[str, tuple[list[str], Resource]]:
    """Each NodeInfo's pods and requested resources."""
    return {name: ([p.pod.uid for p in info.pods], info.requested.clone())
            for name, info in cache.internals().node_infos.items()}


def test_a_pod_that_fits_is_assumed_then_bound_through_the_dispatcher() -> None:
    h = Harness()
    h.add_nodes(make_node("n1"), make_node("n2"))
    pod = make_pod("u1")
    h.create(pod)
    result = h.schedule()
    assert result.outcome is Outcome.BINDING and result.node in ("n1", "n2")
    assert result.result is not None and result.result.feasible_nodes == 2 and result.result.evaluated_nodes == 2
    assert h.cache.is_assumed_pod(pod)
    cycle = result.binding_cycle
    assert cycle is not None and h.scheduler.binding_cycles == {"u1": cycle}
    assert h.bound_node(pod) == ""  # the cycle has not run yet
    cycle.step()
    assert cycle.waiting_on == "bind-result"  # (None once done)
    assert h.pump is not None and h.pump.run_all() == 1
    assert h.scheduler.step_binding_cycles() == 1
    assert cycle.done and cycle.status is not None and cycle.status.is_success()
    assert h.bound_node(pod) == result.node
    assert h.scheduler.binding_cycles == {}
    assert h.cache.internals().pod_states["u1"].binding_finished  # FinishBinding ran (v1.35 has it)
    assert h.queue.where("u1") is None


def test_no_node_fits_leaves_the_cache_alone_and_parks_the_pod() -> None:
    h = Harness()
    h.add_nodes(make_node("n1", cpu=100), make_node("n2", cpu=200))
    pod = make_pod("u1", cpu=500)
    h.create(pod)
    before = node_accounting(h.cache)
    result = h.schedule()
    assert result.outcome is Outcome.UNSCHEDULABLE
    assert result.status is not None and result.status.code is Code.UNSCHEDULABLE
    # The request exceeds both nodes' allocatable, so the filter's status is UnschedulableAndUnresolvable, but the
    # cycle's status is Unschedulable: a FitError without PostFilter plugins (schedulingCycle).
    assert result.status.message() == "0/2 nodes are available: 2 Insufficient cpu."
    assert node_accounting(h.cache) == before and not h.cache.internals().pod_states
    assert h.queue.where("u1") is QueueName.UNSCHEDULABLE
    pinfo = h.queue.get("u1")
    assert pinfo is not None and pinfo.unschedulable_plugins == {"NodeResourcesFit"}
    # The PodScheduled=False patch went to the dispatcher without waiting.
    assert h.pump is not None and h.pump.run_all() == 1
    stored = h.server.get_pod("default", "pod-u1")
    assert stored is not None
    condition = stored.status.condition("PodScheduled")
    assert condition is not None and condition.status == "False" and condition.reason == "Unschedulable"


def test_no_nodes_at_all_is_unresolvable() -> None:
    h = Harness()
    h.create(make_pod("u1"))
    result = h.schedule()
    assert result.status is not None and result.status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert result.status.message() == "no nodes available to schedule pods"
    assert h.queue.where("u1") is not None


@pytest.mark.parametrize("point", [FaultPoint.RESERVE, FaultPoint.PERMIT])
def test_reserve_or_permit_rejection_forgets_the_pod_and_requeues_it(point: FaultPoint) -> None:
    h = Harness()
    h.add_nodes(make_node("n1"))
    pod = make_pod("u1")
    h.create(pod)
    h.injector.fail_next(point, "u1", message="no room at the inn")
    result = h.schedule()
    assert result.outcome is Outcome.UNSCHEDULABLE and result.binding_cycle is None
    assert result.status is not None and result.status.message() == "0/1 nodes are available: 1 no room at the inn."
    assert h.injector.unreserved == [("u1", "n1")]
    assert "u1" not in h.cache.internals().pod_states
    assert h.queue.where("u1") is QueueName.UNSCHEDULABLE
    pinfo = h.queue.get("u1")
    assert pinfo is not None and pinfo.unschedulable_plugins == {"FaultInjector"}


def test_reserve_error_goes_to_backoff_not_unschedulable() -> None:
    h = Harness()
    h.add_nodes(make_node("n1"))
    h.create(make_pod("u1"))
    h.injector.fail_next(FaultPoint.RESERVE, code=Code.ERROR, message="boom")
    result = h.schedule()
    assert result.outcome is Outcome.ERROR
    assert result.status is not None and result.status.message() == "running Reserve plugin \"FaultInjector\": boom"
    assert h.queue.where("u1") is QueueName.BACKOFF


@pytest.mark.parametrize("failure", ["api", "plugin"])
def test_bind_failure_forgets_the_pod_and_requeues_it_with_backoff(failure: str) -> None:
    h = Harness()
    h.add_nodes(make_node("n1"))
    pod = make_pod("u1")
    h.create(pod)
    if failure == "api":
        h.server.fail(internal_error(), when=lambda request: request.verb == VERB_BIND)
    else:
        h.injector.fail_next(FaultPoint.BIND, code=Code.ERROR)
    result = h.schedule()
    assert result.binding_cycle is not None
    h.settle(result.binding_cycle)
    status = result.binding_cycle.status
    assert status is not None and status.code is Code.ERROR
    assert "u1" not in h.cache.internals().pod_states
    assert h.bound_node(pod) == ""
    # An error, not a rejection: the pod carries no rejector plugin and waits out its backoff (1 s for one error).
    assert h.queue.where("u1") is QueueName.BACKOFF
    pinfo = h.queue.get("u1")
    assert pinfo is not None and pinfo.consecutive_errors_count == 1
    h.clock.advance(2 * SECOND)
    h.queue.flush_backoff_q_completed()
    assert h.queue.where("u1") is QueueName.ACTIVE


def test_pre_bind_rejection_after_done_is_an_unschedulable_failure() -> None:
    h = Harness()
    h.add_nodes(make_node("n1"))
    h.create(make_pod("u1"))
    h.injector.fail_next(FaultPoint.PRE_BIND, "u1")
    result = h.schedule()
    assert result.binding_cycle is not None
    h.settle(result.binding_cycle)
    assert result.binding_cycle.status is not None and result.binding_cycle.status.code is Code.UNSCHEDULABLE
    assert h.injector.unreserved == [("u1", "n1")]
    assert "u1" not in h.cache.internals().pod_states
    assert h.queue.where("u1") is not None
    assert not [r for r in h.server.log() if r.request.verb == VERB_BIND]  # never reached Bind


@pytest.mark.parametrize("profile", [V1_35, V1_34])
def test_pod_deleted_while_its_binding_is_in_flight(profile: VersionProfile) -> None:
    h = Harness(profile)
    h.add_nodes(make_node("n1"))
    pod = make_pod("u1")
    h.create(pod)
    result = h.schedule()
    cycle = result.binding_cycle
    assert cycle is not None and h.pump is not None
    cycle.step()
    call = h.pump.start_next()  # the binding is in flight
    assert call is not None and call.call.call_type == "pod_binding"
    # The user deletes the pod: the API server loses it, the informer delivers the delete.
    h.server.fail(not_found(pod.name), when=lambda request: request.verb == VERB_BIND)
    del h.informer[(pod.namespace, pod.name)]
    h.handlers.on_delete_pod(pod)
    if profile.forget_assumed_pod_on_delete:
        assert "u1" not in h.cache.internals().pod_states  # handleAssumedPodDeletion freed the node at once
    else:
        assert h.cache.is_assumed_pod(pod)
    h.pump.complete(call)
    h.settle(cycle)
    assert cycle.status is not None and cycle.status.code is Code.ERROR
    assert "u1" not in h.cache.internals().pod_states
    assert h.queue.where("u1") is None  # gone from the informer: not requeued
    assert "u1" not in {p.uid for p in h.queue.in_flight_pods()}


def test_permit_wait_then_allow_binds() -> None:
    h = Harness()
    h.add_nodes(make_node("n1"))
    pod = make_pod("u1")
    h.create(pod)
    h.injector.wait_next("u1", timeout=10 * SECOND)
    result = h.schedule()
    cycle = result.binding_cycle
    assert result.outcome is Outcome.BINDING and cycle is not None
    cycle.step()
    assert cycle.waiting_on == "permit" and not cycle.step()
    waiting = h.framework.get_waiting_pod("u1")
    assert waiting is not None
    waiting.allow("FaultInjector")
    h.settle(cycle)
    assert cycle.status is not None and cycle.status.is_success()
    assert h.bound_node(pod) == "n1"
    # v1.35 (NominatedNodeNameForExpectation): the Permit wait made the cycle patch NominatedNodeName first; the
    # binding then overwrote that pending patch (relevance 2 > 1), so only the bind reached the server.
    assert [r.request.verb for r in h.server.log()] == [VERB_BIND]


def test_permit_wait_times_out_on_the_scheduler_clock() -> None:
    h = Harness()
    h.add_nodes(make_node("n1"))
    h.create(make_pod("u1"))
    h.injector.wait_next("u1", timeout=5 * SECOND)
    result = h.schedule()
    cycle = result.binding_cycle
    assert cycle is not None
    cycle.step()
    h.clock.advance(4 * SECOND)
    assert not cycle.step()
    h.clock.advance(SECOND)
    h.settle(cycle)
    assert cycle.status is not None and cycle.status.code is Code.UNSCHEDULABLE
    assert "rejected due to timeout after waiting 5s at plugin FaultInjector" in cycle.status.message()
    assert "u1" not in h.cache.internals().pod_states
    assert h.queue.where("u1") is QueueName.UNSCHEDULABLE


def test_deleting_a_pod_waiting_at_permit_rejects_it() -> None:
    h = Harness()
    h.add_nodes(make_node("n1"))
    pod = make_pod("u1")
    h.create(pod)
    h.injector.wait_next("u1")
    result = h.schedule()
    cycle = result.binding_cycle
    assert cycle is not None
    cycle.step()
    del h.informer[(pod.namespace, pod.name)]
    h.handlers.on_delete_pod(pod)
    h.settle(cycle)
    assert cycle.status is not None and cycle.status.message().endswith("removed.")
    assert "u1" not in h.cache.internals().pod_states and h.queue.where("u1") is None


def test_single_feasible_node_is_chosen_without_scoring() -> None:
    h = Harness()
    h.add_nodes(make_node("n1", cpu=100), make_node("n2"))
    h.create(make_pod("u1"))
    result = h.schedule()
    assert result.node == "n2"
    assert result.result is not None and (result.result.feasible_nodes, result.result.evaluated_nodes) == (1, 2)


def test_next_start_node_index_moves_round_robin() -> None:
    # 120 nodes: numFeasibleNodesToFind = max(100, 120 * 50 // 100) = 100, so a cycle stops after 100 feasible
    # nodes and the next one starts where it stopped (findNodesThatFitPod).
    h = Harness(opportunistic_batching=False)
    h.add_nodes(*(make_node(f"n{i:03}") for i in range(120)))
    h.create(make_pod("u1"), make_pod("u2"))
    first = h.schedule()
    assert first.result is not None and first.result.feasible_nodes == 100
    assert h.scheduler.next_start_node_index == 100
    h.schedule()
    assert h.scheduler.next_start_node_index == 80


def test_without_a_dispatcher_the_binder_calls_the_server_synchronously() -> None:
    h = Harness(dispatcher=False)
    h.add_nodes(make_node("n1"))
    pod = make_pod("u1")
    h.create(pod)
    result = h.schedule()
    assert result.binding_cycle is not None
    h.settle(result.binding_cycle)
    assert h.bound_node(pod) == "n1"


def test_v136_has_no_finish_binding() -> None:
    h = Harness(V1_36)
    h.add_nodes(make_node("n1"))
    h.create(make_pod("u1"))
    result = h.schedule()
    assert result.binding_cycle is not None
    h.settle(result.binding_cycle)
    assert result.binding_cycle.status is not None and result.binding_cycle.status.is_success()
    assert not h.cache.internals().pod_states["u1"].binding_finished


def test_an_assumed_pod_popped_again_is_skipped() -> None:
    h = Harness()
    h.add_nodes(make_node("n1"))
    pod = make_pod("u1")
    h.create(pod)
    cycle = h.schedule().binding_cycle
    assert cycle is not None
    cycle.step()  # the binding cycle called queue.done and waits for the bind
    h.queue.add(pod)  # e.g. an update re-queued it while it is assumed
    assert h.schedule().outcome is Outcome.SKIPPED


def test_a_deleting_pod_popped_is_skipped_with_an_event_and_not_put_back() -> None:
    """TestSchedulerScheduleOne 'deleting pod' (schedule_one_test.go): skipPodSchedule records FailedScheduling
    'skip schedule deleting pod: ns/name'; nothing is assumed or bound, and Done leaves the pod in no queue, while
    its nomination stays in the nominator until the pod is deleted."""
    events: list[tuple[str, str, str]] = []
    h = Harness(event_recorder=lambda p, kind, reason, note: events.append((kind, reason, note)))
    h.add_nodes(make_node("n1"))
    pod = replace(make_pod("foo"), terminating=True, nominated_node_name="n1")
    h.create(pod)
    result = h.schedule()
    assert result.outcome is Outcome.SKIPPED and result.binding_cycle is None
    assert events == [("Warning", "FailedScheduling", "skip schedule deleting pod: default/pod-foo")]
    assert h.queue.where("foo") is None and h.cache.pod_count() == 0
    assert h.queue.nominator.pod_to_node == {"foo": "n1"}
    h.handlers.on_delete_pod(pod)
    assert h.queue.nominator.pod_to_node == {}


def test_threaded_mode_binds_every_pod() -> None:
    h = Harness(dispatcher=True)
    assert h.api is not None
    h.add_nodes(make_node("n1", cpu=4000), make_node("n2", cpu=4000))
    pods = [make_pod(f"u{i}") for i in range(6)]
    h.create(*pods)
    h.api.run()
    stop = threading.Event()
    loop = threading.Thread(target=h.scheduler.run, args=(stop,), daemon=True)
    loop.start()
    try:
        for _ in range(200):
            if all(h.bound_node(p) for p in pods):
                break
            stop.wait(0.02)
    finally:
        stop.set()
        loop.join(5)
        assert h.scheduler.wait_for_binding_cycles(5)
        h.api.close()
    assert all(h.bound_node(p) in ("n1", "n2") for p in pods)
    assert not [r for r in h.server.log() if r.request.verb == VERB_PATCH_STATUS]


def chosen_nodes(profile: VersionProfile, seeds: range) -> set[str]:
    """The node an empty four-node cluster gives one pod, over schedulers seeded differently."""
    chosen: set[str] = set()
    for seed in seeds:
        h = Harness(profile)
        h.scheduler.rng.seed(seed)
        h.add_nodes(*(make_node(f"n{i}") for i in range(4)))
        h.create(make_pod("u1"))
        result = h.schedule()
        assert result.node is not None
        chosen.add(result.node)
    return chosen


def test_ties_break_by_heap_order_in_v135_and_at_random_in_v134() -> None:
    # Four identical empty nodes score the same. v1.35 pops the top of the score heap whatever the random
    # source; v1.34 samples the reservoir with it, so different seeds pick different nodes.
    assert len(chosen_nodes(V1_35, range(12))) == 1
    assert len(chosen_nodes(V1_34, range(12))) > 1


def test_a_pod_rejected_by_a_plugin_without_registered_events_moves_on_any_node_event() -> None:
    # FaultInjector implements no EventsToRegister: Kubernetes registers it for every event
    # (defaultEnqueueExtension), so a node event requeues the pod it rejected; NodeResourcesFit's rejection
    # is not moved by a node label change, only by the events it registered.
    h = Harness()
    h.add_nodes(make_node("n1"))
    h.create(make_pod("u1"), make_pod("big", cpu=5000))
    h.injector.fail_next(FaultPoint.RESERVE, "u1")
    h.schedule()
    h.schedule()
    assert h.queue.where("u1") is QueueName.UNSCHEDULABLE and h.queue.where("big") is QueueName.UNSCHEDULABLE
    old = make_node("n1")
    new = replace(old, labels=FrozenMap({"disk": "ssd"}))
    h.cache.update_node(old, new)
    for event in node_scheduling_properties_change(new, old):
        h.queue.move_all_to_active_or_backoff_queue(event, old, new)
    assert h.queue.where("u1") in (QueueName.ACTIVE, QueueName.BACKOFF)
    assert h.queue.where("big") is QueueName.UNSCHEDULABLE


def test_without_an_informer_view_a_rejected_pod_is_requeued_unassumed() -> None:
    clock = FakeClock()
    cache = Cache(clock=clock)
    cache.add_node(make_node("n1"))
    queue = SchedulingQueue(clock)
    injector = FaultInjector()
    injector.fail_next(FaultPoint.PERMIT)
    sched = Scheduler(cache, queue, new_default_framework(extra_plugins=(injector,)), client=FakeAPIServer(),
                      clock=clock)
    queue.add(make_pod("u1"))
    result = sched.schedule_one()
    assert result is not None and result.outcome is Outcome.UNSCHEDULABLE
    pinfo = queue.get("u1")
    assert pinfo is not None and pinfo.pod.node_name == "" and queue.where("u1") is QueueName.UNSCHEDULABLE


def test_events_and_the_synchronous_status_patch_without_a_dispatcher() -> None:
    events: list[tuple[str, str, str, str]] = []
    h = Harness(dispatcher=False, event_recorder=lambda pod, kind, reason, message: events.append(
        (pod.uid, kind, reason, message)))
    h.add_nodes(make_node("n1"))
    h.create(make_pod("u1"), make_pod("big", cpu=5000))
    fits = h.schedule()
    assert fits.binding_cycle is not None
    h.settle(fits.binding_cycle)
    h.schedule()
    assert events == [
        ("u1", "Normal", "Scheduled", "Successfully assigned default/pod-u1 to n1"),
        ("big", "Warning", "FailedScheduling", "0/1 nodes are available: 1 Insufficient cpu."),
    ]
    stored = h.server.get_pod("default", "pod-big")
    assert stored is not None
    condition = stored.status.condition("PodScheduled")
    assert condition is not None and (condition.status, condition.reason) == ("False", "Unschedulable")
    assert condition.message == "0/1 nodes are available: 1 Insufficient cpu."
