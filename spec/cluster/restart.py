"""The scheduler process's lifetime: a crash loses its memory, a restart rebuilds it from the API server.

The kube-scheduler keeps its cache, its scheduling queue and its binding cycles only in memory. Kubernetes' answer
to a crash is its level-triggered design: the state that matters is the API server's, and a new process rebuilds
everything else from it (pkg/scheduler/scheduler.go, eventhandlers.go and cmd/kube-scheduler/app/server.go, v1.35):

- **Crash** (:func:`crash_scheduler`): the cache (assumed pods included), the snapshot, the queue, the binding
  cycles and the informers' undelivered events are gone (``crashed_in_flight`` remembers which pods were in a
  binding cycle, for :func:`spec.cluster.invariants.inv_crash_in_flight_pods_resolved`). A binding cycle that
  had sent its bind request leaves that request behind: the API server may still apply it
  (:func:`land_orphaned_bind`) or it may never arrive (:func:`drop_orphaned_bind`). The model keeps every
  in-flight binding cycle as such a request, which covers the cycles that had not sent one yet (they are
  requests that never arrive).
- **Restart** (:func:`restart_scheduler`): a new process with an empty cache starts its informers. Each lists
  the API server's objects (nodes; pods that are not terminal: ``newPodInformer``'s field selector) and delivers
  them to the handlers one by one, in list order, the two informers independently (:func:`list_node`,
  :func:`list_pod`): ``addNodeToCache`` for a node, ``addPod`` for a pod, which puts an assigned pod in the cache
  (``addAssignedPodToCache``) and an unassigned one the scheduler is responsible for in the queue. The
  scheduling loop waits until every listed object was delivered (``WaitForCacheSync``,
  ``WaitForHandlersSync``): :func:`spec.cycle.cycle.is_synced`.

  Namespaces are kept: they are the API server's objects (:attr:`spec.cycle.cycle.Cluster.namespaces`), not
  the scheduler's memory, and the new process's namespace informer (InterPodAffinity's lister,
  ``GetNamespaceLabelsSnapshot`` in pkg/scheduler/framework/plugins/interpodaffinity/plugin.go) lists them before
  the first cycle (``WaitForCacheSync``); no handler acts on them, so their list has no delivery steps here.

  A listed object whose entry is not delivered yet is delivered as it then is: the reflector's list is followed
  by the watch events since, and delivering the object's later state has the same effect on the handlers as
  delivering each of those events. Objects created after the restart arrive as watch events, at once.

What is abstracted: leader election (a restart is the moment a process starts acting; whether it is the same
pod or a standby that wins the lease does not matter to the state), the queue's order, and resync.
"""

from __future__ import annotations

from dataclasses import replace

from spec.cache import cache as cache_ops
from spec.cache.cache import new_cache
from spec.cache.snapshot import EMPTY_SNAPSHOT
from spec.cycle.cycle import Cluster, CycleNotEnabled, api_bind, responsible_for_pod, watches_pod
from spec.frozenmap import FrozenMap
from spec.queue.nominator import EMPTY_NOMINATOR


def _require(condition: bool, why: str) -> None:
    if not condition:
        raise CycleNotEnabled(why)


def crash_scheduler(cluster: Cluster) -> Cluster:
    """The scheduler process dies: every in-memory structure is lost; each binding cycle in flight leaves an
    orphaned bind request (:func:`land_orphaned_bind`, :func:`drop_orphaned_bind`). Enabled while it runs.

    Kubernetes: the process exits (e.g. ``klog.FlushAndExit`` in `runCommand`'s ``OnStoppedLeading``,
    cmd/kube-scheduler/app/server.go); nothing of `Scheduler` survives it
    """
    _require(cluster.running, "the scheduler is not running")
    return replace(
        cluster,
        cache=new_cache(cluster.cache.profile, cluster.cache.ttl),
        snapshot=EMPTY_SNAPSHOT,
        pending=FrozenMap(),
        binding=FrozenMap(),
        unconfirmed=frozenset(),
        running=False,
        unlisted_nodes=(),
        unlisted_pods=(),
        orphaned=FrozenMap({**dict(cluster.orphaned.items()), **dict(cluster.binding.items())}),
        crashed_in_flight=cluster.crashed_in_flight | frozenset(cluster.binding),
        next_start_node_index=0,
        nominator=EMPTY_NOMINATOR,
    )


