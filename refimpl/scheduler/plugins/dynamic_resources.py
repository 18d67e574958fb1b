"""DynamicResources as a Score plugin (plugins/dynamicresources/dynamicresources.go, v1.35): weight 2 in the default
profile from v1.35, no PreScore, 0 for a pod without resource claims (the only pods modelled), then
``DefaultNormalizeScore``.
Its other extension points (PreFilter, Filter, Reserve, PreBind, PostFilter) do nothing for such a pod and are not
modelled (:attr:`spec.versions.VersionProfile.dynamic_resources_scores`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from refimpl.cache import NodeInfo
from refimpl.scheduler.framework import CycleState, ScorePlugin, SignFragment, SignPlugin, Status
from refimpl.scheduler.framework.interfaces import NodeScore
from spec.objects import Pod

NAME: Final = "DynamicResources"


class DynamicResources(ScorePlugin, SignPlugin):
    """``DynamicResources`` for pods without resource claims: every node scores 0."""

    name = NAME
    has_normalize = True

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """``Score``: 0, as ``state.claims.empty()`` for a pod without claims."""
        return 0, None

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[list[int], Status | None]:
        """:meth:`score` for every node: all 0."""
        return [0] * len(nodes), None

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """``NormalizeScore``: ``DefaultNormalizeScore(MaxNodeScore, false, scores)``, which keeps all-zero scores
        as they are (every score here is 0)."""
        return None

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], Status | None]:
        """``SignPod``: nothing to add for a pod without resource claims."""
        return [], None
