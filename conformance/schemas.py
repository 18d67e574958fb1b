"""The JSON Schemas of the vectors and of the protocol messages, generated from the code that defines them.

Arguments are typed from the operations' dataclasses (the same types :func:`conformance.codec.decode_operation`
reads), observations from the shapes of :mod:`conformance.contract`. ``ksspec conformance generate`` writes both
files into ``conformance/schema/`` and ``--check`` fails when they drift; the runner validates every vector it
loads against ``vector.schema.json``.

A vector's step stores its observation as a JSON merge patch (RFC 7396) of the previous one, so the vector schema
types patches: every field of a record is optional, a map entry may be ``null`` (removed) or a patch of its value,
and arrays and scalars are whole values. A protocol ``result`` carries the full observation.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools
import json
import textwrap
import types
import typing
from enum import Enum, IntFlag
from pathlib import Path
from typing import Any, Final, Union

from conformance import contract
from conformance.codec import CALL_TYPES, OPERATIONS
from conformance.contract import (
    AREAS,
    ArrayOf,
    Boolean,
    Const,
    Either,
    Integer,
    MapOf,
    Record,
    Ref,
    Shape,
    String,
    Tuple,
)
from conformance.format import FORMAT_MAJOR
from conformance.protocol import PROTOCOL_VERSION
from spec.frozenmap import FrozenMap
from spec.versions import PROFILES

JSON = Any
SCHEMA_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"
BASE_ID: Final = "https://kube-scheduler-spec.invalid/conformance/"
OBSERVATION_OF: Final[dict[str, str]] = {"cache": "cache", "snapshot": "cache", "node_tree": "cache",
                                         "dispatcher": "dispatcher", "queue": "queue", "cycle": "cycle"}
"""The observation each area's vectors and results carry (the three cache areas share one)."""
OBSERVATIONS: Final[dict[str, Record]] = {
    "cache": contract.CACHE_OBSERVATION, "dispatcher": contract.DISPATCHER_OBSERVATION,
    "queue": contract.QUEUE_OBSERVATION, "cycle": contract.CYCLE_OBSERVATION,
}


# --------------------------------------------------------------------------------------------
# Arguments: the operations' dataclasses
# --------------------------------------------------------------------------------------------


_FIELD_DOCS: dict[object, dict[str, str]] = {}


def field_docs(owner: object) -> dict[str, str]:
    """The docstrings written under the fields of a class (a dataclass's ``name: type``, an enum's ``NAME = value``)
    or the constants of a module, by name; {} when the source cannot be read."""
    if owner not in _FIELD_DOCS:
        _FIELD_DOCS[owner] = _read_field_docs(owner)
    return _FIELD_DOCS[owner]


def _read_field_docs(owner: Any) -> dict[str, str]:
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(owner)))
    except (OSError, TypeError):
        return {}
    body = tree.body[0].body if inspect.isclass(owner) and isinstance(tree.body[0], ast.ClassDef) else tree.body
    docs: dict[str, str] = {}
    for node, after in itertools.pairwise(body):
        if isinstance(node, ast.AnnAssign):
            target: ast.expr | None = node.target
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        else:
            continue
        if (isinstance(target, ast.Name) and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)):
            docs[target.id] = " ".join(after.value.value.split())
    return docs


def _default(field: dataclasses.Field[Any]) -> object:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return dataclasses.MISSING


