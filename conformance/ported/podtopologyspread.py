"""Ported from pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go: TestSingleConstraint and
TestMultipleConstraints, case by case, with the status code the Go case expects on each node (``wantStatusCode``).

Transliterated with :mod:`conformance.ported.wrappers` (``fooSelector`` is ``exists("foo")``). Not ported: the cases
whose pods use required node affinity terms or are terminating (the spec models neither), and the cases that turn
``enableNodeInclusionPolicy`` off while setting a policy (the feature is locked on in v1.35; with no policy set, off
and on agree). ``tests/spec/cycle/test_ported_affinity.py`` checks the spec and refimpl against the codes.
"""

# ruff: noqa: E501  (each case keeps its Go builder chain on one line, as transliterated)
from __future__ import annotations

from dataclasses import replace
from typing import Final

from conformance.ported.filter_cases import FilterCase
from conformance.ported.wrappers import exists, make_node, make_pod
from spec.cycle.status import Code
from spec.objects import Node, Pod, Taint

FILE: Final = "framework/plugins/podtopologyspread/filtering_test.go"
SINGLE: Final = "TestSingleConstraint"
MULTIPLE: Final = "TestMultipleConstraints"
U, UU = Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
TAINTS: Final = (Taint("node.kubernetes.io/unschedulable", "", "NoSchedule"),)
"""The test file's ``taints``."""


def case(test: str, name: str, pod: Pod, pods: tuple[Pod, ...], nodes: tuple[Node, ...],
         want: dict[str, Code | None]) -> FilterCase:
    """A case; existing pods Go leaves nameless get a name from their position."""
    named = tuple(p if p.uid else replace(p, uid=f"existing-{i}", name=f"existing-{i}") for i, p in enumerate(pods))
    return FilterCase(test, name, pod, named, nodes, want)


