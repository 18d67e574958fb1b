"""Every scheduling-pipeline transition of :mod:`spec.cycle.cycle`, encoded over the abstract pipeline.

Each encoding follows its :mod:`spec.cycle.cycle` function and yields a :class:`PipelineStep`: the
post-state, whether the function's guard holds (``enabled``), and whether the environment
assumption holds (``assumption``; only the node events have one: assumption 1 of
:func:`~spec.cycle.invariants.inv_no_node_overcommitted`, the new allocatable and capacity are
at least what the node's pods already use). The proofs take a step only when both hold.

The cache operations a transition makes are encoded by their effect on the NodeInfo's books:
``AssumePod`` and ``AddPod`` of a new pod charge the pod's request to its node and count it;
``ForgetPod`` and ``RemovePod`` release them; ``FinishBinding``, the ``AddPod`` that confirms an
assumption, the ``UpdatePod`` of a bound pod made terminating, and (with TTL 0) ``cleanupAssumedPods`` change
neither.

Two encodings are deliberately wider than the spec, which keeps the proofs sound: a failed
scheduling cycle (:func:`fail_scheduling`) is enabled for any pending pod, whether or not a node
was feasible (the cache's books are the same either way), and ``SchedulePod`` takes the verdict of
the filters the abstraction does not see (node name, cordon, taints, node selector, host ports)
as a free argument ``others_pass``: the proofs hold whatever they decide.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final

from spec.verify.cycle.symbolic import (
    CYCLE_RESOURCES,
    CycleBounds,
    PipelineState,
    Stage,
    held_by_stage,
    select_pipeline,
)
from spec.verify.terms import Bool, Int, and_, fresh_constants, in_range, ite, not_, or_, pick, put


@dataclass(frozen=True)
class PipelineStep:
    """What one transition does to an abstract pipeline."""

    post: PipelineState
    enabled: Bool = True
    """The :mod:`spec.cycle.cycle` function's guard: it does not raise ``CycleNotEnabled``."""
    assumption: Bool = True
    """The environment assumption the step needs (node events: allocatable never shrinks under pods)."""


class CycleSort(StrEnum):
    POD = "pod"
    NODE = "node"
    FLAG = "flag"
    AMOUNT = "amount"
    """A non-negative quantity: a request, an allocatable, a capacity."""


CycleArgs = Mapping[str, Any]


@dataclass(frozen=True)
class PipelineTransition:
    """One pipeline transition: the :mod:`spec.cycle.cycle` function it encodes, its arguments and its effect."""

    name: str
    function: str
    """The name of the :mod:`spec.cycle.cycle` function."""
    params: tuple[tuple[str, CycleSort], ...]
    apply: Callable[[PipelineState, CycleArgs], PipelineStep]


def fresh_cycle_args(transition: PipelineTransition, tag: str) -> dict[str, Any]:
    """Fresh Z3 constants for the transition's arguments."""
    return fresh_constants(transition.params, tag, CycleSort.FLAG)


def cycle_args_in_domain(transition: PipelineTransition, args: CycleArgs, bounds: CycleBounds) -> Bool:
    """Pods and nodes in range, amounts non-negative."""
    clauses = []
    for name, sort in transition.params:
        if sort is CycleSort.POD:
            clauses.append(in_range(args[name], bounds.pods))
        elif sort is CycleSort.NODE:
            clauses.append(in_range(args[name], bounds.nodes))
        elif sort is CycleSort.AMOUNT:
            clauses.append(args[name] >= 0)
    return and_(*clauses)


RESOURCE_PARAMS: Final = tuple((name, CycleSort.AMOUNT) for name in CYCLE_RESOURCES)
NODE_PARAMS: Final = (("node", CycleSort.NODE), *RESOURCE_PARAMS, ("capacity", CycleSort.AMOUNT))


# ============================================================================================
# Helpers
# ============================================================================================

RESOURCE_RANGE: Final = range(len(CYCLE_RESOURCES))


def stage_of(s: PipelineState, pod: Int) -> Int:
    """The stage of a (possibly symbolic) pod index."""
    return pick(s.stage, pod)


def terminating_of(s: PipelineState, pod: Int) -> Bool:
    """Whether a (possibly symbolic) pod index is terminating."""
    return pick(s.terminating, pod)