def type_schema(tp: Any, defs: dict[str, JSON]) -> JSON:
    """The schema of the JSON :func:`conformance.codec.decode` reads as ``tp``; dataclasses go into ``defs`` by
    name. Fails with ``TypeError`` for a type the codec does not read either."""
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        members = typing.get_args(tp)
        real = [m for m in members if m is not type(None)]
        if set(real) == set(CALL_TYPES.values()):
            inner: JSON = {"oneOf": [type_schema(t, defs) for t in CALL_TYPES.values()]}
        elif len(real) == 1:
            inner = type_schema(real[0], defs)
        else:
            raise TypeError(f"cannot describe the union {tp}")
        return {"anyOf": [inner, {"type": "null"}]} if type(None) in members else inner
    if origin is tuple:
        return {"type": "array", "items": type_schema(typing.get_args(tp)[0], defs)}
    if origin is frozenset:
        return {"type": "array", "items": type_schema(typing.get_args(tp)[0], defs), "uniqueItems": True}
    if origin is FrozenMap:
        return {"type": "object", "additionalProperties": type_schema(typing.get_args(tp)[1], defs)}
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if tp.__name__ not in defs:
            defs[tp.__name__] = {}  # reserve the name: a type may refer to itself
            defs[tp.__name__] = dataclass_schema(tp, defs)
        return {"$ref": f"#/$defs/{tp.__name__}"}
    if isinstance(tp, type) and issubclass(tp, IntFlag):
        return {"type": "integer", "minimum": 0}
    if isinstance(tp, type) and issubclass(tp, Enum):
        return {"enum": [e.value for e in tp]}
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer"}
    if tp is str:
        return {"type": "string"}
    raise TypeError(f"cannot describe type {tp}")


def dataclass_schema(cls: type[Any], defs: dict[str, JSON]) -> JSON:
    """An object with the dataclass's fields: those without a default required, no other key allowed; an API
    call's ``call_type`` is required and fixed."""
    hints = typing.get_type_hints(cls)
    docs = field_docs(cls)
    properties: dict[str, JSON] = {}
    required = []
    for field in dataclasses.fields(cls):
        schema = dict(type_schema(hints[field.name], defs))
        if field.name == "call_type":
            schema = {"const": _default(field)}
        if field.name in docs:
            schema["description"] = docs[field.name]
        properties[field.name] = schema
        if _default(field) is dataclasses.MISSING or field.name == "call_type":
            required.append(field.name)
    out: JSON = {"type": "object", "additionalProperties": False, "properties": properties}
    if required:
        out["required"] = required
    if cls.__doc__:
        out["description"] = " ".join(cls.__doc__.split())
    return out


def args_schemas(defs: dict[str, JSON]) -> dict[str, JSON]:
    """Each operation's ``args`` schema, by operation name."""
    return {name: type_schema(op_type, defs) for name, op_type in sorted(OPERATIONS.items())}


# --------------------------------------------------------------------------------------------
# Observations: the contract's shapes
# --------------------------------------------------------------------------------------------


def shape_schema(shape: Shape, patch: bool = False) -> JSON:
    """The schema of a value of ``shape``, or (``patch``) of a merge patch of one such value into another."""
    described: JSON = {"description": shape.note} if shape.note else {}
    match shape:
        case Integer(minimum=minimum):
            return {"type": "integer", **({"minimum": minimum} if minimum is not None else {}), **described}
        case String(enum=enum):
            return {"enum": list(enum), **described} if enum else {"type": "string", **described}
        case Boolean():
            return {"type": "boolean", **described}
        case Const(value=value):
            return {"const": value, **described}
        case ArrayOf(item=item):
            return {"type": "array", "items": shape_schema(item), **described}
        case Tuple(items=items):
            return {"type": "array", "prefixItems": [shape_schema(i) for i in items], "items": False,
                    "minItems": len(items), **described}
        case MapOf(value=value):
            entry = shape_schema(value, patch)
            return {"type": "object", "additionalProperties": {"anyOf": [{"type": "null"}, entry]} if patch
                    else entry, **described}
        case Record(fields=fields):
            properties = {}
            for f in fields:
                schema = {**shape_schema(f.shape, patch), "description": f.meaning}
                properties[f.name] = {"anyOf": [{"type": "null"}, schema]} if patch and f.optional else schema
            out: JSON = {"type": "object", "additionalProperties": False, "properties": properties}
            if not patch:
                out["required"] = [f.name for f in fields if not f.optional]
            return out
        case Either(options=options):
            records = [o for o in options if isinstance(o, Record)]
            if patch and len(records) > 1:  # a patch may turn one record into another: the others' keys null
                others = [shape_schema(o, patch) for o in options if not isinstance(o, Record)]
                return {"anyOf": [*others, _records_patch(records)]}
            return {"anyOf": [shape_schema(o, patch) for o in options]}
        case Ref(name=name):
            return {"$ref": f"#/$defs/{name}{'.patch' if patch else ''}"}
    raise TypeError(f"not a shape: {shape!r}")


