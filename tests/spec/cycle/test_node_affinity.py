"""NodeAffinity's preferred terms in the spec (:class:`spec.objects.NodeSelectorTerm`,
:func:`spec.cycle.scores.node_affinity_score`), against k8s.io/component-helpers' nodeaffinity and apimachinery's
``labels.Requirement`` (v0.35), and refimpl's plugin giving the same scores."""

from __future__ import annotations

import pytest

from refimpl.scheduler.framework import CycleState
from refimpl.scheduler.plugins import NodeAffinity
from refimpl.scheduler.plugins.node_affinity import preferred_terms, score_terms
from spec.frozenmap import FrozenMap
from spec.objects import (
    Node,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PreferredSchedulingTerm,
    parse_int64,
)

NODE = Node("n1", labels=FrozenMap({"gen": "3", "disk": "ssd", "odd": "x3"}))


def requirement(key: str, op: str, *values: str) -> NodeSelectorRequirement:
    return NodeSelectorRequirement(key, op, values)


def test_parse_int64_is_go_parse_int_base_10() -> None:
    assert parse_int64("+7") == 7 and parse_int64("-0") == 0 and parse_int64(str(2**63 - 1)) == 2**63 - 1
    assert parse_int64(str(2**63)) is None and parse_int64("1_0") is None and parse_int64(" 1") is None
    assert parse_int64("") is None and parse_int64("0x1") is None


@pytest.mark.parametrize(("req", "matches"), [
    (requirement("gen", "Gt", "2"), True), (requirement("gen", "Gt", "3"), False),
    (requirement("gen", "Lt", "4"), True), (requirement("gen", "Lt", "-1"), False),
    (requirement("odd", "Gt", "0"), False), (requirement("odd", "Lt", "9"), False),  # a label that is no integer
    (requirement("none", "Lt", "9"), False), (requirement("none", "NotIn", "a"), True),
    (requirement("disk", "NotIn", "ssd"), False), (requirement("disk", "Exists"), True),
    (requirement("disk", "DoesNotExist"), False),
])
def test_requirement_matches_as_labels_requirement(req: NodeSelectorRequirement, matches: bool) -> None:
    assert req.matches(NODE.labels) is matches


@pytest.mark.parametrize("args", [("k", "Gt"), ("k", "Lt", "1", "2"), ("k", "Gt", "one"), ("k", "In"),
                                  ("k", "Exists", "v"), ("k", "Equals", "v")])
def test_requirements_labels_new_requirement_rejects(args: tuple[str, ...]) -> None:
    with pytest.raises(ValueError):
        requirement(*args)


def test_match_fields_take_in_or_not_in_with_one_value() -> None:
    with pytest.raises(ValueError):
        NodeSelectorTerm(match_fields=(requirement("metadata.name", "In", "a", "b"),))
    with pytest.raises(ValueError):
        NodeSelectorTerm(match_fields=(requirement("metadata.name", "Exists"),))
    by_name = NodeSelectorTerm(match_fields=(requirement("metadata.name", "In", "n1"),))
    assert by_name.matches(NODE) and not by_name.matches(Node("n2"))
    other_field = NodeSelectorTerm(match_fields=(requirement("spec.unschedulable", "NotIn", "x"),))
    assert other_field.matches(NODE)  # an absent field reads as ""
    assert by_name.matches(Node(""))  # a node without a name has no fields: the field requirements are not checked


def test_refimpl_scores_as_the_spec() -> None:
    terms = (PreferredSchedulingTerm(0, NodeSelectorTerm((requirement("disk", "In", "ssd"),))),
             PreferredSchedulingTerm(5),
             PreferredSchedulingTerm(2, NodeSelectorTerm((requirement("gen", "Gt", "1"),))),
             PreferredSchedulingTerm(4, NodeSelectorTerm(match_fields=(requirement("metadata.name", "In", "n1"),))),
             PreferredSchedulingTerm(8, NodeSelectorTerm((requirement("disk", "In", "hdd"),))))
    pod = Pod("p", has_node_affinity=True, preferred_node_affinity=terms)
    parsed = preferred_terms(pod)
    assert parsed is not None and [w for w, _ in parsed] == [2, 4, 8]
    assert score_terms(parsed, NODE) == 6 == sum(t.weight for t in terms[2:] if t.preference.matches(NODE))
    assert preferred_terms(Pod("q")) is None
    assert NodeAffinity().pre_score(CycleState(), Pod("q"), []) is not None  # Skip
    assert NodeAffinity().pre_score(CycleState(), Pod("r", preferred_node_affinity=()), []) is None
