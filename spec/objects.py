"""The Kubernetes API objects the scheduler cache reads, as frozen value types.

Only the fields the cache, NodeInfo, node tree, image states and snapshot look at are modelled
(k8s.io/api/core/v1 types.go). Every field that Kubernetes represents as a pointer whose nil-ness
matters (for example ``Affinity.PodAffinity``) stays an ``Optional`` here, because the cache's
behaviour depends on nil versus empty.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from spec.frozenmap import FrozenMap
from spec.quantities import EMPTY_RESOURCES, ResourceList
from spec.valuetypes import cached_hash, replace

# --------------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------------

RESTART_POLICY_ALWAYS: Final = "Always"
"""``v1.ContainerRestartPolicyAlways``: on an init container it makes a restartable sidecar."""

PROTOCOL_TCP: Final = "TCP"
PROTOCOL_UDP: Final = "UDP"
PROTOCOL_SCTP: Final = "SCTP"

DEFAULT_SCHEDULER_NAME: Final = "default-scheduler"
"""``v1.DefaultSchedulerName``."""

LABEL_TOPOLOGY_ZONE: Final = "topology.kubernetes.io/zone"
LABEL_TOPOLOGY_REGION: Final = "topology.kubernetes.io/region"
LABEL_FAILURE_DOMAIN_BETA_ZONE: Final = "failure-domain.beta.kubernetes.io/zone"
"""Deprecated, but still read first by ``GetZoneKey`` (errata 6)."""
LABEL_FAILURE_DOMAIN_BETA_REGION: Final = "failure-domain.beta.kubernetes.io/region"
LABEL_HOSTNAME: Final = "kubernetes.io/hostname"

PREEMPT_LOWER_PRIORITY: Final = "PreemptLowerPriority"
"""``v1.PreemptLowerPriority``: the default ``Spec.PreemptionPolicy`` (nil means this)."""
PREEMPT_NEVER: Final = "Never"
"""``v1.PreemptNever``: the pod never preempts others (it still waits its turn by priority)."""


# --------------------------------------------------------------------------------------------
# Pods
# --------------------------------------------------------------------------------------------


@cached_hash
@dataclass(frozen=True)
class ContainerPort:
    """``v1.ContainerPort``. Only ports with ``host_port > 0`` occupy a node's host port."""

    container_port: int
    host_port: int = 0
    protocol: str = ""
    """Empty means TCP (``HostPortInfo`` sanitises it)."""
    host_ip: str = ""
    """Empty means 0.0.0.0 (``HostPortInfo`` sanitises it)."""


@cached_hash
@dataclass(frozen=True)
class Container:
    """``v1.Container``: requests, ports, image and, for init containers, the restart policy."""

    name: str
    requests: ResourceList = EMPTY_RESOURCES
    ports: tuple[ContainerPort, ...] = ()
    image: str = ""
    restart_policy: str | None = None
    """``Always`` on an init container makes it a restartable (sidecar) container."""

    @property
    def is_restartable_init_container(self) -> bool:
        """True for a sidecar: an init container whose restart policy is ``Always``."""
        return self.restart_policy == RESTART_POLICY_ALWAYS


# --------------------------------------------------------------------------------------------
# Label selectors and inter-pod affinity terms
# --------------------------------------------------------------------------------------------

SELECTOR_IN: Final = "In"
SELECTOR_NOT_IN: Final = "NotIn"
SELECTOR_EXISTS: Final = "Exists"
SELECTOR_DOES_NOT_EXIST: Final = "DoesNotExist"
SELECTOR_OPERATORS: Final = (SELECTOR_IN, SELECTOR_NOT_IN, SELECTOR_EXISTS, SELECTOR_DOES_NOT_EXIST)
"""``metav1.LabelSelectorOperator``: the operators ``LabelSelectorAsSelector`` accepts."""


