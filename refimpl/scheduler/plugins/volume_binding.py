"""VolumeBinding as a Score plugin (plugins/volumebinding/volume_binding.go, v1.37): with ``StorageCapacityScoring`` on
(beta in v1.37) its PreScore does not skip, and a pod without volumes (the only pods modelled) scores 0 on every node,
then ``DefaultNormalizeScore``. Its other extension points do nothing for such a pod and are not modelled
(:attr:`spec.versions.VersionProfile.volume_binding_scores`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from refimpl.cache import NodeInfo
from refimpl.scheduler.framework import CycleState, ScorePlugin, SignFragment, SignPlugin, Status
from refimpl.scheduler.framework.interfaces import NodeScore
from spec.objects import Pod

NAME: Final = "VolumeBinding"


class VolumeBinding(ScorePlugin, SignPlugin):
    """``VolumeBinding`` for pods without volumes, where it scores (v1.37): every node scores 0."""

    name = NAME
    has_normalize = True

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """``Score``: 0, as ``podVolumesByNode`` holds no claims for a pod without volumes."""
        return 0, None

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[list[int], Status | None]:
        """:meth:`score` for every node: all 0."""
        return [0] * len(nodes), None

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """``NormalizeScore``: ``DefaultNormalizeScore``, which keeps all-zero scores as they are."""
        return None

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], Status | None]:
        """``SignPod``: nothing to add for a pod without volumes."""
        return [], None
