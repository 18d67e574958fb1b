"""Ported from pkg/scheduler/framework/plugins/podtopologyspread/scoring_test.go: TestPodTopologySpreadScore and
TestPreScoreSkip, case by case, with the scores Go expects after NormalizeScore (or ``Skip`` from PreScore).

Transliterated with :mod:`conformance.ported.wrappers` (``fooSelector`` is ``exists("foo")``). TestPodTopologySpreadScore
runs ``defaultingType: System``; its one ``v1.Service`` (selector ``foo: ""``) is the pod's default selector. Not
ported: "terminating Pods should be excluded" (the spec's pods never terminate), the two "NodeAffinityPolicy ... with
nodeAffinity" cases (required node affinity terms are not modelled) and "matchLabelKeys ignored when feature gate
disabled" (v1.35 applies matchLabelKeys; the spec has no switch for it). TestPreScoreStateEmptyNodes compares
PreScore's internal state, not scores, and is not ported.
"""

# ruff: noqa: E501  (each case keeps its Go builder chain on one line, as transliterated)
from __future__ import annotations

from typing import Final

from conformance.ported.score_cases import ScoreCase, named
from conformance.ported.score_cases import scenarios as score_scenarios
from conformance.ported.wrappers import exists, make_node, make_pod, selector
from conformance.traces import Scenario
from spec.objects import LABEL_HOSTNAME, SCHEDULE_ANYWAY, LabelSelector, Node, Pod, Taint, TopologySpreadConstraint

FILE: Final = "framework/plugins/podtopologyspread/scoring_test.go"
SCORE: Final = "TestPodTopologySpreadScore"
SKIP: Final = "TestPreScoreSkip"
TAINTS: Final = (Taint("node.kubernetes.io/unschedulable", "", "NoSchedule"),)
"""The test file's ``taints``."""


def case(name: str, pod: Pod, pods: tuple[Pod, ...], nodes: tuple[Node, ...], want: dict[str, int],
         failed_nodes: tuple[Node, ...] = (), default_selector: LabelSelector | None = None) -> ScoreCase:
    """A TestPodTopologySpreadScore case (System defaulting)."""
    return ScoreCase(SCORE, name, pod, named(pods), nodes, want, failed_nodes=failed_nodes,
                     default_selector=default_selector)


