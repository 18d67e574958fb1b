"""A deterministic, single-threaded simulation of the scheduler and its cluster, in virtual time, from a seed.

Modules: :mod:`~refimpl.simulator.informer` (watch events delivered late, reordered across objects, in order per
object), :mod:`~refimpl.simulator.world` (the API server's objects, injected faults, users' changes),
:mod:`~refimpl.simulator.dispatch` (the API dispatcher's loop and calls, stepped, with latency),
:mod:`~refimpl.simulator.workload` (nodes, pods, churn) and :mod:`~refimpl.simulator.simulation` (the steps, the
clock-driven run, observers, counts). Invariant checking is an observer outside refimpl
(conformance/simulation/checks.py), as refimpl may not import the spec's invariants.
"""

from refimpl.simulator.dispatch import InFlight, SteppedDispatcher
from refimpl.simulator.informer import EventType, Informer, InformerHandlers, Kind, WatchEvent, pod_key
from refimpl.simulator.simulation import Action, Observer, Simulation, SimulationConfig, Stats
from refimpl.simulator.workload import Churn, make_node, make_pod
from refimpl.simulator.world import Faults, InstantSleeper, World

__all__ = [
    "Action",
    "Churn",
    "EventType",
    "Faults",
    "InFlight",
    "Informer",
    "InformerHandlers",
    "InstantSleeper",
    "Kind",
    "Observer",
    "Simulation",
    "SimulationConfig",
    "Stats",
    "SteppedDispatcher",
    "WatchEvent",
    "World",
    "make_node",
    "make_pod",
    "pod_key",
]
