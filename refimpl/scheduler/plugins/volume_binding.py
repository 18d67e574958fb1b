"""VolumeBinding as a Score plugin (plugins/volumebinding/volume_binding.go, v1.37): with ``StorageCapacityScoring`` on
(beta in v1.37) its PreScore does not skip, and a pod without volumes (the only pods modelled) scores 0 on every node,
then ``DefaultNormalizeScore``. Its other extension points do nothing for such a pod and are not modelled
(:attr:`spec.versions.VersionProfile.volume_binding_scores`)."""

from __future__ import annotations

from typing import Final

from refimpl.scheduler.plugins.zero_score import ZeroScore

NAME: Final = "VolumeBinding"


class VolumeBinding(ZeroScore):
    """``VolumeBinding`` for pods without volumes, where it scores (v1.37): every node scores 0 (``podVolumesByNode``
    holds no claims)."""

    name = NAME
