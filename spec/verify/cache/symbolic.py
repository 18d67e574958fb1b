"""The bounded abstract cache state the Z3 proofs reason about, and the invariants over it.

The abstraction keeps exactly what the headline invariants read (:mod:`spec.cache.invariants`): for
each of ``P`` pods, whether it is in ``pod_states`` and in ``assumed_pods``, its binding progress
and deadline, the node its cached object names and that object's requests; for each node name,
whether a NodeInfo exists, whether it has a node, which pods it holds and its Requested. The
names a pod or NodeInfo can have are ``N`` node names plus the empty name "" (its own slot,
:attr:`Bounds.empty_slot`), which Kubernetes treats like any other name except in ``RemovePod``.

A NodeInfo's pods are a *set* of pod indices here: the model can say that a pod is on two nodes,
but not that one NodeInfo holds two copies of it, nor copies that differ from the cached object.
Such states are not *representable* (:func:`spec.verify.cache.abstraction.abstract_state` returns None);
they arise only from event streams outside the informer contract. That is why the invariants
about NodeInfo membership are proved under the contract, and the pod-level ones for every input.

Resources modelled (:data:`RESOURCES`): the five integer fields ``NodeInfo`` accounts per pod
(Requested cpu, memory and ephemeral storage, NonZeroRequested cpu and memory). Scalar resources
and AllowedPodNumber are not modelled.

Every invariant here names the predicate of :mod:`spec.cache.invariants` it abstracts;
``tests/verify/cache/test_encoding_agrees.py`` checks that both give the same answer on the same states.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import z3

from spec.cache import invariants as spec_invariants
from spec.cache.cache import CacheState
from spec.verify.terms import Bool, Int, and_, count, iff, implies, in_range, ite, map_fields, not_, or_, select_fields

RESOURCES: Final = ("milli_cpu", "memory", "ephemeral_storage", "non0_cpu", "non0_mem")
"""The per-pod quantities a NodeInfo sums: Requested cpu/memory/ephemeral, NonZeroRequested cpu/memory."""

DEFAULT_PODS: Final = 4
DEFAULT_NODES: Final = 3


@dataclass(frozen=True)
class Bounds:
    """The size of the bounded universe: ``pods`` pod UIDs and ``nodes`` node names (plus "")."""

    pods: int = DEFAULT_PODS
    nodes: int = DEFAULT_NODES

    def __post_init__(self) -> None:
        if self.pods < 1 or self.nodes < 1:
            raise ValueError(f"bounds need at least one pod and one node name, got {self.pods} and {self.nodes}")

    @property
    def slots(self) -> int:
        """Node-name slots: the ``nodes`` names and the empty name."""
        return self.nodes + 1

    @property
    def empty_slot(self) -> int:
        """The slot of the empty node name ""."""
        return self.nodes

    def describe(self) -> str:
        return (
            f"P={self.pods} pods, N={self.nodes} node names + the empty name, "
            f"{len(RESOURCES)} resources ({', '.join(RESOURCES)}); quantities, times and the TTL unbounded"
        )

    def slot_name(self, slot: int) -> str:
        return '""' if slot == self.empty_slot else f"n{slot}"


@dataclass(frozen=True)
class AbstractState:
    """One abstract cache state. Fields hold Z3 terms (in proofs) or bools and ints (on concrete states).

    Indexing: ``[pod]`` for pod fields, ``[slot]`` for node fields, ``[pod][slot]`` for ``on``,
    ``[..][resource]`` in :data:`RESOURCES` order. A pod not in the cache has the canonical
    values False / 0 in every pod field.
    """

    in_cache: tuple[Bool, ...]
    """The pod's UID is in ``pod_states``."""
    assumed: tuple[Bool, ...]
    """The UID is in ``assumed_pods``."""
    finished: tuple[Bool, ...]
    """``PodState.binding_finished``."""
    has_deadline: tuple[Bool, ...]
    """``PodState.deadline is not None``."""
    deadline: tuple[Int, ...]
    """``PodState.deadline`` (0 when None)."""
    node: tuple[Int, ...]
    """The slot of the cached pod object's ``node_name``."""
    request: tuple[tuple[Int, ...], ...]
    """The cached pod object's requests (``compute_pod_resource``)."""
    on: tuple[tuple[Bool, ...], ...]
    """The NodeInfo in the slot holds a pod with this UID."""
    has_info: tuple[Bool, ...]
    """A NodeInfo exists under the slot's name (live, placeholder or ghost)."""
    live: tuple[Bool, ...]
    """That NodeInfo has a node (it is not a placeholder or ghost)."""
    requested: tuple[tuple[Int, ...], ...]
    """The NodeInfo's Requested / NonZeroRequested (0 when there is no NodeInfo)."""
    ttl: Int
    """The cache's TTL; never changed by a transition."""
    expiry: Bool
    """The version profile has assumed-pod expiry; never changed by a transition."""

    @property
    def pods(self) -> int:
        return len(self.in_cache)

    @property
    def slots(self) -> int:
        return len(self.has_info)


