"""Pods that finish (``SimulationConfig.pod_lifetime``), and a simulation that keeps no history: in a steady state
(pods deleted at the rate they arrive) nothing may grow with the number of pods ever created.

bench/soak.py measures the RSS of a long steady-state run; these tests pin down the mechanisms, deterministically:
what the world, the fake API server and the simulation hold once a pod's deletion has been delivered.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from refimpl.dispatcher import Binding
from refimpl.dispatcher.context import Context
from refimpl.dispatcher.fake_api_server import FakeAPIServer, internal_error
from refimpl.simulator import Simulation, SimulationConfig
from refimpl.simulator.informer import Informer
from refimpl.simulator.world import World
from spec.objects import Pod
from spec.quantities import SECOND


def steady(pods: int, seed: int = 3) -> Simulation:
    config = SimulationConfig(nodes=20, pods=pods, seed=seed, arrival_rate=50.0, pod_lifetime=2 * SECOND)
    simulation = Simulation(config)
    simulation.run()
    return simulation


def test_every_bound_pod_finishes_and_is_deleted_and_nothing_is_left_behind() -> None:
    simulation = steady(400)
    stats = simulation.stats
    assert stats.quiet and stats.pods_created == stats.bound == stats.pods_deleted == 400
    assert simulation.world.pods == {} and simulation.world.deleted_pods == {}
    assert simulation.informer.pods == {} and simulation.informer.pending() == 0
    assert simulation.world.server.get_pod("sim", "pod-0") is None  # the server forgot it too
    assert simulation.world.server.log() == []  # and kept no request log
    assert simulation._attempted == set() and simulation._finishing == []
    assert simulation.cache.pod_count() == 0 and not any(simulation.queue.counts().values())


def test_the_cluster_settles_at_rate_times_lifetime_pods() -> None:
    """With 50 pods a second each running 2 s, about 100 run at once (Little's law), however many arrive."""
    config = SimulationConfig(nodes=20, pods=600, seed=5, arrival_rate=50.0, pod_lifetime=2 * SECOND)
    simulation = Simulation(config)
    live: list[int] = []

    def sample(sim: Simulation) -> None:
        if 200 <= sim.stats.pods_created < 600:
            live.append(len(sim.world.pods))

    simulation.run(sample, progress_every=50)
    assert live and 60 <= sum(live) / len(live) <= 140, live
    assert max(live) < 250  # bounded by the arrival rate, not by the 600 pods created


def test_history_held_is_bounded_by_live_pods_not_pods_ever_created() -> None:
    """What the simulation holds per pod, sampled through the run, never exceeds what the live pods need."""
    config = SimulationConfig(nodes=20, pods=800, seed=7, arrival_rate=50.0, pod_lifetime=2 * SECOND)
    simulation = Simulation(config)
    worst = 0

    def sample(sim: Simulation) -> None:
        nonlocal worst
        held = max(len(sim.world.deleted_pods), len(sim._attempted), len(sim.informer.pods))
        worst = max(worst, held - len(sim.world.pods))

    simulation.run(sample, progress_every=25)
    assert simulation.stats.pods_created == 800
    assert worst < 60  # deletions in flight at most, never the hundreds already finished


def test_a_lifetime_of_zero_keeps_every_pod_and_the_same_run() -> None:
    """The default (pods run for ever) is the run it always was: the same steps, every pod still there."""
    config = SimulationConfig(nodes=10, pods=100, seed=11)
    first, second = Simulation(config), Simulation(config)
    first.run()
    second.run()
    assert replace(first.stats, wall_seconds=0) == replace(second.stats, wall_seconds=0)
    assert first.stats.pods_deleted == 0 and len(first.world.pods) == 100


def test_a_negative_lifetime_is_refused() -> None:
    with pytest.raises(ValueError, match="pod lifetime must not be negative"):
        SimulationConfig(pod_lifetime=-1)


# --------------------------------------------------------------------------------------------
# The parts: the world forgets a deleted pod once its deletion is delivered; the server can keep no log
# --------------------------------------------------------------------------------------------


def test_the_world_keeps_a_deleted_pod_until_its_deletion_is_delivered() -> None:
    informer = Informer(random.Random(0))
    world = World(informer, lambda: 0, random.Random(0))
    world.create_pod(Pod(uid="u1", name="p1", namespace="ns"))
    world.delete_pod("u1")
    assert "u1" in world.deleted_pods and world.server.get_pod("ns", "p1") is None
    with pytest.raises(ValueError, match="used before"):
        world.create_pod(Pod(uid="u1", name="p1", namespace="ns"))  # its deletion is still in flight
    world.forget_deleted("u1", informer)
    assert world.deleted_pods == {}


def test_each_informer_delivers_a_deletion_in_its_own_time() -> None:
    """With several schedulers' informers on one world, a deleted (or Failed) pod stays in ``deleted_pods`` until
    every informer that was watching when it went has delivered its deletion or stopped watching: the first to
    deliver it must not make it vanish for the others, whose schedulers may still hold the pod (before the fix the
    first delivery forgot it, and ``ksspec simulate --schedulers 2 --pods 50 --nodes 5 --seed 2`` then saw a pod
    assumed with no binding)."""
    first, second, third = (Informer(random.Random(i)) for i in range(3))
    world = World(first, lambda: 0, random.Random(0))
    world.watch(second)
    world.create_pod(Pod(uid="u1", name="p1", namespace="ns"))
    world.create_pod(Pod(uid="u2", name="p2", namespace="ns"))
    world.delete_pod("u1")
    world.fail_pod("u2", "OutOfcpu")
    world.watch(third)  # started after both went: it never lists them, and nobody waits for it
    world.forget_deleted("u1", first)
    world.forget_deleted("u2", second)
    assert set(world.deleted_pods) == {"u1", "u2"}
    world.forget_deleted("u1", third)
    assert set(world.deleted_pods) == {"u1", "u2"}
    world.forget_deleted("u1", second)
    assert set(world.deleted_pods) == {"u2"}
    world.unwatch(first)  # its process crashed with the deletion of u2 undelivered
    assert world.deleted_pods == {}
    assert world.failed_pods == {"u2": "OutOfcpu"}


def test_a_server_without_a_log_still_numbers_its_requests() -> None:
    server = FakeAPIServer(keep_log=False)
    server.create_pod("ns", "p1", "u1")
    server.create_pod("ns", "p2", "u2")
    server.fail(internal_error("scripted"), index=1)
    server.bind(Binding("ns", "p1", "u1", "n1"), Context())
    with pytest.raises(Exception, match="scripted"):
        server.bind(Binding("ns", "p2", "u2", "n1"), Context())  # request number 1, though nothing is logged
    assert server.log() == [] and server.get_pod("ns", "p1").node_name == "n1"  # type: ignore[union-attr]
    server.delete_pod("ns", "p1")
    assert server.get_pod("ns", "p1") is None
