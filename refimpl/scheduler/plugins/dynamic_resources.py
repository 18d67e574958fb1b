"""DynamicResources as a Score plugin (plugins/dynamicresources/dynamicresources.go, v1.35): weight 2 in the default
profile from v1.35, no PreScore, 0 for a pod without resource claims (the only pods modelled), then
``DefaultNormalizeScore``. Its other extension points (PreFilter, Filter, Reserve, PreBind, PostFilter) do nothing for
such a pod and are not modelled (:attr:`spec.versions.VersionProfile.dynamic_resources_scores`)."""

from __future__ import annotations

from typing import Final

from refimpl.scheduler.framework import CycleState, PostFilterPlugin, Status
from refimpl.scheduler.framework.status import Code, NodeToStatus
from refimpl.scheduler.plugins.zero_score import ZeroScore
from spec.objects import Pod

NAME: Final = "DynamicResources"


class DynamicResources(ZeroScore):
    """``DynamicResources`` for pods without resource claims: every node scores 0 (``state.claims.empty()``)."""

    name = NAME


class DynamicResourcesPostFilter(PostFilterPlugin):
    """``DynamicResources.PostFilter`` for pods without resource claims: Unschedulable with ``reason`` (the release's
    :attr:`spec.versions.VersionProfile.dynamic_resources_post_filter_reason`; none if ""). It runs before
    DefaultPreemption, so ``RunPostFilterPlugins`` joins its reason to preemption's when preemption fails."""

    name = NAME

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def post_filter(self, state: CycleState, pod: Pod, node_to_status: NodeToStatus) -> tuple[str | None, Status]:
        return None, Status(Code.UNSCHEDULABLE, *((self.reason,) if self.reason else ()))


class ScoringDynamicResourcesPostFilter(DynamicResources, DynamicResourcesPostFilter):
    """DynamicResources with both extension points the default profile gives it: Score (v1.35 on) and PostFilter."""
