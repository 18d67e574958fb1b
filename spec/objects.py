"""The Kubernetes API objects the scheduler cache reads, as frozen value types.

Only the fields the cache, NodeInfo, node tree, image states and snapshot look at are modelled
(k8s.io/api/core/v1 types.go). Every field that Kubernetes represents as a pointer whose nil-ness
matters (for example ``Affinity.PodAffinity``) stays an ``Optional`` here, because the cache's
behaviour depends on nil versus empty.
"""

from __future__ import annotations

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


@cached_hash
@dataclass(frozen=True)
class AffinityTerms:
    """A non-nil ``v1.PodAffinity`` or ``v1.PodAntiAffinity``, reduced to how many terms it has.

    The cache only asks whether the struct is present and whether it has required terms
    (``podWithAffinity``, ``podWithRequiredAntiAffinity`` in framework/types.go).
    """

    required: int = 0
    """Number of ``RequiredDuringSchedulingIgnoredDuringExecution`` terms."""
    preferred: int = 0
    """Number of ``PreferredDuringSchedulingIgnoredDuringExecution`` terms."""


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
    node_selector: FrozenMap[str, str] = field(default_factory=FrozenMap)
    """``Spec.NodeSelector``: labels a node must carry (the NodeAffinity filter)."""
    tolerations: tuple[Toleration, ...] = ()
    """``Spec.Tolerations`` (the TaintToleration and NodeUnschedulable filters)."""
    pvc_claims: tuple[str, ...] = ()
    """Claim names of the pod's ``PersistentVolumeClaim`` volumes, one entry per volume."""
    priority: int = 0
    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    labels: FrozenMap[str, str] = field(default_factory=FrozenMap)
    """``ObjectMeta.Labels`` (what a PodDisruptionBudget's selector matches)."""
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
