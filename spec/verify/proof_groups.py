"""Every group of Z3 proof obligations, in the order ``ksspec prove`` discharges them.

A new group is a module like :mod:`spec.verify.cache.obligations` whose function returns its
:class:`~spec.verify.obligations.Obligation` list, added to :func:`all_obligations`.
"""

from __future__ import annotations

from spec.verify.cache.obligations import cache_obligations
from spec.verify.cache.symbolic import Bounds
from spec.verify.cluster.obligations import cluster_obligations
from spec.verify.cluster.symbolic import ClusterBounds
from spec.verify.cycle.obligations import cycle_obligations
from spec.verify.cycle.symbolic import CycleBounds
from spec.verify.dispatcher.obligations import dispatcher_obligations
from spec.verify.dispatcher.symbolic import DispatcherBounds
from spec.verify.obligations import Obligation


def all_obligations(
    bounds: Bounds = Bounds(), dispatcher_bounds: DispatcherBounds | None = None,
    cycle_bounds: CycleBounds | None = None,
    cluster_bounds: ClusterBounds | None = None,
) -> list[Obligation]:
    """Every obligation ``ksspec prove`` discharges: the cache's, then the dispatcher's (at
    ``dispatcher_bounds``, default :class:`~spec.verify.dispatcher.symbolic.DispatcherBounds`), then
    the scheduling pipeline's (at ``cycle_bounds``, default :class:`~spec.verify.cycle.symbolic.CycleBounds`),
    then the cluster's (at ``cluster_bounds``, default :class:`~spec.verify.cluster.symbolic.ClusterBounds`)."""
    return (
        cache_obligations(bounds)
        + dispatcher_obligations(dispatcher_bounds or DispatcherBounds())
        + cycle_obligations(cycle_bounds or CycleBounds())
        + cluster_obligations(cluster_bounds or ClusterBounds())
    )