@cached_hash
@dataclass(frozen=True)
class LabelSelectorRequirement:
    """``metav1.LabelSelectorRequirement``: ``key operator (values)``.

    Fails with ``ValueError`` where ``metav1.LabelSelectorAsSelector`` fails: an unknown operator, ``In`` or
    ``NotIn`` without values, ``Exists`` or ``DoesNotExist`` with values (API validation rejects such pods).
    """

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.operator not in SELECTOR_OPERATORS:
            raise ValueError(f"label selector requirement {self.key!r}: operator {self.operator!r} is not one of "
                             f"{', '.join(SELECTOR_OPERATORS)}")
        if self.operator in (SELECTOR_IN, SELECTOR_NOT_IN) and not self.values:
            raise ValueError(f"label selector requirement {self.key!r}: operator {self.operator} needs values")
        if self.operator in (SELECTOR_EXISTS, SELECTOR_DOES_NOT_EXIST) and self.values:
            raise ValueError(f"label selector requirement {self.key!r}: operator {self.operator} takes no values")

    def matches(self, labels: Mapping[str, str]) -> bool:
        """``labels.Requirement.Matches``: In needs the label with one of the values; NotIn is true when the label
        is absent or has none of them; Exists and DoesNotExist ask only whether the label is there."""
        if self.operator == SELECTOR_IN:
            return self.key in labels and labels[self.key] in self.values
        if self.operator == SELECTOR_NOT_IN:
            return self.key not in labels or labels[self.key] not in self.values
        if self.operator == SELECTOR_EXISTS:
            return self.key in labels
        return self.key not in labels


@cached_hash
@dataclass(frozen=True)
class LabelSelector:
    """``metav1.LabelSelector``. Where Kubernetes takes a pointer, the spec uses ``LabelSelector | None``: a nil
    selector (None) matches nothing (``labels.Nothing()``), an empty one (``LabelSelector()``) everything."""

    match_labels: FrozenMap[str, str] = field(default_factory=FrozenMap)
    match_expressions: tuple[LabelSelectorRequirement, ...] = ()

    def is_empty(self) -> bool:
        """``Selector.Empty()`` of ``LabelSelectorAsSelector(self)``: no requirement, so it matches everything."""
        return not self.match_labels and not self.match_expressions

    def matches(self, labels: Mapping[str, str]) -> bool:
        """``LabelSelectorAsSelector(self).Matches(labels)``: every label and every expression matches."""
        return (all(labels.get(k) == v for k, v in self.match_labels.items())
                and all(e.matches(labels) for e in self.match_expressions))


def selector_matches(selector: LabelSelector | None, labels: Mapping[str, str]) -> bool:
    """Whether ``selector`` (None: nil, which matches nothing) selects ``labels``."""
    return selector is not None and selector.matches(labels)


@cached_hash
@dataclass(frozen=True)
class PodAffinityTerm:
    """``v1.PodAffinityTerm``. The zero value (``PodAffinityTerm()``) is Go's ``v1.PodAffinityTerm{}``: a nil
    selector (matches no pod), the owning pod's namespace, and an empty topology key (no node has it)."""

    label_selector: LabelSelector | None = None
    namespaces: tuple[str, ...] = ()
    topology_key: str = ""
    namespace_selector: LabelSelector | None = None
    """None is nil: only ``namespaces`` (or the pod's own namespace) count; ``LabelSelector()`` is every namespace."""
    match_label_keys: tuple[str, ...] = ()
    """Keys of the owning pod's labels merged into ``label_selector`` as ``key In (value)`` by the API server at
    creation (``applyMatchLabelKeysAndMismatchLabelKeys``, pkg/registry/core/pod/strategy.go); the scheduler does not
    read it."""
    mismatch_label_keys: tuple[str, ...] = ()
    """As :attr:`match_label_keys`, merged as ``key NotIn (value)``."""


@cached_hash
@dataclass(frozen=True)
class WeightedPodAffinityTerm:
    """``v1.WeightedPodAffinityTerm``: a preferred term and its weight (1-100 in valid pods)."""

    weight: int = 0
    pod_affinity_term: PodAffinityTerm = field(default_factory=PodAffinityTerm)