def pod_list_order(cluster: Cluster) -> tuple[str, ...]:
    """The UIDs of the pods the scheduler's pod informer lists and its handlers act on, in list order: the
    API server's non-terminal pods (``status.phase!=Failed,Succeeded``) by key (namespace/name), less the
    unassigned pods of other schedulers (``addPod`` ignores them).

    Kubernetes: `newPodInformer` (pkg/scheduler/scheduler.go)
    """
    visible = [p for p in cluster.api_pods.values() if p.node_name or responsible_for_pod(cluster, p)]
    return tuple(p.uid for p in sorted(visible, key=lambda p: (p.namespace, p.name, p.uid)))


def restart_scheduler(cluster: Cluster) -> Cluster:
    """A new scheduler process starts with an empty cache, queue and snapshot; its informers list the API
    server's nodes (by name) and pods (:func:`pod_list_order`), to be delivered by :func:`list_node` and
    :func:`list_pod`. Enabled while the scheduler is down.

    Kubernetes: `runCommand` (cmd/kube-scheduler/app/server.go): ``InformerFactory.Start``,
    ``WaitForCacheSync``, ``WaitForHandlersSync``, then `Scheduler.Run`
    """
    _require(not cluster.running, "the scheduler is running")
    return replace(
        cluster,
        running=True,
        unlisted_nodes=tuple(sorted(cluster.nodes)),
        unlisted_pods=pod_list_order(cluster),
    )


def list_node(cluster: Cluster) -> Cluster:
    """The node informer delivers the first node of its initial list not delivered yet: ``AddNode``.

    Kubernetes: `Scheduler.addNodeToCache` (pkg/scheduler/eventhandlers.go)
    """
    _require(cluster.running and bool(cluster.unlisted_nodes), "no listed node awaits delivery")
    name, rest = cluster.unlisted_nodes[0], cluster.unlisted_nodes[1:]
    return replace(cluster, cache=cache_ops.add_node(cluster.cache, cluster.nodes[name]), unlisted_nodes=rest)


def list_pod(cluster: Cluster) -> Cluster:
    """The pod informer delivers the first pod of its initial list not delivered yet (``addPod``): an assigned
    pod goes to the cache (``AddPod``), an unassigned one to the scheduling queue.

    Kubernetes: `Scheduler.addPod` (pkg/scheduler/eventhandlers.go)
    """
    _require(cluster.running and bool(cluster.unlisted_pods), "no listed pod awaits delivery")
    uid, rest = cluster.unlisted_pods[0], cluster.unlisted_pods[1:]
    pod = cluster.api_pods[uid]
    listed = replace(cluster, unlisted_pods=rest)
    if pod.node_name:
        return replace(listed, cache=cache_ops.add_pod(cluster.cache, pod))
    return replace(listed, pending=cluster.pending.set(uid, pod))


def watch_binding(cluster: Cluster, uid: str) -> Cluster:
    """The API server bound pod ``uid`` for someone else than this scheduler's binding cycle (an orphaned
    request, another scheduler): if the scheduler watches the pod, the event is on its way (``unconfirmed``;
    :func:`spec.cycle.cycle.confirm_binding` delivers it as ``updatePod``: the cache adds it, the queue drops it).

    Kubernetes: `Scheduler.updatePod` (pkg/scheduler/eventhandlers.go)
    """
    if not watches_pod(cluster, uid):
        return cluster
    return replace(cluster, unconfirmed=cluster.unconfirmed | {uid})


def land_orphaned_bind(cluster: Cluster, uid: str) -> Cluster:
    """The API server answers a crashed scheduler's bind request for ``uid``: it binds the pod if it exists
    unbound; a pod bound meanwhile gets a ``Conflict`` and a deleted one ``NotFound``, and nothing changes.

    Kubernetes: `BindingREST.Create` (pkg/registry/core/pod/storage/storage.go)
    """
    _require(uid in cluster.orphaned, f"no orphaned bind request of {uid}")
    rest = replace(cluster, orphaned=cluster.orphaned.remove(uid))
    try:
        bound = api_bind(rest, cluster.orphaned[uid])
    except CycleNotEnabled:
        return rest
    return watch_binding(bound, uid)


def drop_orphaned_bind(cluster: Cluster, uid: str) -> Cluster:
    """A crashed scheduler's bind request for ``uid`` never reaches the API server (it was not sent, or the
    connection died with the process)."""
    _require(uid in cluster.orphaned, f"no orphaned bind request of {uid}")
    return replace(cluster, orphaned=cluster.orphaned.remove(uid))
