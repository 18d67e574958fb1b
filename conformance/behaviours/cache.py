"""Observed behaviours of a cache-area step: the transition the spec took, and what it did to NodeInfos.

:func:`cache_step_behaviours` looks at the operation, its outcome, and the spec's world before and after it. The
transition tags follow the preconditions of :mod:`spec.cache.cache` in the order Kubernetes checks them; the accounting,
node-tree, image and snapshot tags come from :mod:`conformance.behaviours.pods`, ``nodes`` and ``snapshot``.
"""

from __future__ import annotations

from typing import Any

from conformance.behaviours.nodes import image_behaviours, label_behaviours, tree_behaviours
from conformance.behaviours.pods import accounting_behaviours
from conformance.behaviours.snapshot import snapshot_behaviours
from conformance.observe import NOTHING_RETURNED
from conformance.operations import UpdateMetrics
from spec.cache.cache import CacheState, PodState
from spec.cache.nodetree import get_zone_key
from spec.cache.operations import (
    AddNode,
    AddPod,
    AssumePod,
    CleanupAssumedPods,
    FinishBinding,
    ForgetPod,
    Operation,
    Outcome,
    RemoveNode,
    RemovePod,
    Status,
    UpdateNode,
    UpdatePod,
    UpdateSnapshot,
    World,
)
from spec.errors import ErrorKind, FatalKind
from spec.resources import EMPTY_RESOURCE


def cache_step_behaviours(
    before: World, op: Operation | UpdateMetrics, after: World, outcome: Outcome, returned: Any
) -> set[str]:
    """Every behaviour of the inventory that the step ``op`` (from ``before`` to ``after``) exercised."""
    b, a = before.cache, after.cache
    if outcome.kind == ErrorKind.INVALID_POD_KEY and not outcome.changed:
        return {"cache.pod_key.invalid"}
    tags = accounting_behaviours(b, a) | _generic(b, a, outcome)
    match op:
        case UpdateSnapshot():
            tags |= snapshot_behaviours(b, before.snapshot, after.snapshot, outcome)
        case UpdateMetrics():
            tags |= _metrics(a, "cache.metrics.update_metrics")
        case AssumePod(pod):
            tags |= _assume(b, pod.uid, outcome)
        case FinishBinding(pod, _):
            tags |= _finish_binding(b, pod.uid, outcome)
        case ForgetPod(pod):
            tags |= _forget(b, pod.uid, outcome)
        case AddPod(pod):
            tags |= _add(b, pod.uid, pod.node_name, outcome)
        case UpdatePod(old, new):
            tags |= _update(b, old, new, outcome)
        case RemovePod(pod):
            tags |= _remove(b, pod, outcome)
        case AddNode(node):
            tags |= _add_node(b, a, node, outcome, returned)
        case UpdateNode(old_node, new_node):
            tags |= _update_node(b, a, old_node, new_node, outcome, returned)
        case RemoveNode(node):
            tags |= _remove_node(b, a, node, outcome)
        case CleanupAssumedPods(now):
            tags |= _cleanup(b, a, now, outcome)
    return tags


def _generic(b: CacheState, a: CacheState, outcome: Outcome) -> set[str]:
    """What any step may do to the NodeInfos: create placeholders, delete empty ones, reorder pods and recency."""
    tags: set[str] = set()
    if outcome.status is Status.ERROR and outcome.changed and a != b:
        tags.add("cache.error_after_change")
    if a.nodes is not b.nodes:  # else (most steps exploration tries) no NodeInfo came, went or changed
        for name, info in a.nodes.items():
            if name not in b.nodes and info.node is None:
                tags.add("cache.node_info.placeholder_created")
        for name, info in b.nodes.items():
            if name not in a.nodes and info.pods:
                tags.add("cache.node_info.deleted_when_empty")
            elif name in a.nodes and a.nodes[name] is not info and _relative_order_changed(
                    [p.uid for p in info.pods], [p.uid for p in a.nodes[name].pods]):
                tags.add("cache.node_info.remove_from_slice")
    if a.node_list is not b.node_list and _relative_order_changed(list(b.node_list), list(a.node_list)):
        tags.add("cache.recency.reordered")
    return tags


def _relative_order_changed(before: list[str], after: list[str]) -> bool:
    """Whether two names present in both lists appear in another order."""
    common = set(before) & set(after)
    return [n for n in before if n in common] != [n for n in after if n in common]


def _state(b: CacheState, uid: str) -> PodState | None:
    return b.pod_states.get(uid)