@cached_hash
@dataclass(frozen=True)
class AffinityTerms:
    """A non-nil ``v1.PodAffinity`` or ``v1.PodAntiAffinity``: its required and preferred terms.

    The cache only asks whether the struct is present and whether it has required terms
    (``podWithAffinity``, ``podWithRequiredAntiAffinity`` in framework/types.go), so :attr:`required` and
    :attr:`preferred` count the terms. The terms themselves are :attr:`required_terms` and :attr:`preferred_terms`;
    when those are left empty, the counts stand for that many zero-valued terms (``v1.PodAffinityTerm{}``, see
    :class:`PodAffinityTerm`), which is how the cache's vectors, written before the terms were modelled, read.

    Fails with ``ValueError`` if terms are given and a count disagrees with their number (a count left at 0 is
    filled in from the terms).
    """

    required: int = 0
    """Number of ``RequiredDuringSchedulingIgnoredDuringExecution`` terms."""
    preferred: int = 0
    """Number of ``PreferredDuringSchedulingIgnoredDuringExecution`` terms."""
    required_terms: tuple[PodAffinityTerm, ...] = ()
    preferred_terms: tuple[WeightedPodAffinityTerm, ...] = ()

    def __post_init__(self) -> None:
        for count, terms, what in ((self.required, self.required_terms, "required"),
                                   (self.preferred, self.preferred_terms, "preferred")):
            if terms and count == 0:
                object.__setattr__(self, what, len(terms))
            elif terms and count != len(terms):
                raise ValueError(f"AffinityTerms: {what}={count} but {len(terms)} {what}_terms given")

    def required_affinity_terms(self) -> tuple[PodAffinityTerm, ...]:
        """The required terms: :attr:`required_terms`, or :attr:`required` zero-valued terms if none are given."""
        return self.required_terms or (PodAffinityTerm(),) * self.required

    def preferred_affinity_terms(self) -> tuple[WeightedPodAffinityTerm, ...]:
        """The preferred terms: :attr:`preferred_terms`, or :attr:`preferred` zero-valued terms if none are given."""
        return self.preferred_terms or (WeightedPodAffinityTerm(),) * self.preferred


def pod_affinity(required: tuple[PodAffinityTerm, ...] = (),
                 preferred: tuple[WeightedPodAffinityTerm, ...] = ()) -> AffinityTerms:
    """A ``v1.PodAffinity`` (or ``v1.PodAntiAffinity``) with these terms."""
    return AffinityTerms(required_terms=required, preferred_terms=preferred)


# --------------------------------------------------------------------------------------------
# Node selector terms (node affinity)
# --------------------------------------------------------------------------------------------

NODE_SELECTOR_GT: Final = "Gt"
NODE_SELECTOR_LT: Final = "Lt"
NODE_SELECTOR_OPERATORS: Final = (*SELECTOR_OPERATORS, NODE_SELECTOR_GT, NODE_SELECTOR_LT)
"""``v1.NodeSelectorOperator``: the operators a node selector term's ``matchExpressions`` accept
(``validSelectorOperators``, k8s.io/component-helpers/scheduling/corev1/nodeaffinity)."""
NODE_FIELD_OPERATORS: Final = (SELECTOR_IN, SELECTOR_NOT_IN)
"""The operators a term's ``matchFields`` accept (``validFieldSelectorOperators``)."""
NODE_NAME_FIELD: Final = "metadata.name"
"""The one node field a term can select by (``extractNodeFields``)."""
_INT64: Final = re.compile(r"[+-]?[0-9]+")


