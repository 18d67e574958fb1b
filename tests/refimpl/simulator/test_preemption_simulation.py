"""A simulation whose workload has priorities runs DefaultPreemption: victims are deleted at the API server, the
summary counts them, and the spec's invariants (the preemption log's among them) hold at every step."""

from __future__ import annotations

import random

from conformance.simulation.checks import InvariantChecker, check_final_state
from refimpl.simulator.simulation import Simulation, SimulationConfig
from refimpl.simulator.workload import make_pod
from spec.cycle.invariants import inv_no_pod_preempted_by_lower_or_equal


def test_priorities_make_preemptions_and_every_invariant_holds() -> None:
    checker = InvariantChecker()
    sim = Simulation(SimulationConfig(nodes=3, pods=80, seed=1, arrival_rate=40.0, priorities=(0, 1000)),
                     observers=(checker,))
    stats = sim.run()
    assert stats.preemptions > 0 and stats.preemptions == len(sim.preemptions)
    assert inv_no_pod_preempted_by_lower_or_equal(sim.preemptions)
    assert all(victim.uid not in sim.world.pods for _, victim in sim.preemptions)
    assert checker.violations == 0
    assert checker.tallies["inv_no_pod_preempted_by_lower_or_equal"].checked == stats.steps
    sim.drain()
    assert check_final_state(sim) == []


def test_a_workload_without_priorities_draws_what_it_always_did() -> None:
    """The priority is drawn last and only when asked for, so every earlier seed names the same workload."""
    plain, asked = random.Random(7), random.Random(7)
    assert [make_pod(i, plain) for i in range(20)] == [make_pod(i, asked, priorities=()) for i in range(20)]
