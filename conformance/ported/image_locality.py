"""Ported from pkg/scheduler/framework/plugins/imagelocality/image_locality_test.go: a case of
TestImageLocalityPriority. Nodes get room for ten pods, as ``makeImageNode`` does not say (the Go test scores
without filtering)."""

from __future__ import annotations

from typing import Final

from conformance.ported.common import score_case
from conformance.traces import Scenario
from spec.objects import Container, ContainerImage, Node, Pod
from spec.quantities import resource_list

FILE: Final = "framework/plugins/imagelocality/image_locality_test.go"
TEST: Final = "TestImageLocalityPriority"
MB: Final = 1024 * 1024


def _node(name: str, *images: tuple[str, int]) -> Node:
    return Node(name, resource_list(pods=10), images=tuple(ContainerImage((n,), size * MB) for n, size in images))


def scenarios() -> list[Scenario]:
    """"two images on one node, prefer this node": 100 * ((40M + 300M)/2 - 23M) / (1000M * 2 - 23M) = 7."""
    node1 = _node("node1", ("gcr.io/40:latest", 40), ("gcr.io/300:latest", 300), ("gcr.io/2000:latest", 2000))
    node2 = _node("node2", ("gcr.io/250:latest", 250), ("gcr.io/10:latest", 10))
    pod = Pod("pod", "pod", containers=(Container("a", image="gcr.io/40"), Container("b", image="gcr.io/300")))
    return [score_case(FILE, TEST, "two images on one node, prefer this node", [node1, node2], pod, "node1",
                       "ImageLocality", {"node1": 7, "node2": 0})]