def _records_patch(records: list[Record]) -> JSON:
    """A merge patch between values of any of ``records``: every field of each, each also ``null``."""
    properties: dict[str, JSON] = {}
    for record in records:
        for f in record.fields:
            schema = {"anyOf": [{"type": "null"}, shape_schema(f.shape, patch=True)], "description": f.meaning}
            if f.name in properties and properties[f.name] != schema:
                properties[f.name] = {"anyOf": [properties[f.name], schema]}
            else:
                properties[f.name] = schema
    return {"type": "object", "additionalProperties": False, "properties": properties}


def shape_defs() -> dict[str, JSON]:
    """The named shapes, whole and as patches."""
    defs: dict[str, JSON] = {}
    for name, shape in contract.DEFINITIONS.items():
        defs[name] = shape_schema(shape)
        defs[f"{name}.patch"] = shape_schema(shape, patch=True)
    return defs


# --------------------------------------------------------------------------------------------
# The two schemas
# --------------------------------------------------------------------------------------------


def _if_then(key: str, value: str, then: JSON) -> JSON:
    return {"if": {"properties": {key: {"const": value}}, "required": [key]}, "then": then}


def vector_schema() -> JSON:
    """``vector.schema.json``: a vector with typed arguments (per operation) and typed observations (per area)."""
    defs: dict[str, JSON] = {}
    args = args_schemas(defs)
    per_area = [
        {"if": {"properties": {"tags": {"properties": {"area": {"const": area}}}}}, "then": {"properties": {
            "initial_observation": {"$ref": f"#/$defs/observation.{OBSERVATION_OF[area]}"},
            "steps": {"items": {"properties": {
                "op": {"enum": list(AREAS[area].operations)},
                "expect": {"properties": {"observation": {"$ref": f"#/$defs/patch.{OBSERVATION_OF[area]}"}}},
            }, "allOf": [_if_then("op", op, {"properties": {"args": {"$ref": f"#/$defs/args.{op}"}}})
                         for op in AREAS[area].operations]}},
        }}}
        for area in AREAS
    ]
    return {
        "$schema": SCHEMA_DIALECT,
        "$id": BASE_ID + "vector.schema.json",
        "title": "kube-scheduler-spec conformance vector",
        "description": "One trace: an initial observation, then steps of operation, arguments and expected outcome. "
                       "Each step's observation is a JSON merge patch (RFC 7396) of the previous step's full "
                       "expected observation. Generated by `ksspec conformance generate` from conformance/contract.py "
                       "and the operations' dataclasses: do not edit.",
        "type": "object",
        "additionalProperties": False,
        "required": ["format_version", "id", "description", "tags", "profile", "ttl_ns", "initial_observation",
                     "steps"],
        "properties": {
            "format_version": {"type": "string", "pattern": f"^{FORMAT_MAJOR}\\.[0-9]+\\.[0-9]+$"},
            "id": {"type": "string", "pattern": "^[a-z0-9_]+(\\.[a-z0-9_]+)+$"},
            "description": {"type": "string", "minLength": 1},
            "tags": {
                "type": "object",
                "additionalProperties": False,
                "required": ["area", "origin", "behaviours", "profiles"],
                "properties": {
                    "area": {"enum": list(AREAS)},
                    "origin": {"enum": ["curated", "exploration", "random"]},
                    "behaviours": {"type": "array", "items": {"type": "string", "pattern": "^[a-z0-9_.-]+$"},
                                   "uniqueItems": True},
                    "profiles": {"type": "array", "items": {"enum": list(PROFILES)}, "minItems": 1,
                                 "uniqueItems": True},
                },
            },
            "profile": {"enum": list(PROFILES)},
            "ttl_ns": {"type": "integer", "minimum": 0},
            "preemption": {"type": "boolean",
                           "description": "cycle area: the profile runs DefaultPreemption as its PostFilter; absent: "
                                          "false, a profile with DefaultPreemption disabled (format 4.4.0)"},
            "initial_observation": {"type": "object"},
            "steps": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/step"}},
        },
        "allOf": per_area,
        "$defs": {
            "step": {
                "type": "object",
                "additionalProperties": False,
                "required": ["op", "args", "expect"],
                "properties": {"op": {"enum": sorted(OPERATIONS)}, "args": {"type": "object"},
                               "expect": {"$ref": "#/$defs/expect"}},
            },
            "expect": {
                "type": "object",
                "additionalProperties": False,
                "required": ["status"],
                "properties": {
                    "status": {"enum": ["ok", "error", "fatal"]},
                    "kind": {"type": "string", "minLength": 1},
                    "message": {"type": "string"},
                    "observation": {"type": "object"},
                },
                "allOf": [
                    {"if": {"properties": {"status": {"const": "ok"}}},
                     "then": {"required": ["observation"], "not": {"required": ["kind"]}}},
                    {"if": {"properties": {"status": {"const": "error"}}},
                     "then": {"required": ["kind", "observation"]}},
                    {"if": {"properties": {"status": {"const": "fatal"}}},
                     "then": {"required": ["kind"], "not": {"required": ["observation"]}}},
                ],
            },
            **{f"args.{op}": schema for op, schema in args.items()},
            **{f"observation.{name}": shape_schema(shape) for name, shape in OBSERVATIONS.items()},
            **{f"patch.{name}": shape_schema(shape, patch=True) for name, shape in OBSERVATIONS.items()},
            **shape_defs(),
            **dict(sorted(defs.items())),
        },
    }


