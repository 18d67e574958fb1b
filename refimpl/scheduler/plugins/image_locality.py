"""ImageLocality: favour nodes that already hold the pod's images (plugins/imagelocality/image_locality.go, v1.35).

Each image of an init container or container that the node holds counts its size scaled by how many of the
cluster's nodes hold it (``size * numNodes / totalNodes``, against the "node heating" problem); the sum, clamped to
[23 MiB, 1000 MiB * number of containers], is mapped linearly onto [0, 100].
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Final

from refimpl.cache import ImageStateSummary, NodeInfo
from refimpl.scheduler.framework import (
    MAX_NODE_SCORE,
    CycleState,
    Handle,
    ScorePlugin,
    SignFragment,
    SignPlugin,
    Status,
)
from refimpl.scheduler.framework.node_slice import columns_of, gather
from spec.objects import Pod

NAME: Final = "ImageLocality"
MB: Final = 1024 * 1024
MIN_THRESHOLD: Final = 23 * MB
"""``minThreshold``: below this the score is 0."""
MAX_CONTAINER_THRESHOLD: Final = 1000 * MB
"""``maxContainerThreshold``: per container; at or above the product the score is 100."""
SIGNATURE_KEY: Final = "v1.Pod.Spec.CanonicalImageNames()"


def normalized_image_name(name: str) -> str:
    """``normalizedImageName``: append ":latest" when the name has no tag (no ':' after the last '/')."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def go_div(numerator: int, denominator: int) -> int:
    """Go's integer division, which truncates toward zero (Python's ``//`` floors)."""
    quotient = abs(numerator) // abs(denominator)
    return quotient if (numerator >= 0) == (denominator >= 0) else -quotient


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    """``calculatePriority``: clamp ``sum_scores`` to [min, max threshold] and scale to [0, 100].

    pre: sum_scores >= 0 and num_containers >= 1
    post: 0 <= __return__ <= 100
    """
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    return go_div(MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD), max_threshold - MIN_THRESHOLD)


def scaled_image_score(state: ImageStateSummary, total_num_nodes: int) -> int:
    """``scaledImageScore``: ``int64(float64(size) * (float64(numNodes) / float64(totalNumNodes)))``."""
    return scaled_size(state.size, state.num_nodes, total_num_nodes)


def scaled_size(size: int, num_nodes: int, total_num_nodes: int) -> int:
    """:func:`scaled_image_score` of a summary of ``size`` and ``num_nodes``."""
    spread = num_nodes / total_num_nodes
    return int(float(size) * spread)


def sum_image_scores(node_info: NodeInfo, pod: Pod, total_num_nodes: int) -> int:
    """``sumImageScores``: over init containers, then containers, the scaled score of each image the node has."""
    states = node_info.image_states
    if not states:
        return 0
    total = 0
    for container in pod.init_containers + pod.containers:
        state = states.get(normalized_image_name(container.image))
        if state is not None:
            total += scaled_image_score(state, total_num_nodes)
    return total


class ImageLocality(ScorePlugin, SignPlugin):
    """``ImageLocality`` (a Score plugin without NormalizeScore)."""

    name = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """``Score``: ``calculatePriority(sumImageScores(...), len(initContainers)+len(containers))``."""
        if not node_info.image_states:
            return 0, None  # calculate_priority(0, n) is 0: below the minimum threshold
        total_num_nodes = self.handle.snapshot.num_nodes()
        image_scores = sum_image_scores(node_info, pod, total_num_nodes)
        return calculate_priority(image_scores, len(pod.init_containers) + len(pod.containers)), None

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[list[int], Status | None]:
        """:meth:`score` for every node: the pod's image names are normalized once, and each combination of image
        summaries is scored once (the nodes holding an image share its summary, read-only in a snapshot; a node
        without the images scores 0, since ``calculatePriority`` of 0 is 0)."""
        images = [normalized_image_name(c.image) for c in pod.init_containers + pod.containers]
        containers = len(images)
        total_num_nodes = self.handle.snapshot.num_nodes()
        if containers == 1:  # one image: each node's summary of it decides, each summary is scored once
            single = images[0]
            columns = columns_of(nodes)
            column = columns[0].image_column(single) if columns is not None else None
            if columns is not None and column is not None:  # the rows' summaries gathered and scored in C
                held = gather(column, columns[1])
                score_of = {key: 0 if key is None else calculate_priority(scaled_size(*key, total_num_nodes), 1)
                            for key in set(held)}
                return list(map(score_of.__getitem__, held)), None
            by_summary: dict[int, int] = {}  # id(summary) -> score; the nodes keep the summaries alive
            single_scores: list[int] = []
            append_score = single_scores.append
            for info in nodes:
                summary = info.image_states.get(single)
                if summary is None:
                    append_score(0)
                    continue
                score = by_summary.get(id(summary))
                if score is None:
                    score = by_summary[id(summary)] = calculate_priority(
                        scaled_image_score(summary, total_num_nodes), 1)
                append_score(score)
            return single_scores, None
        memo: dict[tuple[int, ...], int] = {}  # the node's summaries' ids -> score; the nodes keep them alive
        scores: list[int] = []
        append = scores.append
        for info in nodes:
            states = info.image_states
            summaries = [summary for name in images if (summary := states.get(name)) is not None]
            if not summaries:
                append(0)
                continue
            key = tuple(map(id, summaries))
            score = memo.get(key)
            if score is None:
                total = sum(scaled_image_score(summary, total_num_nodes) for summary in summaries)
                score = memo[key] = calculate_priority(total, containers)
            append(score)
        return scores, None

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], Status | None]:
        images = sorted(normalized_image_name(c.image) for c in pod.init_containers + pod.containers)
        return [(SIGNATURE_KEY, json.dumps(images))], None
