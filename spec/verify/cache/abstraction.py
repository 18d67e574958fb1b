"""From the executable spec to the abstract model: states, operations, and a step-by-step comparison.

:func:`abstract_state` maps a concrete :class:`~spec.cache.cache.CacheState` to the
:class:`~spec.verify.cache.symbolic.AbstractState` of plain values that the proofs quantify over;
:func:`abstract_operation` maps an operation to its encoding's arguments. :func:`disagreements`
runs the encoding on the abstraction of a concrete pre-state and compares the result with what
the spec did. That comparison is what ties the proofs to the spec rather than to a second model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from spec.cache.cache import CacheState
from spec.cache.nodeinfo import NodeInfo
from spec.cache.nodetree import get_zone_key
from spec.cache.operations import (
    AddNode,
    AddPod,
    AssumePod,
    CleanupAssumedPods,
    FinishBinding,
    ForgetPod,
    Operation,
    Outcome,
    RemoveNode,
    RemovePod,
    Status,
    UpdateNode,
    UpdatePod,
)
from spec.objects import Pod
from spec.resources import compute_pod_resource
from spec.verify.cache.symbolic import INVARIANTS, RESOURCES, AbstractState, Bounds
from spec.verify.cache.transitions import TRANSITIONS, ZERO_REQUEST


@dataclass(frozen=True)
class Naming:
    """Which concrete UIDs and node names the abstract indices stand for.

    Pod index ``i`` is ``pods[i]``; slot ``j < len(nodes)`` is ``nodes[j]`` and the last slot is
    "". UIDs must be sorted: ``cleanup_assumed_pods`` visits pods in key order, the encoding in
    index order.
    """

    pods: tuple[str, ...]
    nodes: tuple[str, ...]

    def __post_init__(self) -> None:
        if list(self.pods) != sorted(set(self.pods)):
            raise ValueError(f"pod UIDs must be distinct and sorted, got {self.pods}")
        if "" in self.pods or "" in self.nodes or len(set(self.nodes)) != len(self.nodes):
            raise ValueError(f"UIDs and node names must be non-empty and distinct, got {self.pods}, {self.nodes}")

    @property
    def bounds(self) -> Bounds:
        return Bounds(len(self.pods), len(self.nodes))

    def pod_index(self, uid: str) -> int | None:
        return self.pods.index(uid) if uid in self.pods else None

    def slot(self, name: str) -> int | None:
        if name == "":
            return len(self.nodes)
        return self.nodes.index(name) if name in self.nodes else None


def pod_request(pod: Pod, pod_level_resources: bool) -> tuple[int, ...]:
    """The pod's quantities in :data:`~spec.verify.cache.symbolic.RESOURCES` order."""
    r = compute_pod_resource(pod, pod_level_resources=pod_level_resources)
    return (r.resource.milli_cpu, r.resource.memory, r.resource.ephemeral_storage, r.non0_cpu, r.non0_mem)


def node_requested(info: NodeInfo) -> tuple[int, ...]:
    """The NodeInfo's sums in :data:`~spec.verify.cache.symbolic.RESOURCES` order."""
    req, non_zero = info.requested, info.non_zero_requested
    return (req.milli_cpu, req.memory, req.ephemeral_storage, non_zero.milli_cpu, non_zero.memory)


assert len(RESOURCES) == len(ZERO_REQUEST) == 5


def representable(state: CacheState, naming: Naming) -> bool:
    """Whether the abstraction can say everything the invariants read about ``state``.

    Every UID and node name is in ``naming``; pod states are keyed by their pod's UID; no NodeInfo
    holds a UID twice; and every pod a NodeInfo holds is the cached object of that UID. States
    reached under the informer contract always are (``inv_pod_states_match_node_infos``).
    """
    if any(naming.pod_index(key) is None or ps.pod.uid != key for key, ps in state.pod_states.items()):
        return False
    if any(naming.pod_index(key) is None for key in state.assumed_pods):
        return False
    if any(naming.slot(ps.pod.node_name) is None for ps in state.pod_states.values()):
        return False
    for name, info in state.nodes.items():
        if naming.slot(name) is None:
            return False
        uids = [pod.uid for pod in info.pods]
        if len(uids) != len(set(uids)):
            return False
        for pod in info.pods:
            cached = state.pod_states.get(pod.uid)
            if cached is None or cached.pod != pod:
                return False
    return True


