"""Every cache transition of :mod:`spec.cache.cache`, encoded over the abstract state.

Each encoding follows its transition line by line: the same preconditions in the same order,
the same helpers (``_add_pod``, ``_remove_pod``), the same swallowed errors. It is a function from
a pre-state and the operation's arguments to a :class:`Step`: the post-state, whether the
process exits (``fatal``; then there is no post-state), and whether the operation returns an
error. All of it is built from :mod:`spec.verify.terms`, so the same code yields Z3 formulas
over symbolic arguments and plain values on concrete ones.

Not encoded: ``InvalidPodKey`` (pods are indices, so every pod has a UID), and the parts of the
state no headline invariant reads (ports, affinity lists, claims, images, the node tree, the
most-recently-updated list, generations, metrics). ``RemoveNode``'s node-tree error is
therefore not decided here (:attr:`Step.status_known` is False), and neither is the status of
``ForgetPod`` for an unknown pod, which depends on the version profile.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final

import z3

from spec.verify.cache.symbolic import RESOURCES, AbstractState, Bounds, select
from spec.verify.terms import Bool, Int, and_, in_range, ite, not_, or_, pick, put


@dataclass(frozen=True)
class Step:
    """What one operation does to an abstract state."""

    post: AbstractState
    fatal: Bool
    """The scheduler process exits (``SchedulerExit``); ``post`` is then meaningless."""
    error: Bool
    """The operation returns an error (the state may still have changed, as in Kubernetes)."""
    status_known: Bool = True
    """Whether the abstraction decides ``error``."""


class Sort(StrEnum):
    """The kinds of operation arguments."""

    POD = "pod"
    """A pod index."""
    SLOT = "slot"
    """A node-name slot (a name or the empty name)."""
    REQUEST = "request"
    """A pod object's requests, one non-negative integer per resource."""
    TIME = "time"
    """A timestamp."""
    FLAG = "flag"
    """A truth value computed from the operation's objects."""


Args = Mapping[str, Any]
"""Argument name to term; a REQUEST argument is a tuple of terms."""


@dataclass(frozen=True)
class TransitionEncoding:
    """One cache operation: its arguments, its effect and the informer contract's premise on it."""

    name: str
    """The operation's class name in :mod:`spec.cache.operations`."""
    params: tuple[tuple[str, Sort], ...]
    apply: Callable[[AbstractState, Args], Step]
    contract: Callable[[AbstractState, Args], Bool]
    """What :func:`spec.cache.contract.follows_informer_contract` requires of the operation, as far as
    the abstraction can say it (host ports are not modelled)."""


def fresh_args(encoding: TransitionEncoding, tag: str) -> dict[str, Any]:
    """Fresh Z3 constants for the encoding's arguments."""
    args: dict[str, Any] = {}
    for name, sort in encoding.params:
        if sort is Sort.REQUEST:
            args[name] = tuple(z3.Int(f"{tag}.{name}.{r}") for r in RESOURCES)
        elif sort is Sort.FLAG:
            args[name] = z3.Bool(f"{tag}.{name}")
        else:
            args[name] = z3.Int(f"{tag}.{name}")
    return args


def args_in_domain(encoding: TransitionEncoding, args: Args, bounds: Bounds) -> Bool:
    """Pod indices and slots in range, requests non-negative."""
    clauses: list[Bool] = []
    for name, sort in encoding.params:
        if sort is Sort.POD:
            clauses.append(in_range(args[name], bounds.pods))
        elif sort is Sort.SLOT:
            clauses.append(in_range(args[name], bounds.slots))
        elif sort is Sort.REQUEST:
            clauses.extend(q >= 0 for q in args[name])
    return and_(*clauses)


# ============================================================================================
# Helpers: Kubernetes' addPod and removePod
# ============================================================================================

ZERO_REQUEST: Final = tuple(0 for _ in RESOURCES)


