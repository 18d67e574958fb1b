"""64-bit fingerprints of spec values: what the model checker stores instead of states.

A fingerprint is a hash of a *canonical encoding* of a value, built bottom up (a Merkle tree):

- a string is its UTF-8 bytes, an integer (and a bool, which Python equates with 0 and 1) its
  decimal digits, None a tag;
- a tuple is the fingerprints of its items in order; a frozenset (and a set) those of its items
  sorted, and a :class:`~spec.frozenmap.FrozenMap` its (key, value) fingerprint pairs sorted, so
  neither depends on the order the container was built in (their equality does not either);
- a dataclass is its class's qualified name and the fingerprints of its fields in order; an
  enum member that is not a string or an integer its class and name;

each tag and its parts go through BLAKE2b with an 8-byte digest. Equal values therefore have
equal fingerprints, in every process and on every machine (Python's own ``hash`` salts strings
per process, so it cannot partition states between processes). Distinct values collide with
probability about 2^-64 per pair; :func:`collision_probability` says what that means for a run.

A value type (:func:`spec.valuetypes.cached_hash`) and a FrozenMap remember their fingerprint,
so a state shares the work with every state it shares parts with.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import struct
from collections.abc import Callable
from typing import Any, Final

from spec.frozenmap import FrozenMap
from spec.valuetypes import FINGERPRINT_ATTRIBUTE, VALUE_TYPES

BITS: Final = 64
MASK: Final = (1 << BITS) - 1


def _digest(tag: bytes, payload: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(payload, digest_size=8, person=tag).digest(), "little")


def _packed(fingerprints: list[int]) -> bytes:
    return struct.pack(f"<{len(fingerprints)}Q", *fingerprints)


_NONE: Final = _digest(b"none", b"")
_STRINGS: dict[str, int] = {}
_CLASSES: dict[type, bytes] = {}


def _string(value: str) -> int:
    known = _STRINGS.get(value)
    if known is None:
        known = _digest(b"str", value.encode("utf-8", "surrogatepass"))
        if len(_STRINGS) < 1_000_000:
            _STRINGS[value] = known
    return known


_INTEGERS: dict[int, int] = {}


def _integer(value: int) -> int:
    known = _INTEGERS.get(value)
    if known is None:
        known = _digest(b"int", str(int(value)).encode())
        if len(_INTEGERS) >= 100_000:
            _INTEGERS.clear()
        _INTEGERS[value] = known
    return known


def _float(value: float) -> int:
    if value.is_integer():
        return _integer(int(value))  # 1.0 == 1, so they must agree
    return _digest(b"float", repr(value).encode())


_TUPLES: dict[tuple[Any, ...], int] = {}
"""Tuples fingerprinted recently (a tuple cannot remember its own): equal tuples, equal fingerprints."""


def _tuple(value: tuple[Any, ...]) -> int:
    known = _TUPLES.get(value)
    if known is None:
        known = _digest(b"tuple", _packed([fingerprint(item) for item in value]))
        if len(_TUPLES) >= 100_000:
            _TUPLES.clear()
        _TUPLES[value] = known
    return known


_SETS: dict[frozenset[Any], int] = {}
_MAPS: dict[FrozenMap[Any, Any], int] = {}
"""Frozensets and maps fingerprinted recently, by value: a new object with a known value costs a hash."""


def _set(value: frozenset[Any] | set[Any]) -> int:
    frozen = value if isinstance(value, frozenset) else frozenset(value)
    known = _SETS.get(frozen)
    if known is None:
        known = _digest(b"set", _packed(sorted(fingerprint(item) for item in value)))
        if len(_SETS) >= 100_000:
            _SETS.clear()
        _SETS[frozen] = known
    return known


def _frozen_map(value: FrozenMap[Any, Any]) -> int:
    known = value._fingerprint
    if known is None:
        known = _MAPS.get(value)
        if known is None:
            pairs = sorted((fingerprint(k), fingerprint(v)) for k, v in value.items())
            known = _digest(b"map", _packed([half for pair in pairs for half in pair]))
            if len(_MAPS) >= 100_000:
                _MAPS.clear()
            _MAPS[value] = known
        value._fingerprint = known
    return known


def _class_tag(cls: type) -> bytes:
    tag = _CLASSES.get(cls)
    if tag is None:
        tag = _CLASSES[cls] = _packed([_string(f"{cls.__module__}.{cls.__qualname__}")])
    return tag


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
"""Per dataclass, its field names in order (``dataclasses.fields``, looked up once per class)."""


def _dataclass(value: Any) -> int:
    cls = type(value)
    cached = cls in VALUE_TYPES
    if cached:
        known: int | None = value.__dict__.get(FINGERPRINT_ATTRIBUTE)
        if known is not None:
            return known
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(value))
    fields = [fingerprint(getattr(value, name)) for name in names]
    result = _digest(b"dataclass", _class_tag(cls) + _packed(fields))
    if cached:
        object.__setattr__(value, FINGERPRINT_ATTRIBUTE, result)
    return result


_BY_TYPE: Final[dict[type, Callable[[Any], int]]] = {
    str: _string,
    int: _integer,
    bool: _integer,
    float: _float,
    tuple: _tuple,
    frozenset: _set,
    set: _set,
    FrozenMap: _frozen_map,
    type(None): lambda _: _NONE,
}


def fingerprint(value: Any) -> int:
    """The 64-bit fingerprint of ``value`` (an unsigned int). Fails with ``TypeError`` on a value
    of a type without a canonical encoding here (a list, a dict, an arbitrary object)."""
    attributes = getattr(value, "__dict__", None)
    if attributes is not None:
        known: int | None = attributes.get(FINGERPRINT_ATTRIBUTE)
        if known is not None:
            return known
    encode = _BY_TYPE.get(type(value))
    if encode is not None:
        return encode(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _dataclass(value)
    if isinstance(value, str):  # a StrEnum member equals its value
        return _string(str.__str__(value))
    if isinstance(value, int):  # an IntEnum member, or a bool subclass
        return _integer(value)
    if isinstance(value, enum.Enum):
        return _digest(b"enum", _class_tag(type(value)) + _packed([_string(value.name)]))
    if isinstance(value, tuple):
        return _tuple(value)
    if isinstance(value, frozenset | set):
        return _set(value)
    raise TypeError(f"no canonical encoding for a {type(value).__qualname__}: {value!r}")


def combine(*parts: int) -> int:
    """The fingerprint of a state made of parts with these fingerprints, in this order."""
    return _digest(b"combine", _packed(list(parts)))


def collision_probability(distinct: int, generated: int) -> float:
    """TLC's optimistic estimate of the probability that two of the distinct states explored share a
    fingerprint, so that one of them (and what only it reaches) was never explored.

    Each of the ``generated - distinct`` successors found already seen may have been a new state
    whose fingerprint equals one of the ``distinct`` stored: ``distinct * (generated - distinct) / 2^64``.
    """
    return distinct * max(generated - distinct, 0) / 2.0**BITS