def parse_int64(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``: the integer, or None where Go fails (not decimal, or outside int64)."""
    if not _INT64.fullmatch(text):
        return None
    value = int(text)
    return value if -(2**63) <= value < 2**63 else None


@cached_hash
@dataclass(frozen=True)
class NodeSelectorRequirement:
    """``v1.NodeSelectorRequirement``: ``key operator (values)``, over a node's labels (``matchExpressions``) or
    its fields (``matchFields``).

    Fails with ``ValueError`` where ``labels.NewRequirement`` fails (API validation rejects such pods): an unknown
    operator, ``In`` or ``NotIn`` without values, ``Exists`` or ``DoesNotExist`` with values, ``Gt`` or ``Lt``
    without exactly one value that is a decimal int64. Keys and values are not checked as label syntax.
    """

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.operator not in NODE_SELECTOR_OPERATORS:
            raise ValueError(f"node selector requirement {self.key!r}: operator {self.operator!r} is not one of "
                             f"{', '.join(NODE_SELECTOR_OPERATORS)}")
        if self.operator in (SELECTOR_IN, SELECTOR_NOT_IN) and not self.values:
            raise ValueError(f"node selector requirement {self.key!r}: operator {self.operator} needs values")
        if self.operator in (SELECTOR_EXISTS, SELECTOR_DOES_NOT_EXIST) and self.values:
            raise ValueError(f"node selector requirement {self.key!r}: operator {self.operator} takes no values")
        if self.operator in (NODE_SELECTOR_GT, NODE_SELECTOR_LT) and (
                len(self.values) != 1 or parse_int64(self.values[0]) is None):
            raise ValueError(f"node selector requirement {self.key!r}: operator {self.operator} needs exactly one "
                             f"integer value, got {list(self.values)}")

    def matches(self, labels: Mapping[str, str]) -> bool:
        """``labels.Requirement.Matches``: In, NotIn, Exists and DoesNotExist as for a label selector
        (:meth:`LabelSelectorRequirement.matches`); Gt and Lt need the label, parsed as an int64, greater (less)
        than the value (a label that does not parse does not match).

        Kubernetes: `Requirement.Matches` (k8s.io/apimachinery/pkg/labels/selector.go)
        """
        if self.operator in (NODE_SELECTOR_GT, NODE_SELECTOR_LT):
            found = parse_int64(labels[self.key]) if self.key in labels else None
            if found is None:
                return False
            bound = parse_int64(self.values[0])
            assert bound is not None, "checked at construction"
            return found > bound if self.operator == NODE_SELECTOR_GT else found < bound
        return LabelSelectorRequirement(self.key, self.operator, self.values).matches(labels)

    def matches_field(self, fields: Mapping[str, str]) -> bool:
        """A ``matchFields`` requirement over ``fields``: In is ``OneTermEqualSelector``, NotIn
        ``OneTermNotEqualSelector`` (an absent field reads as "").

        Kubernetes: `nodeSelectorRequirementsAsFieldSelector` (component-helpers/scheduling/corev1/nodeaffinity)
        """
        value = fields.get(self.key, "")
        return value == self.values[0] if self.operator == SELECTOR_IN else value != self.values[0]


@cached_hash
@dataclass(frozen=True)
class NodeSelectorTerm:
    """``v1.NodeSelectorTerm``: every expression over the node's labels and every field requirement must hold.

    Fails with ``ValueError`` where ``newNodeSelectorTerm`` records a parse error: a ``matchFields`` requirement
    whose operator is not In or NotIn, or that has not exactly one value.
    """

    match_expressions: tuple[NodeSelectorRequirement, ...] = ()
    match_fields: tuple[NodeSelectorRequirement, ...] = ()

    def __post_init__(self) -> None:
        for r in self.match_fields:
            if r.operator not in NODE_FIELD_OPERATORS or len(r.values) != 1:
                raise ValueError(f"node selector term field {r.key!r}: operator {r.operator} with "
                                 f"{len(r.values)} values; matchFields takes In or NotIn with one value")

    def is_empty(self) -> bool:
        """``isEmptyNodeSelectorTerm``: no expression and no field requirement (such a term selects nothing)."""
        return not self.match_expressions and not self.match_fields

    def matches(self, node: Node) -> bool:
        """``nodeSelectorTerm.match``: the expressions (if any) match the node's labels, and the field requirements
        (if any, and only if the node has a name) its fields (``metadata.name``).

        Kubernetes: `nodeSelectorTerm.match` (k8s.io/component-helpers/scheduling/corev1/nodeaffinity)
        """
        if not all(r.matches(node.labels) for r in self.match_expressions):
            return False
        fields = {NODE_NAME_FIELD: node.name} if node.name else {}
        return not fields or all(r.matches_field(fields) for r in self.match_fields)


@cached_hash
@dataclass(frozen=True)
class PreferredSchedulingTerm:
    """``v1.PreferredSchedulingTerm``: a node selector term and its weight (1-100 in valid pods)."""

    weight: int = 0
    preference: NodeSelectorTerm = field(default_factory=NodeSelectorTerm)


# --------------------------------------------------------------------------------------------
# Topology spread constraints
# --------------------------------------------------------------------------------------------

DO_NOT_SCHEDULE: Final = "DoNotSchedule"
SCHEDULE_ANYWAY: Final = "ScheduleAnyway"
"""``v1.UnsatisfiableConstraintAction``."""
NODE_INCLUSION_HONOR: Final = "Honor"
NODE_INCLUSION_IGNORE: Final = "Ignore"
"""``v1.NodeInclusionPolicy``."""


@cached_hash
@dataclass(frozen=True)
class TopologySpreadConstraint:
    """``v1.TopologySpreadConstraint``. None stands for Go's nil pointer where the API has one (``MinDomains``,
    ``NodeAffinityPolicy``, ``NodeTaintsPolicy``) and for a nil ``LabelSelector`` (matches no pod)."""

    max_skew: int
    topology_key: str
    when_unsatisfiable: str = DO_NOT_SCHEDULE
    label_selector: LabelSelector | None = None
    min_domains: int | None = None
    node_affinity_policy: str | None = None
    node_taints_policy: str | None = None
    match_label_keys: tuple[str, ...] = ()


@cached_hash
@dataclass(frozen=True)
class Toleration:
    """``v1.Toleration``. An empty key with ``Exists`` tolerates every taint; an empty effect matches all."""

    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""


@cached_hash
@dataclass(frozen=True)
class Pod:
    """``v1.Pod``, as far as the scheduler cache reads it.

    The cache identifies a pod by ``uid`` only (``GetPodKey``); namespace and name appear only
    in error messages and PVC keys.
    """

    uid: str
    name: str = ""
    namespace: str = "default"
    node_name: str = ""
    """``Spec.NodeName``; the scheduler sets it to the chosen node before ``AssumePod``."""
    containers: tuple[Container, ...] = ()
    init_containers: tuple[Container, ...] = ()
    overhead: ResourceList = EMPTY_RESOURCES
    """``Spec.Overhead``, added to the requests."""
    pod_level_requests: ResourceList = EMPTY_RESOURCES
    """``Spec.Resources.Requests`` (pod-level resources, KEP-2837)."""
    pod_affinity: AffinityTerms | None = None
    """``Spec.Affinity.PodAffinity``; None when nil."""
    pod_anti_affinity: AffinityTerms | None = None
    """``Spec.Affinity.PodAntiAffinity``; None when nil."""
    has_node_affinity: bool = False
    """Whether ``Spec.Affinity.NodeAffinity`` is set (the cache does not read it)."""
    preferred_node_affinity: tuple[PreferredSchedulingTerm, ...] | None = None
    """``Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution``; None when nil (an empty tuple
    is a non-nil empty list: NodeAffinity's PreScore then does not skip). Terms imply a set NodeAffinity, whatever
    :attr:`has_node_affinity` says."""
    node_selector: FrozenMap[str, str] = field(default_factory=FrozenMap)
    """``Spec.NodeSelector``: labels a node must carry (the NodeAffinity filter)."""
    tolerations: tuple[Toleration, ...] = ()
    """``Spec.Tolerations`` (the TaintToleration and NodeUnschedulable filters)."""
    pvc_claims: tuple[str, ...] = ()
    """Claim names of the pod's ``PersistentVolumeClaim`` volumes, one entry per volume."""
    priority: int = 0
    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    labels: FrozenMap[str, str] = field(default_factory=FrozenMap)
    """``ObjectMeta.Labels`` (InterPodAffinity and PodTopologySpread select pods by them, and a PodDisruptionBudget's
    selector matches them)."""
    topology_spread_constraints: tuple[TopologySpreadConstraint, ...] = ()
    """``Spec.TopologySpreadConstraints``."""
    preemption_policy: str = PREEMPT_LOWER_PRIORITY
    """``Spec.PreemptionPolicy``: :data:`PREEMPT_LOWER_PRIORITY` (the default) or :data:`PREEMPT_NEVER`."""
    scheduling_gates: tuple[str, ...] = ()
    """The names of ``Spec.SchedulingGates``: while any is left the pod is not scheduled (PreEnqueue)."""
    nominated_node_name: str = ""
    """``Status.NominatedNodeName``: the node preemption made room on for this pod, or ""."""
    start_time: int | None = None
    """``Status.StartTime`` (ns); None until the kubelet started the pod (preemption then reads "now")."""
    terminating: bool = False
    """``DeletionTimestamp`` is set: the pod is being deleted (gracefully) but still holds its node."""
    preempted_by_scheduler: bool = False
    """The pod carries the ``DisruptionTarget`` condition, status True, reason ``PreemptionByScheduler``."""

    @property
    def images(self) -> tuple[str, ...]:
        """The images of all containers, init containers first."""
        return tuple(c.image for c in self.init_containers + self.containers if c.image)


def with_node_name(pod: Pod, node_name: str) -> Pod:
    """Return ``pod`` with ``Spec.NodeName`` set, as the scheduler does before assuming it."""
    return replace(pod, node_name=node_name)


def klog_kobj(pod: Pod) -> str:
    """``klog.KObj(pod)`` as printed: ``namespace/name``, or ``name`` when the namespace is empty."""
    return f"{pod.namespace}/{pod.name}" if pod.namespace else pod.name


def pvc_key(namespace: str, claim: str) -> str:
    """``GetNamespacedName``: the key of a PVC in ``PVCRefCounts`` and the used-PVC set."""
    return f"{namespace}/{claim}"


@cached_hash
@dataclass(frozen=True)
class PodDisruptionBudget:
    """``policy/v1.PodDisruptionBudget``, as preemption reads it: its namespace, a label selector given as
    ``matchLabels`` (None: a nil selector; empty: an empty one; both match no pod), how many disruptions it still
    allows, and the pods the API server already counted as disrupted (by name)."""

    name: str
    namespace: str = "default"
    selector: FrozenMap[str, str] | None = None
    """``Spec.Selector.MatchLabels``."""
    disruptions_allowed: int = 0
    """``Status.DisruptionsAllowed``."""
    disrupted_pods: frozenset[str] = frozenset()
    """The names in ``Status.DisruptedPods``."""


# --------------------------------------------------------------------------------------------
# Nodes
# --------------------------------------------------------------------------------------------


@cached_hash
@dataclass(frozen=True)
class Taint:
    """``v1.Taint``."""

    key: str
    value: str = ""
    effect: str = "NoSchedule"


@cached_hash
@dataclass(frozen=True)
class ContainerImage:
    """``v1.ContainerImage`` from ``Node.Status.Images``: an image's names and its size."""

    names: tuple[str, ...]
    size_bytes: int


@cached_hash
@dataclass(frozen=True)
class Node:
    """``v1.Node``, as far as the scheduler cache reads it."""

    name: str
    allocatable: ResourceList = EMPTY_RESOURCES
    """``Status.Allocatable``, including ``pods`` and extended resources."""
    labels: FrozenMap[str, str] = field(default_factory=FrozenMap)
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    images: tuple[ContainerImage, ...] = ()
    """``Status.Images``."""


@cached_hash
@dataclass(frozen=True)
class Namespace:
    """``v1.Namespace``: its name and labels (an affinity term's ``namespaceSelector`` selects namespaces by them)."""

    name: str
    labels: FrozenMap[str, str] = field(default_factory=FrozenMap)
