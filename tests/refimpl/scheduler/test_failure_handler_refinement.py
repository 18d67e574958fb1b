"""refimpl's failure handler (``Scheduler.handle_scheduling_failure``) refines the spec's
(:func:`spec.cycle.failure.handle_scheduling_failure`): for every combination of a rejection or an error, a nominating
info (none, a node, a clear), the pod as the informer has it (unchanged, updated, gone, bound, recreated under another
UID), a pod that already names a nominated node, and a message short or over the event note's limit, refimpl requeues
exactly the version the spec requeues, leaves the same nominator, patches the same PodScheduled condition and
nominated node (or none), and emits the same FailedScheduling note (or none)."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from refimpl.cache import Cache, FakeClock
from refimpl.dispatcher import Binding, Context, NominatingInfo, NominatingMode, PodStatus
from refimpl.scheduler.framework.status import Code, Status
from refimpl.scheduler.plugins import new_default_framework
from refimpl.scheduler.queue import SchedulingQueue
from refimpl.scheduler.queued_pod_info import QueuedPodInfo
from refimpl.scheduler.schedule_one import Scheduler
from spec.cycle.failure import handle_scheduling_failure
from spec.dispatcher.api_calls import NominatingInfo as SpecNominatingInfo
from spec.dispatcher.api_calls import NominatingMode as SpecNominatingMode
from spec.frozenmap import FrozenMap
from spec.objects import Pod, with_node_name
from spec.queue.nominator import EMPTY_NOMINATOR


class RecordingClient:
    """An API client that records status patches."""

    def __init__(self) -> None:
        self.patches: list[tuple[PodStatus, PodStatus]] = []

    def bind(self, binding: Binding, ctx: Context) -> None:
        raise AssertionError("no bind in this test")

    def patch_pod_status(self, namespace: str, name: str, old: PodStatus, new: PodStatus, ctx: Context) -> None:
        self.patches.append((old, new))


@given(
    rejected=st.booleans(),
    node=st.sampled_from([None, "", "n1", "n2"]),
    listed=st.sampled_from(["same", "updated", "gone", "bound", "recreated"]),
    already=st.sampled_from(["", "n1"]),
    long=st.booleans(),
)
def test_refimpl_failure_handling_is_the_specs(rejected: bool, node: str | None, listed: str, already: str,
                                               long: bool) -> None:
    pod = Pod("p", "p", priority=5, nominated_node_name=already)
    current = {"same": pod, "updated": Pod("p", "p", priority=5, nominated_node_name=already,
                                            labels=FrozenMap({"v": "2"})),
               "gone": None, "bound": with_node_name(pod, "n9"),
               "recreated": Pod("p-new", "p", priority=5)}[listed]
    clock = FakeClock()
    queue = SchedulingQueue(clock)
    client = RecordingClient()
    events: list[tuple[str, str, str]] = []
    sched = Scheduler(Cache(clock=clock), queue, new_default_framework(), client=client, clock=clock,
                      pod_lister=lambda namespace, name: current, rng=random.Random(0),
                      event_recorder=lambda p, kind, reason, note: events.append((kind, reason, note)))
    text = ("0/2 nodes are available: " + "\u00e9" * 600) if long else "0/2 nodes are available"
    status = Status(Code.UNSCHEDULABLE, text) if rejected else Status(Code.ERROR, text, error=RuntimeError(text))
    nominating = None if node is None else NominatingInfo(NominatingMode.OVERRIDE, node)
    sched.handle_scheduling_failure(sched.frameworks[pod.scheduler_name], QueuedPodInfo(pod, 0), status, nominating, 0)

    spec_info = None if node is None else SpecNominatingInfo(SpecNominatingMode.OVERRIDE, node)
    expected = handle_scheduling_failure(pod, rejected, status.message(), spec_info, current, EMPTY_NOMINATOR,
                                         False)
    held = queue.get("p")
    assert (held.pod if held is not None else None) == expected.requeued
    assert queue.nominator.pod_to_node == dict(expected.nominator.pod_to_node.items())
    assert {n: [r.uid for r in refs] for n, refs in queue.nominator.nominated_pods.items()} == \
        {n: list(u) for n, u in expected.nominator.nominated_pods.items()}
    if expected.condition is None:
        assert client.patches == [] and events == []
        return
    assert events == [("Warning", "FailedScheduling", expected.event_message)]
    (old, new), = client.patches
    (condition,) = new.conditions
    assert (condition.type, condition.status, condition.reason, condition.message) == (
        expected.condition.type, expected.condition.status, expected.condition.reason, expected.condition.message)
    patched = new.nominated_node_name if new.nominated_node_name != old.nominated_node_name else None
    assert patched == expected.nominated_node_patch
