"""An immutable, hashable mapping: the one container type the spec adds to Python.

Go maps are unordered and compared by contents, so two :class:`FrozenMap` values are equal
when they hold the same keys and values, whatever order they were built in. Every "update"
returns a new map. It is pure Python (a dict underneath) so that CrossHair and the Z3 encoders
can see through it, and hashable so that the model checker can store states in sets.
"""

from __future__ import annotations

from collections.abc import Hashable, ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView
from typing import Generic, TypeVar, overload

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
T = TypeVar("T")


class FrozenMap(Mapping[K, V], Generic[K, V]):
    """An immutable mapping; ``set`` and ``remove`` return new maps."""

    __slots__ = ("_data", "_fingerprint", "_hash")

    def __init__(self, items: Mapping[K, V] | Iterable[tuple[K, V]] = ()) -> None:
        self._data: dict[K, V] = dict(items)
        self._hash: int | None = None
        self._fingerprint: int | None = None
        """Remembered by :func:`spec.verify.fingerprint.fingerprint`."""

    def __getitem__(self, key: K) -> V:
        return self._data[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    # The Mapping mixins would work through __getitem__ and __iter__; the dict's own are faster.
    def __contains__(self, key: object) -> bool:
        return key in self._data

    @overload
    def get(self, key: K, /) -> V | None: ...

    @overload
    def get(self, key: K, default: V | T, /) -> V | T: ...

    def get(self, key: K, default: object = None, /) -> object:
        return self._data.get(key, default)

    def keys(self) -> KeysView[K]:
        return self._data.keys()

    def values(self) -> ValuesView[V]:
        return self._data.values()

    def items(self) -> ItemsView[K, V]:
        return self._data.items()

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._data.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenMap):
            if self is other:
                return True
            if self._hash is not None and other._hash is not None and self._hash != other._hash:
                return False  # both hashes known and different: the contents differ
            return self._data == other._data
        return NotImplemented

    def __reduce__(self) -> tuple[type[FrozenMap[K, V]], tuple[dict[K, V]]]:
        """Pickle the contents only: the remembered hash is per process (string hashes are salted)."""
        return (FrozenMap, (self._data,))

    def __repr__(self) -> str:
        return f"FrozenMap({self._data!r})"

    def set(self, key: K, value: V) -> FrozenMap[K, V]:
        """Return a copy of this map in which ``key`` maps to ``value``."""
        data = dict(self._data)
        data[key] = value
        return FrozenMap(data)

    def remove(self, key: K) -> FrozenMap[K, V]:
        """Return a copy of this map without ``key`` (no error if it is absent)."""
        if key not in self._data:
            return self
        data = dict(self._data)
        del data[key]
        return FrozenMap(data)

    def sorted_items(self) -> list[tuple[K, V]]:
        """The items in ascending key order: a canonical order for printing and hashing into traces."""
        return sorted(self._data.items(), key=lambda kv: repr(kv[0]))