def _set_pod(
    s: AbstractState,
    pod: Int,
    *,
    in_cache: Bool,
    assumed: Bool,
    finished: Bool = False,
    has_deadline: Bool = False,
    deadline: Int = 0,
    node: Int = 0,
    request: tuple[Int, ...] = ZERO_REQUEST,
) -> AbstractState:
    return replace(
        s,
        in_cache=put(s.in_cache, pod, in_cache),
        assumed=put(s.assumed, pod, assumed),
        finished=put(s.finished, pod, finished),
        has_deadline=put(s.has_deadline, pod, has_deadline),
        deadline=put(s.deadline, pod, deadline),
        node=put(s.node, pod, node),
        request=tuple(
            tuple(ite(pod == p, new, old) for new, old in zip(request, row, strict=True))
            for p, row in enumerate(s.request)
        ),
    )


def clear_pod(s: AbstractState, pod: Int) -> AbstractState:
    """The pod leaves ``pod_states`` and ``assumed_pods`` (canonical values)."""
    return _set_pod(s, pod, in_cache=False, assumed=False)


def add_pod_helper(s: AbstractState, pod: Int, slot: Int, request: tuple[Int, ...], assume: bool) -> AbstractState:
    """``addPod``: charge the pod to the slot's NodeInfo, creating a placeholder if there is none."""
    created = tuple(and_(slot == n, not_(s.has_info[n])) for n in range(s.slots))
    on = tuple(
        tuple(or_(and_(pod == p, slot == n), and_(not_(created[n]), s.on[p][n])) for n in range(s.slots))
        for p in range(s.pods)
    )
    requested = tuple(
        tuple(
            ite(slot == n, ite(created[n], 0, s.requested[n][r]) + request[r], s.requested[n][r])
            for r in range(len(RESOURCES))
        )
        for n in range(s.slots)
    )
    s = replace(
        s,
        on=on,
        has_info=tuple(or_(s.has_info[n], slot == n) for n in range(s.slots)),
        live=tuple(and_(s.live[n], not_(created[n])) for n in range(s.slots)),
        requested=requested,
    )
    return _set_pod(s, pod, in_cache=True, assumed=assume, node=slot, request=request)


@dataclass(frozen=True)
class Removal:
    """The outcome of ``removePod``: the state if it succeeds, and which way it went."""

    state: AbstractState
    ok: Bool
    error: Bool
    """``NodeInfo.RemovePod`` found no such pod on a NodeInfo with a node (state unchanged)."""
    fatal: Bool
    """The same on a NodeInfo without a node: Go dereferences nil."""


def remove_pod_helper(s: AbstractState, pod: Int, slot: Int) -> Removal:
    """``removePod``: release the pod from the NodeInfo of ``slot`` (a missing NodeInfo is tolerated),
    delete that NodeInfo if it is left with no pods and no node, and drop the pod's state."""
    exists = pick(s.has_info, slot)
    holds = pick(tuple(pick(s.on[p], slot) for p in range(s.pods)), pod)
    is_live = pick(s.live, slot)
    request = tuple(pick(tuple(s.request[p][r] for p in range(s.pods)), pod) for r in range(len(RESOURCES)))
    on = tuple(tuple(and_(s.on[p][n], not_(and_(pod == p, slot == n))) for n in range(s.slots)) for p in range(s.pods))
    emptied = tuple(and_(slot == n, not_(s.live[n]), *(not_(on[p][n]) for p in range(s.pods))) for n in range(s.slots))
    requested = tuple(
        tuple(
            ite(emptied[n], 0, ite(slot == n, s.requested[n][r] - request[r], s.requested[n][r]))
            for r in range(len(RESOURCES))
        )
        for n in range(s.slots)
    )
    released = replace(
        s,
        on=on,
        has_info=tuple(and_(s.has_info[n], not_(emptied[n])) for n in range(s.slots)),
        requested=requested,
    )
    after = select(exists, clear_pod(released, pod), clear_pod(s, pod))
    return Removal(
        state=after,
        ok=or_(not_(exists), holds),
        error=and_(exists, not_(holds), is_live),
        fatal=and_(exists, not_(holds), not_(is_live)),
    )


