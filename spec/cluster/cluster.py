"""Several schedulers over one API server, one set of nodes and their kubelets.

A cluster may run more than one scheduler: a second profile-less binary with its own ``schedulerName``, or a
custom scheduler beside the default one. Each has its own cache, snapshot, queue and binding cycles, and takes
only the unassigned pods that name it (``responsibleForPod``); but every scheduler's cache receives *every* bound
pod (``assignedPod`` has no scheduler filter), because each must account for the resources the others use.
Nothing coordinates their decisions before the binding: two schedulers may each assume a pod on the same node
with the room for only one, and both bindings succeed, since the API server's ``pods/binding`` checks only that
the pod is unbound. Each learns of the other's pod when its informer delivers it. The node's kubelet is the
final arbiter (:mod:`spec.cluster.kubelet`): it admits one and rejects the other (``OutOfcpu``, phase ``Failed``).

The model reuses :mod:`spec.cycle.cycle`, :mod:`spec.cluster.restart` and :mod:`spec.cluster.kubelet` unchanged. A
:class:`KubeCluster` keeps the API server (its pods and nodes, the kubelets' verdicts, orphaned bind requests,
the clock) once, in :attr:`KubeCluster.api`, and each scheduler's memory in :attr:`KubeCluster.schedulers`. The
view of scheduler ``i`` (:func:`view`) is a :class:`~spec.cycle.cycle.Cluster`: scheduler ``i``'s memory with the
shared API server. Then:

- a scheduler's own step (a scheduling or binding cycle, the skip of a popped pod being deleted, an informer
  delivery, its crash and restart) is the
  :mod:`spec.cycle.cycle` / :mod:`spec.cluster.restart` transition on its view (:func:`scheduler_step`); a successful
  bind is
  seen by every other scheduler's informer (:func:`spec.cluster.restart.watch_binding`);
- a change outside the schedulers (a user creates or deletes a pod or deletes it gracefully, a node changes, a
  kubelet handles a pod, an
  orphaned bind request is answered, time passes) is the transition on every view, each scheduler's handlers
  reacting in its own view; the API server's part of the result is the same in all (:func:`environment_step`).

The atomicity of :mod:`spec.cycle.cycle` carries over: a pod's later events (deletion, rejection) reach each
scheduler after its earlier ones, so such a step waits until no scheduler has the pod's binding unconfirmed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any, Final

from spec.cluster import kubelet, restart
from spec.cycle import cycle
from spec.cycle.cycle import Cluster, CycleNotEnabled, new_cluster
from spec.frozenmap import FrozenMap
from spec.objects import Node
from spec.versions import DEFAULT_PROFILE, VersionProfile

API_FIELDS: Final = ("api_pods", "deleted", "now", "nodes", "orphaned", "bind_count", "admitted", "failed", "failures")
"""The fields of a :class:`~spec.cycle.cycle.Cluster` that are the API server's (and its nodes' kubelets'), shared by
every scheduler; the others are one scheduler's memory."""
SCHEDULER_FIELDS: Final = tuple(f.name for f in fields(Cluster) if f.name not in API_FIELDS)

_EMPTY: Final = Cluster()
Transition = Callable[..., Cluster]


@dataclass(frozen=True)
class KubeCluster:
    """The API server once and each scheduler's memory once.

    ``api`` holds the :data:`API_FIELDS`; its scheduler fields keep their defaults. Each of ``schedulers`` holds
    the :data:`SCHEDULER_FIELDS` of one scheduler; its API fields keep their defaults.
    """

    api: Cluster
    schedulers: tuple[Cluster, ...]


def scheduler_name(index: int) -> str:
    """The scheduler name of the ``index``-th scheduler: ``default-scheduler``, then ``scheduler-1``, ..."""
    return _EMPTY.scheduler_name if index == 0 else f"scheduler-{index}"


def new_kube_cluster(
    schedulers: int, nodes: tuple[Node, ...] = (), profile: VersionProfile = DEFAULT_PROFILE
) -> KubeCluster:
    """``schedulers`` running schedulers (named by :func:`scheduler_name`) over an API server with ``nodes``,
    each having received them (TTL 0). Fails with ``ValueError`` for no scheduler or two nodes of one name."""
    if schedulers < 1:
        raise ValueError(f"a cluster needs at least one scheduler, got {schedulers}")
    if len({n.name for n in nodes}) != len(nodes):
        raise ValueError("node names must be distinct")
    members = []
    for index in range(schedulers):
        member = replace(new_cluster(profile), scheduler_name=scheduler_name(index))
        for node in nodes:
            member = cycle.add_node(member, node)
        members.append(member)
    api = _api_part(members[0])
    return KubeCluster(api, tuple(_scheduler_part(m) for m in members))


