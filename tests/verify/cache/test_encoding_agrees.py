"""The Z3 encoding is the spec's: both give the same post-states and the same invariant verdicts.

The Hypothesis state machines of ``tests/spec/cache/test_stateful.py`` drive the executable spec
with contract-following and adversarial operation streams. Here every step they take is also run
through the transition encoding (on the abstraction of the pre-state, with plain values), and the
result must equal the abstraction of the spec's post-state, with the same exit and error status;
on every state reached, and on corrupted copies of it, each abstract invariant must give the
spec predicate's verdict. A seeded walk checks that every encoding is compared in every outcome,
and a sample of steps is evaluated a second time through Z3 itself (substituting the concrete
values into the symbolic formulas the proofs use), so the two evaluations of the one encoding
cannot drift apart either.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from dataclasses import fields, replace
from typing import Any
from unittest import TestCase

import pytest
import z3
from hypothesis import event

from spec.cache.cache import CacheState, PodState
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
    UpdateSnapshot,
    World,
    apply,
)
from spec.objects import AffinityTerms, Container, ContainerPort, Pod, with_node_name
from spec.quantities import SECOND, resource_list
from spec.resources import Resource
from spec.verify.cache.abstraction import (
    Naming,
    abstract_operation,
    abstract_state,
    disagreements,
    invariant_disagreements,
)
from spec.verify.cache.symbolic import INVARIANTS, AbstractState, fresh_state, map_state
from spec.verify.cache.transitions import TRANSITIONS, fresh_args
from spec.versions import PROFILES
from tests.spec.cache.test_stateful import AdversarialCacheMachine, CacheMachineBase, ContractCacheMachine
from tests.support.machines import configured_test_case, machine_settings
from tests.support.universe import NODE_NAMES, POD_UIDS, make_node

NAMING = Naming(POD_UIDS, (*NODE_NAMES, "n9"))
"""The test universe's UIDs and node names ("n9" never exists; "" is the empty slot)."""

EXAMPLES = {"ci": 40, "dev": 30, "thorough": 1000}


def check_step(before: World, op: Operation, outcome: Outcome, after: World) -> None:
    problems = disagreements(before.cache, op, outcome, after.cache, NAMING)
    if problems is None:
        event("step outside the encoding (not representable or not a cache operation)")
        return
    event(f"compared {type(op).__name__}: {outcome.status.value}")
    assert not problems, f"encoding disagrees with the spec on {op}: {problems}"
    state_problems = invariant_disagreements(after.cache, NAMING)
    assert not state_problems, f"invariant formulas disagree with the spec after {op}: {state_problems}"
    broken = corruptions(after.cache)
    for name, corrupted in broken[_next_turn() % CORRUPTION_STRIDE :: CORRUPTION_STRIDE]:
        verdicts = invariant_disagreements(corrupted, NAMING)
        assert not verdicts, f"invariant formulas disagree with the spec on {name} after {op}: {verdicts}"


CORRUPTION_STRIDE = 4
"""Each step checks every fourth corruption of its state, starting at a rotating offset."""
_turns = iter(range(10**9))


def _next_turn() -> int:
    return next(_turns)


def corruptions(state: CacheState) -> list[tuple[str, CacheState]]:
    """Copies of ``state`` broken in ways the abstract invariants must notice as the spec does."""
    result = []
    for name, info in state.nodes.items():
        bumped = replace(info.requested, memory=info.requested.memory + 1)
        result.append((f"requested+1 on {name!r}", _with_node(state, name, requested=bumped)))
        if info.pods:
            result.append((f"pod dropped from {name!r}", _with_node(state, name, pods=info.pods[1:])))
            result.append(
                (f"non-zero cpu off on {name!r}", _with_node(state, name, non_zero_requested=Resource(milli_cpu=-1)))
            )
    for key, ps in state.pod_states.items():
        result.append(
            (
                f"{key} binding finished",
                replace(state, pod_states=state.pod_states.set(key, replace(ps, binding_finished=True))),
            )
        )
        result.append(
            (f"{key} deadline", replace(state, pod_states=state.pod_states.set(key, replace(ps, deadline=7))))
        )
        result.append((f"{key} forgotten", replace(state, pod_states=state.pod_states.remove(key))))
        result.append((f"{key} unassumed", replace(state, assumed_pods=state.assumed_pods - {key})))
        for other in NAMING.nodes:
            if other in state.nodes and other != ps.pod.node_name:
                info = state.nodes[other]
                result.append((f"{key} also on {other}", _with_node(state, other, pods=(*info.pods, ps.pod))))
                break
    for uid in NAMING.pods:
        if uid not in state.pod_states:
            stray = PodState(Pod(uid, f"pod-{uid}", node_name="n1"), binding_finished=True)
            result.append((f"{uid} assumed without state", replace(state, assumed_pods=state.assumed_pods | {uid})))
            result.append((f"{uid} appears", replace(state, pod_states=state.pod_states.set(uid, stray))))
            break
    return result