def _unchanged(s: AbstractState, *, error: Bool, fatal: Bool = False, known: Bool = True) -> Step:
    return Step(s, fatal, error, known)


def _cases(s: AbstractState, *cases: tuple[Bool, Step], otherwise: Step) -> Step:
    """The step of the first case whose guard holds (guards are tried in order), else ``otherwise``."""
    result = otherwise
    for guard, step in reversed(cases):
        result = Step(
            select(guard, step.post, result.post),
            ite(guard, step.fatal, result.fatal),
            ite(guard, step.error, result.error),
            ite(guard, step.status_known, result.status_known),
        )
    return result


# ============================================================================================
# Pod transitions
# ============================================================================================


def assume_pod(s: AbstractState, a: Args) -> Step:
    """:func:`spec.cache.cache.assume_pod`."""
    pod, slot, request = a["pod"], a["node"], a["request"]
    return _cases(
        s,
        (pick(s.in_cache, pod), _unchanged(s, error=True)),  # PodAlreadyInCache
        otherwise=Step(add_pod_helper(s, pod, slot, request, assume=True), False, False),
    )


def finish_binding(s: AbstractState, a: Args) -> Step:
    """:func:`spec.cache.cache.finish_binding`."""
    pod, now = a["pod"], a["now"]
    current = and_(pick(s.in_cache, pod), pick(s.assumed, pod))
    with_ttl = s.ttl != 0
    finished = replace(
        s,
        finished=put(s.finished, pod, True),
        has_deadline=put(s.has_deadline, pod, with_ttl),
        deadline=put(s.deadline, pod, ite(with_ttl, now + s.ttl, 0)),
    )
    return _cases(
        s,
        (not_(s.expiry), _unchanged(s, error=True)),  # UnsupportedOperation
        (not_(current), _unchanged(s, error=False)),
        otherwise=Step(finished, False, False),
    )


def forget_pod(s: AbstractState, a: Args) -> Step:
    """:func:`spec.cache.cache.forget_pod`; ``node`` is the slot of the argument pod object's node name."""
    pod, slot = a["pod"], a["node"]
    removal = remove_pod_helper(s, pod, slot)
    return _cases(
        s,
        (not_(pick(s.in_cache, pod)), _unchanged(s, error=False, known=False)),  # profile: error or no-op
        (pick(s.node, pod) != slot, _unchanged(s, error=True)),  # PodAssumedOnOtherNode
        (not_(pick(s.assumed, pod)), _unchanged(s, error=True)),  # PodNotAssumed
        otherwise=Step(select(removal.ok, removal.state, s), removal.fatal, removal.error),
    )


def add_pod(s: AbstractState, a: Args) -> Step:
    """:func:`spec.cache.cache.add_pod`: confirm an assumed pod (possibly on another node) or add an unknown one."""
    pod, slot, request = a["pod"], a["node"], a["request"]
    removal = remove_pod_helper(s, pod, pick(s.node, pod))  # the cached object, from its node
    confirmed = add_pod_helper(removal.state, pod, slot, request, assume=False)
    return _cases(
        s,
        (
            and_(pick(s.in_cache, pod), pick(s.assumed, pod)),
            # An error while updating is only logged: the state is left as the failed removal left it.
            Step(select(removal.ok, confirmed, s), removal.fatal, False),
        ),
        (not_(pick(s.in_cache, pod)), Step(add_pod_helper(s, pod, slot, request, assume=False), False, False)),
        otherwise=_unchanged(s, error=True),  # PodAlreadyAdded
    )


