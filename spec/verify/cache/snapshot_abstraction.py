"""The snapshot relative to the cache: entries no future step reads in full, summarised (``ksspec check``'s default).

A world is a cache and its snapshot, and the snapshot multiplies the cache's states: on the default universe
27,176 worlds hold 610 distinct caches. Most of that multiplicity is in snapshot entries that nothing reads again
before they are overwritten or deleted. The only step that reads the snapshot is ``UpdateSnapshot``
(:func:`spec.cache.snapshot.update_snapshot`; every cache operation leaves it alone, which the checker checks as it
runs, and every state invariant reads the cache alone), and of an entry ``m[n]`` it reads:

1. in its walk over the cache's nodes (most recently updated first, while a NodeInfo's generation is above the
   snapshot's), for a *live* NodeInfo ``n``: whether ``m[n]`` exists, whether it has pods with affinity, with
   required anti-affinity, and its PVC keys; then it overwrites ``m[n]`` with a clone of the cache's NodeInfo;
2. in ``removeDeletedNodesFromSnapshot``: the map's names only (and the cache), deleting names whose NodeInfo is
   gone or has no node;
3. in rebuilding the lists, and in every property checked on the result: the entries left in the result.

So this module replaces, in a world, every entry that is *not current* by a *summary* that keeps exactly what (1)
reads: an entry is not current when the cache has no NodeInfo of its name (*gone*), when that NodeInfo has no node
(*ghost*), or when the walk will reach it and re-clone it (*stale*: live, reached, and the entry's generation below
the NodeInfo's, so the clone differs from it). A summary is a NodeInfo with generation ``-1`` (no real NodeInfo has
one: generations start at 0 and only grow), no node and no pods, a marker pod in each affinity list that the entry
had non-empty, and the entry's PVC keys. Two worlds with the same cache whose snapshots differ only inside such
entries become one state. ``ksspec check`` does this for the cache system in contract mode unless given
``--no-abstract-snapshots``.

**Why it is sound (checked as it runs).** Let ``w`` be a world and ``a`` its abstraction. (i) Every state property
and every cache operation's step properties read the cache alone, which ``a`` keeps. (ii) ``UpdateSnapshot`` on
``a`` reads of each summary only what it keeps, so while no summary is left in its result, its result on ``a`` is
its result on ``w`` (each summary was overwritten in the walk or deleted by name), and so are the properties
checked on that result. If a summary *is* left in the result, the abstraction was not exact on this path: the
checker stops with :class:`SnapshotAbstractionInexact` (never a wrong verdict), and the run must be repeated with
the abstraction off. (iii) The one other thing an ``UpdateSnapshot`` outcome carries is whether an error changed the
snapshot; on ``a`` it is always "changed" when ``a`` holds a summary (the result holds none), and on ``w`` it is too
unless a summarised entry was re-cloned equal to itself, which needs a NodeInfo generation that did not grow (a
violation of ``trans_generations_only_grow``, reported on its own); the abstraction can then add a
``no_change_on_error_under_contract`` report beside the ``snapshot_consistent_under_contract`` one every such error
raises, never hide one, and the replay of the trace on the concrete spec (which every counterexample goes through)
says "NOT reproduced" for it. (iv) A cache operation keeps ``a``'s summaries as they are; the image of ``w``'s
successor re-summarises relative to the new cache. The two agree unless an entry summarised before becomes current
after (a live NodeInfo the walk will not reach, or one reached with a generation not above the entry's): the
abstract world then holds a summary where the concrete one holds an entry that ``UpdateSnapshot`` will not
overwrite, and the next ``UpdateSnapshot`` (always enabled, so explored from that world) leaves it in its result and
stops the run as in (ii). Under the informer contract the spec's operations do not do that (a NodeInfo that becomes
live again gets a fresh generation, above the snapshot's): no contract-mode run of the project's universes stops so.
Adversarial streams can (one recorded adversarial run stops), so ``ksspec check`` abstracts in contract mode only.

**The snapshot's generation, rounded (v).** The abstraction also replaces the snapshot's generation ``g0`` by the
newest cache generation at or below it (0 if there is none; the symmetry reduction's numbering already keeps only
the order of generations, and gives a ``g0`` that is no cache generation an odd number between two cache ones). It
is sound because ``g0`` is read only by ``UpdateSnapshot``'s walk, as ``item.generation <= g0`` for a NodeInfo of
the cache, and as the result's generation when the cache has no NodeInfo at all (then the result keeps ``g0``,
and is abstracted again the same way; :func:`~spec.cache.invariants.inv_snapshot_matches_cache` then compares the
generation with itself); no cache operation and no state property reads it. Let ``r`` be the rounded value. Every
NodeInfo generation of this cache is at or below ``g0`` exactly when it is at or below ``r`` (none lies in
``(r, g0]``), and every generation a later operation gives is fresh, above the counter, which is at or above
``g0`` (the snapshot took ``g0`` from a NodeInfo, and the counter only grows): so every walk from this world, after
any cache operations, reads the same comparisons with ``r`` as with ``g0``, and stops at the same place. The one
other thing that can tell them apart is an error's "changed the snapshot" flag: an ``UpdateSnapshot`` that fails
with ``SnapshotInconsistent`` sets the generation before failing, so on ``w`` it may count as changed where on
``a`` it does not; such an edge always reports ``snapshot_consistent_under_contract`` (as in (iii)), so a run still
reports a violation there, only perhaps without the ``no_change_on_error_under_contract`` beside it. On the default
universe this merges 7,112 abstract worlds into 5,197.

So the abstract search visits exactly the abstractions of the concrete reachable worlds, with the same properties
violated (``tests/verify/test_snapshot_abstraction.py`` compares them, including on broken transitions), unless it
stops with :class:`SnapshotAbstractionInexact`. Distinct states then count *abstract* worlds: fewer than without it;
transitions, coverage and violations are counted over those states.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from spec.cache.cache import CacheState
from spec.cache.nodeinfo import NodeInfo
from spec.cache.snapshot import Snapshot
from spec.frozenmap import FrozenMap
from spec.objects import Pod
from spec.valuetypes import replace

SUMMARY_GENERATION: Final = -1
"""The generation of a summary entry; no real NodeInfo has it."""
MARKER: Final = Pod("\0summary", "\0summary")
"""The pod a summary lists in an affinity list the entry had non-empty (no universe has this UID)."""

CacheView = tuple[tuple[str, int, bool], ...]
"""What the abstraction reads of a cache: (name, generation, live) of each NodeInfo, most recently updated first."""


class SnapshotAbstractionInexact(RuntimeError):
    """A summary survived an ``UpdateSnapshot``: the abstraction is not exact on this path (rerun without it)."""


def cache_view(cache: CacheState) -> CacheView:
    """The cache's NodeInfos as :func:`abstract_snapshot` reads them: ``node_list`` order, then any NodeInfo not in
    it (none in a well-formed cache) by name."""
    listed = tuple((name, cache.nodes[name].generation, cache.nodes[name].node is not None) for name in cache.node_list)
    if len(listed) == len(cache.nodes):
        return listed
    rest = sorted(name for name in cache.nodes if name not in set(cache.node_list))
    return listed + tuple((name, cache.nodes[name].generation, cache.nodes[name].node is not None) for name in rest)


def is_summary(info: NodeInfo) -> bool:
    """Whether ``info`` is a summary entry."""
    return info.generation == SUMMARY_GENERATION


def has_summaries(snapshot: Snapshot) -> bool:
    """Whether any entry of ``snapshot`` is a summary."""
    return any(info.generation == SUMMARY_GENERATION for info in snapshot.node_info_map.values())


@lru_cache(maxsize=1024)
def _summary(affinity: bool, anti_affinity: bool, claims: frozenset[str]) -> NodeInfo:
    return NodeInfo(
        pods_with_affinity=(MARKER,) if affinity else (),
        pods_with_required_anti_affinity=(MARKER,) if anti_affinity else (),
        pvc_ref_counts=FrozenMap(dict.fromkeys(sorted(claims), 1)),
        generation=SUMMARY_GENERATION,
    )


def summarise(info: NodeInfo) -> NodeInfo:
    """The summary of an entry: what ``update_snapshot``'s walk reads of an entry it overwrites, nothing else."""
    if info.generation == SUMMARY_GENERATION:
        return info
    return _summary(bool(info.pods_with_affinity), bool(info.pods_with_required_anti_affinity),
                    frozenset(info.pvc_ref_counts))