def _with_node(state: CacheState, name: str, **changes: Any) -> CacheState:
    return replace(state, nodes=state.nodes.set(name, replace(state.nodes[name], **changes)))


class AgreeingContractMachine(ContractCacheMachine):
    def step(self, op: Operation) -> Outcome:
        before = self.world
        outcome = super().step(op)
        check_step(before, op, outcome, self.world)
        return outcome


class AgreeingAdversarialMachine(AdversarialCacheMachine):
    def step(self, op: Operation) -> Outcome:
        before = self.world
        outcome = super().step(op)
        check_step(before, op, outcome, self.world)
        return outcome


def _configured(machine: type[CacheMachineBase], profile: str, ttl: int) -> type[TestCase]:
    return configured_test_case(
        machine, machine.__name__, {"profile": PROFILES[profile], "ttl": ttl}, machine_settings(EXAMPLES, 30)
    )


TestContractAgrees_ttl0 = _configured(AgreeingContractMachine, "v1.35", 0)
TestContractAgrees_ttl1s = _configured(AgreeingContractMachine, "v1.35", 1 * SECOND)
TestAdversarialAgrees_ttl1s = _configured(AgreeingAdversarialMachine, "v1.34", 1 * SECOND)
TestAdversarialAgrees_v1_37 = _configured(AgreeingAdversarialMachine, "v1.37", 0)


# ============================================================================================
# A seeded walk: every encoding compared, in every outcome it can have
# ============================================================================================


def seeded_walk(seed: int, runs: int, steps: int) -> list[tuple[World, Operation, Outcome, World]]:
    """Random operation sequences over the test universe (any objects, so every outcome occurs)."""
    rng = random.Random(seed)
    variants = {uid: pod_variants(uid) for uid in POD_UIDS}
    node_objects = [make_node(n, z) for n in NODE_NAMES for z in (None, "z1", "z2")]
    walk = []
    for _ in range(runs):
        profile = PROFILES[rng.choice(["v1.34", "v1.35", "v1.37"])]
        ttl = rng.choice([0, SECOND]) if profile.assumed_pod_expiry else 0
        world = World(CacheState(profile=profile, ttl=ttl))
        for _ in range(steps):
            uid = rng.choice(POD_UIDS)
            current = world.cache.pod_states.get(uid)
            cached = current.pod if current is not None else None
            pod = with_node_name(rng.choice(variants[uid]), rng.choice((*NAMING.nodes, "")))
            some = cached if cached is not None and rng.random() < 0.7 else pod
            name = rng.choice(NODE_NAMES)
            live = world.cache.nodes.get(name)
            options: list[Operation] = [
                AssumePod(pod),
                AddPod(pod),
                FinishBinding(some, rng.randrange(4) * SECOND),
                ForgetPod(some),
                UpdatePod(some, replace(pod, node_name=some.node_name if rng.random() < 0.8 else pod.node_name)),
                RemovePod(some if rng.random() < 0.8 else replace(some, node_name="")),
                AddNode(rng.choice(node_objects)),
                UpdateNode(live.node if live is not None and rng.random() < 0.8 else None, make_node(name, "z1")),
                RemoveNode(live.node if live is not None and live.node is not None else rng.choice(node_objects)),
                CleanupAssumedPods(rng.randrange(4) * SECOND),
                UpdateSnapshot(),
            ]
            op = rng.choice(options)
            after, outcome = apply(world, op)
            walk.append((world, op, outcome, after))
            if outcome.status is Status.FATAL:
                break
            world = after
    return walk


WALK_SEED = 20260521


def pod_variants(uid: str) -> list[Pod]:
    """Three objects per UID: plain requests; several containers with ports, anti-affinity and
    claims; no container requests but a sidecar, overhead, pod-level cpu and an empty affinity."""
    name = f"pod-{uid}"
    return [
        Pod(uid, name, containers=(Container("c", resource_list(cpu=500)),)),
        Pod(
            uid,
            name,
            "team-a",
            containers=(
                Container("a", resource_list(cpu=1500, memory=2**30, ephemeral_storage=500)),
                Container("b", resource_list(memory=2**20), (ContainerPort(80, host_port=8080),)),
            ),
            pod_anti_affinity=AffinityTerms(required=2),
            pvc_claims=("data", "data"),
        ),
        Pod(
            uid,
            name,
            containers=(Container("c"),),
            init_containers=(Container("sidecar", resource_list(cpu=50), restart_policy="Always"),),
            overhead=resource_list(cpu=10, memory=2**20),
            pod_level_requests=resource_list(cpu=2000),
            pod_affinity=AffinityTerms(),
        ),
    ]


