"""Filter with nominated pods: the room preemption made for a pod is not given to a pod of lower or equal priority.

This is ``frameworkImpl.RunFilterPluginsWithNominatedPods`` and ``addGENominatedPods``
(pkg/scheduler/framework/runtime/framework.go, v1.35). Every Filter of a scheduling cycle, and every Filter
preemption runs while it selects victims, goes through it. The pods nominated to the node (:mod:`spec.queue.nominator`)
whose priority is at least the pod's, other than the pod itself, are added to a copy of the node's NodeInfo and
the filters run on it; if they pass, and some pod was added, the filters run a second time on the NodeInfo as it
is, because some filters (inter-pod affinity) may fail without the nominated pods. The pod must pass both: a
conservative decision, since the nominated pods are not running yet and may end up elsewhere. Pods of lower
priority nominated there are ignored: the pod may take the room made for them.

The spec's filters (:mod:`spec.cycle.filters`) read only the NodeInfo, so the PreFilter extensions
(``RunPreFilterExtensionAddPod``) that Kubernetes calls for each added pod have nothing to update here.
"""

from __future__ import annotations

from collections.abc import Sequence

from spec.cache.nodeinfo import NodeInfo, add_pod
from spec.cycle.filters import Rejection, first_rejection
from spec.objects import Pod


def higher_or_equal_nominated(pod: Pod, nominated: Sequence[Pod]) -> tuple[Pod, ...]:
    """The pods of ``nominated`` that ``pod`` must yield to: priority at least ``pod``'s, and not ``pod`` itself.

    Kubernetes: `addGENominatedPods` (pkg/scheduler/framework/runtime/framework.go)
    """
    return tuple(p for p in nominated if p.priority >= pod.priority and p.uid != pod.uid)


def with_nominated_pods(info: NodeInfo, pods: Sequence[Pod]) -> NodeInfo:
    """A copy of ``info`` with ``pods`` added (``NodeInfo.AddPodInfo`` on a snapshot of it); the generation is kept,
    as the copy is never stored.

    Kubernetes: `addGENominatedPods` (pkg/scheduler/framework/runtime/framework.go)
    """
    for nominated in pods:
        info = add_pod(info, nominated, info.generation)
    return info


def filter_with_nominated_pods(pod: Pod, info: NodeInfo, nominated: Sequence[Pod]) -> Rejection | None:
    """The status of Filter for ``pod`` on the node of ``info`` when ``nominated`` are the pods nominated there (as
    the queue gives them: :func:`spec.queue.nominator.nominated_pods_for_node`): None if the pod passes.

    Pass 1 runs the filters with the nominated pods of higher or equal priority added; pass 2, only if pass 1
    passed and added a pod, runs them on ``info`` itself. The first rejection is the result.

    Kubernetes: `frameworkImpl.RunFilterPluginsWithNominatedPods` (pkg/scheduler/framework/runtime/framework.go)
    """
    added = higher_or_equal_nominated(pod, nominated)
    if added:
        rejection = first_rejection(pod, with_nominated_pods(info, added))
        if rejection is not None:
            return rejection
    return first_rejection(pod, info)