def held_at(s: PipelineState, pod: Int) -> Bool:
    """:func:`~spec.verify.cycle.symbolic.held` for a (possibly symbolic) pod index: the cache holds the pod."""
    return held_by_stage(s.forget_on_delete, stage_of(s, pod), terminating_of(s, pod))


def request_of(s: PipelineState, pod: Int) -> tuple[Int, ...]:
    """The requests of a (possibly symbolic) pod index."""
    return tuple(pick(tuple(row[r] for row in s.request), pod) for r in RESOURCE_RANGE)


def row_of(rows: tuple[tuple[Int, ...], ...], index: Int) -> tuple[Int, ...]:
    """``rows[index]`` for a possibly symbolic index."""
    return tuple(pick(tuple(row[r] for row in rows), index) for r in RESOURCE_RANGE)


def put_row(rows: tuple[tuple[Int, ...], ...], index: Int, row: tuple[Int, ...]) -> tuple[tuple[Int, ...], ...]:
    """``rows`` with row ``index`` replaced by ``row``."""
    return tuple(tuple(ite(index == i, row[r], old[r]) for r in RESOURCE_RANGE) for i, old in enumerate(rows))


def move(
    s: PipelineState, pod: Int, stage: Stage, node: Int | None = None, keep_request: bool = True,
    terminating: Bool | None = None,
) -> PipelineState:
    """The pod enters ``stage``; its node becomes ``node`` (None: unchanged); its request is kept or zeroed; it
    becomes ``terminating`` or not (None: unchanged)."""
    zeros = (0,) * len(CYCLE_RESOURCES)
    return replace(
        s,
        stage=put(s.stage, pod, int(stage)),
        terminating=s.terminating if terminating is None else put(s.terminating, pod, terminating),
        node=s.node if node is None else put(s.node, pod, node),
        request=s.request if keep_request else put_row(s.request, pod, zeros),
    )


def charge(s: PipelineState, pod: Int, node: Int) -> PipelineState:
    """The cache adds the pod to the node's NodeInfo (``AssumePod``, ``AddPod``): Requested and the count grow."""
    request = request_of(s, pod)
    total = tuple(a + b for a, b in zip(row_of(s.requested, node), request, strict=True))
    return replace(
        s, requested=put_row(s.requested, node, total), pod_count=put(s.pod_count, node, pick(s.pod_count, node) + 1)
    )


def release(s: PipelineState, pod: Int) -> PipelineState:
    """The cache takes the pod off its node's NodeInfo (``ForgetPod``, ``RemovePod``): Requested and count shrink."""
    node = pick(s.node, pod)
    request = request_of(s, pod)
    total = tuple(a - b for a, b in zip(row_of(s.requested, node), request, strict=True))
    return replace(
        s, requested=put_row(s.requested, node, total), pod_count=put(s.pod_count, node, pick(s.pod_count, node) - 1)
    )


def fits(s: PipelineState, pod: Int, node: Int) -> Bool:
    """NodeResourcesFit on the refreshed snapshot (the cache's NodeInfo): one more pod fits the
    capacity, and each resource the pod requests (more than 0) fits allocatable minus Requested.

    Kubernetes: `fitsRequest` (pkg/scheduler/framework/plugins/noderesources/fit.go)
    """
    request = request_of(s, pod)
    used, allocatable = row_of(s.requested, node), row_of(s.allocatable, node)
    return and_(
        pick(s.pod_count, node) + 1 <= pick(s.capacity, node),
        *(or_(request[r] == 0, used[r] + request[r] <= allocatable[r]) for r in RESOURCE_RANGE),
    )


def node_args(a: CycleArgs) -> tuple[Int, tuple[Int, ...], Int]:
    """The node index, allocatable and capacity of a node event."""
    return a["node"], tuple(a[name] for name in CYCLE_RESOURCES), a["capacity"]


def never_shrinks_under_pods(s: PipelineState, node: Int, allocatable: tuple[Int, ...], capacity: Int) -> Bool:
    """Environment assumption 1: the node's new allocatable and capacity hold what its pods already use."""
    used = row_of(s.requested, node)
    return and_(pick(s.pod_count, node) <= capacity, *(used[r] <= allocatable[r] for r in RESOURCE_RANGE))


