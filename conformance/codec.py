"""Spec objects and operations as plain JSON, and back.

Every object a vector carries (pods, nodes, API calls, pod statuses) is the spec's frozen dataclass written as a
JSON object with the spec's field names. A field equal to its default is left out, so vectors stay short and an
adapter fills in the same defaults (listed in ``docs/conformance.md``). Quantities are integers in the scheduler's
units (millicores, bytes, counts); maps are JSON objects; tuples are arrays; an optional struct that is absent is
left out, one that is present but empty is ``{}`` (the cache tells nil from empty affinity).

An API call always carries its ``call_type`` (``pod_binding`` or ``pod_status_patch``), which says how to read it.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from enum import Enum
from typing import Any, Final, Union

from conformance.operations import CYCLE_OPERATIONS, UpdateMetrics
from spec.cache.operations import (
    AddNode,
    AddPod,
    AssumePod,
    CleanupAssumedPods,
    FinishBinding,
    ForgetPod,
    Operation,
    RemoveNode,
    RemovePod,
    UpdateNode,
    UpdatePod,
    UpdateSnapshot,
)
from spec.dispatcher.api_calls import APICall, PodBindingCall, PodStatusPatchCall
from spec.dispatcher.operations import AddCall, CallQueueOperation, CloseDispatcher, FinishCall, PopCall, SyncObject
from spec.frozenmap import FrozenMap
from spec.queue.operations import QUEUE_OPERATIONS

JSON = Any
"""A value ``json.loads`` can return."""

CACHE_OPERATIONS: Final[tuple[type[Operation] | type[UpdateMetrics], ...]] = (
    AssumePod, FinishBinding, ForgetPod, AddPod, UpdatePod, RemovePod, AddNode, UpdateNode, RemoveNode,
    CleanupAssumedPods, UpdateSnapshot, UpdateMetrics,
)
DISPATCHER_OPERATIONS: Final[tuple[type[CallQueueOperation], ...]] = (
    AddCall, PopCall, FinishCall, SyncObject, CloseDispatcher,
)
CALL_TYPES: Final[dict[str, type[APICall]]] = {"pod_binding": PodBindingCall, "pod_status_patch": PodStatusPatchCall}


class CodecError(ValueError):
    """A JSON value does not describe the spec object it should; the message names the path."""


_NAMES: dict[type[object], str] = {}


def operation_name(op_type: type[object]) -> str:
    """``AssumePod`` -> ``assume_pod``: the name an operation has in vectors and in the protocol (remembered per
    type: exploration names every operation it tries)."""
    name = _NAMES.get(op_type)
    if name is None:
        name = _NAMES[op_type] = re.sub(r"(?<!^)(?=[A-Z])", "_", op_type.__name__).lower()
    return name


OPERATIONS: Final[dict[str, type[Any]]] = {
    operation_name(t): t for t in (*CACHE_OPERATIONS, *DISPATCHER_OPERATIONS, *CYCLE_OPERATIONS, *QUEUE_OPERATIONS)
}
"""Every operation a vector step may name, by its protocol name."""
DISPATCHER_OPERATION_NAMES: Final = frozenset(operation_name(t) for t in DISPATCHER_OPERATIONS)
CYCLE_OPERATION_NAMES: Final = frozenset(operation_name(t) for t in CYCLE_OPERATIONS)
QUEUE_OPERATION_NAMES: Final = frozenset(operation_name(t) for t in QUEUE_OPERATIONS)


# --------------------------------------------------------------------------------------------
# Encoding
# --------------------------------------------------------------------------------------------


def _default_of(field: dataclasses.Field[Any]) -> object:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return dataclasses.MISSING


def encode(value: object) -> JSON:
    """A spec value as JSON: dataclasses as objects without default-valued fields (``call_type`` always kept)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, JSON] = {}
        for field in dataclasses.fields(value):
            item = getattr(value, field.name)
            if field.name == "call_type" or item != _default_of(field):
                out[field.name] = encode(item)
        return out
    if isinstance(value, FrozenMap | dict):
        return {str(k): encode(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, frozenset | set):
        return sorted(encode(v) for v in value)
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if isinstance(value, Enum):
        return value.value
    if value is None or isinstance(value, bool | int | str):
        return value
    raise TypeError(f"cannot encode {type(value).__name__} value {value!r}")


def encode_operation(op: object) -> tuple[str, dict[str, JSON]]:
    """An operation as its protocol name and arguments."""
    args = encode(op)
    assert isinstance(args, dict)
    return operation_name(type(op)), args


# --------------------------------------------------------------------------------------------
# Decoding
# --------------------------------------------------------------------------------------------


_HINTS: dict[type[Any], dict[str, Any]] = {}


def _hints(cls: type[Any]) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _expect(ok: bool, path: str, wanted: str, data: JSON) -> None:
    if not ok:
        raise CodecError(f"{path}: expected {wanted}, got {data!r}")


def decode(tp: Any, data: JSON, path: str = "$") -> Any:
    """Read ``data`` as a value of type ``tp`` (a spec dataclass or a type built from them); fails with
    :class:`CodecError` naming the JSON path of the first value that does not fit."""
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        members = typing.get_args(tp)
        if data is None and type(None) in members:
            return None
        real = [m for m in members if m is not type(None)]
        if len(real) == 1:
            return decode(real[0], data, path)
        if set(real) == set(CALL_TYPES.values()):
            return decode_call(data, path)
        raise TypeError(f"cannot decode the union {tp}")
    if origin is tuple:
        _expect(isinstance(data, list), path, "an array", data)
        (item,) = typing.get_args(tp)[:1]
        return tuple(decode(item, v, f"{path}[{i}]") for i, v in enumerate(data))
    if origin is frozenset:
        _expect(isinstance(data, list), path, "an array", data)
        (item,) = typing.get_args(tp)
        return frozenset(decode(item, v, f"{path}[{i}]") for i, v in enumerate(data))
    if origin is FrozenMap:
        _expect(isinstance(data, dict), path, "an object", data)
        _, value_type = typing.get_args(tp)
        return FrozenMap({k: decode(value_type, v, f"{path}.{k}") for k, v in data.items()})
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _decode_dataclass(tp, data, path)
    if isinstance(tp, type) and issubclass(tp, Enum):
        try:
            return tp(data)
        except ValueError:
            raise CodecError(f"{path}: {data!r} is not one of {[e.value for e in tp]}") from None
    if tp is bool:
        _expect(isinstance(data, bool), path, "a boolean", data)
        return data
    if tp is int:
        _expect(isinstance(data, int) and not isinstance(data, bool), path, "an integer", data)
        return data
    if tp is str:
        _expect(isinstance(data, str), path, "a string", data)
        return data
    raise TypeError(f"cannot decode type {tp}")


def _decode_dataclass(cls: type[Any], data: JSON, path: str) -> Any:
    _expect(isinstance(data, dict), path, f"an object ({cls.__name__})", data)
    hints = _hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise CodecError(f"{path}: unknown field(s) {unknown} for {cls.__name__}; known: {sorted(names)}")
    kwargs = {}
    for field in dataclasses.fields(cls):
        if field.name in data:
            kwargs[field.name] = decode(hints[field.name], data[field.name], f"{path}.{field.name}")
        elif _default_of(field) is dataclasses.MISSING:
            raise CodecError(f"{path}: missing required field {field.name!r} of {cls.__name__}")
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as error:
        raise CodecError(f"{path}: {error}") from None


def decode_call(data: JSON, path: str = "$") -> APICall:
    """An API call, chosen by its ``call_type``."""
    _expect(isinstance(data, dict), path, "an API call object", data)
    call_type = data.get("call_type")
    if call_type not in CALL_TYPES:
        raise CodecError(f"{path}.call_type: expected one of {sorted(CALL_TYPES)}, got {call_type!r}")
    call: APICall = _decode_dataclass(CALL_TYPES[call_type], data, path)
    return call


def decode_operation(name: str, args: JSON) -> Any:
    """The spec operation a step names; fails with :class:`CodecError` for an unknown name or bad arguments."""
    op_type = OPERATIONS.get(name)
    if op_type is None:
        raise CodecError(f"unknown operation {name!r}; known: {', '.join(sorted(OPERATIONS))}")
    return _decode_dataclass(op_type, args, f"{name}.args")