def test_every_encoding_is_compared_in_every_outcome() -> None:
    compared: Counter[tuple[str, str]] = Counter()
    for before, op, outcome, after in seeded_walk(WALK_SEED, runs=200, steps=40):
        problems = disagreements(before.cache, op, outcome, after.cache, NAMING)
        if problems is None:
            continue
        assert not problems, f"encoding disagrees with the spec on {op}: {problems}"
        compared[(type(op).__name__, outcome.status.value)] += 1
    for name in TRANSITIONS:
        assert compared[(name, "ok")] >= 10, f"{name} ok compared only {compared[(name, 'ok')]} times"
    for name in ("AssumePod", "ForgetPod", "AddPod", "UpdatePod", "RemovePod", "RemoveNode", "FinishBinding"):
        assert compared[(name, "error")] >= 5, f"{name} error compared only {compared[(name, 'error')]} times"
    for name in ("UpdatePod", "RemovePod"):
        assert compared[(name, "fatal")] >= 3, f"{name} fatal compared only {compared[(name, 'fatal')]} times"


# ============================================================================================
# The same encoding, evaluated through Z3
# ============================================================================================


def _z3_value(term: Any) -> Any:
    if z3.is_true(term):
        return True
    if z3.is_false(term):
        return False
    return term.as_long()


def _pairs(symbolic: Any, concrete: Any) -> list[tuple[Any, Any]]:
    if isinstance(symbolic, AbstractState):
        return _pairs(_fields(symbolic), _fields(concrete))
    if isinstance(symbolic, tuple):
        return [pair for s, c in zip(symbolic, concrete, strict=True) for pair in _pairs(s, c)]
    if isinstance(symbolic, bool | int):
        return []
    return [(symbolic, z3.BoolVal(concrete) if isinstance(concrete, bool) else z3.IntVal(concrete))]


def _fields(state: AbstractState) -> tuple[Any, ...]:
    return tuple(getattr(state, f.name) for f in fields(AbstractState))


def _evaluate(term: Any, pairs: list[tuple[Any, Any]]) -> Any:
    if isinstance(term, bool | int):
        return term
    return _z3_value(z3.simplify(z3.substitute(term, *pairs)))


Z3_SAMPLES = 6
"""Steps per encoding evaluated through Z3 (substitution and simplification are slow)."""


@functools.cache
def _z3_walk() -> list[tuple[World, Operation, Outcome, World]]:
    return seeded_walk(WALK_SEED + 1, runs=40, steps=30)


@pytest.mark.parametrize("name", list(TRANSITIONS))
def test_z3_evaluation_of_the_encoding_matches_its_python_evaluation(name: str) -> None:
    encoding = TRANSITIONS[name]
    bounds = NAMING.bounds
    pre_symbolic = fresh_state(bounds, "pre")
    args_symbolic = fresh_args(encoding, "op")
    step = encoding.apply(pre_symbolic, args_symbolic)
    invariants = {inv.name: inv.formula(step.post) for inv in INVARIANTS}
    samples = 0
    for before, op, _, _ in _z3_walk():
        covered = abstract_operation(op, NAMING, before.cache)
        pre = abstract_state(before.cache, NAMING)
        if covered is None or covered[0] != name or pre is None:
            continue
        args = covered[1]
        pairs = _pairs(pre_symbolic, pre) + [
            pair for key, value in args.items() for pair in _pairs(args_symbolic[key], value)
        ]
        expected = encoding.apply(pre, args)
        assert _evaluate(step.fatal, pairs) == expected.fatal
        if not expected.fatal:
            post: AbstractState = map_state(step.post, functools.partial(_evaluate, pairs=pairs))
            assert post == expected.post, f"{name}: Z3 and Python evaluations differ on {op}"
            for inv in INVARIANTS:
                assert _evaluate(invariants[inv.name], pairs) == inv.formula(expected.post), inv.name
        samples += 1
        if samples == Z3_SAMPLES:
            break
    assert samples == Z3_SAMPLES, f"only {samples} samples of {name}"