def abstract_state(state: CacheState, naming: Naming) -> AbstractState | None:
    """The abstract state of ``state``, or None if it is not :func:`representable`."""
    if not representable(state, naming):
        return None
    level = state.profile.pod_level_resources
    pod_states = [state.pod_states.get(uid) for uid in naming.pods]
    infos = [state.nodes.get(name) for name in (*naming.nodes, "")]
    return AbstractState(
        in_cache=tuple(ps is not None for ps in pod_states),
        assumed=tuple(uid in state.assumed_pods for uid in naming.pods),
        finished=tuple(ps is not None and ps.binding_finished for ps in pod_states),
        has_deadline=tuple(ps is not None and ps.deadline is not None for ps in pod_states),
        deadline=tuple(ps.deadline if ps is not None and ps.deadline is not None else 0 for ps in pod_states),
        node=tuple(_slot(naming, ps.pod.node_name) if ps is not None else 0 for ps in pod_states),
        request=tuple(pod_request(ps.pod, level) if ps is not None else ZERO_REQUEST for ps in pod_states),
        on=tuple(
            tuple(info is not None and any(p.uid == uid for p in info.pods) for info in infos) for uid in naming.pods
        ),
        has_info=tuple(info is not None for info in infos),
        live=tuple(info is not None and info.node is not None for info in infos),
        requested=tuple(node_requested(info) if info is not None else ZERO_REQUEST for info in infos),
        ttl=state.ttl,
        expiry=state.profile.assumed_pod_expiry,
    )


def _slot(naming: Naming, name: str) -> int:
    slot = naming.slot(name)
    assert slot is not None, f"node name {name!r} is outside the naming"
    return slot


def abstract_operation(op: Operation, naming: Naming, state: CacheState) -> tuple[str, dict[str, Any]] | None:
    """The encoding's name and arguments for ``op``, or None if the encoding does not cover it
    (``UpdateSnapshot``, a pod without a UID, a name outside ``naming``, UIDs differing in ``UpdatePod``)."""
    level = state.profile.pod_level_resources

    def pod_args(pod: Pod) -> dict[str, Any] | None:
        index, slot = naming.pod_index(pod.uid), naming.slot(pod.node_name)
        if index is None or slot is None:
            return None
        return {"pod": index, "node": slot, "request": pod_request(pod, level)}

    args: dict[str, Any] | None
    match op:
        case AssumePod(pod) | AddPod(pod) | ForgetPod(pod) | RemovePod(pod):
            args = pod_args(pod)
        case FinishBinding(pod, now):
            args = pod_args(pod)
            if args is not None:
                args = {"pod": args["pod"], "now": now}
        case UpdatePod(old, new):
            old_args, new_args = pod_args(old), pod_args(new)
            if old_args is None or new_args is None or old.uid != new.uid:
                return None
            args = {
                "pod": old_args["pod"],
                "old_node": old_args["node"],
                "new_node": new_args["node"],
                "request": new_args["request"],
            }
        case AddNode(node) | RemoveNode(node):
            slot = naming.slot(node.name)
            args = None if slot is None else {"node": slot}
        case UpdateNode(old_node, new_node):
            slot = naming.slot(new_node.name)
            flag = old_node is None and get_zone_key(new_node) != ""
            args = None if slot is None else {"node": slot, "nil_old_zoned_new": flag}
        case CleanupAssumedPods(now):
            args = {"now": now}
        case _:
            return None
    if args is None:
        return None
    name = type(op).__name__
    return name, {key: args[key] for key, _ in TRANSITIONS[name].params}


