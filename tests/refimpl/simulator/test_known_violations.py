"""A non-zero assumed-pod TTL double-books a node's host port, and the cache then loses the port: the reason the
simulator's checker leaves ``inv_used_ports_are_union_of_pods`` (and ``inv_no_node_overcommitted``) out when the TTL
is not 0. With the production TTL of 0 the same steps keep every invariant.

The steps: pod A (host port 8080) is bound, and its informer event is held; time passes the TTL and the cache's
cleanup expires A (its binding finished); pod B (host port 8080) is placed on the same node, now free in the cache;
A's event arrives and adds A back, so both hold 8080; B's bind fails and B is forgotten, which takes 8080 out of
the node's set while A still uses it (``HostPortInfo`` is a set, as in Kubernetes).
"""

from __future__ import annotations

from conformance.adapters.refimpl_abstraction import abstract_cache_state
from conformance.simulation.checks import InvariantChecker
from refimpl.scheduler.framework.status import Code
from refimpl.scheduler.plugins.fault_injection import FaultInjector, FaultPoint
from refimpl.scheduler.schedule_one import Outcome
from refimpl.simulator import Simulation, SimulationConfig
from spec.cache.invariants import inv_used_ports_are_union_of_pods
from spec.objects import Container, ContainerPort, Node, Pod
from spec.quantities import SECOND, resource_list

TTL = 30 * SECOND


def port_pod(i: int) -> Pod:
    return Pod(uid=f"uid-{i}", name=f"pod-{i}", namespace="sim",
               containers=(Container("app", ports=(ContainerPort(8080, host_port=8080),)),))


def play(ttl: int) -> tuple[Simulation, InvariantChecker]:
    """The steps of the module docstring with ``ttl``; returns the simulation and its (non-strict) checker."""
    injector = FaultInjector()
    checker = InvariantChecker(1)
    config = SimulationConfig(nodes=0, pods=0, ttl=ttl, min_latency=0, max_latency=0, max_informer_delay=0)
    sim = Simulation(config, observers=(checker,), extra_plugins=(injector,))
    sim.add_node(Node("node-0", allocatable=resource_list(cpu=1_000, memory=2**30, pods=110)))

    def deliver(key: str | None = None) -> None:
        for event in sim.informer.deliverable():
            if key is None or event.key == key:
                sim.deliver(event)

    deliver()
    sim.create_pod(port_pod(0))
    deliver()
    sim.schedule_one()
    sim.step_binding_cycles()
    sim.pop_calls()
    for flight in list(sim.calls.in_flight):
        sim.complete(flight)  # A is bound at the API server; its event is held
    assert sim.world.pods["uid-0"].node_name == "node-0"
    sim.advance(TTL + SECOND)
    sim.cleanup()
    sim.create_pod(port_pod(1))
    deliver("sim/pod-1")
    injector.fail_next(FaultPoint.BIND, "uid-1", code=Code.ERROR)
    result = sim.schedule_one()
    assert result is not None
    if result.outcome is Outcome.BINDING:
        deliver("sim/pod-0")  # A's late event: A is added back next to B
        sim.step_binding_cycles()  # B's bind fails: B is forgotten
    return sim, checker


def test_with_a_ttl_the_expired_pods_port_is_double_booked_then_lost() -> None:
    sim, checker = play(TTL)
    name = inv_used_ports_are_union_of_pods.__name__
    assert checker.tallies[name].violations == 0  # the checker leaves it out with a TTL ...
    info = sim.cache.internals().node_infos["node-0"]
    assert [p.pod.uid for p in info.pods] == ["uid-0"]
    assert not info.used_ports  # ... because A holds 8080 and the node's set lost it
    assert not inv_used_ports_are_union_of_pods(abstract_cache_state(sim.cache))


def test_with_the_production_ttl_the_port_stays_booked() -> None:
    sim, checker = play(0)
    assert checker.violations == 0
    assert sum(t.checked for t in checker.tallies.values()) > 0
    info = sim.cache.internals().node_infos["node-0"]
    assert [p.pod.uid for p in info.pods] == ["uid-0"]
    assert info.used_ports  # A still holds 8080; B found no node
    assert sim.last_result is not None and sim.last_result.outcome is Outcome.UNSCHEDULABLE
