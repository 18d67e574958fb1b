"""Per-queue counts of a simulation run: how many pods each part of the scheduling queue held.

:class:`QueueCounter` is a simulation observer (:class:`refimpl.simulator.Observer`): after every step it reads the
queue's counts (activeQ, backoffQ, unschedulablePods, in flight) and keeps each one's peak and latest value;
``ksspec simulate`` prints them (:func:`queue_table`).
"""

from __future__ import annotations

from rich.table import Table

from refimpl.scheduler.queue import QueueName
from refimpl.simulator.simulation import Action, Simulation

PARTS = (
    (QueueName.ACTIVE, "activeQ"),
    (QueueName.BACKOFF, "backoffQ"),
    (QueueName.UNSCHEDULABLE, "unschedulablePods"),
    (QueueName.IN_FLIGHT, "in flight (popped, Done not called)"),
)


class QueueCounter:
    """Peak and latest count of each part of the simulation's scheduling queue."""

    def __init__(self) -> None:
        self.peak = {name: 0 for name, _ in PARTS}
        self.latest = {name: 0 for name, _ in PARTS}
        self.samples = 0

    def before(self, sim: Simulation, action: Action) -> None:
        """Nothing: the counts are read after each step."""

    def after(self, sim: Simulation, action: Action) -> None:
        """Read the queue's counts and raise the peaks."""
        counts = sim.queue.counts()
        for name, _ in PARTS:
            self.latest[name] = counts[name]
            self.peak[name] = max(self.peak[name], counts[name])
        self.samples += 1


def queue_table(counter: QueueCounter) -> Table:
    """The per-queue counts: peak over the run and at the end."""
    table = Table(title="scheduling queue")
    table.add_column("queue")
    table.add_column("peak", justify="right")
    table.add_column("at the end", justify="right")
    for name, label in PARTS:
        table.add_row(label, f"{counter.peak[name]:,}", f"{counter.latest[name]:,}")
    return table
