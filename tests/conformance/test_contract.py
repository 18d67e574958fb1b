"""The adapter contract (conformance/contract.py) agrees with the code, the vectors, the schemas and the docs pages.

The schemas are generated from the contract and the operations' dataclasses; the pages too. These tests keep the
three in step with the code that computes observations and decodes arguments: a field the contract names that no
observation has, an observation key the contract does not name, an operation, argument, kind or field missing from
its page, or a rule the vectors contradict, fails here.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conformance import contract, schemas
from conformance.adapters.refimpl_adapter import RefimplAdapter
from conformance.codec import OPERATIONS, decode_operation, encode
from conformance.contract import AREAS, CACHE_FAMILY, RULES, Record
from conformance.contract_vectors import kind_meanings, result_kinds
from conformance.format import SCHEMA_DIR, Vector, load_vectors, schema_errors
from conformance.observe import merge_patch
from conformance.protocol import handle, hello_request

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "_ext"))

from adapter_contract import area_page, rules_page

JSON = Any


@pytest.fixture(scope="module")
def vectors() -> list[Vector]:
    return load_vectors()


def full_observations(vector: Vector) -> Iterator[tuple[int, JSON]]:
    """(step index, full expected observation) after each non-fatal step; index -1 for the initial one."""
    current = vector.initial_observation
    yield -1, current
    for index, step in enumerate(vector.steps):
        if step.expect.observation is not None:
            current = merge_patch(current, step.expect.observation)
            yield index, current


def validator(name: str) -> jsonschema.protocols.Validator:
    shape = json.loads((SCHEMA_DIR / name).read_text())
    jsonschema.Draft202012Validator.check_schema(shape)
    return jsonschema.Draft202012Validator(shape)


# --------------------------------------------------------------------------------------------
# Schemas
# --------------------------------------------------------------------------------------------


def test_the_committed_schemas_are_what_the_code_generates() -> None:
    """`ksspec conformance generate` writes them, `--check` fails when they drift."""
    assert schemas.schema_drift(SCHEMA_DIR) == []


def test_every_committed_vector_satisfies_the_typed_schema(vectors: list[Vector]) -> None:
    bad = {v.id: schema_errors(v.to_json(), full=True)[:2] for v in vectors}
    assert {k: e for k, e in bad.items() if e} == {}


def _cache_vector(vectors: list[Vector]) -> JSON:
    vector = next(v for v in vectors if v.tags.area == "cache" and len(v.steps) > 2)
    return copy.deepcopy(vector.to_json())


@pytest.mark.parametrize("break_it, where", [
    (lambda v: v["initial_observation"].__setitem__("assumed", "p1"), "$.initial_observation.assumed"),
    (lambda v: v["initial_observation"].pop("returned"), "$.initial_observation"),
    (lambda v: v["initial_observation"]["nodes"].__setitem__("n1", {"node": "n1"}), "$.initial_observation.nodes.n1"),
    (lambda v: v["steps"][0]["expect"]["observation"].__setitem__("metrics", {"pods": -1}),
     "$.steps[0].expect.observation.metrics.pods"),
    (lambda v: v["steps"][0]["expect"]["observation"].__setitem__("returnd", "none"), "$.steps[0].expect.observation"),
    (lambda v: v["steps"][0].__setitem__("args", {"pod": {"uid": 7}}), "$.steps[0].args"),
    (lambda v: v["steps"][0].__setitem__("op", "add_call"), "$.steps[0].op"),
], ids=["array-as-string", "field-missing", "node-incomplete", "negative-count", "unknown-field", "bad-argument",
        "other-area-op"])
def test_the_typed_schema_rejects_a_malformed_vector(vectors: list[Vector], break_it: Callable[[JSON], None],
                                                      where: str) -> None:
    data = _cache_vector(vectors)
    assert schema_errors(data, full=True) == []
    break_it(data)
    errors = schema_errors(data, full=True)
    assert errors, "the schema accepted the malformed vector"
    assert any(e.startswith(f"at {where}") for e in errors), errors


def _traffic(vectors: list[Vector]) -> Iterator[JSON]:
    """Every request and response of the reference adapter on the first vectors of each area."""
    adapter = RefimplAdapter()
    yield hello_request(1)
    yield handle(adapter, hello_request(1))
    rid = 2
    for area in AREAS:
        for vector in [v for v in vectors if v.tags.area == area][:3]:
            reset = {"type": "reset", "id": rid, "vector": vector.id, "area": area, "profile": vector.profile,
                     "ttl_ns": vector.ttl_ns}
            yield reset
            yield handle(adapter, reset)
            for index, step in enumerate(vector.steps):
                rid += 1
                request = {"type": "step", "id": rid, "index": index, "op": step.op, "args": step.args}
                yield request
                yield handle(adapter, request)
            rid += 1
    yield {"type": "bye", "id": rid}
    yield handle(adapter, {"type": "bye", "id": rid})


def test_the_protocol_schema_accepts_the_reference_adapters_traffic(vectors: list[Vector]) -> None:
    check = validator("protocol.schema.json")
    problems = [(m.get("type"), e.json_path, e.message[:200]) for m in _traffic(vectors)
                for e in list(check.iter_errors(m))[:1]]
    assert problems == []


def test_the_protocol_schema_rejects_a_malformed_result(vectors: list[Vector]) -> None:
    check = validator("protocol.schema.json")
    result = next(m for m in _traffic(vectors) if m.get("type") == "result" and "snapshot" in m["observation"])
    assert check.is_valid(result)
    broken = copy.deepcopy(result)
    del broken["observation"]["snapshot"]["used_pvcs"]
    assert not check.is_valid(broken)
    assert not check.is_valid({**result, "status": "error"})  # an error names its kind
    assert not check.is_valid({"type": "hello", "id": 1, "protocol_version": "1", "implementation": "x",
                               "capabilities": {"areas": ["scheduler"]}})


# --------------------------------------------------------------------------------------------
# The contract against the code's observations
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("area", list(AREAS))
def test_every_field_the_contract_names_is_observed_and_no_other(vectors: list[Vector], area: str) -> None:
    record = AREAS[area].observation
    seen: set[str] = set()
    node_fields: set[str] = set()
    for vector in (v for v in vectors if v.tags.area == area):
        for _, observation in full_observations(vector):
            seen |= set(observation)
            for info in observation.get("nodes", {}).values():
                node_fields |= set(info)
    assert seen == {f.name for f in record.fields}
    if "nodes" in seen:
        node = contract.DEFINITIONS["NODE"]
        assert isinstance(node, Record)
        assert node_fields == {f.name for f in node.fields}


@pytest.mark.parametrize("area", list(AREAS))
def test_the_contract_page_names_every_operation_argument_kind_and_field(vectors: list[Vector], area: str) -> None:
    page = area_page(area)
    for op in AREAS[area].operations:
        assert f"### `{op}`" in page
        for argument in dataclasses.fields(OPERATIONS[op]):
            assert f"| `{argument.name}` |" in page, (op, argument.name)
    for kinds in result_kinds(vectors, area).values():
        for kind in kinds:
            assert f"| `{kind.status}` | `{kind.kind}` | {', '.join(kind.profiles)} |" in page
            assert kind_meanings()[kind.kind], kind.kind
    for field in AREAS[area].observation.fields:
        assert f"| `{field.name}` |" in page, field.name
    for rule in RULES:
        assert (rule.text in page) == (not rule.areas or area in rule.areas)


def test_the_shared_page_states_every_rule_and_lists_every_area() -> None:
    page = rules_page()
    assert all(rule.text in page for rule in RULES)
    assert all(f"(`{area}`)" in page for area in AREAS)


# --------------------------------------------------------------------------------------------
# Each rule, checked against the vectors
# --------------------------------------------------------------------------------------------


def _error_steps(vectors: list[Vector], areas: tuple[str, ...]) -> Iterator[tuple[Vector, int, JSON, JSON]]:
    for vector in (v for v in vectors if v.tags.area in areas):
        before = vector.initial_observation
        for index, after in full_observations(vector):
            if index >= 0 and vector.steps[index].expect.status == "error":
                yield vector, index, before, after
            before = after


def rule_full_observation(vectors: list[Vector]) -> None:
    # The initial observation is whole: it satisfies the area's full (not patch) shape.
    defs = schemas.vector_schema()["$defs"]
    checks = {name: jsonschema.Draft202012Validator({"$defs": defs, "$ref": f"#/$defs/observation.{name}"})
              for name in schemas.OBSERVATIONS}
    for vector in vectors:
        assert checks[schemas.OBSERVATION_OF[vector.tags.area]].is_valid(vector.initial_observation), vector.id


def rule_error_observation(vectors: list[Vector]) -> None:
    changed = {(v.steps[i].op, v.steps[i].expect.kind) for v, i, before, after in
               _error_steps(vectors, tuple(AREAS)) if {k for k in after if after[k] != before.get(k)} - {"told"}}
    assert {("update_pod", "InvalidPodKey"), ("remove_node", "NodeNotInTree"),
            ("update_snapshot", "SnapshotInconsistent"), ("add_call", "Skipped")} <= changed


def rule_fatal_result(vectors: list[Vector]) -> None:
    for vector in vectors:
        for index, step in enumerate(vector.steps):
            if step.expect.status == "fatal":
                assert step.expect.kind and step.expect.observation is None and index == len(vector.steps) - 1


def rule_kinds_not_messages(vectors: list[Vector]) -> None:
    # Messages are Kubernetes' text (they may differ between profiles); kinds are always there to compare.
    assert all(s.expect.kind for v in vectors for s in v.steps if s.expect.status != "ok")
    assert any(s.expect.message for v in vectors for s in v.steps)


def rule_returned_on_error(vectors: list[Vector]) -> None:
    steps = list(_error_steps(vectors, CACHE_FAMILY))
    assert steps and all(after["returned"] == "none" for *_, after in steps)


def rule_update_snapshot_steps(vectors: list[Vector]) -> None:
    for area in CACHE_FAMILY:
        assert any(s.op == "update_snapshot" for v in vectors if v.tags.area == area for s in v.steps), area


def rule_unsupported_operation(vectors: list[Vector]) -> None:
    found = [(v, i, before, after) for v, i, before, after in _error_steps(vectors, ("cache",))
             if v.steps[i].expect.kind == "UnsupportedOperation"]
    assert found and all(before == after for *_, before, after in found)
    assert {v.steps[i].op for v, i, *_ in found} == {"finish_binding", "cleanup_assumed_pods"}


def rule_defaults(vectors: list[Vector]) -> None:
    # Arguments are what the codec writes (defaults left out): decoding and encoding again gives the same JSON.
    for vector in vectors[::7]:
        for step in vector.steps:
            assert encode(decode_operation(step.op, step.args)) == step.args, (vector.id, step.op)


def rule_enabled_steps(vectors: list[Vector]) -> None:
    assert not any(s.expect.kind == "NotEnabled" for v in vectors for s in v.steps)


def rule_no_null(vectors: list[Vector]) -> None:
    for vector in vectors:
        for _, observation in full_observations(vector):
            assert "null" not in json.dumps(observation), vector.id


RULE_CHECKS: dict[str, Callable[[list[Vector]], None]] = {
    name.removeprefix("rule_"): check for name, check in globals().items() if name.startswith("rule_")
}


def test_every_rule_has_a_check() -> None:
    assert set(RULE_CHECKS) == {rule.id for rule in RULES}


@pytest.mark.parametrize("rule", [r.id for r in RULES])
def test_the_vectors_bear_out_the_rule(vectors: list[Vector], rule: str) -> None:
    RULE_CHECKS[rule](vectors)
