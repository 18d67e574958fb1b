"""The spec's invariants checked on a running simulation (:mod:`refimpl.simulator`): one scheduler
(:mod:`~conformance.simulation.checks`), several (:mod:`~conformance.simulation.cluster_checks`), and the queue's
counts (:mod:`~conformance.simulation.queue_counts`)."""
