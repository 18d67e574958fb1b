"""DynamicResources as a Score plugin (plugins/dynamicresources/dynamicresources.go, v1.35): weight 2 in the default
profile from v1.35, no PreScore, 0 for a pod without resource claims (the only pods modelled), then
``DefaultNormalizeScore``. Its other extension points (PreFilter, Filter, Reserve, PreBind, PostFilter) do nothing for
such a pod and are not modelled (:attr:`spec.versions.VersionProfile.dynamic_resources_scores`)."""

from __future__ import annotations

from typing import Final

from refimpl.scheduler.plugins.zero_score import ZeroScore

NAME: Final = "DynamicResources"


class DynamicResources(ZeroScore):
    """``DynamicResources`` for pods without resource claims: every node scores 0 (``state.claims.empty()``)."""

    name = NAME
