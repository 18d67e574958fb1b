"""From the executable pipeline to the abstract one: clusters, steps, and a step comparison.

:func:`abstract_cluster` maps a concrete :class:`~spec.cycle.cycle.Cluster` to the
:class:`~spec.verify.cycle.symbolic.PipelineState` of plain values the proofs quantify over;
:func:`abstract_cycle_step` maps a :class:`~spec.verify.cycle.system.CycleStep` to its encoding's
name and arguments, computing with :mod:`spec.cycle.filters` the verdict of the filters the
abstraction leaves free. :func:`cycle_disagreements` runs the encoding on the abstraction of a
pre-state and compares it with what :mod:`spec.cycle.cycle` did: that ties the proofs to the spec.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from spec.cycle.cycle import Cluster, refreshed_snapshot  # the very refresh schedule_pod makes, not a second copy
from spec.cycle.filters import failing_filters
from spec.objects import Node, Pod
from spec.resources import Resource, compute_pod_resource, resource_from_list
from spec.verify.cycle.symbolic import CYCLE_RESOURCES, PIPELINE_INVARIANTS, CycleBounds, PipelineState, Stage
from spec.verify.cycle.system import CycleStep
from spec.verify.cycle.transitions import PIPELINE_TRANSITIONS, PipelineStep


@dataclass(frozen=True)
class CycleNaming:
    """Which pod UIDs and node names the abstract indices stand for."""

    pods: tuple[str, ...]
    nodes: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(set(self.pods)) != len(self.pods) or len(set(self.nodes)) != len(self.nodes):
            raise ValueError(f"pod UIDs and node names must be distinct, got {self.pods} and {self.nodes}")

    @property
    def bounds(self) -> CycleBounds:
        return CycleBounds(len(self.pods), len(self.nodes))


def _kept(resource: Resource) -> tuple[int, ...] | None:
    """The kept resources, or None if the resource uses one the abstraction does not keep."""
    if resource.ephemeral_storage or any(resource.scalar_resources.values()):
        return None
    return tuple(getattr(resource, name) for name in CYCLE_RESOURCES)


def _request(pod: Pod) -> tuple[int, ...] | None:
    return _kept(compute_pod_resource(pod).resource)


def _stage(cluster: Cluster, uid: str) -> tuple[Stage, Pod | None]:
    """The stage of ``uid`` and the pod object that carries its request and node."""
    if uid in cluster.pending:
        return Stage.PENDING, cluster.pending[uid]
    if uid in cluster.binding:
        return (Stage.BINDING if uid in cluster.api_pods else Stage.ORPHANED), cluster.binding[uid]
    if uid in cluster.unconfirmed:
        return Stage.UNCONFIRMED, cluster.api_pods[uid]
    if uid in cluster.api_pods:
        pod = cluster.api_pods[uid]
        return (Stage.SKIPPED if pod.node_name == "" and pod.terminating else Stage.CONFIRMED), pod
    return (Stage.DELETED if uid in cluster.deleted else Stage.ABSENT), None


def abstract_cluster(cluster: Cluster, naming: CycleNaming) -> PipelineState | None:
    """The abstract pipeline of ``cluster``, or None if it holds a UID or node name outside ``naming``,
    a pod the pipeline has in two places or an unbound pod outside the queue that is not terminating (a skipped
    one is), or a resource the abstraction does not keep (ephemeral storage, scalar resources)."""
    uids = {*cluster.api_pods, *cluster.pending, *cluster.binding, *cluster.unconfirmed, *cluster.deleted}
    uids |= set(cluster.cache.pod_states)
    if not uids <= set(naming.pods) or not set(cluster.cache.nodes) <= set(naming.nodes):
        return None
    places = [set(cluster.pending), set(cluster.binding), set(cluster.unconfirmed)]
    if any(a & b for i, a in enumerate(places) for b in places[i + 1 :]):
        return None
    stages, nodes, requests, terminating = [], [], [], []
    zeros = (0,) * len(CYCLE_RESOURCES)
    for uid in naming.pods:
        stage, pod = _stage(cluster, uid)
        if stage is Stage.CONFIRMED and pod is not None and pod.node_name == "":
            return None  # an unbound pod outside the queue: not a state the pipeline reaches
        request = zeros if pod is None or stage is Stage.DELETED else _request(pod)
        placed = stage in (Stage.BINDING, Stage.ORPHANED, Stage.UNCONFIRMED, Stage.CONFIRMED)
        if request is None or (placed and pod is not None and pod.node_name not in naming.nodes):
            return None
        stages.append(int(stage))
        terminating.append(uid in cluster.api_pods and cluster.api_pods[uid].terminating)
        nodes.append(naming.nodes.index(pod.node_name) if placed and pod is not None else 0)
        requests.append(request)
    live, allocatable, capacity, requested, pod_count = [], [], [], [], []
    for name in naming.nodes:
        info = cluster.cache.nodes.get(name)
        is_live = info is not None and info.node is not None
        used = zeros if info is None else _kept(info.requested)
        room = _kept(info.allocatable) if info is not None and is_live else zeros
        if used is None or room is None:
            return None
        live.append(is_live)
        allocatable.append(room)
        capacity.append(info.allocatable.allowed_pod_number if info is not None and is_live else 0)
        requested.append(used)
        pod_count.append(0 if info is None else len(info.pods))
    return PipelineState(
        forget_on_delete=cluster.cache.profile.forget_assumed_pod_on_delete,
        stage=tuple(stages),
        terminating=tuple(terminating),
        node=tuple(nodes),
        request=tuple(requests),
        live=tuple(live),
        allocatable=tuple(allocatable),
        capacity=tuple(capacity),
        requested=tuple(requested),
        pod_count=tuple(pod_count),
    )


def other_filters_pass(cluster: Cluster, uid: str, node: str) -> bool:
    """Whether every filter but NodeResourcesFit passes for pending pod ``uid`` on ``node`` in the
    refreshed snapshot (the ``others_pass`` argument of ``SchedulePod``)."""
    snapshot = refreshed_snapshot(cluster)
    info = snapshot.node_info_map.get(node)
    if info is None or info.node is None:
        return False
    return failing_filters(cluster.pending[uid], info, snapshot, cluster.namespaces) in ((), ("NodeResourcesFit",))


def abstract_cycle_step(step: CycleStep, naming: CycleNaming, cluster: Cluster) -> tuple[str, dict[str, Any]] | None:
    """The encoding's name and arguments for ``step`` in ``cluster``, or None if outside ``naming``."""
    name = {t.function: t.name for t in PIPELINE_TRANSITIONS.values()}[step.name]
    args = step.args
    if step.name == "tick":
        return name, {}
    if step.name in ("add_node", "update_node"):
        node = args[0]
        if not isinstance(node, Node):
            raise TypeError(f"{step.name} takes a Node, got {node!r}")
        if node.name not in naming.nodes:
            return None
        allocatable = resource_from_list(node.allocatable)
        room = _kept(allocatable)
        if room is None:
            return None
        index = naming.nodes.index(node.name)
        return name, {
            "node": index,
            **dict(zip(CYCLE_RESOURCES, room, strict=True)),
            "capacity": allocatable.allowed_pod_number,
        }
    if step.name == "remove_node":
        return (name, {"node": naming.nodes.index(args[0])}) if args[0] in naming.nodes else None
    if step.name == "create_pod":
        pod = args[0]
        if not isinstance(pod, Pod):
            raise TypeError(f"create_pod takes a Pod, got {pod!r}")
        request = _request(pod)
        if pod.uid not in naming.pods or request is None:
            return None
        return name, {"pod": naming.pods.index(pod.uid), **dict(zip(CYCLE_RESOURCES, request, strict=True))}
    uid = args[0]
    if uid not in naming.pods:
        return None
    if step.name == "schedule_pod":
        node_name = args[1]
        if node_name not in naming.nodes:
            return None
        others = uid in cluster.pending and other_filters_pass(cluster, uid, node_name)
        return name, {"pod": naming.pods.index(uid), "node": naming.nodes.index(node_name), "others_pass": others}
    return name, {"pod": naming.pods.index(uid)}