def cases() -> list[FilterCase]:
    """Every ported case of the two tests."""
    return [
        case(SINGLE, 'no existing pods',
             make_pod().name("p").label("foo", "").spread_constraint(1, "zone", "DoNotSchedule", exists("foo"), None, None, None, None).obj(),
             (),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").obj(), ),
             {'node-a': None, 'node-b': None, 'node-x': None, 'node-y': None}),
        case(SINGLE, "no existing pods, incoming pod doesn't match itself",
             make_pod().name("p").label("foo", "").spread_constraint(1, "zone", "DoNotSchedule", exists("bar"), None, None, None, None).obj(),
             (),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").obj(), ),
             {'node-a': None, 'node-b': None, 'node-x': None, 'node-y': None}),
        case(SINGLE, 'existing pods in a different namespace do not count',
             make_pod().name("p").label("foo", "").spread_constraint(1, "zone", "DoNotSchedule", exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").namespace("ns1").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").namespace("ns2").node("node-a").label("foo", "").obj(), make_pod().name("p-x1").node("node-x").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").obj(), ),
             {'node-a': None, 'node-b': None, 'node-x': U, 'node-y': U}),
        case(SINGLE, 'existing pods do not match null selector',
             make_pod().name("p").label("foo", "").spread_constraint(1, "zone", "DoNotSchedule", None, None, None, None, None).obj(),
             (make_pod().name("p-x1").node("node-x").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").obj(), ),
             {'node-a': None, 'node-b': None, 'node-x': None, 'node-y': None}),
        case(SINGLE, 'pods spread across zones as 3/3, all nodes fit',
             make_pod().name("p").label("foo", "").spread_constraint(1, "zone", "DoNotSchedule", exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), make_pod().name("p-y2").node("node-y").label("foo", "").obj(), make_pod().name("p-y3").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").obj(), ),
             {'node-a': None, 'node-b': None, 'node-x': None, 'node-y': None}),
        case(SINGLE, "pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
             make_pod().name("p").label("foo", "").spread_constraint(1, "zone", "DoNotSchedule", exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-x1").node("node-x").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").obj(), make_node().name("node-b").label("zon", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").obj(), ),
             {'node-a': None, 'node-b': UU, 'node-x': U, 'node-y': U}),
        case(SINGLE, "pod cannot be scheduled as all nodes don't have label 'rack'",
             make_pod().name("p").label("foo", "").spread_constraint(1, "rack", "DoNotSchedule", exists("foo"), None, None, None, None).obj(),
             (),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").obj(), ),
             {'node-a': UU, 'node-x': UU}),
        case(SINGLE, 'pods spread across nodes as 2/1/0/3, only node-x fits',
             make_pod().name("p").label("foo", "").spread_constraint(1, "node", "DoNotSchedule", exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), make_pod().name("p-y2").node("node-y").label("foo", "").obj(), make_pod().name("p-y3").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").obj(), ),
             {'node-a': U, 'node-b': U, 'node-x': None, 'node-y': U}),
        case(SINGLE, 'pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit',
             make_pod().name("p").label("foo", "").spread_constraint(2, "node", "DoNotSchedule", exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), make_pod().name("p-y2").node("node-y").label("foo", "").obj(), make_pod().name("p-y3").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").obj(), ),
             {'node-a': U, 'node-b': None, 'node-x': None, 'node-y': U}),
        case(SINGLE, "pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
             make_pod().name("p").label("bar", "").spread_constraint(1, "node", "DoNotSchedule", exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), make_pod().name("p-y2").node("node-y").label("foo", "").obj(), make_pod().name("p-y3").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").obj(), ),
             {'node-a': U, 'node-b': None, 'node-x': None, 'node-y': U}),
# skipped (not modelled): incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits
# skipped (not modelled): terminating Pods should be excluded
# skipped (not modelled): incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits
        case(SINGLE, 'pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, then the third node fits',
             make_pod().name("p").label("foo", "").spread_constraint(2,"node","DoNotSchedule",exists("foo"),4,None,None,None,).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-b2").node("node-b").label("foo", "").obj(), make_pod().name("p-c1").node("node-c").label("foo", "").obj(), ),
             (make_node().name("node-a").label("node", "node-a").obj(), make_node().name("node-b").label("node", "node-b").obj(), make_node().name("node-c").label("node", "node-c").obj(), ),
             {'node-a': U, 'node-b': U, 'node-c': None}),
        case(SINGLE, 'pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, then the all nodes fit',
             make_pod().name("p").label("foo", "").spread_constraint(2,"node","DoNotSchedule",exists("foo"),2,None,None,None,).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-b2").node("node-b").label("foo", "").obj(), make_pod().name("p-c1").node("node-c").label("foo", "").obj(), ),
             (make_node().name("node-a").label("node", "node-a").obj(), make_node().name("node-b").label("node", "node-b").obj(), make_node().name("node-c").label("node", "node-c").obj(), ),
             {'node-a': None, 'node-b': None, 'node-c': None}),
        case(SINGLE, 'pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the third and fourth nodes fit',
             make_pod().name("p").label("foo", "").spread_constraint(2,"zone","DoNotSchedule",exists("foo"),3,None,None,None,).obj(),
             (make_pod().name("p-b1").node("node-a").label("foo", "").obj(), make_pod().name("p-b2").node("node-b").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").obj(), ),
             {'node-a': U, 'node-b': U, 'node-x': None, 'node-y': None}),
        case(SINGLE, 'pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then the all nodes fit',
             make_pod().name("p").label("foo", "").spread_constraint(2,"zone","DoNotSchedule",exists("foo"),1,None,None,None,).obj(),
             (make_pod().name("p-b1").node("node-a").label("foo", "").obj(), make_pod().name("p-b2").node("node-b").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").obj(), ),
             {'node-a': None, 'node-b': None, 'node-x': None, 'node-y': None}),
# skipped (not modelled): NodeAffinityPolicy honored with labelSelectors
# skipped (not modelled): NodeAffinityPolicy ignored with labelSelectors
# skipped (not modelled): NodeAffinityPolicy honored with nodeAffinity
# skipped (not modelled): NodeAffinityPolicy ignored with labelSelectors
        case(SINGLE, 'NodeTaintsPolicy honored',
             make_pod().name("p").label("foo", "").spread_constraint(1, "node", "DoNotSchedule", exists("foo"), None, None, "Honor", None).obj(),
             (make_pod().name("p-b1").node("node-a").label("foo", "").obj(), make_pod().name("p-b2").node("node-b").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("node", "node-a").label("foo", "").obj(), make_node().name("node-b").label("node", "node-b").label("foo", "").obj(), make_node().name("node-x").label("node", "node-x").label("foo", "").obj(), make_node().name("node-y").label("node", "node-y").taints(TAINTS).obj(), ),
             {'node-a': U, 'node-b': U, 'node-x': None, 'node-y': None}),
        case(SINGLE, 'NodeTaintsPolicy ignored',
             make_pod().name("p").label("foo", "").spread_constraint(1, "node", "DoNotSchedule", exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-b1").node("node-a").label("foo", "").obj(), make_pod().name("p-b2").node("node-b").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("node", "node-a").label("foo", "").obj(), make_node().name("node-b").label("node", "node-b").label("foo", "").obj(), make_node().name("node-x").label("node", "node-x").label("foo", "").obj(), make_node().name("node-y").label("node", "node-y").taints(TAINTS).obj(), ),
             {'node-a': U, 'node-b': U, 'node-x': None, 'node-y': U}),
        case(MULTIPLE, 'two Constraints on zone and node, spreads = [3/3, 2/1/0/3]',
             make_pod().name("p").label("foo", "").spread_constraint(1, "zone", "DoNotSchedule", exists("foo"), None, None, None, None).spread_constraint(1, "node", "DoNotSchedule", exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), make_pod().name("p-y2").node("node-y").label("foo", "").obj(), make_pod().name("p-y3").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").obj(), ),
             {'node-a': U, 'node-b': U, 'node-x': None, 'node-y': U}),
        case(MULTIPLE, 'two Constraints on zone and node, spreads = [3/4, 2/1/0/4]',
             make_pod().name("p").label("foo", "").spread_constraint(1, "zone", "DoNotSchedule", exists("foo"), None, None, None, None).spread_constraint(1, "node", "DoNotSchedule", exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), make_pod().name("p-y2").node("node-y").label("foo", "").obj(), make_pod().name("p-y3").node("node-y").label("foo", "").obj(), make_pod().name("p-y4").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").obj(), ),
             {'node-a': U, 'node-b': U, 'node-x': U, 'node-y': U}),
        case(MULTIPLE, 'Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]',
             make_pod().name("p").label("foo", "").label("bar", "").spread_constraint(1, "zone", "DoNotSchedule", exists("foo"), None, None, None, None).spread_constraint(1, "node", "DoNotSchedule", exists("bar"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("bar", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").obj(), ),
             {'node-a': U, 'node-b': U, 'node-x': None, 'node-y': U}),
        case(MULTIPLE, 'Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]',
             make_pod().name("p").label("foo", "").label("bar", "").spread_constraint(1, "zone", "DoNotSchedule", exists("foo"), None, None, None, None).spread_constraint(1, "node", "DoNotSchedule", exists("bar"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-x1").node("node-x").label("bar", "").obj(), make_pod().name("p-y1").node("node-y").label("bar", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").obj(), ),
             {'node-a': U, 'node-b': U, 'node-x': U, 'node-y': U}),
        case(MULTIPLE, 'Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]',
             make_pod().name("p").label("foo", "").label("bar", "").spread_constraint(1, "zone", "DoNotSchedule", exists("foo"), None, None, None, None).spread_constraint(1, "node", "DoNotSchedule", exists("bar"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").label("bar", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), make_pod().name("p-y2").node("node-y").label("foo", "").label("bar", "").obj(), make_pod().name("p-y3").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").obj(), ),
             {'node-a': U, 'node-b': None, 'node-x': U, 'node-y': U}),
        case(MULTIPLE, "Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
             make_pod().name("p").label("bar", "").spread_constraint(1, "zone", "DoNotSchedule", exists("foo"), None, None, None, None).spread_constraint(1, "node", "DoNotSchedule", exists("bar"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-x1").node("node-x").label("bar", "").obj(), make_pod().name("p-y1").node("node-y").label("bar", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").obj(), ),
             {'node-a': None, 'node-b': None, 'node-x': U, 'node-y': U}),
        case(MULTIPLE, "two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]",
             make_pod().name("p").label("foo", "").spread_constraint(1, "zone", "DoNotSchedule", exists("foo"), None, None, None, None).spread_constraint(1, "node", "DoNotSchedule", exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-y3").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").obj(), ),
             {'node-a': U, 'node-b': None, 'node-x': UU, 'node-y': U}),
        case(MULTIPLE, 'two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore',
             make_pod().name("p").label("foo", "").node_selector({"foo": ""}).spread_constraint(1, "zone", "DoNotSchedule", exists("foo"), None, None, None, None).spread_constraint(1, "node", "DoNotSchedule", exists("foo"), None, "Ignore", None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").label("foo", "").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").label("foo", "").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").obj(), ),
             {'node-a': U, 'node-b': U, 'node-x': None, 'node-y': U}),
        case(MULTIPLE, 'two node inclusion Constraints, zone: honor/honor, node: honor/ignore',
             make_pod().name("p").label("foo", "").spread_constraint(1, "zone", "DoNotSchedule", exists("foo"), None, None, "Honor", None).spread_constraint(1, "node", "DoNotSchedule", exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").label("foo", "").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").label("foo", "").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").taints(TAINTS).obj(), ),
             {'node-a': U, 'node-b': U, 'node-x': None, 'node-y': U}),
        case(MULTIPLE, 'two node inclusion Constraints, zone: honor/ignore, node: honor/ignore',
             make_pod().name("p").label("foo", "").node_selector({"foo": ""}).spread_constraint(1, "zone", "DoNotSchedule", exists("foo"), None, None, None, None).spread_constraint(1, "node", "DoNotSchedule", exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").label("foo", "").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").label("foo", "").taints(TAINTS).obj(), ),
             {'node-a': U, 'node-b': None, 'node-x': None, 'node-y': U}),
        case(MULTIPLE, 'two node inclusion Constraints, zone: honor/honor, node: ignore/ignore',
             make_pod().name("p").label("foo", "").node_selector({"foo": ""}).spread_constraint(1, "zone", "DoNotSchedule", exists("foo"), None, None, "Honor", None).spread_constraint(1, "node", "DoNotSchedule", exists("foo"), None, "Ignore", None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").label("foo", "").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").label("foo", "").taints(TAINTS).obj(), ),
             {'node-a': U, 'node-b': U, 'node-x': None, 'node-y': U}),
        case(MULTIPLE, 'two Constraints on zone, spreads = [3/3, 2/1]',
             make_pod().name("p").label("foo", "").label("bar", "").spread_constraint(1, "zone", "DoNotSchedule", exists("bar"), None, None, None, None).spread_constraint(1, "zone", "DoNotSchedule", exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").label("bar", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").label("bar", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), make_pod().name("p-y2").node("node-y").label("foo", "").label("bar", "").obj(), make_pod().name("p-y3").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").obj(), ),
             {'node-a': U, 'node-b': U, 'node-x': None, 'node-y': None}),
        case(MULTIPLE, 'two Constraints on zone, spreads = [3/4, 2/1]',
             make_pod().name("p").label("foo", "").label("bar", "").spread_constraint(1, "zone", "DoNotSchedule", exists("bar"), None, None, None, None).spread_constraint(1, "zone", "DoNotSchedule", exists("foo"), None, None, None, None).obj(),
             (make_pod().name("p-a1").node("node-a").label("foo", "").label("bar", "").obj(), make_pod().name("p-a2").node("node-a").label("foo", "").obj(), make_pod().name("p-b1").node("node-b").label("foo", "").label("bar", "").obj(), make_pod().name("p-y1").node("node-y").label("foo", "").obj(), make_pod().name("p-y2").node("node-y").label("foo", "").label("bar", "").obj(), make_pod().name("p-y3").node("node-y").label("foo", "").obj(), make_pod().name("p-y4").node("node-y").label("foo", "").obj(), ),
             (make_node().name("node-a").label("zone", "zone1").label("node", "node-a").obj(), make_node().name("node-b").label("zone", "zone1").label("node", "node-b").obj(), make_node().name("node-x").label("zone", "zone2").label("node", "node-x").obj(), make_node().name("node-y").label("zone", "zone2").label("node", "node-y").obj(), ),
             {'node-a': U, 'node-b': U, 'node-x': U, 'node-y': U}),
    ]
