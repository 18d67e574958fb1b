"""Ported from pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go: the cases of
TestNodeAffinityPriority, with the scores Go expects after NormalizeScore (or ``Skip`` from PreScore).

Go's incoming pod has no name; here it is ``pod``. Two cases call Score without PreScore; the cycle always runs
PreScore, so there a pod without preferred terms is skipped ("all nodes are same priority as NodeAffinity is nil": Go
expects 0 on every node, the decision carries no NodeAffinity score, which adds the same 0 to every total), and a pod
with them scores as with PreScore ("calculate the priorities correctly even if PreScore is not called").
Not ported: "PreScore returns error when an incoming Pod has a broken affinity" (:data:`NOT_PORTED`).
"""

from __future__ import annotations

from typing import Final

from conformance.ported.score_cases import ScoreCase
from conformance.ported.score_cases import scenarios as score_scenarios
from conformance.traces import Scenario
from spec.frozenmap import FrozenMap
from spec.objects import SELECTOR_IN, Node, NodeSelectorRequirement, NodeSelectorTerm, Pod, PreferredSchedulingTerm

FILE: Final = "framework/plugins/nodeaffinity/node_affinity_test.go"
TEST: Final = "TestNodeAffinityPriority"
MAX: Final = 100
"""``fwk.MaxNodeScore``."""

LABEL1: Final = FrozenMap({"foo": "bar"})
LABEL2: Final = FrozenMap({"key": "value"})
LABEL3: Final = FrozenMap({"az": "az1"})
LABEL4: Final = FrozenMap({"abc": "az11", "def": "az22"})
LABEL5: Final = FrozenMap({"foo": "bar", "key": "value", "az": "az1"})


def _term(weight: int, *pairs: tuple[str, str]) -> PreferredSchedulingTerm:
    """A preferred term of ``weight`` whose expressions are ``key In (value)`` for each pair."""
    return PreferredSchedulingTerm(weight, NodeSelectorTerm(tuple(NodeSelectorRequirement(k, SELECTOR_IN, (v,))
                                                                  for k, v in pairs)))


AFFINITY1: Final = (_term(2, ("foo", "bar")),)
AFFINITY2: Final = (_term(2, ("foo", "bar")), _term(4, ("key", "value")),
                    _term(5, ("foo", "bar"), ("key", "value"), ("az", "az1")))


def _pod(preferred: tuple[PreferredSchedulingTerm, ...] | None = None) -> Pod:
    return Pod("pod", "pod", has_node_affinity=preferred is not None, preferred_node_affinity=preferred)


def _nodes(*named: tuple[str, FrozenMap[str, str]]) -> tuple[Node, ...]:
    return tuple(Node(name, labels=labels) for name, labels in named)


def _case(name: str, pod: Pod, nodes: tuple[Node, ...], want: tuple[int, ...] | None,
          added: tuple[PreferredSchedulingTerm, ...] | None = None) -> ScoreCase:
    scores = None if want is None else dict(zip((n.name for n in nodes), want, strict=True))
    return ScoreCase(TEST, name, pod, (), nodes, scores, added_affinity=added)


def cases() -> list[ScoreCase]:
    """Every ported case of TestNodeAffinityPriority, in the Go table's order."""
    three = _nodes(("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3))
    five = _nodes(("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2))
    return [
        _case("all nodes are same priority as NodeAffinity is nil", _pod(), three, None),
        _case("Skip is returned in PreScore when NodeAffinity is nil", _pod(), _nodes(("node1", LABEL1)), None),
        _case("no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes' priority is "
              "zero", _pod(AFFINITY1), _nodes(("node1", LABEL4), ("node2", LABEL2), ("node3", LABEL3)), (0, 0, 0)),
        _case("only node1 matches the preferred scheduling requirements of pod", _pod(AFFINITY1), three, (MAX, 0, 0)),
        _case("all nodes matches the preferred scheduling requirements of pod but with different priorities ",
              _pod(AFFINITY2), five, (18, MAX, 36)),
        _case("added affinity", _pod(), _nodes(("node1", LABEL1), ("node2", LABEL2)), (MAX, 0), AFFINITY1),
        _case("added affinity and pod has default affinity", _pod(AFFINITY1),
              _nodes(("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL5)), (40, 60, MAX),
              (_term(3, ("key", "value")),)),
        _case("calculate the priorities correctly even if PreScore is not called", _pod(AFFINITY2), five,
              (18, MAX, 36)),
    ]


NOT_PORTED: Final = {
    "PreScore returns error when an incoming Pod has a broken affinity":
        "a label key the API server rejects ('invalid key'): the spec's node selector requirements do not validate "
        "label syntax",
}
"""The Go cases that are not even score cases here, and why."""
_ARGUMENTS: Final = "non-default plugin arguments (the cycle runs the default profile's): addedAffinity"
NOT_VECTORS: Final = {
    "Skip is returned in PreScore when NodeAffinity is nil":
        "one candidate, which the scheduler chooses unscored ('all nodes are same priority as NodeAffinity is nil' "
        "shows the Skip on three)",
    "added affinity": _ARGUMENTS,
    "added affinity and pod has default affinity": _ARGUMENTS,
}
"""The cases that are not cycle vectors, and why (``tests/conformance/test_ported.py`` keeps it exact)."""
GO_CASES: Final = 9
"""How many cases TestNodeAffinityPriority has in v1.35 (every one is a case here or in :data:`NOT_PORTED`)."""


def scenarios() -> list[Scenario]:
    """Each case that can be a cycle vector (:func:`conformance.ported.score_cases.scenario` says which cannot)."""
    return score_scenarios(cases(), FILE, "NodeAffinity")