HELLO_METADATA: Final[dict[str, str]] = {
    "language": "the language the implementation is written in (`go`, `python`, `rust`, ...)",
    "version": "the implementation's version (a release, a commit)",
    "homepage": "where to read about the implementation (a URL, or a path in its repository)",
}
"""Optional fields of an adapter's ``hello`` that the reports carry (``ksspec report`` shows them)."""


def protocol_schema() -> JSON:
    """``protocol.schema.json``: every message of the JSON-lines protocol, each way (:mod:`conformance.protocol`)."""
    defs: dict[str, JSON] = {}
    args = args_schemas(defs)
    rid = {"type": "integer", "minimum": 1}

    def message(kind: str, properties: JSON, required: list[str], **extra: JSON) -> JSON:
        return {"type": "object", "additionalProperties": False, "required": ["type", "id", *required],
                "properties": {"type": {"const": kind}, "id": rid, **properties}, **extra}

    step = message("step", {"index": {"type": "integer", "minimum": 0}, "op": {"enum": sorted(OPERATIONS)},
                            "args": {"type": "object"}}, ["index", "op", "args"],
                   allOf=[_if_then("op", op, {"properties": {"args": {"$ref": f"#/$defs/args.{op}"}}})
                          for op in sorted(OPERATIONS)])
    hello_response = message("hello", {
        "protocol_version": {"const": PROTOCOL_VERSION},
        "implementation": {"type": "string", "minLength": 1, "description": "the implementation's name"},
        "capabilities": {"type": "object", "required": ["areas"], "additionalProperties": False, "properties": {
            "areas": {"type": "array", "items": {"enum": list(AREAS)}, "uniqueItems": True,
                      "description": "the areas the adapter implements; the runner skips the others' vectors"},
            "profiles": {"type": "array", "items": {"type": "string"}, "uniqueItems": True,
                         "description": "the version profiles whose behaviour the implementation follows"},
        }},
        **{name: {"type": "string", "description": meaning} for name, meaning in HELLO_METADATA.items()},
    }, ["protocol_version", "implementation", "capabilities"])
    result = message("result", {
        "status": {"enum": ["ok", "error", "fatal"]},
        "kind": {"type": "string", "minLength": 1},
        "message": {"type": "string"},
        "observation": {"anyOf": [{"$ref": f"#/$defs/observation.{name}"} for name in OBSERVATIONS]},
    }, ["status"], allOf=[
        {"if": {"properties": {"status": {"const": "ok"}}}, "then": {"required": ["observation"]}},
        {"if": {"properties": {"status": {"const": "error"}}}, "then": {"required": ["kind", "observation"]}},
        {"if": {"properties": {"status": {"const": "fatal"}}}, "then": {"required": ["kind"]}},
    ])
    requests = {
        "hello_request": message("hello", {"protocol_version": {"const": PROTOCOL_VERSION},
                                           "format_version": {"type": "string"}},
                                 ["protocol_version", "format_version"]),
        "reset": message("reset", {"vector": {"type": "string"}, "area": {"enum": list(AREAS)},
                                   "profile": {"enum": list(PROFILES)}, "ttl_ns": {"type": "integer", "minimum": 0},
                                   "preemption": {"type": "boolean", "description": "the vector's `preemption`; sent "
                                                  "only when true"}},
                         ["vector", "area", "profile", "ttl_ns"]),
        "step": step,
        "bye": message("bye", {}, []),
    }
    responses = {
        "hello_response": hello_response,
        "ready": message("ready", {}, []),
        "result": result,
        "failure": message("failure", {"message": {"type": "string"}}, ["message"]),
        "bye_response": message("bye", {}, []),
    }
    return {
        "$schema": SCHEMA_DIALECT,
        "$id": BASE_ID + "protocol.schema.json",
        "title": "kube-scheduler-spec adapter protocol message",
        "description": "One line of the JSON-lines protocol, either way: a request of the runner "
                       "(#/$defs/request) or a response of the adapter (#/$defs/response). Generated by `ksspec "
                       "conformance generate` from conformance/contract.py and the operations' dataclasses: do not "
                       "edit.",
        "anyOf": [{"$ref": "#/$defs/request"}, {"$ref": "#/$defs/response"}],
        "$defs": {
            "request": {"oneOf": [{"$ref": f"#/$defs/{name}"} for name in requests]},
            "response": {"oneOf": [{"$ref": f"#/$defs/{name}"} for name in responses]},
            **requests,
            **responses,
            **{f"args.{op}": schema for op, schema in args.items()},
            **{f"observation.{name}": shape_schema(shape) for name, shape in OBSERVATIONS.items()},
            **shape_defs(),
            **dict(sorted(defs.items())),
        },
    }


SCHEMA_FILES: Final = {"vector.schema.json": vector_schema, "protocol.schema.json": protocol_schema}


def render_schemas() -> dict[str, str]:
    """The text of each schema file, by name (deterministic: the same code gives the same bytes)."""
    return {name: json.dumps(build(), indent=1, ensure_ascii=False) + "\n" for name, build in SCHEMA_FILES.items()}


def schema_drift(directory: Path) -> list[str]:
    """The schema files in ``directory`` that differ from what the code generates (one line each)."""
    problems = []
    for name, text in render_schemas().items():
        path = directory / name
        if not path.is_file():
            problems.append(f"{path}: missing")
        elif path.read_text(encoding="utf-8") != text:
            problems.append(f"{path}: differs from what the code generates")
    return problems


def write_schemas(directory: Path) -> None:
    """Write every schema file into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in render_schemas().items():
        (directory / name).write_text(text, encoding="utf-8")