def score_cases() -> list[ScoreCase]:
    """TestPodTopologySpreadScore."""
    return [
        case('one constraint on node, no existing pods',
             make_pod().name("p").label("foo", "").spread_constraint(1, LABEL_HOSTNAME, SCHEDULE_ANYWAY, exists("foo"), None, None, None, None).obj(),
             (),
             (make_node().name("node-a").label(LABEL_HOSTNAME, "node-a").obj(), make_node().name("node-b").label(LABEL_HOSTNAME, "node-b").obj(), ),
             {'node-a': 100, 'node-b': 100}),
        case('one constraint on node, only one node is candidate',
             make_pod().name("p").label("foo", "").spread_constraint(1, LABEL_HOSTNAME, SCHEDULE_ANYWAY, exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), ),
             (make_node().name("node-a").label(LABEL_HOSTNAME, "node-a").obj(), ),
             {'node-a': 100},
             (make_node().name("node-b").label(LABEL_HOSTNAME, "node-b").obj(), )),
        case('one constraint on node, all nodes have the same number of matching pods',
             make_pod().name("p").label("foo", "").spread_constraint(1, LABEL_HOSTNAME, SCHEDULE_ANYWAY, exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), ),
             (make_node().name("node-a").label(LABEL_HOSTNAME, "node-a").obj(), make_node().name("node-b").label(LABEL_HOSTNAME, "node-b").obj(), ),
             {'node-a': 100, 'node-b': 100}),
        case('one constraint on node, all 4 nodes are candidates',
             make_pod().name("p").label("foo", "").spread_constraint(1, LABEL_HOSTNAME, SCHEDULE_ANYWAY, exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-d1").node("node-d").label("foo", "").obj(), make_pod().name("p-d2").node("node-d").label("foo", "").obj(), make_pod().name("p-d3").node("node-d").label("foo", "").obj(), ),
             (make_node().name("node-a").label(LABEL_HOSTNAME, "node-a").obj(), make_node().name("node-b").label(LABEL_HOSTNAME, "node-b").obj(), make_node().name("node-c").label(LABEL_HOSTNAME, "node-c").obj(), make_node().name("node-d").label(LABEL_HOSTNAME, "node-d").obj(), ),
             {'node-a': 20, 'node-b': 60, 'node-c': 100, 'node-d': 0}),
        case('one constraint on node, null selector',
             make_pod().name("p").label("foo", "").spread_constraint(1, LABEL_HOSTNAME, SCHEDULE_ANYWAY, None, None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-d1").node("node-d").label("foo", "").obj(), make_pod().name("p-d2").node("node-d").label("foo", "").obj(), make_pod().name("p-d3").node("node-d").label("foo", "").obj(), ),
             (make_node().name("node-a").label(LABEL_HOSTNAME, "node-a").obj(), make_node().name("node-b").label(LABEL_HOSTNAME, "node-b").obj(), make_node().name("node-c").label(LABEL_HOSTNAME, "node-c").obj(), make_node().name("node-d").label(LABEL_HOSTNAME, "node-d").obj(), ),
             {'node-a': 100, 'node-b': 100, 'node-c': 100, 'node-d': 100}),
        case('one constraint on node, all 4 nodes are candidates, maxSkew=2',
             make_pod().name("p").label("foo", "").spread_constraint(2, LABEL_HOSTNAME, SCHEDULE_ANYWAY, exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-d1").node("node-d").label("foo", "").obj(), make_pod().name("p-d2").node("node-d").label("foo", "").obj(), make_pod().name("p-d3").node("node-d").label("foo", "").obj(), ),
             (make_node().name("node-a").label(LABEL_HOSTNAME, "node-a").obj(), make_node().name("node-b").label(LABEL_HOSTNAME, "node-b").obj(), make_node().name("node-c").label(LABEL_HOSTNAME, "node-c").obj(), make_node().name("node-d").label(LABEL_HOSTNAME, "node-d").obj(), ),
             {'node-a': 33, 'node-b': 66, 'node-c': 100, 'node-d': 16}),
        case('one constraint on node, all 4 nodes are candidates, maxSkew=3',
             make_pod().name("p").label("foo", "").spread_constraint(3, LABEL_HOSTNAME, SCHEDULE_ANYWAY, exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-a3").node("node-a").label("foo", "").obj(), make_pod().name("p-a4").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-b2").node("node-b").label("foo", "").obj(), make_pod().name("p-b3").node("node-b").label("foo", "").obj(), make_pod().name("p-c1").node("node-c").label("foo", "").obj(), make_pod().name("p-c2").node("node-c").label("foo", "").obj(), make_pod().name("p-d1").node("node-d").label("foo", "").obj(), ),
             (make_node().name("node-a").label(LABEL_HOSTNAME, "node-a").obj(), make_node().name("node-b").label(LABEL_HOSTNAME, "node-b").obj(), make_node().name("node-c").label(LABEL_HOSTNAME, "node-c").obj(), make_node().name("node-d").label(LABEL_HOSTNAME, "node-d").obj(), ),
             {'node-a': 44, 'node-b': 66, 'node-c': 77, 'node-d': 100}),
        case("system defaulting, nodes don't have zone, pods match service",
             make_pod().name("p").label("foo", "").obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-a3").node("node-a").label("foo", "").obj(), make_pod().name("p-a4").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-b2").node("node-b").label("foo", "").obj(), make_pod().name("p-b3").node("node-b").label("foo", "").obj(), make_pod().name("p-c1").node("node-c").label("foo", "").obj(), make_pod().name("p-c2").node("node-c").label("foo", "").obj(), make_pod().name("p-d1").node("node-d").label("foo", "").obj(), ),
             (make_node().name("node-a").label(LABEL_HOSTNAME, "node-a").obj(), make_node().name("node-b").label(LABEL_HOSTNAME, "node-b").obj(), make_node().name("node-c").label(LABEL_HOSTNAME, "node-c").obj(), make_node().name("node-d").label(LABEL_HOSTNAME, "node-d").obj(), ),
             {'node-a': 44, 'node-b': 66, 'node-c': 77, 'node-d': 100},
             default_selector=selector({"foo": ""})),
        case('one constraint on node, 3 out of 4 nodes are candidates',
             make_pod().name("p").label("foo", "").spread_constraint(1, LABEL_HOSTNAME, SCHEDULE_ANYWAY, exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-a3").node("node-a").label("foo", "").obj(), make_pod().name("p-a4").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-b2").node("node-b").label("foo", "").obj(), make_pod().name("p-x1").node("node-x").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), make_pod().name("p-y2").node("node-y").label("foo", "").obj(), make_pod().name("p-y3").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label(LABEL_HOSTNAME, "node-a").obj(), make_node().name("node-b").label(LABEL_HOSTNAME, "node-b").obj(), make_node().name("node-x").label(LABEL_HOSTNAME, "node-x").obj(), ),
             {'node-a': 33, 'node-b': 83, 'node-x': 100},
             (make_node().name("node-y").label(LABEL_HOSTNAME, "node-y").obj(), )),
        case("one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
             make_pod().name("p").label("foo", "").spread_constraint(1, LABEL_HOSTNAME, SCHEDULE_ANYWAY, exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-a3").node("node-a").label("foo", "").obj(), make_pod().name("p-a4").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-b2").node("node-b").label("foo", "").obj(), make_pod().name("p-x1").node("node-x").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), make_pod().name("p-y2").node("node-y").label("foo", "").obj(), make_pod().name("p-y3").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label(LABEL_HOSTNAME, "node-a").obj(), make_node().name("node-b").label("n", "node-b").obj(), make_node().name("node-x").label(LABEL_HOSTNAME, "node-x").obj(), ),
             {'node-a': 16, 'node-b': 0, 'node-x': 100},
             (make_node().name("node-y").label(LABEL_HOSTNAME, "node-y").obj(), )),
        case('one constraint on zone, 3 out of 4 nodes are candidates',
             make_pod().name("p").label("foo", "").spread_constraint(1, "zone", SCHEDULE_ANYWAY, exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-a3").node("node-a").label("foo", "").obj(), make_pod().name("p-a4").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-b2").node("node-b").label("foo", "").obj(), make_pod().name("p-x1").node("node-x").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), make_pod().name("p-y2").node("node-y").label("foo", "").obj(), make_pod().name("p-y3").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label(LABEL_HOSTNAME, "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label(LABEL_HOSTNAME, "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label(LABEL_HOSTNAME, "node-x").obj(), ),
             {'node-a': 75, 'node-b': 75, 'node-x': 100},
             (make_node().name("node-y").label("zone", "zone2").label(LABEL_HOSTNAME, "node-y").obj(), )),
        case('two Constraints on zone and node, 2 out of 4 nodes are candidates',
             make_pod().name("p").label("foo", "").spread_constraint(1, "zone", SCHEDULE_ANYWAY, exists("foo"), None, None, None, None).spread_constraint(1, LABEL_HOSTNAME, SCHEDULE_ANYWAY, exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-x1").node("node-x").label("foo", "").obj(), make_pod().name("p-x2").node("node-x").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), make_pod().name("p-y2").node("node-y").label("foo", "").obj(), make_pod().name("p-y3").node("node-y").label("foo", "").obj(), make_pod().name("p-y4").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label(LABEL_HOSTNAME, "node-a").obj(), make_node().name("node-x").label("zone", "zone2").label(LABEL_HOSTNAME, "node-x").obj(), ),
             {'node-a': 100, 'node-x': 63},
             (make_node().name("node-b").label("zone", "zone1").label(LABEL_HOSTNAME, "node-b").obj(), make_node().name("node-y").label("zone", "zone2").label(LABEL_HOSTNAME, "node-y").obj(), )),
        case('two Constraints on zone, 2 out of 4 nodes are candidates',
             make_pod().name("p").label("foo", "").label("bar", "").spread_constraint(1, "zone", SCHEDULE_ANYWAY, exists("foo"), None, None, None, None).spread_constraint(1, "zone", SCHEDULE_ANYWAY, exists("bar"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").label("bar", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").label("bar", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), make_pod().name("p-y2").node("node-y").label("foo", "").label("bar", "").obj(), make_pod().name("p-y3").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").obj(), make_node().name("node-x").label("zone", "zone2").obj(), ),
             {'node-a': 85, 'node-x': 100},
             (make_node().name("node-b").label("zone", "zone1").obj(), make_node().name("node-y").label("zone", "zone2").obj(), )),
        case('two Constraints on zone and node, with different labelSelectors',
             make_pod().name("p").label("foo", "").label("bar", "").spread_constraint(1, "zone", SCHEDULE_ANYWAY, exists("foo"), None, None, None, None).spread_constraint(1, LABEL_HOSTNAME, SCHEDULE_ANYWAY, exists("bar"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").label("bar", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), make_pod().name("p-y2").node("node-y").label("bar", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label(LABEL_HOSTNAME, "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label(LABEL_HOSTNAME, "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label(LABEL_HOSTNAME, "node-x").obj(), make_node().name("node-y").label("zone", "zone2").label(LABEL_HOSTNAME, "node-y").obj(), ),
             {'node-a': 60, 'node-b': 20, 'node-x': 100, 'node-y': 60}),
        case('two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods',
             make_pod().name("p").label("foo", "").label("bar", "").spread_constraint(1, "zone", SCHEDULE_ANYWAY, exists("foo"), None, None, None, None).spread_constraint(1, LABEL_HOSTNAME, SCHEDULE_ANYWAY, exists("bar"), None, None, None, None).obj(),
             (make_pod().name("p-b1").node("node-b").label("bar", "").obj(), make_pod().name("p-x1").node("node-x").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").label("bar", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label(LABEL_HOSTNAME, "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label(LABEL_HOSTNAME, "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label(LABEL_HOSTNAME, "node-x").obj(), make_node().name("node-y").label("zone", "zone2").label(LABEL_HOSTNAME, "node-y").obj(), ),
             {'node-a': 100, 'node-b': 60, 'node-x': 40, 'node-y': 0}),
        case('two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates',
             make_pod().name("p").label("foo", "").label("bar", "").spread_constraint(1, "zone", SCHEDULE_ANYWAY, exists("foo"), None, None, None, None).spread_constraint(1, LABEL_HOSTNAME, SCHEDULE_ANYWAY, exists("bar"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").label("bar", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), make_pod().name("p-y2").node("node-y").label("bar", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label(LABEL_HOSTNAME, "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label(LABEL_HOSTNAME, "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label(LABEL_HOSTNAME, "node-x").obj(), ),
             {'node-a': 50, 'node-b': 25, 'node-x': 100},
             (make_node().name("node-y").label("zone", "zone2").label(LABEL_HOSTNAME, "node-y").obj(), )),
        case('existing pods in a different namespace do not count',
             make_pod().name("p").label("foo", "").spread_constraint(1, LABEL_HOSTNAME, SCHEDULE_ANYWAY, exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").namespace("ns1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-b2").node("node-b").label("foo", "").obj(), ),
             (make_node().name("node-a").label(LABEL_HOSTNAME, "node-a").obj(), make_node().name("node-b").label(LABEL_HOSTNAME, "node-b").obj(), ),
             {'node-a': 100, 'node-b': 33}),
        case('minDomains has no effect when ScheduleAnyway',
             make_pod().name("p").label("foo", "").spread_constraint(2, "node", SCHEDULE_ANYWAY, exists("foo"), 10, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-b2").node("node-b").label("foo", "").obj(), make_pod().name("p-c1").node("node-c").label("foo", "").obj(), ),
             (make_node().name("node-a").label("node", "node-a").obj(), make_node().name("node-b").label("node", "node-b").obj(), make_node().name("node-c").label("node", "node-c").obj(), ),
             {'node-a': 75, 'node-b': 75, 'node-c': 100}),
        case('NodeAffinityPolicy honoed with labelSelectors',
             make_pod().name("p").label("foo", "").node_selector({"foo": ""}).spread_constraint(1, "node", SCHEDULE_ANYWAY, exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-c1").node("node-c").label("foo", "").obj(), ),
             (make_node().name("node-a").label("node", "node-a").label("foo", "").obj(), make_node().name("node-b").label("node", "node-b").label("foo", "").obj(), make_node().name("node-c").label("node", "node-c").obj(), ),
             {'node-a': 0, 'node-b': 33, 'node-c': 100}),
        case('NodeAffinityPolicy ignored with labelSelectors',
             make_pod().name("p").label("foo", "").node_selector({"foo": ""}).spread_constraint(1, "node", SCHEDULE_ANYWAY, exists("foo"), None, "Ignore", None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-c1").node("node-c").label("foo", "").obj(), ),
             (make_node().name("node-a").label("node", "node-a").label("foo", "").obj(), make_node().name("node-b").label("node", "node-b").label("foo", "").obj(), make_node().name("node-c").label("node", "node-c").obj(), ),
             {'node-a': 66, 'node-b': 100, 'node-c': 100}),
        case('NodeTaintsPolicy honored',
             make_pod().name("p").label("foo", "").spread_constraint(1, "node", SCHEDULE_ANYWAY, exists("foo"), None, None, "Honor", None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-c1").node("node-c").label("foo", "").obj(), ),
             (make_node().name("node-a").label("node", "node-a").obj(), make_node().name("node-b").label("node", "node-b").obj(), make_node().name("node-c").label("node", "node-c").taints(TAINTS).obj(), ),
             {'node-a': 0, 'node-b': 33, 'node-c': 100}),
        case('NodeTaintsPolicy ignored',
             make_pod().name("p").label("foo", "").spread_constraint(1, "node", SCHEDULE_ANYWAY, exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-c1").node("node-c").label("foo", "").obj(), ),
             (make_node().name("node-a").label("node", "node-a").obj(), make_node().name("node-b").label("node", "node-b").obj(), make_node().name("node-c").label("node", "node-c").taints(TAINTS).obj(), ),
             {'node-a': 66, 'node-b': 100, 'node-c': 100}),
        case('matchLabelKeys ANDed with LabelSelector when LabelSelector is empty',
             make_pod().name("p").label("foo", "").label("bar", "").spread_constraint(1, "zone", SCHEDULE_ANYWAY, selector(), None, None, None, ("foo",)).spread_constraint(1, LABEL_HOSTNAME, SCHEDULE_ANYWAY, selector(), None, None, None, ("bar",)).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").label("bar", "").obj(), make_pod().name("p-y1").node("node-c").label("foo", "").obj(), make_pod().name("p-y2").node("node-c").label("bar", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label(LABEL_HOSTNAME, "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label(LABEL_HOSTNAME, "node-b").obj(), make_node().name("node-c").label("zone", "zone2").label(LABEL_HOSTNAME, "node-c").obj(), make_node().name("node-d").label("zone", "zone2").label(LABEL_HOSTNAME, "node-d").obj(), ),
             {'node-a': 60, 'node-b': 20, 'node-c': 60, 'node-d': 100}),
        case("matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
             make_pod().name("p").label("foo", "").label("bar", "").label("baz", "").spread_constraint(1, "zone", SCHEDULE_ANYWAY, exists("foo"), None, None, None, None).spread_constraint(1, LABEL_HOSTNAME, SCHEDULE_ANYWAY, exists("bar"), None, None, None, ("baz",)).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").label("bar", "").label("baz", "").obj(), make_pod().name("p-c1").node("node-c").label("foo", "").obj(), make_pod().name("p-c2").node("node-c").label("bar", "").obj(), make_pod().name("p-d3").node("node-c").label("bar", "").label("baz", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label(LABEL_HOSTNAME, "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label(LABEL_HOSTNAME, "node-b").obj(), make_node().name("node-c").label("zone", "zone2").label(LABEL_HOSTNAME, "node-c").obj(), make_node().name("node-d").label("zone", "zone2").label(LABEL_HOSTNAME, "node-d").obj(), ),
             {'node-a': 60, 'node-b': 20, 'node-c': 60, 'node-d': 100}),
    ]


def skip_cases() -> list[ScoreCase]:
    """TestPreScoreSkip: List defaulting; PreScore skips."""
    return [
        ScoreCase(SKIP, "the pod doesn't have soft topology spread Constraints",
                  make_pod().name("p").namespace("default").obj(), (),
                  (make_node().name("node-a").label(LABEL_HOSTNAME, "node-a").obj(), make_node().name("node-b").label(LABEL_HOSTNAME, "node-b").obj()),
                  None, system_defaulting=False),
        # The ReplicaSet rs1 (selector: tar exists) is not the pod's owner rs2, so the default selector is empty.
        ScoreCase(SKIP, "default constraints and a replicaset that doesn't match",
                  make_pod().name("p").namespace("default").label("foo", "bar").label("baz", "sup").obj(), (),
                  (make_node().name("node-a").label("planet", "mars").obj(),),
                  None, system_defaulting=False,
                  default_constraints=(TopologySpreadConstraint(2, "planet", SCHEDULE_ANYWAY),)),
    ]


def cases() -> list[ScoreCase]:
    """Every ported score case of this file."""
    return [*score_cases(), *skip_cases()]


NOT_VECTORS: Final = {
    "system defaulting, nodes don't have zone, pods match service":
        "a Service selects the pod: the cycle's cluster holds no Service objects",
    "NodeAffinityPolicy honoed with labelSelectors": "a candidate the pod's own filters reject (Go's Score test offers it to Score unfiltered): node-c lacks the pod's nodeSelector label",
    "NodeAffinityPolicy ignored with labelSelectors": "a candidate the pod's own filters reject (Go's Score test offers it to Score unfiltered): node-c lacks the pod's nodeSelector label",
    "NodeTaintsPolicy honored": "a candidate the pod's own filters reject (Go's Score test offers it to Score unfiltered): node-c's NoSchedule taint is not tolerated",
    "NodeTaintsPolicy ignored": "a candidate the pod's own filters reject (Go's Score test offers it to Score unfiltered): node-c's NoSchedule taint is not tolerated",
    "the pod doesn't have soft topology spread Constraints": "List defaulting (the cycle runs the default profile's System)",
    "default constraints and a replicaset that doesn't match":
        "List defaulting with a ReplicaSet: the cycle's cluster holds no controller objects",
}
"""The cases that are not cycle vectors, and why (``tests/conformance/test_ported.py`` keeps it exact)."""


def scenarios() -> list[Scenario]:
    """Each case that can be a cycle vector (:func:`conformance.ported.score_cases.scenario` says which cannot)."""
    return score_scenarios(cases(), FILE, "PodTopologySpread")