def set_node(s: PipelineState, node: Int, live: Bool, allocatable: tuple[Int, ...], capacity: Int) -> PipelineState:
    """The cache's NodeInfo gets (or loses) its node, with this allocatable and capacity."""
    return replace(
        s,
        live=put(s.live, node, live),
        allocatable=put_row(s.allocatable, node, allocatable),
        capacity=put(s.capacity, node, capacity),
    )


# ============================================================================================
# Transitions
# ============================================================================================


def create_pod(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """:func:`spec.cycle.cycle.create_pod`: a fresh UID enters the queue with its requests; the cache is untouched.

    Kubernetes: `Scheduler.addPodToSchedulingQueue` (pkg/scheduler/eventhandlers.go)
    """
    pod = a["pod"]
    request = tuple(a[name] for name in CYCLE_RESOURCES)
    post = replace(move(s, pod, Stage.PENDING), request=put_row(s.request, pod, request))
    return PipelineStep(post, enabled=stage_of(s, pod) == int(Stage.ABSENT))


def schedule_pod(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """:func:`spec.cycle.cycle.schedule_pod`: the snapshot is refreshed from the cache, the node is
    feasible in it (NodeResourcesFit, :func:`fits`, and ``others_pass`` for the other filters),
    and ``AssumePod`` charges the pod to the node; its binding cycle begins. Not enabled for a terminating pod,
    which ``ScheduleOne`` skips (:func:`skip_pod`).

    Kubernetes: `Scheduler.schedulingCycle` (pkg/scheduler/schedule_one.go)
    """
    pod, node = a["pod"], a["node"]
    enabled = and_(
        stage_of(s, pod) == int(Stage.PENDING), not_(terminating_of(s, pod)), pick(s.live, node), a["others_pass"],
        fits(s, pod, node),
    )
    return PipelineStep(charge(move(s, pod, Stage.BINDING, node), pod, node), enabled=enabled)


def fail_scheduling(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """:func:`spec.cycle.cycle.fail_scheduling`: no feasible node, or an assumption that Reserve or Permit
    rejects and ``ForgetPod`` undoes; either way the cache's books are as they were and the pod stays pending.
    Not enabled for a terminating pod, which ``ScheduleOne`` skips (:func:`skip_pod`).

    Kubernetes: `Scheduler.handleSchedulingFailure` (pkg/scheduler/schedule_one.go)
    """
    pod = a["pod"]
    return PipelineStep(s, enabled=and_(stage_of(s, pod) == int(Stage.PENDING), not_(terminating_of(s, pod))))


def bind_refusal(s: PipelineState, pod: Int) -> Bool:
    """:func:`spec.cycle.cycle.bind_refusal`: the API server refuses to bind the (existing, unbound) pod because it
    is being deleted.

    Kubernetes: `BindingREST.setPodNodeAndMetadata` (pkg/registry/core/pod/storage/storage.go)
    """
    return terminating_of(s, pod)


def binding_cycle_error(s: PipelineState, pod: Int) -> PipelineState:
    """:func:`spec.cycle.cycle.binding_cycle_error`: ``FinishBinding`` (if the bind was reached) starts no clock
    with TTL 0; ``ForgetPod`` releases the pod if the cache still holds it (not when it was forgotten on deletion or
    on its ``DeletionTimestamp``, where the error is only logged); a pod the API server still has, unbound, is
    requeued (terminating or not), a deleted one is gone.

    Kubernetes: `Scheduler.handleBindingCycleError` (pkg/scheduler/schedule_one.go)
    """
    forgotten = select_pipeline(held_at(s, pod), release(s, pod), s)
    requeued = move(forgotten, pod, Stage.PENDING, 0)
    gone = move(forgotten, pod, Stage.DELETED, 0, keep_request=False, terminating=False)
    return select_pipeline(stage_of(s, pod) == int(Stage.BINDING), requeued, gone)


def bind_pod(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """:func:`spec.cycle.cycle.bind_pod`: the API server binds the (existing, unbound) pod; ``FinishBinding``
    starts no clock with TTL 0; the pod awaits the informer, still assumed. A terminating pod's binding is refused
    (:func:`bind_refusal`) and its binding cycle fails at Bind (:func:`binding_cycle_error`).

    Kubernetes: `Scheduler.bindingCycle` (pkg/scheduler/schedule_one.go)
    """
    pod = a["pod"]
    post = select_pipeline(bind_refusal(s, pod), binding_cycle_error(s, pod), move(s, pod, Stage.UNCONFIRMED))
    return PipelineStep(post, enabled=stage_of(s, pod) == int(Stage.BINDING))


def fail_binding(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """:func:`spec.cycle.cycle.fail_binding`: the binding cycle of a pod that exists, or was deleted meanwhile, fails
    at PreBind or Bind (:func:`binding_cycle_error`).

    Kubernetes: `Scheduler.handleBindingCycleError` (pkg/scheduler/schedule_one.go)
    """
    pod = a["pod"]
    stage = stage_of(s, pod)
    return PipelineStep(
        binding_cycle_error(s, pod), enabled=or_(stage == int(Stage.BINDING), stage == int(Stage.ORPHANED))
    )


def confirm_binding(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """:func:`spec.cycle.cycle.confirm_binding`: the informer's ``AddPod`` confirms the assumption; the books
    do not change (with TTL 0 the assumption cannot have expired).

    Kubernetes: `Scheduler.addAssignedPodToCache` (pkg/scheduler/eventhandlers.go)
    """
    pod = a["pod"]
    return PipelineStep(move(s, pod, Stage.CONFIRMED), enabled=stage_of(s, pod) == int(Stage.UNCONFIRMED))


def delete_pod(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """:func:`spec.cycle.cycle.delete_pod`: a pending pod leaves the queue (a skipped one has left it); a
    confirmed one is removed from the cache (``RemovePod``); an assumed one in a binding cycle is forgotten at once
    where the profile does so (v1.35) and the cache still holds it (not if its ``DeletionTimestamp`` already made it
    forget it), and its binding cycle goes on. Not enabled while the binding awaits the informer (events of one pod
    arrive in order).

    Kubernetes: `Scheduler.deletePod` (pkg/scheduler/eventhandlers.go)
    Kubernetes: `Scheduler.handleAssumedPodDeletion` (pkg/scheduler/eventhandlers.go)
    """
    pod = a["pod"]
    stage = stage_of(s, pod)
    unbound = or_(stage == int(Stage.PENDING), stage == int(Stage.SKIPPED))
    binding, confirmed = (stage == int(x) for x in (Stage.BINDING, Stage.CONFIRMED))
    dropped = move(s, pod, Stage.DELETED, keep_request=False, terminating=False)
    forgotten = select_pipeline(and_(held_at(s, pod), s.forget_on_delete), release(s, pod), s)
    orphaned = move(forgotten, pod, Stage.ORPHANED, terminating=False)
    removed = move(release(s, pod), pod, Stage.DELETED, 0, keep_request=False, terminating=False)
    post = select_pipeline(unbound, dropped, select_pipeline(binding, orphaned, removed))
    return PipelineStep(post, enabled=or_(unbound, binding, confirmed))


def terminate_assumed_pod(s: PipelineState, pod: Int) -> PipelineState:
    """:func:`spec.cycle.cycle.terminate_assumed_pod`: from v1.35 (``forget_on_delete``) the cache forgets the
    assumed pod whose ``DeletionTimestamp`` was set (``ForgetPod``: its node's books release it); v1.34 ignores
    the update.

    Kubernetes: `Scheduler.updatePodInSchedulingQueue` (pkg/scheduler/eventhandlers.go)
    """
    return select_pipeline(s.forget_on_delete, release(s, pod), s)


def terminate_pod(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """:func:`spec.cycle.cycle.terminate_pod`: the API server sets the pod's ``DeletionTimestamp``. A queued pod is
    updated in the queue; a confirmed one in the cache (``UpdatePod`` of the same request on the same node: the
    books do not change); one whose binding cycle is in flight is handled by :func:`terminate_assumed_pod`. Not
    enabled for a pod the API server does not list, one already terminating, or one whose binding awaits the
    informer (events of one pod arrive in order).

    Kubernetes: `Scheduler.updatePod` (pkg/scheduler/eventhandlers.go)
    """
    pod = a["pod"]
    stage = stage_of(s, pod)
    listed = or_(*(stage == int(x) for x in (Stage.PENDING, Stage.BINDING, Stage.CONFIRMED)))
    cache = select_pipeline(stage == int(Stage.BINDING), terminate_assumed_pod(s, pod), s)
    post = replace(cache, terminating=put(s.terminating, pod, True))
    return PipelineStep(post, enabled=and_(listed, not_(terminating_of(s, pod))))


def skip_pod(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """:func:`spec.cycle.cycle.skip_pod`: ``ScheduleOne`` pops a terminating pending pod and skips it
    (``skipPodSchedule``): it leaves the queue, the cache is untouched.

    Kubernetes: `Scheduler.ScheduleOne` (pkg/scheduler/schedule_one.go)
    """
    pod = a["pod"]
    enabled = and_(stage_of(s, pod) == int(Stage.PENDING), terminating_of(s, pod))
    return PipelineStep(move(s, pod, Stage.SKIPPED), enabled=enabled)


def add_node(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """:func:`spec.cycle.cycle.add_node`: a node the cache does not have live arrives (a ghost NodeInfo
    keeps its pods); assumed: its allocatable holds them.

    Kubernetes: `Scheduler.addNodeToCache` (pkg/scheduler/eventhandlers.go)
    """
    node, allocatable, capacity = node_args(a)
    return PipelineStep(
        set_node(s, node, True, allocatable, capacity),
        enabled=not_(pick(s.live, node)),
        assumption=never_shrinks_under_pods(s, node, allocatable, capacity),
    )


def update_node(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """:func:`spec.cycle.cycle.update_node`: a live node changes its allocatable or capacity; assumed:
    it may grow, or shrink only down to what its pods request.

    Kubernetes: `Scheduler.updateNodeInCache` (pkg/scheduler/eventhandlers.go)
    """
    node, allocatable, capacity = node_args(a)
    return PipelineStep(
        set_node(s, node, True, allocatable, capacity),
        enabled=pick(s.live, node),
        assumption=never_shrinks_under_pods(s, node, allocatable, capacity),
    )


def remove_node(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """:func:`spec.cycle.cycle.remove_node`: a live node goes; its pods stay on a ghost NodeInfo (its books unchanged).

    Kubernetes: `Scheduler.deleteNodeFromCache` (pkg/scheduler/eventhandlers.go)
    """
    node = a["node"]
    zeros = (0,) * len(CYCLE_RESOURCES)
    return PipelineStep(set_node(s, node, False, zeros, 0), enabled=pick(s.live, node))


def tick(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """:func:`spec.cycle.cycle.tick` with TTL 0: no assumed pod has a deadline, so ``cleanupAssumedPods``
    expires none and nothing the abstraction holds changes.

    Kubernetes: `cacheImpl.cleanupAssumedPods` (pkg/scheduler/backend/cache/cache.go)
    """
    return PipelineStep(s)


POD_PARAM: Final = (("pod", CycleSort.POD),)

PIPELINE_TRANSITIONS: Final[dict[str, PipelineTransition]] = {
    t.name: t
    for t in (
        PipelineTransition("CreatePod", "create_pod", (*POD_PARAM, *RESOURCE_PARAMS), create_pod),
        PipelineTransition(
            "SchedulePod",
            "schedule_pod",
            (*POD_PARAM, ("node", CycleSort.NODE), ("others_pass", CycleSort.FLAG)),
            schedule_pod,
        ),
        PipelineTransition("FailScheduling", "fail_scheduling", POD_PARAM, fail_scheduling),
        PipelineTransition("BindPod", "bind_pod", POD_PARAM, bind_pod),
        PipelineTransition("FailBinding", "fail_binding", POD_PARAM, fail_binding),
        PipelineTransition("ConfirmBinding", "confirm_binding", POD_PARAM, confirm_binding),
        PipelineTransition("DeletePod", "delete_pod", POD_PARAM, delete_pod),
        PipelineTransition("TerminatePod", "terminate_pod", POD_PARAM, terminate_pod),
        PipelineTransition("SkipPod", "skip_pod", POD_PARAM, skip_pod),
        PipelineTransition("AddNode", "add_node", NODE_PARAMS, add_node),
        PipelineTransition("UpdateNode", "update_node", NODE_PARAMS, update_node),
        PipelineTransition("RemoveNode", "remove_node", (("node", CycleSort.NODE),), remove_node),
        PipelineTransition("Tick", "tick", (), tick),
    )
}
"""Every transition of :mod:`spec.cycle.cycle` (``new_cluster`` is the initial state), by name."""