def encode_cycle_step(
    cluster: Cluster, step: CycleStep, naming: CycleNaming
) -> tuple[PipelineState, str, dict[str, Any], PipelineStep] | None:
    """The abstract pre-state, encoding name, arguments and step of ``step`` on ``cluster``, or None."""
    pre = abstract_cluster(cluster, naming)
    covered = abstract_cycle_step(step, naming, cluster)
    if pre is None or covered is None:
        return None
    name, args = covered
    return pre, name, args, PIPELINE_TRANSITIONS[name].apply(pre, args)


WIDER: frozenset[str] = frozenset({"FailScheduling"})
"""Encodings enabled in more states than the spec's function (see :mod:`spec.verify.cycle.transitions`)."""


def cycle_disagreements(
    before: Cluster, step: CycleStep, after: Cluster | None, naming: CycleNaming
) -> list[str] | None:
    """Compare the encoding of ``step`` with the spec's (``after`` None: the spec's guard was false):
    the same enabledness (the encoding may be wider where :data:`WIDER` says so), and where both
    step and the environment assumption holds, the abstraction of the spec's post-state. None when
    the step is outside the encoding."""
    encoded = encode_cycle_step(before, step, naming)
    if encoded is None:
        return None
    _, name, _, encoding = encoded
    enabled = after is not None
    if encoding.enabled != enabled and not (name in WIDER and encoding.enabled and not enabled):
        return [f"{name}: encoding says enabled={encoding.enabled}, spec {enabled}"]
    if after is None or not encoding.assumption:
        return []
    post = abstract_cluster(after, naming)
    if post is None:
        return None
    return [
        f"{name}: {f.name}: encoding {getattr(encoding.post, f.name)} != spec {getattr(post, f.name)}"
        for f in fields(PipelineState)
        if getattr(encoding.post, f.name) != getattr(post, f.name)
    ]