def update_pod(s: AbstractState, a: Args) -> Step:
    """:func:`spec.cache.cache.update_pod`; ``old_node`` / ``new_node`` are the slots of the two objects."""
    pod, old_slot, new_slot, request = a["pod"], a["old_node"], a["new_node"], a["request"]
    removal = remove_pod_helper(s, pod, old_slot)
    updated = add_pod_helper(removal.state, pod, new_slot, request, assume=False)
    return _cases(
        s,
        (not_(pick(s.in_cache, pod)), _unchanged(s, error=True)),  # PodNotAdded
        (pick(s.assumed, pod), _unchanged(s, error=True)),  # AssumedPodUpdate
        (pick(s.node, pod) != new_slot, _unchanged(s, error=False, fatal=True)),  # PodUpdatedOnOtherNode
        otherwise=Step(select(removal.ok, updated, s), removal.fatal, removal.error),
    )


def remove_pod(s: AbstractState, a: Args) -> Step:
    """:func:`spec.cache.cache.remove_pod`: the cached object is removed, from its own node."""
    pod, slot = a["pod"], a["node"]
    cached_slot = pick(s.node, pod)
    removal = remove_pod_helper(s, pod, cached_slot)
    return _cases(
        s,
        (not_(pick(s.in_cache, pod)), _unchanged(s, error=True)),  # PodNotFoundForRemoval
        (
            and_(cached_slot != slot, slot != s.slots - 1),
            _unchanged(s, error=False, fatal=True),  # PodRemovedFromOtherNode
        ),
        otherwise=Step(select(removal.ok, removal.state, s), removal.fatal, removal.error),
    )


# ============================================================================================
# Node transitions
# ============================================================================================


def _set_node(s: AbstractState, slot: Int) -> AbstractState:
    """``_node_info_for`` then ``SetNode``: the slot's NodeInfo exists (created empty if needed) and is live."""
    return replace(
        s,
        on=tuple(tuple(and_(s.on[p][n], or_(slot != n, s.has_info[n])) for n in range(s.slots)) for p in range(s.pods)),
        requested=tuple(
            tuple(ite(and_(slot == n, not_(s.has_info[n])), 0, q) for q in s.requested[n]) for n in range(s.slots)
        ),
        has_info=tuple(or_(s.has_info[n], slot == n) for n in range(s.slots)),
        live=tuple(or_(s.live[n], slot == n) for n in range(s.slots)),
    )


def add_node(s: AbstractState, a: Args) -> Step:
    """:func:`spec.cache.cache.add_node`. Never fails."""
    return Step(_set_node(s, a["node"]), False, False)


def update_node(s: AbstractState, a: Args) -> Step:
    """:func:`spec.cache.cache.update_node`; ``nil_old_zoned_new`` is "old is None and new has a zone"."""
    return Step(_set_node(s, a["node"]), a["nil_old_zoned_new"], False)


def remove_node(s: AbstractState, a: Args) -> Step:
    """:func:`spec.cache.cache.remove_node`: a NodeInfo with pods becomes a ghost, an empty one is deleted."""
    slot = a["node"]
    empty = tuple(and_(slot == n, *(not_(s.on[p][n]) for p in range(s.pods))) for n in range(s.slots))
    removed = replace(
        s,
        live=tuple(and_(s.live[n], slot != n) for n in range(s.slots)),
        has_info=tuple(and_(s.has_info[n], not_(empty[n])) for n in range(s.slots)),
        requested=tuple(tuple(ite(empty[n], 0, q) for q in s.requested[n]) for n in range(s.slots)),
    )
    return _cases(
        s,
        (not_(pick(s.has_info, slot)), _unchanged(s, error=True)),  # NodeNotFound
        # NodeNotInTree (the node tree is not modelled) comes after the same change.
        otherwise=Step(removed, False, False, status_known=False),
    )


# ============================================================================================
# Expiry
# ============================================================================================


def is_expired(s: AbstractState, pod: int, now: Int) -> Bool:
    """:func:`spec.cache.cache.is_expired` for the pod's state."""
    return and_(s.finished[pod], s.ttl != 0, s.has_deadline[pod], now > s.deadline[pod])


