"""The model checker over the scheduling queue (:mod:`spec.verify.queue.system`): the default universe exhausted
without violation, the violations Kubernetes allows found with their shortest traces, every property shown able to
fail by a mutant, and the representatives shown exact."""

from __future__ import annotations

from collections import deque
from dataclasses import replace

import pytest

from spec.queue.lifecycle import PodPlace, pod_place
from spec.verify.checker import explore
from spec.verify.exploration import Report
from spec.verify.queue.mutants import MUTANTS, SMALL
from spec.verify.queue.representatives import canonical_model
from spec.verify.queue.system import DEFAULT_QUEUE_UNIVERSE, QueueSystem
from spec.verify.queue.universe import QueueModel, QueueUniverse


def shortest(report: Report) -> dict[str, tuple[str, ...]]:
    """Each violated property with the actions of its trace; every trace must replay."""
    found = {}
    for violation in report.violations:
        assert "NOT reproduced" not in violation.final_state, violation.render()
        found[violation.property] = tuple(step.action for step in violation.trace)
    return found


def test_default_universe_is_exhausted_without_violation() -> None:
    report = explore(QueueSystem(DEFAULT_QUEUE_UNIVERSE), stop_at_first=False)
    assert report.violations == [] and report.exhausted
    assert report.states > 3000 and report.transitions > 5 * report.states and report.max_depth >= 10
    for key in ("add: ok", "pop: ok", "fail: NodeResourcesFit", "fail: TaintToleration", "fail: error",
                "assume: ok", "permit_reject: NodeResourcesFit", "bound: ok", "bind_fail: ok",
                "event: AssignedPodDelete", "event: NodeUpdateNodeTaint", "update: ok", "delete: ok", "tick: ok"):
        assert report.coverage[key] > 0, key


def test_hints_off_breaks_two_invariants_with_the_current_cycle() -> None:
    """QueueingHints off: an update re-adds a pod in its scheduling cycle (3 steps), and Kubernetes' failure handler,
    passing the current cycle, loses the wake-up of a pod rejected at Permit after another pod's pop (7 steps)."""
    universe = replace(SMALL, queueing_hints=False)
    assert explore(QueueSystem(universe), stop_at_first=False).violations == []  # known, so skipped by default
    found = shortest(explore(QueueSystem(universe, known_violations=True), stop_at_first=False))
    assert found == {
        "inv_attempting_pod_not_queued": ("add(p0)", "pop(p0)", "update(p0)"),
        "inv_no_lost_wake_up": ("add(p0)", "add(p1)", "pop(p0)", "assume(p0)", "event(AssignedPodDelete)", "pop(p1)",
                                "permit_reject(p0, NodeResourcesFit)"),
    }


def test_the_attempt_cycle_keeps_every_wake_up_with_hints_off() -> None:
    """Handing a pod back with the cycle its attempt started in is the rule moveRequestCycle needs: no lost wake-up."""
    universe = replace(SMALL, queueing_hints=False, cycle_rule="attempt")
    found = shortest(explore(QueueSystem(universe, known_violations=True), stop_at_first=False))
    assert set(found) == {"inv_attempting_pod_not_queued"}


def test_pop_from_backoff_off_places_a_pod_twice() -> None:
    """SchedulerPopFromBackoffQ off: an update leaves a pod in backoffQ and unschedulablePods (4 steps); going on past
    that, Delete takes it out of backoffQ only, so a deleted pod waits in unschedulablePods although the update woke
    it: a lost wake-up that follows from the first violation, known with it."""
    universe = replace(SMALL, pop_from_backoff_q=False)
    assert explore(QueueSystem(universe), stop_at_first=False).violations == []
    assert QueueSystem(universe).skipped == {"inv_pod_in_one_sub_queue", "inv_no_lost_wake_up"}
    found = shortest(explore(QueueSystem(universe, known_violations=True), stop_at_first=False))
    assert found == {"inv_pod_in_one_sub_queue": ("add(p0)", "pop(p0)", "fail(p0, NodeResourcesFit)", "update(p0)")}


