"""Canonical representatives of worlds: counters renumbered, gauges dropped, pods and nodes renamed.

Three things make the cache's state space infinite or needlessly large for a model checker:

- **Counters.** The global generation and the image-summary serials only grow. The cache uses
  them only by comparing them (``<=``, ``==``) and by taking a fresh value above all others, so
  renumbering them in order gives a world that behaves identically; this makes the reachable set
  finite. The cache's NodeInfo generations (and 0) become 0, 2, 4, ... in order and the counter
  the next even number, so the cache's representative depends on the cache alone. A snapshot
  generation equal to a cache one gets the same number; one strictly between two cache
  generations (a stale clone, or the snapshot's own generation after its NodeInfo was deleted)
  gets the odd number between them. Stale values between the same two cache generations are
  merged: nothing compares them with each other, only with the cache's generations (in
  ``update_snapshot`` and :func:`~spec.cache.invariants.inv_snapshot_matches_cache`), and new
  generations are fresh, so they never equal them. Serials are renumbered 0, 1, 2, ...
- **Gauges.** ``CacheState.metrics`` is write-only (no transition or invariant reads it), so
  representatives drop it.
- **Names** (optional). When every UID has the same object variants and every node name the same
  variants (as in :class:`~spec.verify.cache.universe.Universe`), renaming pods among themselves, or
  nodes among themselves, maps runs to runs, so one representative per renaming class suffices.
  Nodes are numbered in most-recently-updated order (their position in ``node_list``), then pods
  by their node and position in its pod list; names with no such position keep their relative
  order. This picks one member of each class, though not always the same one, which costs only
  duplicate states.

  One caveat: the spec's ``cleanup_assumed_pods`` visits pods in key order (Kubernetes visits them
  in random map order), and ``removeDeletedNodesFromSnapshot`` visits names in sorted order, so the
  spec's transition relation is symmetric only up to which of those orders is used. Every order is
  one Kubernetes may take, so the reduced exploration covers Kubernetes' behaviours; the model
  checker replays every counterexample on the spec without renaming before reporting it.

**Objects, not values.** For speed the module hands out one object per value where it can: a
representative computed again is replaced by the interned one (:class:`Representatives`), a
:class:`Renaming` is built once per ordering of the names, and pods and nodes (the universe's and
the renamed copies) are interned (:func:`intern_object`), so comparing two equal caches stops at
shared objects instead of walking both trees. None of this changes a value: the representative of
a cache, its renamer and so every state, edge and verdict are the ones computed without it (the
recorded figures of ``tests/verify/test_checker_baseline.py`` check it), so the reduction is exactly
as sound as above.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from typing import Final, TypeVar

from spec.cache.cache import CacheSizeMetrics, CacheState, PodState
from spec.cache.imagestates import ImageRef, ImageState
from spec.cache.nodeinfo import NodeInfo
from spec.cache.nodetree import NodeTree
from spec.cache.operations import (
    AddNode,
    AddPod,
    AssumePod,
    FinishBinding,
    ForgetPod,
    Operation,
    RemoveNode,
    RemovePod,
    UpdateNode,
    UpdatePod,
    World,
)
from spec.cache.snapshot import Snapshot
from spec.frozenmap import FrozenMap
from spec.objects import Node, Pod
from spec.valuetypes import cached_hash
from spec.verify.fingerprint import fingerprint


@cached_hash
@dataclass(frozen=True)
class Renaming:
    """Pod UIDs (and names) and node names, old to new; missing names are kept."""

    pods: FrozenMap[str, str] = FrozenMap()
    nodes: FrozenMap[str, str] = FrozenMap()

    @cached_property
    def is_identity(self) -> bool:
        return all(k == v for k, v in self.pods.items()) and all(k == v for k, v in self.nodes.items())

    def inverse(self) -> Renaming:
        return Renaming(
            FrozenMap({v: k for k, v in self.pods.items()}), FrozenMap({v: k for k, v in self.nodes.items()})
        )

    def then(self, other: Renaming) -> Renaming:
        """First this renaming, then ``other``."""
        pods = {k: other.pods.get(v, v) for k, v in self.pods.items()}
        nodes = {k: other.nodes.get(v, v) for k, v in self.nodes.items()}
        for k, v in other.pods.items():
            pods.setdefault(k, v)
        for k, v in other.nodes.items():
            nodes.setdefault(k, v)
        return Renaming(FrozenMap(pods), FrozenMap(nodes))


IDENTITY: Final = Renaming()
NO_METRICS: Final = CacheSizeMetrics()

MEMO_LIMIT: Final = 200_000
"""Cache and snapshot objects whose representatives are remembered at once (keyed by identity)."""


_OBJECTS: dict[object, object] = {}
"""One pod or node object per value, for :func:`intern_object`."""

ObjectT = TypeVar("ObjectT", Pod, Node)


def intern_object(value: ObjectT) -> ObjectT:
    """The one object with ``value``'s value (``value`` itself the first time).

    The model checker builds the same pods and nodes again and again (the universe's operations, the renamed
    copies in representatives), and comparing two equal caches walks down to every pod object they do not share:
    a pod compared by value is a tree of containers and quantities, by identity one pointer. Every pod and node the
    universe issues and every renamed one is interned here, so equal ones are one object. Values are unchanged.
    """
    return _OBJECTS.setdefault(value, value)  # type: ignore[return-value]


@lru_cache(maxsize=65536)
def _rename_pod(pod: Pod, renaming: Renaming) -> Pod:
    uid, name = renaming.pods.get(pod.uid, pod.uid), renaming.pods.get(pod.name, pod.name)
    node_name = renaming.nodes.get(pod.node_name, pod.node_name)
    if uid == pod.uid and name == pod.name and node_name == pod.node_name:
        return intern_object(pod)
    return intern_object(replace(pod, uid=uid, name=name, node_name=node_name))


def rename_pod(pod: Pod, renaming: Renaming) -> Pod:
    """``pod`` with its UID, name and node name renamed."""
    return _rename_pod(pod, renaming)


def rename_node(node: Node, renaming: Renaming) -> Node:
    """``node`` with its name renamed."""
    return _rename_node(node, renaming)


@lru_cache(maxsize=4096)
def _rename_node(node: Node, renaming: Renaming) -> Node:
    name = renaming.nodes.get(node.name, node.name)
    return intern_object(node if name == node.name else replace(node, name=name))


@dataclass(frozen=True)
class _Numbering:
    """The renumbering of one cache's generations (see the module docstring)."""

    values: tuple[int, ...]
    """The cache's NodeInfo generations and 0, sorted, distinct."""
    counter: int | None
    """The counter's new value, or None if it is below some generation (it is then numbered in place)."""

    def __call__(self, value: int) -> int:
        index = bisect_left(self.values, value)
        if index < len(self.values) and self.values[index] == value:
            return 2 * index
        return 2 * index - 1