def _assume(b: CacheState, uid: str, outcome: Outcome) -> set[str]:
    if outcome.kind == ErrorKind.POD_ALREADY_IN_CACHE:
        return {"cache.assume.already_assumed" if uid in b.assumed_pods else "cache.assume.already_added"}
    return {"cache.assume.ok"} if outcome.status is Status.OK else set()


def _finish_binding(b: CacheState, uid: str, outcome: Outcome) -> set[str]:
    if outcome.kind == ErrorKind.UNSUPPORTED_OPERATION:
        return {"cache.finish_binding.unsupported"}
    current = _state(b, uid)
    if current is None or uid not in b.assumed_pods:
        return {"cache.finish_binding.ignored"}
    return {"cache.finish_binding.restarts_clock" if current.binding_finished else "cache.finish_binding.starts_clock"}


def _forget(b: CacheState, uid: str, outcome: Outcome) -> set[str]:
    known = uid in b.pod_states
    if outcome.kind == ErrorKind.POD_NOT_ASSUMED:
        return {"cache.forget.not_assumed" if known else "cache.forget.unknown_error"}
    if outcome.kind == ErrorKind.POD_ASSUMED_ON_OTHER_NODE:
        return {"cache.forget.other_node"}
    return {"cache.forget.ok" if known else "cache.forget.unknown_no_op"}


def _add(b: CacheState, uid: str, node: str, outcome: Outcome) -> set[str]:
    if outcome.kind == ErrorKind.POD_ALREADY_ADDED:
        return {"cache.add.already_added"}
    current = _state(b, uid)
    if current is None:
        return {"cache.add.new"}
    return {"cache.add.confirm_same_node" if current.pod.node_name == node else "cache.add.confirm_other_node"}


def _update(b: CacheState, old: Any, new: Any, outcome: Outcome) -> set[str]:
    by_kind = {ErrorKind.POD_NOT_ADDED: "cache.update.not_added", ErrorKind.ASSUMED_POD_UPDATE: "cache.update.assumed",
               ErrorKind.POD_NOT_IN_NODE_INFO: "cache.update.old_not_in_node_info",
               ErrorKind.INVALID_POD_KEY: "cache.update.empty_uid_after_change",
               FatalKind.POD_UPDATED_ON_OTHER_NODE: "cache.update.other_node_fatal",
               FatalKind.NIL_NODE_DEREFERENCE: "cache.update.nil_node_fatal"}
    kinds = {str(kind): tag for kind, tag in by_kind.items()}
    if outcome.kind in kinds:
        return {kinds[outcome.kind]}
    tags = {"cache.update.ok"}
    current = _state(b, old.uid)
    if current is not None and current.pod != old:
        tags.add("cache.update.stale_old")
    if old.node_name not in b.nodes:
        tags.add("cache.update.old_node_missing")
    if current is not None and _affinity(old) != _affinity(current.pod):
        tags.add("affinity.pruned_by_argument")
    return tags


def _affinity(pod: Any) -> tuple[bool, bool]:
    anti = pod.pod_anti_affinity
    return (pod.pod_affinity is not None or anti is not None, anti is not None and anti.required > 0)


def _remove(b: CacheState, pod: Any, outcome: Outcome) -> set[str]:
    if outcome.kind == ErrorKind.POD_NOT_FOUND_FOR_REMOVAL:
        return {"cache.remove.not_found"}
    if outcome.kind == FatalKind.POD_REMOVED_FROM_OTHER_NODE:
        return {"cache.remove.other_node_fatal"}
    tags = {"cache.remove.assumed" if pod.uid in b.assumed_pods else "cache.remove.added"}
    if pod.node_name == "":
        tags.add("cache.remove.stale_empty_node_name")
    return tags


def _returned(returned: Any) -> set[str]:
    return {"cache.returned.nothing" if returned == NOTHING_RETURNED else "cache.returned.node_info"}


def _node_kind(b: CacheState, name: str) -> str:
    info = b.nodes.get(name)
    if info is None:
        return "absent"
    if info.node is not None:
        return "live"
    return "placeholder" if info.allocatable == EMPTY_RESOURCE else "ghost"