def disagreements(
    before: CacheState, op: Operation, outcome: Outcome, after: CacheState, naming: Naming
) -> list[str] | None:
    """Run the encoding of ``op`` on the abstraction of ``before`` and compare with the spec.

    Returns None when the step is outside what the encoding covers (a non-representable state or
    an uncovered operation); else the list of differences, empty when the encoding agrees: same
    exit, same error status where the abstraction decides it, same abstract post-state.
    """
    pre = abstract_state(before, naming)
    covered = abstract_operation(op, naming, before)
    if pre is None or covered is None:
        return None
    name, args = covered
    step = TRANSITIONS[name].apply(pre, args)
    problems: list[str] = []
    if step.fatal != (outcome.status is Status.FATAL):
        problems.append(f"{name}: encoding says fatal={step.fatal}, spec outcome {outcome}")
        return problems
    if outcome.status is Status.FATAL:
        return problems
    if step.status_known and step.error != (outcome.status is Status.ERROR):
        problems.append(f"{name}: encoding says error={step.error}, spec outcome {outcome}")
    post = abstract_state(after, naming)
    if post is None:
        return None
    if post != step.post:
        problems.extend(f"{name}: {line}" for line in state_differences(step.post, post))
    return problems


def state_differences(encoded: AbstractState, actual: AbstractState) -> list[str]:
    """Field-by-field differences between the encoding's post-state and the abstraction of the spec's."""
    lines = []
    for field_name in AbstractState.__dataclass_fields__:
        a, b = getattr(encoded, field_name), getattr(actual, field_name)
        if a != b:
            lines.append(f"{field_name}: encoding {a} != spec {b}")
    return lines


def invariant_disagreements(state: CacheState, naming: Naming) -> list[str] | None:
    """Each abstract invariant on the abstraction of ``state`` against its spec predicate.

    Returns None if ``state`` is not representable; else the names that disagree. The
    representation invariant (no spec counterpart) must simply hold.
    """
    abstract = abstract_state(state, naming)
    if abstract is None:
        return None
    problems = []
    for inv in INVARIANTS:
        value = inv.formula(abstract)
        expected = True if inv.spec_predicate is None else inv.spec_predicate(state)
        if value != expected:
            problems.append(f"{inv.name}: abstract {value}, spec {expected}")
    return problems


def describe(state: AbstractState, bounds: Bounds, *, indent: str = "  ") -> list[str]:
    """Lines describing a concrete abstract state: its pods in the cache and its NodeInfos."""
    lines = [f"{indent}ttl={state.ttl} expiry={'on' if state.expiry else 'off'}"]
    for p in range(state.pods):
        if not state.in_cache[p] and not state.assumed[p] and not any(state.on[p]):
            continue
        if not state.in_cache[p]:
            phase = "not in pod_states" + (", but in assumed_pods" if state.assumed[p] else "")
        elif state.assumed[p]:
            phase = "Assumed, binding finished" if state.finished[p] else "Assumed"
        else:
            phase = "Added" + (", binding_finished set" if state.finished[p] else "")
        deadline = f" deadline={state.deadline[p]}" if state.has_deadline[p] else ""
        on = [bounds.slot_name(n) for n in range(state.slots) if state.on[p][n]]
        lines.append(
            f"{indent}pod {p}: {phase}, cached on {bounds.slot_name(state.node[p])}{deadline}, "
            f"request {_quantities(state.request[p])}; held by NodeInfos {on or 'none'}"
        )
    for n in range(state.slots):
        if not state.has_info[n] and not any(state.requested[n]) and not state.live[n]:
            continue
        kind = "live" if state.live[n] else ("placeholder/ghost" if state.has_info[n] else "no NodeInfo")
        pods = [p for p in range(state.pods) if state.on[p][n]]
        lines.append(
            f"{indent}NodeInfo {bounds.slot_name(n)}: {kind}, pods {pods}, requested {_quantities(state.requested[n])}"
        )
    return lines


def _quantities(values: tuple[Any, ...]) -> str:
    return "{" + ", ".join(f"{name}={value}" for name, value in zip(RESOURCES, values, strict=True) if value) + "}"


def with_values(args: Mapping[str, Any]) -> str:
    """The arguments of an operation, for a counterexample."""
    return ", ".join(f"{name}={value}" for name, value in args.items())