def _numbering(cache: CacheState) -> tuple[_Numbering, int]:
    values = tuple(sorted({0, *(info.generation for info in cache.nodes.values())}))
    if cache.generation >= values[-1]:
        return _Numbering(values, 2 * len(values)), 2 * len(values)
    numbering = _Numbering(values, None)
    return numbering, numbering(cache.generation)


def _serial_ranks(cache: CacheState) -> dict[int, int] | None:
    if not cache.image_states and not cache.image_refs:  # no serials but the counter (what follows gives this)
        return None if cache.next_image_serial == 0 else {cache.next_image_serial: 0}
    values = sorted(
        {s.serial for s in cache.image_states.values()}
        | {r.serial for refs in cache.image_refs.values() for r in refs.values()}
    )
    ranks = {value: rank for rank, value in enumerate(values)}
    counter = cache.next_image_serial
    if not values or counter > values[-1]:
        ranks[counter] = len(values)  # the next serial handed out is the counter itself
    else:
        ranks = {value: rank for rank, value in enumerate(sorted({*values, counter}))}
    return None if all(k == v for k, v in ranks.items()) else ranks


class _Renamer:
    """Applies a renaming of names, generations and image serials to the parts of a world."""

    def __init__(self, renaming: Renaming, generation: _Numbering, serials: dict[int, int] | None) -> None:
        self.renaming = renaming
        self.nodes = dict(renaming.nodes)
        self.pods = dict(renaming.pods)
        self.generation = generation
        self.serials = serials
        self.rename_names = not renaming.is_identity

    @property
    def snapshot_key(self) -> tuple[Renaming, tuple[int, ...]]:
        """What :meth:`snapshot` depends on: two renamers with the same key rename snapshots alike."""
        return self.renaming, self.generation.values

    @property
    def keeps_representatives(self) -> bool:
        """Whether :meth:`snapshot` maps every snapshot already numbered like this cache's
        representative to an equal snapshot: no name changes and every generation kept."""
        return not self.rename_names and self.generation.values == tuple(range(0, 2 * len(self.generation.values), 2))

    def name(self, node_name: str) -> str:
        return self.nodes.get(node_name, node_name)

    def uid(self, uid: str) -> str:
        return self.pods.get(uid, uid)

    def pod(self, pod: Pod) -> Pod:
        return _rename_pod(pod, self.renaming) if self.rename_names else pod

    def node(self, node: Node | None) -> Node | None:
        if node is None or not self.rename_names:
            return node
        return _rename_node(node, self.renaming)

    def serial(self, value: int) -> int:
        return value if self.serials is None else self.serials[value]

    def node_info(self, info: NodeInfo) -> NodeInfo:
        generation = self.generation(info.generation)
        if not self.rename_names and generation == info.generation:
            return info
        return _renamed_node_info(info, self.renaming if self.rename_names else IDENTITY, generation)

    def pod_state(self, state: PodState) -> PodState:
        return _renamed_pod_state(state, self.renaming) if self.rename_names else state

    def cache(self, state: CacheState, counter: int) -> CacheState:
        names = self.rename_names
        pod_states = _renamed_pod_states(state.pod_states, self.renaming) if names else state.pod_states
        image_states, image_refs = state.image_states, state.image_refs
        if names or self.serials is not None:
            image_states = FrozenMap(
                {
                    image: ImageState(s.size, frozenset(self.name(n) for n in s.nodes), self.serial(s.serial))
                    for image, s in image_states.items()
                }
            )
            image_refs = FrozenMap(
                {
                    self.name(n): FrozenMap({i: ImageRef(self.serial(r.serial), r.size) for i, r in refs.items()})
                    for n, refs in image_refs.items()
                }
            )
        return CacheState(
            profile=state.profile,
            ttl=state.ttl,
            pod_states=pod_states,
            assumed_pods=frozenset(self.uid(k) for k in state.assumed_pods) if names else state.assumed_pods,
            nodes=self.node_infos(state.nodes),
            node_list=tuple(self.name(n) for n in state.node_list) if names else state.node_list,
            node_tree=(
                NodeTree(tuple((z, tuple(self.name(n) for n in ns)) for z, ns in state.node_tree.zones))
                if names
                else state.node_tree
            ),
            image_states=image_states,
            image_refs=image_refs,
            generation=counter,
            next_image_serial=self.serial(state.next_image_serial),
            metrics=NO_METRICS,
            pvc_ref_counts_total=state.pvc_ref_counts_total,  # claim keys name no node or pod: nothing to rename
        )

    def node_infos(self, infos: FrozenMap[str, NodeInfo]) -> FrozenMap[str, NodeInfo]:
        """A map of NodeInfos renamed (the map itself when nothing changes)."""
        return _renamed_node_infos(infos, self.renaming if self.rename_names else IDENTITY, self.generation.values)

    def snapshot(self, snapshot: Snapshot) -> Snapshot:
        names = self.rename_names

        def listed(node_names: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(self.name(n) for n in node_names) if names else node_names

        return Snapshot(
            self.node_infos(snapshot.node_info_map),
            listed(snapshot.node_info_list),
            listed(snapshot.have_pods_with_affinity_list),
            listed(snapshot.have_pods_with_required_anti_affinity_list),
            snapshot.used_pvc_set,
            self.generation(snapshot.generation),
            used_pvc_ref_counts=snapshot.used_pvc_ref_counts,
            pvc_ref_counts_consumed=snapshot.pvc_ref_counts_consumed,
        )


@lru_cache(maxsize=65536)
def _renamed_node_info(info: NodeInfo, renaming: Renaming, generation: int) -> NodeInfo:
    """``info`` renamed, with this generation: one object per value met again (a representative
    shares its NodeInfos with the others, so hashing and comparing them is cheap)."""
    if renaming.is_identity:
        return NodeInfo(
            info.node, info.pods, info.pods_with_affinity, info.pods_with_required_anti_affinity,
            info.used_ports, info.requested, info.non_zero_requested, info.allocatable, info.image_states,
            info.pvc_ref_counts, generation,
        )  # fmt: skip
    return NodeInfo(
        None if info.node is None else _rename_node(info.node, renaming),
        tuple(_rename_pod(p, renaming) for p in info.pods),
        tuple(_rename_pod(p, renaming) for p in info.pods_with_affinity),
        tuple(_rename_pod(p, renaming) for p in info.pods_with_required_anti_affinity),
        info.used_ports, info.requested, info.non_zero_requested, info.allocatable, info.image_states,
        info.pvc_ref_counts, generation,
    )  # fmt: skip


@lru_cache(maxsize=65536)
def _renamed_node_infos(
    infos: FrozenMap[str, NodeInfo], renaming: Renaming, generations: tuple[int, ...]
) -> FrozenMap[str, NodeInfo]:
    """``infos`` with names and NodeInfos renamed, generations numbered by :class:`_Numbering`
    over ``generations``: one object per value met again (the map itself if nothing changes)."""
    numbering = _Numbering(generations, None)
    nodes = renaming.nodes
    renamed = {}
    same = True
    for name, info in infos.items():
        generation = numbering(info.generation)
        if generation != info.generation or not renaming.is_identity:
            info = _renamed_node_info(info, renaming, generation)
            same = False
        renamed[nodes.get(name, name)] = info
    return infos if same else FrozenMap(renamed)


@lru_cache(maxsize=65536)
def _renamed_pod_states(pod_states: FrozenMap[str, PodState], renaming: Renaming) -> FrozenMap[str, PodState]:
    """``pod_states`` renamed: one object per value met again."""
    pods = renaming.pods
    return FrozenMap({pods.get(uid, uid): _renamed_pod_state(state, renaming) for uid, state in pod_states.items()})


@lru_cache(maxsize=65536)
def _renamed_pod_state(state: PodState, renaming: Renaming) -> PodState:
    return PodState(_rename_pod(state.pod, renaming), state.deadline, state.binding_finished)


Renamer = _Renamer
"""The public name of a renamer: :meth:`Canonicalizer.cache` returns one."""


def symmetry_renaming(cache: CacheState, pod_uids: tuple[str, ...], node_names: tuple[str, ...]) -> Renaming:
    """The renaming to canonical names: nodes in most-recently-updated order, then pods by place."""
    listed = [n for n in cache.node_list if n in node_names]
    ordered_nodes = listed + [n for n in node_names if n not in listed]
    nodes = {old: new for old, new in zip(ordered_nodes, node_names, strict=True)}
    node_rank = {old: i for i, old in enumerate(ordered_nodes)}

    def pod_key(uid: str) -> tuple[int, int, int, str]:
        current = cache.pod_states.get(uid)
        if current is None:
            return (1, 0, 0, uid)
        name = current.pod.node_name
        info = cache.nodes.get(name)
        position = next((i for i, p in enumerate(info.pods) if p.uid == uid), len(pod_uids)) if info else len(pod_uids)
        return (0, node_rank.get(name, len(node_names)), position, uid)

    ordered_pods = sorted(pod_uids, key=pod_key)
    key = (tuple(ordered_pods), tuple(ordered_nodes), pod_uids, node_names)
    known = _RENAMINGS.get(key)
    if known is None:
        pods = {old: new for old, new in zip(ordered_pods, pod_uids, strict=True)}
        known = _RENAMINGS[key] = Renaming(FrozenMap(pods), FrozenMap(nodes))
    return known


_RENAMINGS: dict[tuple[tuple[str, ...], ...], Renaming] = {}
"""One :class:`Renaming` object per value :func:`symmetry_renaming` returns (a universe has at most pods! x nodes!
of them), so its hash is computed once and the memos keyed by it compare it by identity."""


class Canonicalizer:
    """Computes representatives, remembering them per cache and snapshot object (by identity:
    the model checker hands the same objects around many times)."""

    def __init__(
        self,
        symmetry: tuple[tuple[str, ...], tuple[str, ...]] | None = None,
        interned: dict[CacheState, CacheState] | None = None,
    ) -> None:
        """``symmetry`` is (pod UIDs, node names) of a symmetric universe, or None for no renaming.
        ``interned``, if given, holds one object per representative's value: a representative computed
        is replaced by the one object with its value before it is remembered, so a cache found again
        by value yields that object, which later lookups find by identity instead of comparing the
        two trees field by field (the value, and so every result, is the same)."""
        self.symmetry = symmetry
        self._interned = interned
        self._caches: dict[int, tuple[CacheState, CacheState, _Renamer]] = {}
        self._cache_values: dict[CacheState, tuple[CacheState, _Renamer]] = {}
        self._snapshots: dict[tuple[int, Renaming, tuple[int, ...]], tuple[Snapshot, Snapshot]] = {}

    def world(self, world: World) -> tuple[World, Renaming]:
        """The representative of ``world`` and the renaming of names that produced it."""
        cache_rep, renamer = self._cache(world.cache)
        key = (id(world.snapshot), renamer.renaming, renamer.generation.values)
        known = self._snapshots.get(key)
        if known is not None and known[0] is world.snapshot:
            snapshot_rep = known[1]
        else:
            snapshot_rep = renamer.snapshot(world.snapshot)
            if len(self._snapshots) >= MEMO_LIMIT:
                self._snapshots.clear()
            self._snapshots[key] = (world.snapshot, snapshot_rep)
        return World(cache_rep, snapshot_rep), renamer.renaming

    def cache(self, cache: CacheState, *, remember: bool = True) -> tuple[CacheState, Renamer]:
        """The representative of ``cache`` and the renamer that produced it (apply it to a snapshot
        of the same world with :meth:`Renamer.snapshot`). ``remember=False`` remembers it by value
        only, not by object (for a caller that asks once per cache object)."""
        return self._cache(cache, remember)

    def _cache(self, cache: CacheState, remember: bool = True) -> tuple[CacheState, _Renamer]:
        known = self._caches.get(id(cache))
        if known is not None and known[0] is cache:
            return known[1], known[2]
        by_value = self._cache_values.get(cache)  # another object with this value (its hash is remembered)
        if by_value is not None:
            rep, renamer = by_value
        else:
            renaming = IDENTITY if self.symmetry is None else symmetry_renaming(cache, *self.symmetry)
            numbering, counter = _numbering(cache)
            renamer = _Renamer(renaming, numbering, _serial_ranks(cache))
            rep = renamer.cache(cache, counter)
            if self._interned is not None:
                rep = self._interned.setdefault(rep, rep)
        if len(self._caches) >= MEMO_LIMIT or len(self._cache_values) >= MEMO_LIMIT:
            self._caches.clear()
            self._snapshots.clear()
            self._cache_values.clear()
        if remember:
            self._caches[id(cache)] = (cache, rep, renamer)
        self._cache_values[cache] = (rep, renamer)
        return rep, renamer


class Representatives:
    """Canonical caches and snapshots, each value one object with its fingerprint remembered.

    The model checker meets the same few caches and snapshots in many states. Here a cache's
    representative is interned by value (so its fingerprint and its hash are computed once), the
    renamer that produced it gets a number (renamers that rename snapshots alike share it), and a
    snapshot's representative under a renamer is computed once per (renamer, snapshot).
    """

    def __init__(self, symmetry: tuple[tuple[str, ...], tuple[str, ...]] | None = None) -> None:
        self._caches: dict[CacheState, CacheState] = {}
        self.canonicalizer = Canonicalizer(symmetry, self._caches)
        self._renamers: dict[tuple[Renaming, tuple[int, ...]], int] = {}
        self.renamers: list[Renamer] = []
        """Renamers by number."""
        self._renamed: dict[int, dict[int, tuple[int, Snapshot]]] = {}
        """Snapshot fingerprint -> renamer number -> the renamed snapshot's fingerprint and representative."""
        self._snapshot_values: dict[Snapshot, tuple[int, Snapshot]] = {}

    def cache(self, cache: CacheState, *, remember: bool = True) -> tuple[CacheState, int]:
        """The representative of ``cache`` (one object per value) and its renamer's number
        (``remember``: as :meth:`Canonicalizer.cache`)."""
        rep, renamer = self.canonicalizer.cache(cache, remember=remember)
        rep = self._caches.setdefault(rep, rep)
        key = renamer.snapshot_key
        number = self._renamers.get(key)
        if number is None:
            number = self._renamers[key] = len(self.renamers)
            self.renamers.append(renamer)
        return rep, number

    def snapshot_fingerprint(self, snapshot: Snapshot) -> tuple[int, Snapshot]:
        """The fingerprint of ``snapshot`` and the one object with its value (hashing a snapshot
        found again is cheaper than fingerprinting it)."""
        known = self._snapshot_values.get(snapshot)
        if known is None:
            if len(self._snapshot_values) >= MEMO_LIMIT:
                self._snapshot_values.clear()
            known = self._snapshot_values[snapshot] = (fingerprint(snapshot), snapshot)
        return known

    def _row(self, snapshot_fp: int) -> dict[int, tuple[int, Snapshot]]:
        row = self._renamed.get(snapshot_fp)
        if row is None:
            if len(self._renamed) >= MEMO_LIMIT:
                self._renamed.clear()
            row = self._renamed[snapshot_fp] = {}
        return row

    def snapshot(self, renamer: int, snapshot: Snapshot, snapshot_fp: int | None = None) -> tuple[int, Snapshot]:
        """The fingerprint and the representative of ``snapshot`` renamed by renamer number ``renamer``."""
        row = self._row(self.snapshot_fingerprint(snapshot)[0] if snapshot_fp is None else snapshot_fp)
        known = row.get(renamer)
        if known is None:
            known = row[renamer] = self.snapshot_fingerprint(self.renamers[renamer].snapshot(snapshot))
        return known

    def renamed(self, snapshot: Snapshot, renamers: tuple[int, ...]) -> list[tuple[int, Snapshot]]:
        """:meth:`snapshot` for each of ``renamers``, in order."""
        row = self._row(fingerprint(snapshot))
        found = []
        for renamer in renamers:
            known = row.get(renamer)
            if known is None:
                known = row[renamer] = self.snapshot_fingerprint(self.renamers[renamer].snapshot(snapshot))
            found.append(known)
        return found

    def remember_snapshot(self, renamer: int, snapshot_fp: int, rep: tuple[int, Snapshot]) -> tuple[int, Snapshot]:
        """Record that renamer number ``renamer`` maps the snapshot with this fingerprint to ``rep``."""
        return self._row(snapshot_fp).setdefault(renamer, rep)


def canonical_world(
    world: World, symmetry: tuple[tuple[str, ...], tuple[str, ...]] | None = None
) -> tuple[World, Renaming]:
    """The representative of ``world`` (without memoisation)."""
    return Canonicalizer(symmetry).world(world)


def rename_operation(op: Operation, renaming: Renaming) -> Operation:
    """``op`` with its pod and node objects renamed."""

    def pod(p: Pod) -> Pod:
        return _rename_pod(p, renaming)

    def node(n: Node) -> Node:
        return _rename_node(n, renaming)

    match op:
        case AssumePod(p):
            return AssumePod(pod(p))
        case AddPod(p):
            return AddPod(pod(p))
        case ForgetPod(p):
            return ForgetPod(pod(p))
        case RemovePod(p):
            return RemovePod(pod(p))
        case FinishBinding(p, now):
            return FinishBinding(pod(p), now)
        case UpdatePod(old, new):
            return UpdatePod(pod(old), pod(new))
        case AddNode(n):
            return AddNode(node(n))
        case RemoveNode(n):
            return RemoveNode(node(n))
        case UpdateNode(old_node, new_node):
            return UpdateNode(None if old_node is None else node(old_node), node(new_node))
    return op
