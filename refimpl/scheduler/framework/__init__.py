"""The scheduling framework: statuses, cycle state, the plugin interfaces, the handle and the runner.

``pkg/scheduler/framework`` and ``k8s.io/kube-scheduler/framework`` (v1.35), one concept per module:
:mod:`~refimpl.scheduler.framework.status`, :mod:`~refimpl.scheduler.framework.cycle_state`,
:mod:`~refimpl.scheduler.framework.interfaces`, :mod:`~refimpl.scheduler.framework.handle`,
:mod:`~refimpl.scheduler.framework.waiting_pods` and :mod:`~refimpl.scheduler.framework.runtime`.
"""

from refimpl.scheduler.framework.cycle_state import CycleState, StateKeyMissing
from refimpl.scheduler.framework.handle import Handle
from refimpl.scheduler.framework.interfaces import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    Awaiting,
    BindPlugin,
    FilterPlugin,
    NodeScore,
    PermitPlugin,
    Plugin,
    PostBindPlugin,
    PostFilterPlugin,
    PreBindPlugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ReservePlugin,
    ScorePlugin,
    SignFragment,
    SignPlugin,
    Wait,
)
from refimpl.scheduler.framework.runtime import Framework, FrameworkError, NodePluginScores, PluginScore
from refimpl.scheduler.framework.status import (
    Code,
    Diagnosis,
    FitError,
    NodeToStatus,
    Status,
    as_status,
    code_of,
    is_rejected,
    is_success,
)
from refimpl.scheduler.framework.waiting_pods import WaitingPod, WaitingPods

__all__ = [
    "MAX_NODE_SCORE",
    "MIN_NODE_SCORE",
    "Awaiting",
    "BindPlugin",
    "Code",
    "CycleState",
    "Diagnosis",
    "FilterPlugin",
    "FitError",
    "Framework",
    "FrameworkError",
    "Handle",
    "NodePluginScores",
    "NodeScore",
    "NodeToStatus",
    "PermitPlugin",
    "Plugin",
    "PluginScore",
    "PostBindPlugin",
    "PostFilterPlugin",
    "PreBindPlugin",
    "PreFilterPlugin",
    "PreFilterResult",
    "PreScorePlugin",
    "ReservePlugin",
    "ScorePlugin",
    "SignFragment",
    "SignPlugin",
    "StateKeyMissing",
    "Status",
    "Wait",
    "WaitingPod",
    "WaitingPods",
    "as_status",
    "code_of",
    "is_rejected",
    "is_success",
]