def invariant_verdicts(cluster: Cluster, naming: CycleNaming) -> dict[str, tuple[bool, bool | None]] | None:
    """Each abstract invariant's value on the abstraction of ``cluster``, with its spec predicate's (None if none)."""
    abstract = abstract_cluster(cluster, naming)
    if abstract is None:
        return None
    return {
        inv.name: (bool(inv.formula(abstract)), None if inv.spec_predicate is None else inv.spec_predicate(cluster))
        for inv in PIPELINE_INVARIANTS
    }


def describe_pipeline(state: PipelineState, *, indent: str = "  ") -> list[str]:
    """Lines describing a concrete abstract pipeline, for counterexamples."""
    lines = [f"{indent}deleting an assumed pod forgets it: {state.forget_on_delete}"]
    for p in range(state.pods):
        if state.stage[p] == int(Stage.ABSENT):
            continue
        stage = Stage(state.stage[p]).name.lower() if 0 <= state.stage[p] < len(Stage) else f"?{state.stage[p]}"
        where = f" on n{state.node[p]}" if state.stage[p] not in (Stage.PENDING, Stage.SKIPPED, Stage.DELETED) else ""
        ending = ", terminating" if state.terminating[p] else ""
        lines.append(f"{indent}pod {p}: {stage}{where}{ending}, requests {list(state.request[p])}")
    for n in range(state.nodes):
        room = f"allocatable {list(state.allocatable[n])}, {state.capacity[n]} pods" if state.live[n] else "not live"
        lines.append(
            f"{indent}node n{n}: {room}; cache Requested {list(state.requested[n])}, {state.pod_count[n]} pods"
        )
    return lines
