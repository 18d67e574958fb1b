"""Builders for the pod and node shapes the curated scenarios, the ported Kubernetes tests and the universes use.

Requests are given in the scheduler's units (millicores, bytes, counts); names that are not Python identifiers
(``example.com/gpu``, ``hugepages-2Mi``) go in ``extra``. Nothing here computes an expectation: the generator runs
the spec on these objects.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from spec.frozenmap import FrozenMap
from spec.objects import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
    RESTART_POLICY_ALWAYS,
    Container,
    ContainerImage,
    ContainerPort,
    Node,
)
from spec.quantities import ResourceList, resources_from

KI: Final = 2**10
MI: Final = 2**20
GI: Final = 2**30


def requests(cpu: int | None = None, memory: int | None = None, extra: Mapping[str, int] | None = None) -> ResourceList:
    """A ResourceList; ``None`` leaves a resource out (which differs from an explicit 0)."""
    items = {name: value for name, value in (("cpu", cpu), ("memory", memory)) if value is not None}
    return resources_from({**items, **(extra or {})})


def container(name: str = "c", cpu: int | None = None, memory: int | None = None, *,
              extra: Mapping[str, int] | None = None, ports: tuple[ContainerPort, ...] = (),
              image: str = "", sidecar: bool = False) -> Container:
    """A container (an init container is a sidecar with ``sidecar``: restart policy Always)."""
    return Container(name, requests(cpu, memory, extra), ports, image,
                     RESTART_POLICY_ALWAYS if sidecar else None)


def host_port(port: int, protocol: str = "", host_ip: str = "", container_port: int = 0) -> ContainerPort:
    """A container port bound to ``port`` on the host (0: not bound)."""
    return ContainerPort(container_port or port or 80, port, protocol, host_ip)


def zone_labels(zone: str = "", region: str = "", beta_zone: str | None = None,
                beta_region: str | None = None, **other: str) -> FrozenMap[str, str]:
    """Node labels: GA zone and region, the deprecated beta ones where given, and any others."""
    labels = dict(other)
    for key, value in ((LABEL_TOPOLOGY_ZONE, zone), (LABEL_TOPOLOGY_REGION, region)):
        if value:
            labels[key] = value
    for key, beta in ((LABEL_FAILURE_DOMAIN_BETA_ZONE, beta_zone), (LABEL_FAILURE_DOMAIN_BETA_REGION, beta_region)):
        if beta is not None:
            labels[key] = beta
    return FrozenMap(labels)


def node(name: str, cpu: int = 4000, memory: int = 8 * GI, pods: int = 110, *,
         labels: FrozenMap[str, str] | None = None, images: tuple[ContainerImage, ...] = (),
         extra: Mapping[str, int] | None = None) -> Node:
    """A node with the given Allocatable, labels and images."""
    allocatable = resources_from({"cpu": cpu, "memory": memory, "pods": pods, **(extra or {})})
    return Node(name, allocatable, labels or FrozenMap(), images=images)