def abstract_snapshot(view: CacheView, snapshot: Snapshot) -> Snapshot:
    """``snapshot`` with every entry that is not current relative to the cache ``view`` summarised (the module
    docstring says which) and its generation rounded down to a cache generation ((v)); ``snapshot`` itself when
    neither changes anything."""
    entries = snapshot.node_info_map
    g0 = snapshot.generation
    rounded = _rounded_generation(view, g0)
    if not entries:
        return snapshot if rounded == g0 else replace(snapshot, generation=rounded)
    status: dict[str, tuple[int, bool, bool]] = {}
    """name -> (generation, live, reached by the walk)."""
    walking = True
    for name, generation, live in view:
        if walking and generation <= g0:
            walking = False
        status[name] = (generation, live, walking)
    changed: dict[str, NodeInfo] | None = None
    for name, info in entries.items():
        if info.generation == SUMMARY_GENERATION:
            continue
        known = status.get(name)
        if known is not None:
            generation, live, reached = known
            if live and not (reached and info.generation < generation):
                continue  # current: the walk will not overwrite it
        if changed is None:
            changed = dict(entries)
        changed[name] = summarise(info)
    if changed is None:
        return snapshot if rounded == g0 else replace(snapshot, generation=rounded)
    return replace(snapshot, node_info_map=FrozenMap(changed), generation=rounded)


def _rounded_generation(view: CacheView, g0: int) -> int:
    """The snapshot generation ``g0`` rounded down to the newest cache generation at or below it (0 if none is): the
    same cache generations are at or below both, and every later generation is above both (module docstring, (v))."""
    rounded = 0 if g0 >= 0 else g0
    for _, generation, _ in view:
        if rounded < generation <= g0:
            rounded = generation
    return rounded
