"""The pod-lifecycle table of :mod:`spec.cycle.lifecycle` against the scheduling cycle's transitions.

Every cluster reachable in six transitions over one node and two pods is expanded by every
transition with every argument, in each profile (with and without an assumed-pod TTL where the
profile has one); the pod a transition names must change stage exactly as a row of
:data:`~spec.cycle.lifecycle.CYCLE_POD_TRANSITIONS` says, every other pod must keep its stage, and
every row must occur.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from spec.cycle import cycle
from spec.cycle.cycle import Cluster, CycleNotEnabled, FailurePoint, new_cluster
from spec.cycle.lifecycle import CYCLE_POD_TRANSITIONS, PodStage, pod_stage
from spec.frozenmap import FrozenMap
from spec.objects import LABEL_TOPOLOGY_ZONE, Container, Node, Pod
from spec.quantities import SECOND, resource_list
from spec.versions import PROFILES

DEPTH = 6
UIDS = ("p1", "p2")
NODE = Node("n1", resource_list(cpu=1000, memory=2**31, pods=3), FrozenMap({LABEL_TOPOLOGY_ZONE: "z1"}))
BIGGER = Node("n1", resource_list(cpu=2000, memory=2**31, pods=3), FrozenMap({LABEL_TOPOLOGY_ZONE: "z1"}))
PODS = {uid: Pod(uid, f"pod-{uid}", containers=(Container("c", resource_list(cpu=600)),)) for uid in UIDS}

Step = tuple[str, str | None, Callable[[Cluster], Cluster]]


def _with(transition: Callable[..., Cluster], *args: object) -> Callable[[Cluster], Cluster]:
    """``transition`` with its arguments after the cluster fixed now (a lambda in a loop would see the last ones)."""
    return lambda cluster: transition(cluster, *args)


def steps() -> Iterator[Step]:
    """(transition name, the pod it names or None, the step) for every argument in the universe."""
    yield "add_node", None, lambda c: cycle.add_node(c, NODE)
    yield "update_node", None, lambda c: cycle.update_node(c, BIGGER)
    yield "remove_node", None, lambda c: cycle.remove_node(c, "n1")
    yield "tick", None, lambda c: cycle.tick(c, SECOND)
    for uid in UIDS:
        yield "create_pod", uid, _with(cycle.create_pod, PODS[uid])
        yield "delete_pod", uid, _with(cycle.delete_pod, uid)
        yield "schedule_pod", uid, _with(cycle.schedule_pod, uid, "n1")
        yield "fail_scheduling", uid, _with(cycle.fail_scheduling, uid, None, None)
        for point in (FailurePoint.RESERVE, FailurePoint.PERMIT):
            yield "fail_scheduling", uid, _with(cycle.fail_scheduling, uid, "n1", point)
        yield "bind_pod", uid, _with(cycle.bind_pod, uid)
        for point in (FailurePoint.PRE_BIND, FailurePoint.BIND):
            yield "fail_binding", uid, _with(cycle.fail_binding, uid, point)
        yield "confirm_binding", uid, _with(cycle.confirm_binding, uid)


CASES = [(name, ttl) for name, p in sorted(PROFILES.items()) for ttl in ((0, SECOND) if p.assumed_pod_expiry else (0,))]


@pytest.mark.parametrize(("profile", "ttl"), CASES)
def test_every_stage_change_is_a_row_and_every_row_happens(profile: str, ttl: int) -> None:
    rows = {(row.operation, row.source, row.target) for row in CYCLE_POD_TRANSITIONS}
    observed: set[tuple[str, PodStage, PodStage]] = set()
    start = new_cluster(PROFILES[profile], ttl)
    seen, frontier = {start}, [start]
    all_steps = list(steps())
    for _ in range(DEPTH):
        following = []
        for cluster in frontier:
            for name, named, step in all_steps:
                try:
                    after = step(cluster)
                except CycleNotEnabled:
                    continue
                for uid in UIDS:
                    change = (name, pod_stage(cluster, uid), pod_stage(after, uid))
                    if uid == named:
                        assert change in rows, f"{change} is not in the table"
                        observed.add(change)
                    else:
                        assert change[1] == change[2], f"{name} moved pod {uid} it does not name: {change}"
                if after not in seen:
                    seen.add(after)
                    following.append(after)
        frontier = following
    assert rows - observed == set(), f"rows never seen within {DEPTH} transitions"
