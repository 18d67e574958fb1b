"""A ported Score table case: the pod, the existing pods, the candidate nodes (those that passed the filters) and
the other nodes of the snapshot, the plugin's arguments, and the scores Go expects after NormalizeScore.

The cases are data: ``tests/spec/cycle/test_ported_scores.py`` runs the spec's pure PreScore, Score and
NormalizeScore functions (:mod:`spec.cycle.interpodaffinity`, :mod:`spec.cycle.podtopologyspread`) and refimpl's
plugins on each and compares with ``want``; :func:`scenario` makes a case a cycle vector, whose decision carries the
plugin's score of each candidate (``tests/conformance/test_ported.py`` compares it with ``want``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Final

from conformance.operations import (
    ClusterUpdateNode,
    CreatePod,
    SchedulePod,
    apply_cycle,
    cycle_decision,
    refreshed_snapshot,
)
from conformance.ported.common import GO_SCORES, go_case
from conformance.ported.filter_cases import place, unique_ids
from conformance.traces import Scenario
from spec.frozenmap import FrozenMap
from spec.objects import LabelSelector, Node, Pod, PreferredSchedulingTerm, TopologySpreadConstraint
from spec.quantities import PODS, resource_list


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
    added_affinity: tuple[PreferredSchedulingTerm, ...] | None = None
    """NodeAffinity: the preferred terms of ``NodeAffinityArgs.AddedAffinity`` (None: no added affinity)."""

    @property
    def all_nodes(self) -> tuple[Node, ...]:
        """The snapshot's nodes: the candidates, then the failed ones (Go's ``append(nodes, failedNodes...)``)."""
        return self.nodes + self.failed_nodes


def named(pods: tuple[Pod, ...]) -> tuple[Pod, ...]:
    """The existing pods, each nameless one named (and given a UID) by its position, as the cache needs a UID."""
    return tuple(p if p.uid else replace(p, uid=f"existing-{i}", name=f"existing-{i}") for i, p in enumerate(pods))


# --------------------------------------------------------------------------------------------
# A case as a cycle vector
# --------------------------------------------------------------------------------------------

ROOM: Final = resource_list(cpu=32000, memory=64 * 2**30, pods=110)
"""What a node of a score case that states no allocatable gets: room for every pod of the case (Go's Score tests call
the plugin without filtering, so their nodes need none)."""


def not_portable(case: ScoreCase) -> str | None:
    """Why ``case`` cannot be a cycle vector (None: it can). The cycle's cluster has no Service or controller objects
    and runs the default profile's plugin arguments, so a case needing other arguments or a default selector is left
    to the score functions' tests. The namespace lister's namespaces are the cluster's (:func:`scenario` creates
    them)."""
    if case.hard_pod_affinity_weight != 1 or case.ignore_preferred_terms_of_existing_pods:
        return "InterPodAffinity arguments other than the default profile's"
    if case.default_selector is not None or not case.system_defaulting:
        return "PodTopologySpread defaulting from Services or controllers, or List defaulting"
    if case.added_affinity is not None:
        return "NodeAffinity arguments other than the default profile's"
    if case.want is None and len(case.nodes) == 1:
        return "one candidate, which the scheduler chooses unscored: PreScore's Skip cannot be observed"
    return None


def read_namespaces(case: ScoreCase) -> FrozenMap[str, FrozenMap[str, str]]:
    """The case's namespaces if some term of its pods has a namespace selector, else none: a term without one
    reads no namespace's labels (``AffinityTerm.Matches``, ``mergeAffinityTermNamespacesIfNotEmpty``), so only then
    does the namespace lister decide anything."""
    terms = [t for p in (case.pod, *case.pods) for a in (p.pod_affinity, p.pod_anti_affinity) if a is not None
             for t in (*a.required_terms, *(w.pod_affinity_term for w in a.preferred_terms))]
    return case.namespaces if any(t.namespace_selector is not None for t in terms) else FrozenMap()


def _with_room(node: Node) -> Node:
    return node if node.allocatable.get(PODS, 0) else replace(node, allocatable=ROOM)


def scenario(case: ScoreCase, go_file: str) -> Scenario | None:
    """The cycle vector of ``case``: the case's namespaces are created where its terms read them
    (:func:`read_namespaces`; one ``cluster_add_namespace`` step each, in name order), the candidates and the failed
    nodes join (every node without allocatable gets :data:`ROOM`), the existing pods are placed through the
    scheduler, the failed nodes are cordoned (so the search rejects them, as Go's test never offers them to Score,
    while PreScore still counts their pods), and the pod's scheduling cycle runs.

    None when the case is :func:`not_portable`, when no order of the existing pods passes the filters, or when the
    search would not find exactly the case's candidates (a candidate the spec's filters reject: Go's Score tests do
    not filter).
    """
    if not_portable(case) is not None:
        return None
    nodes = tuple(_with_room(n) for n in case.all_nodes)
    built = place(nodes, case.pods, read_namespaces(case))
    if built is None:
        return None
    cluster, ops = built
    for node in nodes[len(case.nodes):]:
        cordon = ClusterUpdateNode(replace(node, unschedulable=True))
        cluster, _ = apply_cycle(cluster, cordon)
        ops.append(cordon)
    create = CreatePod(case.pod)
    cluster, _ = apply_cycle(cluster, create)
    decision = cycle_decision(cluster, refreshed_snapshot(cluster), case.pod)
    if set(decision.feasible) != {n.name for n in case.nodes} or not decision.allowed:
        return None
    ops += [create, SchedulePod(case.pod.uid, decision.allowed[0])]
    return go_case("cycle", go_file, case.test, case.name, ops, "score")


def scenarios(cases: list[ScoreCase], go_file: str, plugin: str) -> list[Scenario]:
    """The cycle vector of each case that can be one (:func:`scenario`), with unique ids, and each expected score of
    ``plugin`` recorded in :data:`conformance.ported.common.GO_SCORES` under its vector's id (a case with one
    candidate is chosen unscored, so its decision carries no score to compare)."""
    built = [(c, scenario(c, go_file)) for c in cases]
    kept = [(c, s) for c, s in built if s is not None]
    unique = unique_ids([s for _, s in kept])
    for (case, _), vector in zip(kept, unique, strict=True):
        if len(case.nodes) >= 2:
            GO_SCORES[vector.id] = (plugin, case.want)
    return unique