def cleanup_assumed_pods(s: AbstractState, a: Args) -> Step:
    """:func:`spec.cache.cache.cleanup_assumed_pods`: visit the assumed pods in key order, expire each that
    :func:`is_expired`; an error while expiring is only logged."""
    now = a["now"]
    state = s
    fatal: Bool = False
    for pod in range(s.pods):
        without_state = and_(state.assumed[pod], not_(state.in_cache[pod]))  # AssumedPodWithoutState
        expired = and_(state.assumed[pod], state.in_cache[pod], is_expired(state, pod, now))
        removal = remove_pod_helper(state, pod, state.node[pod])
        fatal = or_(fatal, without_state, and_(expired, removal.fatal))
        state = select(and_(expired, removal.ok), removal.state, state)
    return _cases(
        s,
        (not_(s.expiry), _unchanged(s, error=True)),  # UnsupportedOperation
        otherwise=Step(state, fatal, False),
    )


# ============================================================================================
# The informer contract, abstracted
# ============================================================================================


def _no_premise(s: AbstractState, a: Args) -> Bool:
    return True


def _cached_object(s: AbstractState, a: Args) -> Bool:
    """ForgetPod: the object passed is the cached one, so it names the cached node."""
    return or_(not_(pick(s.in_cache, a["pod"])), pick(s.node, a["pod"]) == a["node"])


def _update_contract(s: AbstractState, a: Args) -> Bool:
    """UpdatePod: old is the cached object; new keeps the cached node."""
    cached = pick(s.node, a["pod"])
    return or_(not_(pick(s.in_cache, a["pod"])), and_(a["old_node"] == cached, a["new_node"] == cached))


def _remove_contract(s: AbstractState, a: Args) -> Bool:
    """RemovePod: the cached object, or that object with an empty node name."""
    return or_(not_(pick(s.in_cache, a["pod"])), pick(s.node, a["pod"]) == a["node"], a["node"] == s.slots - 1)


def _add_node_contract(s: AbstractState, a: Args) -> Bool:
    return not_(pick(s.live, a["node"]))


def _update_node_contract(s: AbstractState, a: Args) -> Bool:
    return and_(pick(s.live, a["node"]), not_(a["nil_old_zoned_new"]))


def _remove_node_contract(s: AbstractState, a: Args) -> Bool:
    return or_(not_(pick(s.has_info, a["node"])), pick(s.live, a["node"]))


P, S, R, T, F = Sort.POD, Sort.SLOT, Sort.REQUEST, Sort.TIME, Sort.FLAG

TRANSITIONS: Final = {
    e.name: e
    for e in (
        TransitionEncoding("AssumePod", (("pod", P), ("node", S), ("request", R)), assume_pod, _no_premise),
        TransitionEncoding("FinishBinding", (("pod", P), ("now", T)), finish_binding, _no_premise),
        TransitionEncoding("ForgetPod", (("pod", P), ("node", S)), forget_pod, _cached_object),
        TransitionEncoding("AddPod", (("pod", P), ("node", S), ("request", R)), add_pod, _no_premise),
        TransitionEncoding(
            "UpdatePod",
            (("pod", P), ("old_node", S), ("new_node", S), ("request", R)),
            update_pod,
            _update_contract,
        ),
        TransitionEncoding("RemovePod", (("pod", P), ("node", S)), remove_pod, _remove_contract),
        TransitionEncoding("AddNode", (("node", S),), add_node, _add_node_contract),
        TransitionEncoding("UpdateNode", (("node", S), ("nil_old_zoned_new", F)), update_node, _update_node_contract),
        TransitionEncoding("RemoveNode", (("node", S),), remove_node, _remove_node_contract),
        TransitionEncoding("CleanupAssumedPods", (("now", T),), cleanup_assumed_pods, _no_premise),
    )
}
"""Every cache transition, by operation name. ``UpdateSnapshot`` does not change the cache."""
