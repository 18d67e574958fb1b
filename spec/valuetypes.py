"""Value types whose hash is computed once.

The spec's state is made of frozen dataclasses, nested deep (a cache holds NodeInfos, which hold
pods, which hold containers). Python's generated ``__hash__`` of a frozen dataclass hashes every
field on every call, so hashing a cache state walks the whole tree each time a set or a dict
looks it up. :func:`cached_hash` keeps the generated hash and remembers its value on the object,
which is sound because the object never changes.

Nothing else changes: equality, ``repr``, ``dataclasses.fields``/``replace``/``asdict`` and the
order of fields are the dataclass's own. The remembered values are not part of the object's
state: :meth:`__getstate__` leaves them out, so a pickle or a copy carries only the fields and
recomputes them (Python's hash of a string differs between processes, so a remembered hash must
never travel). :mod:`spec.verify.fingerprint` keeps a value's 64-bit fingerprint the same way.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Final, TypeVar, cast

T = TypeVar("T", bound=type)
V = TypeVar("V")
F = TypeVar("F", bound=Callable[..., Any])

HASH_ATTRIBUTE: Final = "_cached_hash"
FINGERPRINT_ATTRIBUTE: Final = "_cached_fingerprint"
CACHED_ATTRIBUTES: Final = frozenset({HASH_ATTRIBUTE, FINGERPRINT_ATTRIBUTE})
"""Attributes a :func:`cached_hash` class keeps on an instance besides its fields."""
VALUE_TYPES: Final[set[type]] = set()
"""The classes :func:`cached_hash` was applied to."""


def cached_hash(cls: T) -> T:
    """Make the frozen dataclass ``cls`` remember its hash (apply above ``@dataclass(frozen=True)``).

    Fails with ``TypeError`` if ``cls`` is not a frozen dataclass with a generated ``__hash__``.
    """
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__hash__" not in cls.__dict__ or cls.__hash__ is None:
        raise TypeError(f"{cls.__name__} must be a frozen dataclass with a generated __hash__")
    field_hash: Callable[[Any], int] = cls.__dict__["__hash__"]

    def __hash__(self: Any) -> int:
        try:
            return self.__dict__[HASH_ATTRIBUTE]  # type: ignore[no-any-return]
        except KeyError:
            value = field_hash(self)
            object.__setattr__(self, HASH_ATTRIBUTE, value)
            return value

    def __getstate__(self: Any) -> dict[str, Any]:
        state = self.__dict__
        if CACHED_ATTRIBUTES.isdisjoint(state):
            return state  # type: ignore[no-any-return]
        return {name: value for name, value in state.items() if name not in CACHED_ATTRIBUTES}

    __hash__.__qualname__ = f"{cls.__qualname__}.__hash__"
    __getstate__.__qualname__ = f"{cls.__qualname__}.__getstate__"
    setattr(cls, "__hash__", __hash__)  # noqa: B010 (mypy forbids assigning to a method)
    setattr(cls, "__getstate__", __getstate__)  # noqa: B010
    VALUE_TYPES.add(cls)
    return cls


_PLAIN_FIELDS: dict[type, tuple[tuple[str, ...], frozenset[str]]] = {}
"""Per class, its field names (in order, and as a set) if :func:`replace` may copy its instances
directly, else none."""


def _plain_fields(cls: type) -> tuple[tuple[str, ...], frozenset[str]]:
    fields = getattr(cls, "__dataclass_fields__", None)
    params = getattr(cls, "__dataclass_params__", None)
    if fields is None or params is None or not params.frozen or hasattr(cls, "__post_init__"):
        return (), frozenset()
    if hasattr(cls, "__slots__") or any(
        f._field_type is not dataclasses._FIELD or not f.init  # type: ignore[attr-defined]
        for f in fields.values()
    ):
        return (), frozenset()
    return tuple(fields), frozenset(fields)


def replace(obj: V, /, **changes: Any) -> V:
    """``dataclasses.replace``: a copy of the frozen dataclass ``obj`` with ``changes``, equal to
    what that returns. The spec's transitions build new states this way constantly; for a frozen
    dataclass whose fields are all plain ``__init__`` fields and that has no ``__post_init__`` (every
    spec type) it copies the fields without running the generated ``__init__`` (one
    ``object.__setattr__`` per field), about three times faster. Anything else, and a name that is
    not a field (``TypeError``, as ``dataclasses.replace`` fails), goes to ``dataclasses.replace``.
    """
    cls = type(obj)
    plain = _PLAIN_FIELDS.get(cls)
    if plain is None:
        plain = _PLAIN_FIELDS[cls] = _plain_fields(cls)
    names, name_set = plain
    if not names or not name_set.issuperset(changes):
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    values = obj.__dict__
    copy = object.__new__(cls)
    state = copy.__dict__
    if len(values) == len(names):  # the fields alone (no remembered hash to leave out): copy them at once
        state.update(values)
        state.update(changes)
        return copy
    for name in names:
        state[name] = changes[name] if name in changes else values[name]
    return copy


def remember_by_identity(maxsize: int) -> Callable[[F], F]:
    """Remember a pure function's results for the last ``maxsize`` argument tuples, the arguments compared by identity.

    ``functools.lru_cache`` compares a new argument with a remembered one by value when their hashes match, and two
    snapshots rebuilt from the same cache are equal but distinct objects: the comparison walks both trees, node by
    node and pod by pod, and cost more than the function it spared (the PreFilter and PreScore states of the cycle,
    which each node's Filter and Score of one cycle read with the same snapshot object). This remembers only the
    very objects passed (held, so their identities are not reused) and recomputes for an equal copy. Positional
    arguments only; the function must be pure, as the spec's are. Never fails beyond what the function raises.
    """
    def decorate(function: F) -> F:
        remembered: OrderedDict[tuple[int, ...], tuple[tuple[Any, ...], Any]] = OrderedDict()

        @functools.wraps(function)
        def wrapper(*args: Any) -> Any:
            key = tuple(map(id, args))
            hit = remembered.get(key)
            if hit is not None:
                remembered.move_to_end(key)
                return hit[1]
            result = function(*args)
            remembered[key] = (args, result)
            if len(remembered) > maxsize:
                remembered.popitem(last=False)
            return result

        return cast(F, wrapper)

    return decorate
