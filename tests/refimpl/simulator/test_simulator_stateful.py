"""Hypothesis drives the simulator's interleavings and every invariant is checked after every step.

The machine takes the simulator's steps in any order Hypothesis picks (scheduling cycles, binding-cycle steps,
dispatcher pops and call completions in any order, informer deliveries in any order that keeps each object's order,
pod and node churn, cache cleanups, queue flushes, clock advances, injected Reserve/Permit/PreBind/Bind failures and
Permit waits, and API-level bind failures and conflicts). A strict :class:`InvariantChecker` observes every step:
the spec's cache invariants on the abstracted cache, the pipeline invariants of spec/cycle/invariants.py on the
abstracted cluster (no double-booking per node as the cache saw it, every pod in exactly one place, assumed pods
have a binding) and, around each cleanup, that expiry happens only after ``finish_binding``.

At the end the cluster is left alone: time passes beyond the TTL and the 5-minute unschedulable limit and the
simulation runs by the clock until quiet (:meth:`Simulation.drain`); then no assumed pod may be left behind and every
pod that fits some node (by the spec's filters, on the cache's nodes) must be bound.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from conformance.simulation.checks import InvariantChecker, check_final_state
from refimpl.scheduler.framework.status import Code
from refimpl.scheduler.plugins.fault_injection import FaultInjector, FaultPoint
from refimpl.simulator import Faults, Simulation, SimulationConfig
from spec.frozenmap import FrozenMap
from spec.objects import Container, ContainerPort, Node, Pod, Taint, Toleration
from spec.quantities import MILLISECOND, SECOND, resource_list
from spec.versions import V1_34, V1_35, V1_36

MIB = 2**20
MAX_PODS = 8
MAX_NODES = 4
TAINT = Taint("dedicated", "x", "NoSchedule")

nodes = st.tuples(st.sampled_from([1_000, 2_000]), st.sampled_from([2, 3, 110]), st.booleans())
"""(milli-CPU, pod capacity, tainted)."""
pod_shapes = st.tuples(st.sampled_from([0, 500, 1_000, 1_500]), st.booleans(), st.booleans())
"""(milli-CPU, wants host port 8080, tolerates the taint)."""


class SimulatorMachine(RuleBasedStateMachine):
    """One small simulated cluster, stepped by Hypothesis."""

    def __init__(self) -> None:
        super().__init__()
        self.sim: Simulation | None = None
        self.checker = InvariantChecker(1, strict=True)
        self.injector = FaultInjector()
        self.scripted: set[str] = set()  # pods given one scripted plugin fault (at most one each)
        self.pods_made = 0
        self.nodes_made = 0

    @property
    def s(self) -> Simulation:
        assert self.sim is not None
        return self.sim

    @initialize(
        seed=st.integers(0, 2**16),
        profile=st.sampled_from([V1_35, V1_34, V1_36]),
        ttl=st.sampled_from([0, 30 * SECOND]),
        bind_failure_rate=st.sampled_from([0.0, 0.3]),
        conflict_rate=st.sampled_from([0.0, 0.2]),
        batching=st.booleans(),
        first_node=nodes,
        first_pods=st.lists(pod_shapes, min_size=1, max_size=4),
    )
    def setup(self, seed: int, profile: object, ttl: int, bind_failure_rate: float, conflict_rate: float,
              batching: bool, first_node: tuple[int, int, bool], first_pods: list[tuple[int, bool, bool]]) -> None:
        assert profile in (V1_35, V1_34, V1_36)
        config = SimulationConfig(
            nodes=0, pods=0, seed=seed, profile=profile, ttl=ttl if profile.assumed_pod_expiry else 0,
            faults=Faults(bind_failure_rate=bind_failure_rate, conflict_rate=conflict_rate),
            min_latency=0, max_latency=10 * MILLISECOND, min_informer_delay=0, max_informer_delay=10 * MILLISECOND,
            opportunistic_batching=batching, max_virtual_time=4 * 3_600 * SECOND,
        )
        self.sim = Simulation(config, observers=(self.checker,), extra_plugins=(self.injector,))
        self.add_node(first_node)
        self.s.deliver(self.s.informer.deliverable()[0])  # start with a node the scheduler knows
        for shape in first_pods:
            self.create_pod(shape)

    # -- the cluster's users -------------------------------------------------------------

    def _node(self, cpu: int, pods: int, tainted: bool) -> Node:
        name = f"node-{self.nodes_made}"
        self.nodes_made += 1
        return Node(name, allocatable=resource_list(cpu=cpu, memory=4096 * MIB, pods=pods),
                    labels=FrozenMap({"kubernetes.io/hostname": name}), taints=(TAINT,) if tainted else ())

    @precondition(lambda self: self.sim is not None and len(self.s.world.nodes) < MAX_NODES)
    @rule(shape=nodes)
    def add_node(self, shape: tuple[int, int, bool]) -> None:
        self.s.add_node(self._node(*shape))

    @precondition(lambda self: self.sim is not None and bool(self.s.world.nodes))
    @rule(data=st.data())
    def cordon_or_uncordon_node(self, data: st.DataObject) -> None:
        node = self.s.world.nodes[data.draw(st.sampled_from(sorted(self.s.world.nodes)))]
        self.s.update_node(replace(node, unschedulable=not node.unschedulable))

    @precondition(lambda self: self.sim is not None and bool(self.s.world.nodes))
    @rule(data=st.data())
    def delete_node(self, data: st.DataObject) -> None:
        self.s.delete_node(data.draw(st.sampled_from(sorted(self.s.world.nodes))))

    @precondition(lambda self: self.sim is not None and self.pods_made < MAX_PODS)
    @rule(shape=pod_shapes)
    def create_pod(self, shape: tuple[int, bool, bool]) -> None:
        cpu, port, tolerates = shape
        i = self.pods_made
        self.pods_made += 1
        ports = (ContainerPort(8080, host_port=8080),) if port else ()
        container = Container("app", requests=resource_list(cpu=cpu, memory=256 * MIB), ports=ports)
        tolerations = (Toleration("dedicated", "Equal", "x", "NoSchedule"),) if tolerates else ()
        self.s.create_pod(Pod(uid=f"uid-{i}", name=f"pod-{i}", namespace="sim", containers=(container,),
                              tolerations=tolerations))

    @precondition(lambda self: self.sim is not None and bool(self.s.world.pods))
    @rule(data=st.data())
    def delete_pod(self, data: st.DataObject) -> None:
        self.s.delete_pod(data.draw(st.sampled_from(sorted(self.s.world.pods))))

    # -- the scheduler's goroutines ------------------------------------------------------

    @precondition(lambda self: self.sim is not None)
    @rule()
    def schedule_one(self) -> None:
        self.s.schedule_one()

    @precondition(lambda self: self.sim is not None and bool(self.s.scheduler.binding_cycles))
    @rule()
    def step_binding_cycles(self) -> None:
        self.s.step_binding_cycles()

    @precondition(lambda self: self.sim is not None and self.s.calls.pending() > 0)
    @rule()
    def pop_calls(self) -> None:
        self.s.pop_calls()

    @precondition(lambda self: self.sim is not None and bool(self.s.calls.in_flight))
    @rule(data=st.data())
    def complete_call(self, data: st.DataObject) -> None:
        self.s.complete(data.draw(st.sampled_from(self.s.calls.in_flight)))

    @precondition(lambda self: self.sim is not None and self.s.informer.pending() > 0)
    @rule(data=st.data())
    def deliver_event(self, data: st.DataObject) -> None:
        self.s.deliver(data.draw(st.sampled_from(self.s.informer.deliverable())))

    @precondition(lambda self: self.sim is not None)
    @rule()
    def cleanup(self) -> None:
        self.s.cleanup()

    @precondition(lambda self: self.sim is not None)
    @rule(leftover=st.booleans())
    def flush_queue(self, leftover: bool) -> None:
        if leftover:
            self.s.flush_unschedulable()
        else:
            self.s.flush_backoff()

    @precondition(lambda self: self.sim is not None)
    @rule(by=st.sampled_from([MILLISECOND, 50 * MILLISECOND, SECOND, 11 * SECOND, 31 * SECOND, 301 * SECOND]))
    def advance_clock(self, by: int) -> None:
        self.s.advance(by)

    @precondition(lambda self: self.sim is not None)
    @rule(by=st.sampled_from([MILLISECOND, 20 * MILLISECOND, SECOND, 5 * SECOND]))
    def run_by_the_clock(self, by: int) -> None:
        self.s.run_for(by)

    # -- faults --------------------------------------------------------------------------

    def _unscripted(self) -> list[str]:
        return sorted(uid for uid, p in self.s.world.pods.items() if not p.node_name and uid not in self.scripted)

    @precondition(lambda self: self.sim is not None and bool(self._unscripted()))
    @rule(data=st.data(), point=st.sampled_from(list(FaultPoint)),
          code=st.sampled_from([Code.UNSCHEDULABLE, Code.ERROR]))
    def inject_plugin_failure(self, data: st.DataObject, point: FaultPoint, code: Code) -> None:
        uid = data.draw(st.sampled_from(self._unscripted()))
        self.scripted.add(uid)
        self.injector.fail_next(point, uid, code=code)

    @precondition(lambda self: self.sim is not None and bool(self._unscripted()))
    @rule(data=st.data(), timeout=st.sampled_from([SECOND, 60 * SECOND]))
    def make_permit_wait(self, data: st.DataObject, timeout: int) -> None:
        uid = data.draw(st.sampled_from(self._unscripted()))
        self.scripted.add(uid)
        self.injector.wait_next(uid, timeout=timeout)

    @precondition(lambda self: self.sim is not None and any(
        c.waiting_on == "permit" for c in self.s.scheduler.binding_cycles.values()))
    @rule(data=st.data(), allow=st.booleans())
    def resolve_permit_wait(self, data: st.DataObject, allow: bool) -> None:
        uids = sorted(uid for uid, c in self.s.scheduler.binding_cycles.items() if c.waiting_on == "permit")
        uid = data.draw(st.sampled_from(uids))
        waiting = self.s.framework.get_waiting_pod(uid)
        assert waiting is not None, f"binding cycle of {uid} waits at Permit but the framework has no waiting pod"
        if allow:
            waiting.allow(self.injector.name)
        else:
            waiting.reject(self.injector.name, "rejected by the test")

    # -- checks --------------------------------------------------------------------------

    @invariant()
    def every_step_was_checked(self) -> None:
        if self.sim is not None:
            tally = self.checker.tallies["inv_every_pod_has_one_place"]
            assert tally.checked == self.s.stats.steps, "the checker missed a step"

    def teardown(self) -> None:
        if self.sim is None:
            return
        stats = self.sim.stats
        event(f"bound before the drain: {'some' if stats.bound else 'none'}")
        event(f"binding failures before the drain: {'some' if stats.binding_failures else 'none'}")
        self.sim.drain()
        assert stats.quiet, "the cluster did not settle within the time limit"
        problems = check_final_state(self.sim)
        assert problems == [], f"after the drain: {problems}; scheduler log: {self.sim.handlers.errors[-5:]}"


SimulatorMachine.TestCase.settings = settings(settings.default, stateful_step_count=40)
TestSimulator = SimulatorMachine.TestCase