EXPECTED_MUTANT_TRACES = {
    "strict-move-request-cycle": 4, "events-not-recorded": 4, "pop-not-tracked": 2, "done-keeps-marker": 4,
    "requeue-keeps-unschedulable": 4, "errors-to-backoff-heap": 3, "stamp-in-future": 3,
    "leftover-flush-skipped": 6, "failure-not-counted": 6, "update-requeues-in-flight": 3, "move-request-ahead": 2,
}


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_every_property_can_fail(name: str) -> None:
    mutant = MUTANTS[name]
    report = explore(QueueSystem(mutant.universe, step=mutant.step), stop_at_first=True)
    found = shortest(report)
    assert mutant.property in found, (name, found)
    assert len(found[mutant.property]) == EXPECTED_MUTANT_TRACES[name]


def test_the_wrong_move_request_rule_loses_a_wake_up() -> None:
    """The mutant the spec is built around: with ``>`` instead of ``>=``, an event during the attempt's own cycle
    is missed."""
    mutant = MUTANTS["strict-move-request-cycle"]
    found = shortest(explore(QueueSystem(mutant.universe, step=mutant.step), stop_at_first=True))
    assert found["inv_no_lost_wake_up"] == ("add(p0)", "pop(p0)", "event(AssignedPodDelete)",
                                             "fail(p0, NodeResourcesFit)")


def test_symmetry_only_merges_states() -> None:
    universe = replace(SMALL, pods=2)
    reduced = explore(QueueSystem(universe), stop_at_first=False)
    full = explore(QueueSystem(universe, symmetry=False), stop_at_first=False)
    assert reduced.violations == full.violations == []
    assert reduced.states < full.states and reduced.max_depth == full.max_depth


def test_representatives_are_exact() -> None:
    """Time shifted, timestamps clamped, cycles renumbered, history dropped: a state and its representative have the
    same properties and steps, and the same step from each leads to the same representative (every state within
    depth 6 of a universe with time, two pods and both gates' differences)."""
    for universe in (QueueUniverse(pods=2, pops=2, events=1, activations=1),
                     QueueUniverse(pods=2, pops=1, events=1, queueing_hints=False, cycle_rule="attempt")):
        system = QueueSystem(universe, symmetry=False)
        start = system.initial_states()[0]
        frontier: deque[tuple[QueueModel, int]] = deque([(start, 0)])
        seen, checked = {start}, 0
        while frontier:
            state, depth = frontier.popleft()
            rep = canonical_model(universe, state)
            assert system.violations(state) == system.violations(rep)
            steps = list(system.steps(state))
            assert steps == list(system.steps(rep))
            for step in steps:
                after = system.apply(state, step)
                assert canonical_model(universe, after) == canonical_model(universe, system.apply(rep, step)), step
                if depth < 6 and after not in seen:
                    seen.add(after)
                    frontier.append((after, depth + 1))
            checked += 1
        assert checked > 1000


def test_a_deleted_pod_is_not_handed_back() -> None:
    """QueueingHints off, a pod updated in its scheduling cycle is re-added, then deleted: its failed attempt only
    calls Done (handleSchedulingFailure finds it gone from the informer cache), so it leaves the queue for good."""
    universe = replace(SMALL, pods=1, queueing_hints=False)
    system = QueueSystem(universe)
    state = system.initial_states()[0]
    for step in ("add", "pop", "update", "delete"):
        state = system.apply(state, next(s for s in system.steps(state) if s.name == step))
    assert not state.world.queue.active_q and "p0" in state.world.attempts
    for failure in [s for s in system.steps(state) if s.name == "fail"]:
        after = system.apply(state, failure)
        assert pod_place(after.world, "p0") is PodPlace.ABSENT and not after.world.queue.in_flight_pods
        assert after.scheduling is None and not [s for s in system.steps(after) if s.args[:1] == ("p0",)]
    report = explore(system, stop_at_first=False)
    assert report.exhausted and report.violations == [] and report.max_depth < 20


def test_universe_refuses_bad_bounds() -> None:
    with pytest.raises(ValueError, match="whole seconds"):
        QueueUniverse(tick=500_000_000)
    with pytest.raises(ValueError, match="failures"):
        QueueUniverse(failures=9)
    with pytest.raises(ValueError, match="cycle rule"):
        QueueUniverse(cycle_rule="never")