def map_state(state: AbstractState, leaf: Callable[[Any], Any]) -> AbstractState:
    """Apply ``leaf`` to every term of ``state``."""
    return map_fields(state, leaf)


def select(condition: Bool, then: AbstractState, otherwise: AbstractState) -> AbstractState:
    """The state ``then`` where ``condition`` holds, else ``otherwise``, field by field."""
    return select_fields(condition, then, otherwise)


def fresh_state(bounds: Bounds, tag: str) -> AbstractState:
    """An abstract state of fresh Z3 constants named ``tag.field[index]``."""
    pods, slots, res = range(bounds.pods), range(bounds.slots), range(len(RESOURCES))

    def b(name: str) -> Bool:
        return z3.Bool(f"{tag}.{name}")

    def i(name: str) -> Int:
        return z3.Int(f"{tag}.{name}")

    return AbstractState(
        in_cache=tuple(b(f"in_cache[{p}]") for p in pods),
        assumed=tuple(b(f"assumed[{p}]") for p in pods),
        finished=tuple(b(f"finished[{p}]") for p in pods),
        has_deadline=tuple(b(f"has_deadline[{p}]") for p in pods),
        deadline=tuple(i(f"deadline[{p}]") for p in pods),
        node=tuple(i(f"node[{p}]") for p in pods),
        request=tuple(tuple(i(f"request[{p}][{RESOURCES[r]}]") for r in res) for p in pods),
        on=tuple(tuple(b(f"on[{p}][{n}]") for n in slots) for p in pods),
        has_info=tuple(b(f"has_info[{n}]") for n in slots),
        live=tuple(b(f"live[{n}]") for n in slots),
        requested=tuple(tuple(i(f"requested[{n}][{RESOURCES[r]}]") for r in res) for n in slots),
        ttl=i("ttl"),
        expiry=b("expiry"),
    )


def initial_state(bounds: Bounds, ttl: Int, expiry: Bool) -> AbstractState:
    """``new_cache(profile, ttl)``: no pods, no NodeInfos."""
    zeros = tuple(0 for _ in RESOURCES)
    return AbstractState(
        in_cache=(False,) * bounds.pods,
        assumed=(False,) * bounds.pods,
        finished=(False,) * bounds.pods,
        has_deadline=(False,) * bounds.pods,
        deadline=(0,) * bounds.pods,
        node=(0,) * bounds.pods,
        request=(zeros,) * bounds.pods,
        on=((False,) * bounds.slots,) * bounds.pods,
        has_info=(False,) * bounds.slots,
        live=(False,) * bounds.slots,
        requested=(zeros,) * bounds.slots,
        ttl=ttl,
        expiry=expiry,
    )


def well_typed(state: AbstractState) -> Bool:
    """The domain of every abstract state: slots in range, requests and the TTL non-negative, and
    a TTL only in a profile with expiry (``new_cache`` refuses anything else)."""
    return and_(
        *(in_range(n, state.slots) for n in state.node),
        *(q >= 0 for row in state.request for q in row),
        state.ttl >= 0,
        implies(not_(state.expiry), state.ttl == 0),
    )


# ============================================================================================
# Invariants
# ============================================================================================


def inv_wf_abstraction(s: AbstractState) -> Bool:
    """Representation: only a NodeInfo has a node, pods or a non-zero Requested. True of every
    abstraction of a concrete state by construction; proved preserved so the model stays in that image."""
    return and_(
        *(
            and_(
                implies(s.live[n], s.has_info[n]),
                implies(not_(s.has_info[n]), and_(*(q == 0 for q in s.requested[n]))),
                implies(not_(s.has_info[n]), and_(*(not_(s.on[p][n]) for p in range(s.pods)))),
            )
            for n in range(s.slots)
        )
    )


def inv_assumed_pods_subset_of_pod_states(s: AbstractState) -> Bool:
    """Abstracts :func:`spec.cache.invariants.inv_assumed_pods_subset_of_pod_states`."""
    return and_(*(implies(s.assumed[p], s.in_cache[p]) for p in range(s.pods)))


def inv_deadline_only_after_finish_binding(s: AbstractState) -> Bool:
    """Abstracts :func:`spec.cache.invariants.inv_deadline_only_after_finish_binding` (k8s #106361)."""
    return and_(
        *(
            implies(
                s.in_cache[p],
                and_(
                    implies(s.finished[p], s.assumed[p]),
                    iff(s.has_deadline[p], and_(s.finished[p], s.ttl != 0)),
                ),
            )
            for p in range(s.pods)
        )
    )


def inv_pod_on_at_most_one_node(s: AbstractState) -> Bool:
    """Abstracts :func:`spec.cache.invariants.inv_pod_on_at_most_one_node`: no double-booking."""
    return and_(*(count(s.on[p]) <= 1 for p in range(s.pods)))


def inv_pod_states_match_node_infos(s: AbstractState) -> Bool:
    """Abstracts :func:`spec.cache.invariants.inv_pod_states_match_node_infos`: a pod is on exactly the node
    its cached object names, iff it is in the cache (assumed or added)."""
    return and_(*(iff(s.on[p][n], and_(s.in_cache[p], s.node[p] == n)) for p in range(s.pods) for n in range(s.slots)))


