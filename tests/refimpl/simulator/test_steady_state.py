"""Pods that finish (``SimulationConfig.pod_lifetime``), and a simulation that keeps no history: in a steady state
(pods deleted at the rate they arrive) nothing may grow with the number of pods ever created.

bench/soak.py measures the RSS of a long steady-state run; these tests pin down the mechanisms, deterministically:
what the world, the fake API server and the simulation hold once a pod's deletion has been delivered.
"""

from __future__ import annotations

import gc
import random
import weakref
from dataclasses import replace

import pytest

from refimpl.dispatcher import Binding
from refimpl.dispatcher.context import Context
from refimpl.dispatcher.fake_api_server import FakeAPIServer, internal_error
from refimpl.simulator import Simulation, SimulationConfig
from refimpl.simulator.cluster import ClusterConfig, ClusterSimulation
from refimpl.simulator.informer import EventType, Informer
from refimpl.simulator.kubelets import Kubelets
from refimpl.simulator.workload import make_node
from refimpl.simulator.world import World
from spec.objects import Container, Node, Pod
from spec.quantities import SECOND, resource_list


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


# --------------------------------------------------------------------------------------------
# The cluster: pods finish at their kubelet, the pod GC keeps the threshold, crashed processes are let go
# --------------------------------------------------------------------------------------------


def _bound(world: World, uid: str, node: str, cpu: int = 0) -> None:
    requests = resource_list(cpu=cpu) if cpu else resource_list()
    world.create_pod(Pod(uid=uid, name=uid, namespace="ns", containers=(Container("c", requests=requests),)))
    world.bind(Binding("ns", uid, uid, node), Context())


def test_the_pod_gc_deletes_the_oldest_terminated_pods_beyond_its_threshold() -> None:
    """``PodGCController.gcTerminated``: beyond the threshold, the oldest terminated pods by creation go, Failed or
    Succeeded alike; the server forgets them (and their bind counts); the live pods stay. 0 keeps them all."""
    informer = Informer(random.Random(0))
    world = World(informer, lambda: 0, random.Random(0), terminated_pod_gc_threshold=2)
    world.add_node(Node("n1", allocatable=resource_list(cpu=4000, pods=110)))
    for uid in ("u1", "u2", "u3", "u4", "u5"):
        _bound(world, uid, "n1")
    world.succeed_pod("u3")
    world.fail_pod("u1", "OutOfcpu")
    world.succeed_pod("u2")  # three terminated: the oldest (u1) goes
    assert (world.terminated, world.pods_collected, world.pods_succeeded) == (2, 1, 2)
    assert world.failed_pods == {} and world.server.get_pod("ns", "u1") is None
    assert world.server.get_pod("ns", "u2") is not None and world.server.get_pod("ns", "u3") is not None
    assert set(world.bind_counts) == {"u2", "u3", "u4", "u5"} and not world.bound_twice
    world.succeed_pod("u5")  # u2 goes: created before u3 and u5
    assert world.server.get_pod("ns", "u2") is None and world.server.get_pod("ns", "u3") is not None
    assert set(world.pods) == {"u4"} and set(world.bind_counts) == {"u3", "u4", "u5"}
    keeping = World(Informer(random.Random(0)), lambda: 0, random.Random(0), terminated_pod_gc_threshold=0)
    keeping.add_node(Node("n1", allocatable=resource_list(cpu=4000, pods=110)))
    for uid in ("u1", "u2", "u3"):
        _bound(keeping, uid, "n1")
        keeping.succeed_pod(uid)
    assert keeping.terminated == 3 and keeping.pods_collected == 0
    with pytest.raises(ValueError, match="must not be negative"):
        World(Informer(random.Random(0)), lambda: 0, random.Random(0), terminated_pod_gc_threshold=-1)


