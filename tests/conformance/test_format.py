"""The vector format: schema validation with clear messages, the object codec, merge patches."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from conformance.codec import CodecError, decode_operation, encode_operation
from conformance.format import VectorFormatError, schema_errors, vector_from_json
from conformance.observe import diff, merge_patch
from conformance.operations import ClusterRemoveNode, FailBinding, FailScheduling, SchedulePod, Tick, UpdateMetrics
from conformance.scenarios.cache import curated
from conformance.traces import expand
from spec.cache.operations import AddNode, AssumePod, UpdateNode, UpdatePod
from spec.cycle.cycle import FailurePoint
from spec.objects import AffinityTerms, Container, ContainerPort, Node, Pod
from spec.quantities import resource_list


@pytest.fixture(scope="module")
def valid() -> Any:
    return expand(curated()[0])[0].to_json()


def test_generated_vectors_are_valid(valid: Any) -> None:
    assert schema_errors(valid) == []
    assert vector_from_json(valid).to_json() == valid


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda v: v.pop("steps"), "'steps' is a required property"),
        (lambda v: v.update(id="Not Dotted"), "at $.id: 'Not Dotted' does not match"),
        (lambda v: v["tags"].update(area="scheduler"), "at $.tags.area: 'scheduler' is not one of"),
        (lambda v: v["steps"][0].update(op="bind"), "at $.steps[0].op: 'bind' is not one of"),
        (lambda v: v["steps"][0]["expect"].update(status="maybe"), "at $.steps[0].expect.status"),
        (lambda v: v["steps"][0]["expect"].pop("observation"), "'observation' is a required property"),
        (lambda v: v.update(ttl_ns=-1), "at $.ttl_ns: -1 is less than the minimum of 0"),
    ],
)
def test_invalid_vectors_are_rejected_with_the_path(valid: Any, change: Any, message: str) -> None:
    broken = copy.deepcopy(valid)
    change(broken)
    with pytest.raises(VectorFormatError, match=r"cache\.curated\.json\[0\]") as caught:
        vector_from_json(broken, "cache.curated.json[0]")
    assert message in str(caught.value)


def test_other_major_format_version_is_refused(valid: Any) -> None:
    newer = {**valid, "format_version": "5.9.0"}
    assert vector_from_json(newer).format_version == "5.9.0"  # minor versions only add coverage
    assert schema_errors({**valid, "format_version": "6.0.0"})  # a new major version is another format
    assert schema_errors({**valid, "format_version": "4.8.0"})  # 4.x queue events have v1.35's ActionType bits
    assert schema_errors({**valid, "format_version": "3.2.0"})  # 3.x cycle observations lack the decision
    assert schema_errors({**valid, "format_version": "2.6.0"})  # 2.x cycle observations lack the status codes
    assert schema_errors({**valid, "format_version": "1.0.0"})  # 1.x observations lack returned and metrics


def test_codec_round_trips_cycle_operations() -> None:
    for op in (SchedulePod("a", "n1"), FailScheduling("a"), FailScheduling("a", "n1", FailurePoint.PERMIT),
               FailBinding("a", FailurePoint.BIND), ClusterRemoveNode("n1"), Tick(5), UpdateMetrics()):
        name, args = encode_operation(op)
        assert decode_operation(name, args) == op
    assert encode_operation(FailScheduling("a", "n1", FailurePoint.RESERVE)) == (
        "fail_scheduling", {"uid": "a", "node": "n1", "point": "Reserve"})
    with pytest.raises(CodecError, match="'Commit' is not one of"):
        decode_operation("fail_binding", {"uid": "a", "point": "Commit"})


def test_codec_round_trips_operations() -> None:
    pod = Pod("a", "p", node_name="n1", containers=(Container("c", resource_list(cpu=100), (ContainerPort(80, 80),)),),
              pod_affinity=AffinityTerms())
    for op in (AssumePod(pod), UpdatePod(pod, pod), AddNode(Node("n1")), UpdateNode(None, Node("n1"))):
        name, args = encode_operation(op)
        assert decode_operation(name, args) == op
    name, args = encode_operation(AssumePod(pod))
    assert args["pod"]["pod_affinity"] == {} and "pod_anti_affinity" not in args["pod"]  # nil versus empty


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("assume", {}, "unknown operation 'assume'"),
        ("add_pod", {"pod": {"uid": 7}}, "add_pod.args.pod.uid: expected a string, got 7"),
        ("add_pod", {"pod": {"uid": "a", "color": "red"}}, "unknown field(s) ['color'] for Pod"),
        ("add_node", {}, "missing required field 'node'"),
    ],
)
def test_codec_errors_name_the_path(name: str, args: Any, message: str) -> None:
    with pytest.raises(CodecError) as caught:
        decode_operation(name, args)
    assert message in str(caught.value)


def test_merge_patch_inverts_diff() -> None:
    before = {"nodes": {"n1": {"pods": ["a"], "x": 1}, "n2": {}}, "assumed": ["a"]}
    after = {"nodes": {"n1": {"pods": ["a", "b"], "x": 1}, "n3": {"y": {}}}, "assumed": []}
    patch = diff(before, after)
    assert patch == {"nodes": {"n1": {"pods": ["a", "b"]}, "n3": {"y": {}}, "n2": None}, "assumed": []}
    assert merge_patch(before, patch) == after