def inv_requested_is_sum_of_pods(s: AbstractState) -> Bool:
    """Abstracts :func:`spec.cache.invariants.inv_requested_is_sum_of_pods` on :data:`RESOURCES`: each
    node's Requested is the sum of the requests of the (assumed and added) pods it holds."""
    return and_(
        *(
            s.requested[n][r] == sum((ite(s.on[p][n], s.request[p][r], 0) for p in range(s.pods)), 0)
            for n in range(s.slots)
            for r in range(len(RESOURCES))
        )
    )


def inv_no_empty_node_info_without_node(s: AbstractState) -> Bool:
    """Abstracts :func:`spec.cache.invariants.inv_no_empty_node_info_without_node`."""
    return and_(
        *(
            implies(and_(s.has_info[n], not_(s.live[n])), or_(*(s.on[p][n] for p in range(s.pods))))
            for n in range(s.slots)
        )
    )


def trans_expiry_only_after_finish_binding(pre: AbstractState, post: AbstractState, now: Int) -> Bool:
    """Abstracts :func:`spec.cache.invariants.trans_expiry_only_after_finish_binding`: a cleanup at ``now``
    removes exactly the assumed pods whose binding finished, with a non-zero TTL, strictly past their
    deadline, and leaves every other pod's state as it was."""
    clauses = []
    for p in range(pre.pods):
        expired = and_(pre.assumed[p], pre.finished[p], pre.ttl != 0, pre.has_deadline[p], now > pre.deadline[p])
        kept = and_(pre.in_cache[p], not_(expired))
        same = and_(
            iff(post.finished[p], pre.finished[p]),
            iff(post.has_deadline[p], pre.has_deadline[p]),
            post.deadline[p] == pre.deadline[p],
            post.node[p] == pre.node[p],
            *(a == b for a, b in zip(post.request[p], pre.request[p], strict=True)),
        )
        clauses.append(iff(post.in_cache[p], kept))
        clauses.append(iff(post.assumed[p], and_(pre.assumed[p], not_(expired))))
        clauses.append(implies(kept, same))
    return and_(*clauses)


ALWAYS: Final = spec_invariants.ALWAYS
UNDER_CONTRACT: Final = spec_invariants.UNDER_CONTRACT


@dataclass(frozen=True)
class AbstractInvariant:
    """An invariant of the abstract state, the spec predicate it abstracts, and its proof premise."""

    formula: Callable[[AbstractState], Bool]
    spec_predicate: Callable[[CacheState], bool] | None
    """None only for the representation invariant, which has no counterpart in the spec."""
    premise: str
    """ALWAYS: proved for every operation, assuming only the ALWAYS invariants before it;
    UNDER_CONTRACT: proved for operations that follow :mod:`spec.cache.contract`, assuming every invariant."""
    headline: str = ""
    """Which headline property of the cache it establishes, if any."""

    @property
    def name(self) -> str:
        return self.formula.__name__


INVARIANTS: Final = (
    AbstractInvariant(inv_wf_abstraction, None, ALWAYS),
    AbstractInvariant(
        inv_assumed_pods_subset_of_pod_states, spec_invariants.inv_assumed_pods_subset_of_pod_states, ALWAYS
    ),
    AbstractInvariant(
        inv_deadline_only_after_finish_binding,
        spec_invariants.inv_deadline_only_after_finish_binding,
        ALWAYS,
        "expiry only after finish_binding",
    ),
    AbstractInvariant(
        inv_pod_on_at_most_one_node, spec_invariants.inv_pod_on_at_most_one_node, UNDER_CONTRACT, "no double-booking"
    ),
    AbstractInvariant(
        inv_pod_states_match_node_infos,
        spec_invariants.inv_pod_states_match_node_infos,
        UNDER_CONTRACT,
        "no double-booking",
    ),
    AbstractInvariant(
        inv_requested_is_sum_of_pods,
        spec_invariants.inv_requested_is_sum_of_pods,
        UNDER_CONTRACT,
        "Requested = sum of assumed and added pods",
    ),
    AbstractInvariant(
        inv_no_empty_node_info_without_node, spec_invariants.inv_no_empty_node_info_without_node, UNDER_CONTRACT
    ),
)
"""The abstract invariants; their conjunction is the inductive invariant the proofs establish.

The spec calls ``inv_requested_is_sum_of_pods`` and ``inv_no_empty_node_info_without_node``
ALWAYS; here they are proved under the contract only, because outside it a NodeInfo can hold two
copies of a pod, which this abstraction cannot represent. The model checker checks them for
every input (adversarial mode).
"""


def invariants_with_premise(premise: str) -> tuple[AbstractInvariant, ...]:
    """The invariants a step obligation with ``premise`` may assume before the step."""
    if premise == ALWAYS:
        return tuple(inv for inv in INVARIANTS if inv.premise == ALWAYS)
    return INVARIANTS