def test_a_pod_that_finishes_frees_its_room_for_the_next() -> None:
    """The kubelet counts a finished (Succeeded) pod no more: a pod that did not fit beside it is admitted after."""
    informer = Informer(random.Random(0))
    world = World(informer, lambda: 0, random.Random(0))
    kubelets = Kubelets(world, random.Random(0), lifetime=5 * SECOND)
    world.add_node(Node("n1", allocatable=resource_list(cpu=1000, pods=110)))
    _bound(world, "u1", "n1", cpu=800)
    first = kubelets.admit_next()
    assert first is not None and first.admitted and kubelets.next_finish() == 5 * SECOND
    _bound(world, "u2", "n1", cpu=800)
    _bound(world, "u3", "n1", cpu=800)
    second = kubelets.admit_next()
    assert second is not None and second.reason == "OutOfcpu"  # u1 still runs
    finished = kubelets.finish_next()
    assert finished is not None and finished.uid == "u1" and kubelets.finished == 1
    assert "u1" not in world.pods and world.pods_succeeded == 1 and kubelets.admitted["n1"] == {}
    third = kubelets.admit_next()
    assert third is not None and third.uid == "u3" and third.admitted
    seen = []
    while (event := informer.deliver_next()) is not None:
        seen += [event.type] if event.key == "ns/u1" else []
    assert seen == [EventType.ADDED, EventType.MODIFIED, EventType.DELETED]  # a scheduler sees it deleted
    with pytest.raises(ValueError, match="lifetime must not be negative"):
        Kubelets(world, random.Random(0), lifetime=-1)


def test_a_cluster_whose_pods_finish_leaves_nothing_behind() -> None:
    """Three schedulers, crashes, pods finishing: once settled, no live pod, no deletion in flight, every cache and
    informer empty, the kubelets run nothing, and the API server keeps only the GC threshold's terminated pods."""
    config = ClusterConfig(SimulationConfig(nodes=6, pods=150, seed=4, arrival_rate=30.0, pod_lifetime=SECOND),
                           schedulers=3, crash_rate=0.02, terminated_pod_gc_threshold=20)
    sim = ClusterSimulation(config)
    sim.run()
    sim.drain()
    world = sim.world
    assert sim.stats.quiet and sim.stats.crashes > 0
    assert world.pods == {} and world.deleted_pods == {} and world.terminated == 20
    assert world.pods_succeeded == sim.kubelets.finished == sim.kubelets.admitted_total > 100
    assert len(world.bind_counts) <= 20 and not world.bound_twice
    assert all(pods == {} for pods in sim.kubelets.admitted.values())
    for _, process in sim.live():
        assert process.informer.pods == {} and process.cache.pod_count() == 0 and process._attempted == set()
    assert sum(r.total("bound") for r in sim.records) + sim.stats.orphaned_binds_landed == world.binds_applied


def test_a_crashed_process_is_let_go_once_its_successor_runs() -> None:
    """A scheduler record keeps its latest process and the counts of those before, not the crashed processes
    (each holds a cache, a queue and an informer: a long run with crashes grew by one per crash)."""
    config = ClusterConfig(SimulationConfig(nodes=2, pods=6, seed=3), schedulers=1)
    sim = ClusterSimulation(config)
    for index in range(2):
        sim.world.add_node(make_node(index, sim._workload_rng))
    first = sim.processes[0]
    assert first is not None
    for _ in range(3):
        sim.world.create_pod(sim.new_pod())
    while first.informer.deliver_next() is not None:
        pass
    first.schedule_one()
    scheduled = first.stats.scheduled
    gone = weakref.ref(first)
    sim.crash(0)
    for orphan in list(sim.orphans):
        while orphan in sim.orphans:
            sim.complete_orphan(orphan)
    restarted = sim.restart(0)
    del first
    gc.collect()
    assert gone() is None
    record = sim.records[0]
    assert record.latest is restarted and record.incarnations == 2
    assert record.total("scheduled") == scheduled + restarted.stats.scheduled == 1