def _add_node(b: CacheState, a: CacheState, node: Any, outcome: Outcome, returned: Any) -> set[str]:
    kind = _node_kind(b, node.name)
    tags = {{"absent": "cache.add_node.new", "placeholder": "cache.add_node.placeholder_filled",
             "ghost": "cache.add_node.ghost_revived", "live": "cache.add_node.live_again"}[kind]}
    tags |= _returned(returned) | label_behaviours(node) | tree_behaviours(b, a, node)
    zone = get_zone_key(node)
    if node.name in dict(b.node_tree.zones).get(zone, ()):
        tags.add("node_tree.add_existing_ignored")
    tags |= image_behaviours(b, a, node, b.nodes[node.name].node if kind != "absent" else None)
    tags |= _allocatable(node)
    return tags


def _allocatable(node: Any) -> set[str]:
    from conformance.behaviours.pods import resource_name_behaviours

    tags = {"resources.allocatable"}
    if resource_name_behaviours(node.allocatable) - {"resources.ephemeral_storage", "resources.invalid_name_ignored"}:
        tags.add("resources.allocatable.scalars")
    return tags


def _update_node(b: CacheState, a: CacheState, old: Any, new: Any, outcome: Outcome, returned: Any) -> set[str]:
    if outcome.kind == FatalKind.NIL_NODE_DEREFERENCE:
        return {"node_tree.update_nil_old_fatal", "cache.update_node.nil_old"}
    kind = _node_kind(b, new.name)
    tags = {"cache.update_node.unknown_created" if kind == "absent" else "cache.update_node.ok"}
    if kind in ("placeholder", "ghost"):
        tags.add("cache.update_node.non_live_revived")
    cached = b.nodes[new.name].node if kind != "absent" else None
    if old is None:
        tags.add("cache.update_node.nil_old")
    elif cached is not None and old != cached:
        tags.add("cache.update_node.stale_old")
    if kind != "absent" and b.nodes[new.name].allocatable != a.nodes[new.name].allocatable:
        tags.add("cache.update_node.allocatable_changed")
    tags |= _returned(returned) | label_behaviours(new) | tree_behaviours(b, a, new, old)
    old_zone = get_zone_key(old) if old is not None else ""
    if old_zone != get_zone_key(new):
        tags.add("node_tree.zone_change_moves")
        if old is not None and old.name not in dict(b.node_tree.zones).get(old_zone, ()):
            tags.add("node_tree.update_old_zone_missing")
    elif kind != "absent":
        tags.add("node_tree.zone_unchanged")
    if old is not None:
        tags |= label_behaviours(old)
    tags |= image_behaviours(b, a, new, cached) | _allocatable(new)
    return tags


def _remove_node(b: CacheState, a: CacheState, node: Any, outcome: Outcome) -> set[str]:
    if outcome.kind == ErrorKind.NODE_NOT_FOUND:
        return {"cache.remove_node.not_found"}
    tags = label_behaviours(node)
    cached = b.nodes[node.name].node
    if cached is not None and cached != node:
        tags.add("cache.remove_node.stale_object")
    if outcome.kind == ErrorKind.NODE_NOT_IN_TREE:
        tags.add("cache.remove_node.not_in_tree")
    else:
        tags.add("node_tree.name_removed")
    tags.add("cache.remove_node.ghost_kept" if node.name in a.nodes else "cache.remove_node.deleted")
    tags |= tree_behaviours(b, a, node) - {"node_tree.zone_created", "node_tree.name_appended"}
    tags |= image_behaviours(b, a, node, cached) - {"images.summary_created", "images.size_first_reported"}
    return tags


def _metrics(a: CacheState, publisher: str) -> set[str]:
    tags = {publisher}
    if a.metrics.nodes > sum(1 for info in a.nodes.values() if info.node is not None):
        tags.add("cache.metrics.counts_non_live")
    if a.metrics.assumed_pods:
        tags.add("cache.metrics.counts_assumed")
    return tags


def _cleanup(b: CacheState, a: CacheState, now: int, outcome: Outcome) -> set[str]:
    if outcome.kind == ErrorKind.UNSUPPORTED_OPERATION:
        return {"cache.expiry.unsupported"}
    tags = _metrics(a, "cache.metrics.cleanup_publishes")
    for uid in b.assumed_pods:
        current = b.pod_states[uid]
        if uid not in a.pod_states:
            tags.add("cache.expiry.expired")
        elif not current.binding_finished:
            tags.add("cache.expiry.not_finished_kept")
        elif b.ttl == 0 or current.deadline is None:
            tags.add("cache.expiry.ttl_zero_kept")
        elif now == current.deadline:
            tags.add("cache.expiry.at_deadline_kept")
        else:
            tags.add("cache.expiry.before_deadline_kept")
    return tags