def _api_part(cluster: Cluster) -> Cluster:
    return replace(_EMPTY, **{name: getattr(cluster, name) for name in API_FIELDS})


def _scheduler_part(cluster: Cluster) -> Cluster:
    return replace(cluster, **{name: getattr(_EMPTY, name) for name in API_FIELDS})


def view(k: KubeCluster, index: int) -> Cluster:
    """Scheduler ``index``'s memory with the shared API server: a :class:`~spec.cycle.cycle.Cluster`."""
    return replace(k.schedulers[index], **{name: getattr(k.api, name) for name in API_FIELDS})


def views(k: KubeCluster) -> tuple[Cluster, ...]:
    """Every scheduler's view, in order."""
    return tuple(view(k, i) for i in range(len(k.schedulers)))


def _with_scheduler(k: KubeCluster, index: int, after: Cluster) -> KubeCluster:
    members = list(k.schedulers)
    members[index] = _scheduler_part(after)
    return KubeCluster(_api_part(after), tuple(members))


# ============================================================================================
# Transitions
# ============================================================================================

SCHEDULER_TRANSITIONS: Final[dict[str, Transition]] = {
    "schedule_pod": cycle.schedule_pod,
    "fail_scheduling": cycle.fail_scheduling,
    "skip_pod": cycle.skip_pod,
    "bind_pod": cycle.bind_pod,
    "fail_binding": cycle.fail_binding,
    "confirm_binding": cycle.confirm_binding,
    "crash_scheduler": restart.crash_scheduler,
    "restart_scheduler": restart.restart_scheduler,
    "list_node": restart.list_node,
    "list_pod": restart.list_pod,
}
"""A scheduler's own steps, by name."""
ENVIRONMENT_TRANSITIONS: Final[dict[str, Transition]] = {
    "create_pod": cycle.create_pod,
    "delete_pod": cycle.delete_pod,
    "terminate_pod": cycle.terminate_pod,
    "add_node": cycle.add_node,
    "update_node": cycle.update_node,
    "remove_node": cycle.remove_node,
    "tick": cycle.tick,
    "admit_pod": kubelet.admit_pod,
    "land_orphaned_bind": restart.land_orphaned_bind,
    "drop_orphaned_bind": restart.drop_orphaned_bind,
}
"""Steps of the users, the nodes, the kubelets and the API server, by name."""


def scheduler_step(k: KubeCluster, index: int, name: str, *args: Any) -> KubeCluster:
    """Scheduler ``index`` takes its step ``name`` (:data:`SCHEDULER_TRANSITIONS`) with ``args``; a pod it binds
    is seen by every other scheduler's informer. Fails with :class:`~spec.cycle.cycle.CycleNotEnabled` when the
    step's guard is false, ``KeyError`` for an unknown name and ``IndexError`` for an unknown scheduler.

    Kubernetes: `Scheduler.ScheduleOne` and the event handlers of each scheduler (pkg/scheduler)
    """
    before = view(k, index)
    after = SCHEDULER_TRANSITIONS[name](before, *args)
    result = _with_scheduler(k, index, after)
    newly_bound = [uid for uid, pod in after.api_pods.items()
                   if pod.node_name and (uid not in before.api_pods or not before.api_pods[uid].node_name)]
    for uid in newly_bound:
        for other in range(len(k.schedulers)):
            if other != index:
                result = _with_scheduler(result, other, restart.watch_binding(view(result, other), uid))
    return result


def environment_step(k: KubeCluster, name: str, *args: Any) -> KubeCluster:
    """The change ``name`` (:data:`ENVIRONMENT_TRANSITIONS`) happens at the API server and every scheduler's
    handlers react. Fails with :class:`~spec.cycle.cycle.CycleNotEnabled` if the guard is false in any scheduler's
    view, ``KeyError`` for an unknown name."""
    transition = ENVIRONMENT_TRANSITIONS[name]
    afters = [transition(v, *args) for v in views(k)]
    api = _api_part(afters[0])
    assert all(_api_part(a) == api for a in afters), f"{name}: the schedulers' views disagree on the API server"
    return KubeCluster(api, tuple(_scheduler_part(a) for a in afters))


def bound_pods_by_node(k: KubeCluster) -> FrozenMap[str, tuple[str, ...]]:
    """The API server's non-terminal bound pods per node name, by UID."""
    by_node: dict[str, list[str]] = {}
    for uid, pod in sorted(k.api.api_pods.items()):
        if pod.node_name:
            by_node.setdefault(pod.node_name, []).append(uid)
    return FrozenMap({name: tuple(uids) for name, uids in by_node.items()})


def is_enabled(k: KubeCluster, step: Callable[[KubeCluster], KubeCluster]) -> bool:
    """Whether ``step`` may be taken in ``k``."""
    try:
        step(k)
    except CycleNotEnabled:
        return False
    return True
