"""The life of one pod in the scheduling pipeline, as a table: stages, transitions, targets.

This is the abstract view of :mod:`spec.cycle.cycle` from one pod's side, the pipeline from the
scheduling queue to a confirmed binding: created, pending in the queue, assumed while its binding
cycle runs, bound at the API server, confirmed by the informer, and deleted at any stage where a
deletion event can arrive. It is a second statement of the same behaviour:
``tests/spec/cycle/test_lifecycle.py`` enumerates the reachable clusters of a small universe and checks
that every transition moves every pod exactly as :data:`CYCLE_POD_TRANSITIONS` says; the
documentation draws the scheduling cycle's state diagram from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from spec.cycle.cycle import Cluster


class PodStage(StrEnum):
    """Where one pod is in the pipeline."""

    ABSENT = "Absent"
    """Not created yet."""
    PENDING = "Pending"
    """In the scheduling queue, unbound."""
    BINDING = "Binding"
    """Assumed on a node; its binding cycle runs."""
    BINDING_DELETED = "BindingDeleted"
    """Its binding cycle runs, but the pod was deleted meanwhile: the binding will fail."""
    BOUND = "Bound"
    """Bound at the API server; the informer has not delivered the binding yet."""
    CONFIRMED = "Confirmed"
    """Bound, and the informer's event reached the cache (``AddPod``)."""
    DELETED = "Deleted"
    """Deleted, and no binding cycle of it runs."""


def pod_stage(cluster: Cluster, uid: str) -> PodStage:
    """The stage of the pod with ``uid`` in ``cluster``."""
    if uid in cluster.binding:
        return PodStage.BINDING_DELETED if uid in cluster.deleted else PodStage.BINDING
    if uid in cluster.deleted:
        return PodStage.DELETED
    if uid in cluster.pending:
        return PodStage.PENDING
    if uid in cluster.unconfirmed:
        return PodStage.BOUND
    pod = cluster.api_pods.get(uid)
    if pod is None:
        return PodStage.ABSENT
    return PodStage.CONFIRMED


@dataclass(frozen=True)
class StageTransition:
    """One row: the transition ``operation`` of :mod:`spec.cycle.cycle` moves the pod it names from
    ``source`` to ``target`` when ``when`` holds."""

    operation: str
    source: PodStage
    target: PodStage
    when: str


S = PodStage
CYCLE_POD_TRANSITIONS: Final = (
    StageTransition("create_pod", S.ABSENT, S.PENDING, "a user creates it, unscheduled"),
    StageTransition("schedule_pod", S.PENDING, S.BINDING, "a node is feasible: AssumePod, Reserve, Permit"),
    StageTransition("fail_scheduling", S.PENDING, S.PENDING, "no node is feasible, or Reserve or Permit rejects"),
    StageTransition("bind_pod", S.BINDING, S.BOUND, "the API server binds it; FinishBinding"),
    StageTransition("fail_binding", S.BINDING, S.PENDING, "PreBind or the bind fails: ForgetPod, requeue"),
    StageTransition("fail_binding", S.BINDING_DELETED, S.DELETED, "the bind fails: the pod is gone"),
    StageTransition("confirm_binding", S.BOUND, S.CONFIRMED, "the informer delivers the bound pod: AddPod"),
    StageTransition("delete_pod", S.PENDING, S.DELETED, "it leaves the queue"),
    StageTransition("delete_pod", S.BINDING, S.BINDING_DELETED, "v1.35+: ForgetPod at once"),
    StageTransition("delete_pod", S.CONFIRMED, S.DELETED, "RemovePod"),
)
"""Every way a transition changes the stage of the pod it names (``fail_scheduling`` keeps it
``Pending``). No transition changes the stage of a pod it does not name; the node transitions and
``tick`` change none. The same in every version profile."""
