"""The simulator's parts on their own: informer ordering, the world's API answers and faults, the stepped dispatcher."""

from __future__ import annotations

import random

import pytest

from refimpl.dispatcher import APIDispatcher, APIError, Binding, PodBindingCall, ResultChannel
from refimpl.dispatcher.context import Context
from refimpl.simulator.dispatch import SteppedDispatcher
from refimpl.simulator.informer import EventType, Informer, Kind
from refimpl.simulator.world import INJECTED_BIND_FAILURE, Faults, World
from spec.objects import Node, Pod


class Recorder:
    """Event handlers that record what they were called with."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def on_add_pod(self, pod: Pod) -> None:
        self.calls.append(("add_pod", pod.uid + "@" + pod.node_name))

    def on_update_pod(self, old: Pod, new: Pod) -> None:
        self.calls.append(("update_pod", new.uid + "@" + new.node_name))

    def on_delete_pod(self, pod: Pod) -> None:
        self.calls.append(("delete_pod", pod.uid))

    def on_add_node(self, node: Node) -> None:
        self.calls.append(("add_node", node.name))

    def on_update_node(self, old: Node, new: Node) -> None:
        self.calls.append(("update_node", new.name))

    def on_delete_node(self, node: Node) -> None:
        self.calls.append(("delete_node", node.name))


def pod(i: int, node: str = "") -> Pod:
    return Pod(uid=f"u{i}", name=f"p{i}", namespace="ns", node_name=node)


@pytest.mark.parametrize("seed", range(20))
def test_informer_keeps_each_objects_order_whatever_the_delays(seed: int) -> None:
    informer = Informer(random.Random(seed), 0, 1_000)
    recorder = Recorder()
    informer.set_handlers(recorder)
    for step in range(3):
        for i in range(4):
            kind = EventType.ADDED if step == 0 else EventType.MODIFIED
            informer.emit(step * 10, Kind.POD, kind, f"ns/p{i}", None, pod(i, f"n{step}"))
    while informer.deliver_next() is not None:
        pass
    for i in range(4):
        seen = [what for call, what in recorder.calls if what.startswith(f"u{i}@")]
        assert seen == [f"u{i}@n0", f"u{i}@n1", f"u{i}@n2"]
    assert [c for c, _ in recorder.calls].count("add_pod") == 4  # the first event of each pod is an add
    assert informer.get_pod("ns", "p0") == pod(0, "n2")


def test_informer_refuses_to_deliver_an_event_out_of_its_objects_order() -> None:
    informer = Informer(random.Random(0))
    informer.emit(0, Kind.POD, EventType.ADDED, "ns/p0", None, pod(0))
    second = informer.emit(0, Kind.POD, EventType.MODIFIED, "ns/p0", pod(0), pod(0, "n"))
    assert [e.seq for e in informer.deliverable()] == [0]
    with pytest.raises(ValueError, match="not the next event"):
        informer.deliver(second)


def test_informer_rejects_reversed_delay_bounds() -> None:
    with pytest.raises(ValueError, match="0 <= min <= max"):
        Informer(random.Random(0), 5, 1)


def make_world(faults: Faults = Faults()) -> tuple[World, Informer, Recorder]:
    informer = Informer(random.Random(0))
    recorder = Recorder()
    informer.set_handlers(recorder)
    return World(informer, lambda: 0, random.Random(0), faults), informer, recorder


def test_world_binds_once_and_emits_the_binding() -> None:
    world, informer, recorder = make_world()
    world.create_pod(pod(1))
    world.bind(Binding("ns", "p1", "u1", "n1"), Context())
    with pytest.raises(APIError, match="already assigned"):
        world.bind(Binding("ns", "p1", "u1", "n2"), Context())
    while informer.deliver_next() is not None:
        pass
    assert recorder.calls == [("add_pod", "u1@"), ("update_pod", "u1@n1")]
    assert world.pods["u1"].node_name == "n1"


def test_world_answers_not_found_for_a_deleted_pod() -> None:
    world, _, _ = make_world()
    world.create_pod(pod(1))
    world.delete_pod("u1")
    with pytest.raises(APIError, match='pods "p1" not found'):
        world.bind(Binding("ns", "p1", "u1", "n1"), Context())
    with pytest.raises(ValueError, match="used before"):
        world.create_pod(pod(1))


def test_world_injects_bind_failures_at_the_given_rate() -> None:
    world, _, _ = make_world(Faults(bind_failure_rate=1.0))
    world.create_pod(pod(1))
    with pytest.raises(APIError, match=INJECTED_BIND_FAILURE):
        world.bind(Binding("ns", "p1", "u1", "n1"), Context())
    assert world.pods["u1"].node_name == ""


@pytest.mark.parametrize("rate", [-0.1, 1.5])
def test_fault_rates_outside_zero_to_one_are_refused(rate: float) -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        Faults(bind_failure_rate=rate)


def test_stepped_dispatcher_executes_when_completed_and_tells_the_caller() -> None:
    world, _, _ = make_world()
    world.create_pod(pod(1))
    dispatcher = APIDispatcher(world)
    stepped = SteppedDispatcher(dispatcher, world, random.Random(0), 10, 20)
    channel = ResultChannel(1)
    assert dispatcher.add(PodBindingCall(Binding("ns", "p1", "u1", "n1")), channel) is None
    flight = stepped.pop(100)
    assert flight is not None and 110 <= flight.due <= 120
    assert world.pods["u1"].node_name == ""  # in flight: not applied yet
    assert stepped.complete(flight) is None
    assert channel.receive(0) is None
    assert world.pods["u1"].node_name == "n1"
    assert not stepped.busy() and len(dispatcher.queue) == 0
