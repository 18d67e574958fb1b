"""Resource names, resource lists and time, as exact integers.

Kubernetes stores quantities as ``resource.Quantity``; the scheduler reads CPU with
``MilliValue()`` and everything else with ``Value()`` (k8s.io/kubernetes
pkg/scheduler/framework/types.go, ``Resource.Add``). The spec stores each quantity directly in
that unit, so no float ever appears: CPU in millicores, memory and storage in bytes, pods and
extended resources as counts.

Time is an integer count of nanoseconds, like Go's ``time.Duration``.
"""

from __future__ import annotations

import re
from typing import Final

from spec.frozenmap import FrozenMap

# --------------------------------------------------------------------------------------------
# Resource names (k8s.io/api/core/v1 types.go)
# --------------------------------------------------------------------------------------------

CPU: Final = "cpu"
"""``v1.ResourceCPU``; quantities in millicores."""
MEMORY: Final = "memory"
"""``v1.ResourceMemory``; quantities in bytes."""
EPHEMERAL_STORAGE: Final = "ephemeral-storage"
"""``v1.ResourceEphemeralStorage``; quantities in bytes."""
PODS: Final = "pods"
"""``v1.ResourcePods``; a node's pod capacity."""

HUGEPAGES_PREFIX: Final = "hugepages-"
"""``v1.ResourceHugePagesPrefix``."""
ATTACHABLE_VOLUMES_PREFIX: Final = "attachable-volumes-"
"""``v1.ResourceAttachableVolumesPrefix``."""
DEFAULT_RESOURCE_REQUESTS_PREFIX: Final = "requests."
"""``v1.DefaultResourceRequestsPrefix``."""
NATIVE_RESOURCE_DOMAIN: Final = "kubernetes.io/"
"""Names containing this are "prefixed native" resources (``v1helper.IsPrefixedNativeResource``)."""

ResourceList = FrozenMap[str, int]
"""``v1.ResourceList`` with every quantity in its scheduler unit (see the module docstring)."""

EMPTY_RESOURCES: Final[ResourceList] = FrozenMap()


def resource_list(**quantities: int) -> ResourceList:
    """Build a ResourceList from keyword arguments; ``ephemeral_storage`` stands for ``ephemeral-storage``.

    Fails with ``ValueError`` on a negative quantity (the API server rejects those).
    """
    items = {name.replace("_", "-"): value for name, value in quantities.items()}
    return resources_from(items)


def resources_from(items: dict[str, int] | ResourceList) -> ResourceList:
    """Build a ResourceList from a mapping of resource name to quantity.

    Fails with ``ValueError`` naming the resource when a quantity is negative or not an integer.
    """
    for name, value in items.items():
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"resource {name!r}: quantity must be an integer, got {value!r}")
        if value < 0:
            raise ValueError(f"resource {name!r}: quantity must not be negative, got {value}")
    return FrozenMap(items)


# --------------------------------------------------------------------------------------------
# Resource name classes (k8s.io/kubernetes pkg/apis/core/v1/helper/helpers.go,
# pkg/scheduler/util/utils.go IsScalarResourceName)
# --------------------------------------------------------------------------------------------

_QUALIFIED_NAME = re.compile(
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
    r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$"
)


def is_prefixed_native_resource(name: str) -> bool:
    """``IsPrefixedNativeResource``: the name contains ``kubernetes.io/``."""
    return NATIVE_RESOURCE_DOMAIN in name


def is_native_resource(name: str) -> bool:
    """``IsNativeResource``: the name has no domain, or a ``kubernetes.io/`` one."""
    return "/" not in name or is_prefixed_native_resource(name)


def is_extended_resource_name(name: str) -> bool:
    """``IsExtendedResourceName``: a non-native, domain-qualified name, valid as ``requests.<name>``."""
    if is_native_resource(name) or name.startswith(DEFAULT_RESOURCE_REQUESTS_PREFIX):
        return False
    return _QUALIFIED_NAME.match(DEFAULT_RESOURCE_REQUESTS_PREFIX + name) is not None


def is_hugepage_resource_name(name: str) -> bool:
    """``IsHugePageResourceName``: the name starts with ``hugepages-``."""
    return name.startswith(HUGEPAGES_PREFIX)


def is_attachable_volume_resource_name(name: str) -> bool:
    """``IsAttachableVolumeResourceName``: the name starts with ``attachable-volumes-``."""
    return name.startswith(ATTACHABLE_VOLUMES_PREFIX)


def is_scalar_resource_name(name: str) -> bool:
    """``schedutil.IsScalarResourceName``: extended, hugepages, prefixed native or attachable volumes.

    These are the names the scheduler keeps in ``Resource.ScalarResources``.
    """
    return (
        is_extended_resource_name(name)
        or is_hugepage_resource_name(name)
        or is_prefixed_native_resource(name)
        or is_attachable_volume_resource_name(name)
    )


# --------------------------------------------------------------------------------------------
# Time
# --------------------------------------------------------------------------------------------

Timestamp = int
"""A point in time, in nanoseconds since an arbitrary origin."""
Duration = int
"""A length of time in nanoseconds, like Go's ``time.Duration``."""

NANOSECOND: Final[Duration] = 1
MILLISECOND: Final[Duration] = 1_000_000
SECOND: Final[Duration] = 1_000_000_000
