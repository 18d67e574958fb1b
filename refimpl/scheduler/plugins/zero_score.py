"""A Score plugin that scores 0 on every node for every modelled pod: what DynamicResources (a pod without resource
claims) and VolumeBinding (a pod without volumes, v1.37) do in the default profile. Their ``NormalizeScore`` is
``DefaultNormalizeScore``, which keeps all-zero scores as they are, and ``SignPod`` adds nothing."""

from __future__ import annotations

from collections.abc import Sequence

from refimpl.cache import NodeInfo
from refimpl.scheduler.framework import CycleState, ScorePlugin, SignFragment, SignPlugin, Status
from refimpl.scheduler.framework.interfaces import NodeScore
from spec.objects import Pod


class ZeroScore(ScorePlugin, SignPlugin):
    """``Score`` 0 on every node; ``NormalizeScore`` and ``SignPod`` change nothing. Subclasses name the plugin."""

    has_normalize = True

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """``Score``: 0."""
        return 0, None

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[list[int], Status | None]:
        """:meth:`score` for every node: all 0."""
        return [0] * len(nodes), None

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """``NormalizeScore``: ``DefaultNormalizeScore(MaxNodeScore, false, scores)``, which keeps all-zero scores."""
        return None

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], Status | None]:
        """``SignPod``: nothing to add for a pod without claims or volumes."""
        return [], None
