"""The Go tests' object builders (pkg/scheduler/testing/wrappers.go, ``st.MakePod()``, ``st.MakeNode()``), as far
as the ported InterPodAffinity and PodTopologySpread cases use them, so a Go case reads almost the same here.

``PodWrapper`` methods return the wrapper (Go's chaining); ``obj()`` is ``Obj()``. Go's ``MakePod`` has an empty
namespace; the ported cases keep it. A node gets room for 110 pods and ample CPU and memory, so that only the
plugin under test decides in the cycle vectors.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from spec.frozenmap import FrozenMap
from spec.objects import (
    SELECTOR_EXISTS,
    SELECTOR_IN,
    SELECTOR_NOT_IN,
    AffinityTerms,
    Container,
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    Pod,
    PodAffinityTerm,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)
from spec.quantities import resource_list

REQUIRED: Final = "required"
PREFERRED: Final = "preferred"
"""``st.PodAffinityWithRequiredReq``, ``st.PodAffinityWithPreferredReq`` (and the anti-affinity ones)."""


def selector(match_labels: dict[str, str] | None = None,
             *expressions: tuple[str, str, tuple[str, ...]]) -> LabelSelector:
    """A ``metav1.LabelSelector``: ``matchLabels`` and ``(key, operator, values)`` expressions."""
    return LabelSelector(FrozenMap(match_labels or {}),
                         tuple(LabelSelectorRequirement(k, op, v) for k, op, v in expressions))


def exists(key: str) -> LabelSelector:
    """``st.MakeLabelSelector().Exists(key).Obj()``."""
    return selector(None, (key, SELECTOR_EXISTS, ()))


class PodWrapper:
    """``st.PodWrapper``."""

    def __init__(self) -> None:
        self.pod = Pod("", namespace="", containers=(Container("c"),))
        self._affinity: list[PodAffinityTerm] = []
        self._anti: list[PodAffinityTerm] = []
        self._preferred: list[WeightedPodAffinityTerm] = []
        self._preferred_anti: list[WeightedPodAffinityTerm] = []

    def name(self, name: str) -> PodWrapper:
        self.pod = replace(self.pod, name=name, uid=name)
        return self

    def uid(self, uid: str) -> PodWrapper:
        self.pod = replace(self.pod, uid=uid)
        return self

    def namespace(self, namespace: str) -> PodWrapper:
        self.pod = replace(self.pod, namespace=namespace)
        return self

    def node(self, node: str) -> PodWrapper:
        self.pod = replace(self.pod, node_name=node)
        return self

    def label(self, key: str, value: str) -> PodWrapper:
        self.pod = replace(self.pod, labels=self.pod.labels.set(key, value))
        return self

    def labels(self, labels: dict[str, str]) -> PodWrapper:
        for key, value in labels.items():
            self.label(key, value)
        return self

    def node_selector(self, labels: dict[str, str]) -> PodWrapper:
        self.pod = replace(self.pod, node_selector=FrozenMap(labels))
        return self

    def toleration(self, key: str, effect: str = "") -> PodWrapper:
        self.pod = replace(self.pod, tolerations=(*self.pod.tolerations, Toleration(key, "Exists", "", effect)))
        return self

    def _term(self, kind: str, anti: bool, term: PodAffinityTerm, weight: int) -> PodWrapper:
        if kind == REQUIRED:
            (self._anti if anti else self._affinity).append(term)
        else:
            (self._preferred_anti if anti else self._preferred).append(WeightedPodAffinityTerm(weight, term))
        return self

    def pod_affinity(self, topology_key: str, label_selector: LabelSelector | None, kind: str = REQUIRED,
                     weight: int = 1, namespaces: tuple[str, ...] = (),
                     namespace_selector: LabelSelector | None = None) -> PodWrapper:
        """``PodAffinity(topologyKey, labelSelector, kind)`` (required) or a preferred term with ``weight``."""
        return self._term(kind, False, PodAffinityTerm(label_selector, namespaces, topology_key, namespace_selector),
                          weight)

    def pod_anti_affinity(self, topology_key: str, label_selector: LabelSelector | None, kind: str = REQUIRED,
                          weight: int = 1, namespaces: tuple[str, ...] = (),
                          namespace_selector: LabelSelector | None = None) -> PodWrapper:
        """``PodAntiAffinity(...)``."""
        return self._term(kind, True, PodAffinityTerm(label_selector, namespaces, topology_key, namespace_selector),
                          weight)

    def pod_affinity_exists(self, key: str, topology_key: str, kind: str = REQUIRED) -> PodWrapper:
        """``PodAffinityExists(labelKey, topologyKey, kind)``."""
        return self.pod_affinity(topology_key, exists(key), kind)

    def pod_anti_affinity_exists(self, key: str, topology_key: str, kind: str = REQUIRED) -> PodWrapper:
        """``PodAntiAffinityExists(labelKey, topologyKey, kind)``."""
        return self.pod_anti_affinity(topology_key, exists(key), kind)

    def pod_affinity_in(self, key: str, topology_key: str, values: tuple[str, ...], kind: str = REQUIRED) -> PodWrapper:
        """``PodAffinityIn(labelKey, topologyKey, values, kind)``."""
        return self.pod_affinity(topology_key, selector(None, (key, SELECTOR_IN, values)), kind)

    def pod_affinity_not_in(self, key: str, topology_key: str, values: tuple[str, ...],
                            kind: str = REQUIRED) -> PodWrapper:
        """``PodAffinityNotIn(labelKey, topologyKey, values, kind)``."""
        return self.pod_affinity(topology_key, selector(None, (key, SELECTOR_NOT_IN, values)), kind)

    def pod_anti_affinity_in(self, key: str, topology_key: str, values: tuple[str, ...],
                             kind: str = REQUIRED) -> PodWrapper:
        """``PodAntiAffinityIn(labelKey, topologyKey, values, kind)``."""
        return self.pod_anti_affinity(topology_key, selector(None, (key, SELECTOR_IN, values)), kind)

    def pod_anti_affinity_not_in(self, key: str, topology_key: str, values: tuple[str, ...],
                                 kind: str = REQUIRED) -> PodWrapper:
        """``PodAntiAffinityNotIn(labelKey, topologyKey, values, kind)``."""
        return self.pod_anti_affinity(topology_key, selector(None, (key, SELECTOR_NOT_IN, values)), kind)

    def spread_constraint(self, max_skew: int, topology_key: str, action: str, label_selector: LabelSelector | None,
                          min_domains: int | None = None, node_affinity_policy: str | None = None,
                          node_taints_policy: str | None = None,
                          match_label_keys: tuple[str, ...] | None = ()) -> PodWrapper:
        """``SpreadConstraint(maxSkew, tpKey, mode, selector, minDomains, nodeAffinityPolicy, nodeTaintsPolicy,
        matchLabelKeys)``."""
        constraint = TopologySpreadConstraint(max_skew, topology_key, action, label_selector, min_domains,
                                              node_affinity_policy, node_taints_policy, tuple(match_label_keys or ()))
        self.pod = replace(self.pod, topology_spread_constraints=(*self.pod.topology_spread_constraints, constraint))
        return self

    def obj(self) -> Pod:
        """``Obj()``: the pod, with a PodAffinity/PodAntiAffinity only where terms were added."""
        pod = self.pod
        if self._affinity or self._preferred:
            pod = replace(pod, pod_affinity=AffinityTerms(required_terms=tuple(self._affinity),
                                                          preferred_terms=tuple(self._preferred)))
        if self._anti or self._preferred_anti:
            pod = replace(pod, pod_anti_affinity=AffinityTerms(required_terms=tuple(self._anti),
                                                               preferred_terms=tuple(self._preferred_anti)))
        return pod


def make_pod() -> PodWrapper:
    """``st.MakePod()``."""
    return PodWrapper()


class NodeWrapper:
    """``st.NodeWrapper``."""

    def __init__(self) -> None:
        self.node = Node("", resource_list(cpu=32000, memory=64 * 2**30, pods=110))

    def name(self, name: str) -> NodeWrapper:
        self.node = replace(self.node, name=name)
        return self

    def label(self, key: str, value: str) -> NodeWrapper:
        self.node = replace(self.node, labels=self.node.labels.set(key, value))
        return self

    def labels(self, labels: dict[str, str]) -> NodeWrapper:
        for key, value in labels.items():
            self.label(key, value)
        return self

    def taints(self, taints: tuple[Taint, ...]) -> NodeWrapper:
        self.node = replace(self.node, taints=taints)
        return self

    def obj(self) -> Node:
        return self.node


def make_node() -> NodeWrapper:
    """``st.MakeNode()``."""
    return NodeWrapper()
