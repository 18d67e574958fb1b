"""A ported Score table case: the pod, the existing pods, the candidate nodes (those that passed the filters) and
the other nodes of the snapshot, the plugin's arguments, and the scores Go expects after NormalizeScore.

The cases are data: ``tests/spec/cycle/test_ported_scores.py`` runs the spec's pure PreScore, Score and
NormalizeScore functions (:mod:`spec.cycle.interpodaffinity`, :mod:`spec.cycle.podtopologyspread`) and refimpl's
plugins on each and compares with ``want``. Until the cycle observation carries scores, they are not vectors.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from spec.frozenmap import FrozenMap
from spec.objects import LabelSelector, Node, Pod, TopologySpreadConstraint


@dataclass(frozen=True)
class ScoreCase:
    """One Go table case. ``want`` maps each candidate node, in ``nodes``' order, to its normalized score; None:
    PreScore returns ``Skip`` (the plugin scores nothing)."""

    test: str
    name: str
    pod: Pod
    pods: tuple[Pod, ...]
    nodes: tuple[Node, ...]
    want: dict[str, int] | None
    failed_nodes: tuple[Node, ...] = ()
    """Nodes in the snapshot that are not candidates (Go's ``failedNodes``)."""
    namespaces: FrozenMap[str, FrozenMap[str, str]] = field(default_factory=FrozenMap)
    """The namespace lister's namespaces and their labels."""
    hard_pod_affinity_weight: int = 1
    ignore_preferred_terms_of_existing_pods: bool = False
    default_selector: LabelSelector | None = None
    """PodTopologySpread: the selector of the Services and controllers that select the pod (``DefaultSelector``)."""
    system_defaulting: bool = True
    """PodTopologySpread: ``defaultingType: System``; False is List with :attr:`default_constraints`."""
    default_constraints: tuple[TopologySpreadConstraint, ...] = ()

    @property
    def all_nodes(self) -> tuple[Node, ...]:
        """The snapshot's nodes: the candidates, then the failed ones (Go's ``append(nodes, failedNodes...)``)."""
        return self.nodes + self.failed_nodes


def named(pods: tuple[Pod, ...]) -> tuple[Pod, ...]:
    """The existing pods, each nameless one named (and given a UID) by its position, as the cache needs a UID."""
    return tuple(p if p.uid else replace(p, uid=f"existing-{i}", name=f"existing-{i}") for i, p in enumerate(pods))
