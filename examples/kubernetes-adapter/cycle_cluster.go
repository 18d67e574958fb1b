package main

// The cycle area's cluster side (cycle_area.go): the binding cycle's outcomes, the scheduler's crash and restart,
// a crashed process's bind requests, and the kubelet's admission.

import (
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
)

// -- the binding cycle ----------------------------------------------------------------------------------

func (a *cycleArea) finishBinding(assumed *v1.Pod) error {
	if !profileAssumedPodExpiry {
		return nil
	}
	if exportedOnly {
		return exportedFinishBinding(a.sched.Cache, a.logger, assumed) // the deadline is time.Now()+TTL
	}
	return finishBinding(a.cache.impl, a.logger, assumed, epoch.Add(time.Duration(a.now)))
}

func (a *cycleArea) bindPod(uid string) error {
	assumed := a.binding[uid]
	if err := require(assumed != nil, "pod %s has no binding cycle", uid); err != nil {
		return err
	}
	current := a.apiPods[uid]
	if err := require(current != nil && current.Spec.NodeName == "", "pod %s is gone or bound", uid); err != nil {
		return err
	}
	delete(a.binding, uid)
	if err := a.finishBinding(assumed); err != nil {
		return err
	}
	a.apiPods[uid] = withNodeName(current, assumed.Spec.NodeName)
	a.unconfirmed[uid] = true
	return nil
}

// failBinding is handleBindingCycleError: FinishBinding if the bind was reached, ForgetPod (its error only
// logged), then the failure handler with clearNominatedNode (handleFailure): a requeue if the pod still exists
// unbound, nominated to no node with preemption.
func (a *cycleArea) failBinding(uid, point string) error {
	assumed := a.binding[uid]
	if err := require(assumed != nil && (point == pointPreBind || point == pointBind), "pod %s has no binding cycle to fail", uid); err != nil {
		return err
	}
	delete(a.binding, uid)
	if point == pointBind {
		if err := a.finishBinding(assumed); err != nil {
			return err
		}
	}
	_ = a.sched.Cache.ForgetPod(a.logger, assumed)
	a.handleFailure(assumed, clearNominatedNode, bindingError(point)) // handleBindingCycleError's FailureHandler
	return nil
}

func (a *cycleArea) confirmBinding(uid string) error {
	if err := require(a.unconfirmed[uid], "no binding of %s awaits confirmation", uid); err != nil {
		return err
	}
	if err := a.sched.Cache.AddPod(a.logger, a.apiPods[uid]); err != nil {
		return err
	}
	delete(a.unconfirmed, uid)
	delete(a.pending, uid) // updatePod: a pod someone else bound leaves the queue
	a.forgetNomination(a.apiPods[uid])
	return nil
}

// -- crash and restart ------------------------------------------------------------------------------------

// crash: the process dies; its binding cycles leave their bind requests behind. The next process's cache is
// made now (empty), as refimpl_cycle.py does, so the observation shows what the next process starts from.
func (a *cycleArea) crash() error {
	if err := require(a.running, "the scheduler is not running"); err != nil {
		return err
	}
	for uid, pod := range a.binding {
		a.orphaned[uid] = pod
	}
	a.shutdown()
	a.sched, a.stop = nil, nil
	a.cache = newCacheArea(a.logger, a.ttl)
	a.pending, a.binding, a.unconfirmed = map[string]*v1.Pod{}, map[string]*v1.Pod{}, map[string]bool{}
	a.running = false
	return nil
}

// restart: a new process (scheduler.New) lists the API server's nodes (by name) and pods (by key), and its
// handlers receive them before it schedules: AddNode; AddPod for an assigned pod, the queue for an unassigned one
// it is responsible for.
func (a *cycleArea) restart() error {
	if err := require(!a.running, "the scheduler is running"); err != nil {
		return err
	}
	if err := a.startScheduler(); err != nil {
		return err
	}
	a.running = true
	for _, name := range sortedKeys(a.liveNodes) {
		addNode(a.sched.Cache, a.logger, a.liveNodes[name])
	}
	pods := make([]*v1.Pod, 0, len(a.apiPods))
	for _, pod := range a.apiPods {
		pods = append(pods, pod)
	}
	sort.Slice(pods, func(i, j int) bool {
		x, y := pods[i], pods[j]
		if x.Namespace != y.Namespace {
			return x.Namespace < y.Namespace
		}
		if x.Name != y.Name {
			return x.Name < y.Name
		}
		return x.UID < y.UID
	})
	for _, pod := range pods {
		if pod.Spec.NodeName != "" {
			if err := a.sched.Cache.AddPod(a.logger, pod); err != nil {
				return err
			}
		} else if pod.Spec.SchedulerName == v1.DefaultSchedulerName {
			a.pending[string(pod.UID)] = pod
			a.nominateOnAdd(pod)
		}
	}
	return nil
}

// landOrphanedBind: the API server answers a crashed process's bind: it binds a pod that exists unbound (a
// running scheduler's informer then has the event on its way); otherwise Conflict or NotFound.
func (a *cycleArea) landOrphanedBind(uid string) error {
	assumed := a.orphaned[uid]
	if err := require(assumed != nil, "no orphaned bind request of %s", uid); err != nil {
		return err
	}
	delete(a.orphaned, uid)
	current := a.apiPods[uid]
	if current == nil || current.Spec.NodeName != "" {
		return nil
	}
	a.apiPods[uid] = withNodeName(current, assumed.Spec.NodeName)
	if a.running {
		a.unconfirmed[uid] = true
	}
	return nil
}

// admitPod: the kubelet of the pod's node admits it against the pods it admitted there, or rejects it (the pod is
// Failed with the reason, and the scheduler lets it go). The kubelet's own admission runs it: pkg/kubelet/lifecycle's
// predicate admit handler (NewPredicateAdmitHandler, as the kubelet registers it, with the node from the API
// server and no device-plugin resources to update) and, for a critical pod lacking only resources,
// pkg/kubelet/preemption's CriticalPodAdmissionHandler, whose kill function records the victims and the status
// it would write (the reason is read from that status); they are killed only once the step is known to be enabled.
func (a *cycleArea) admitPod(uid string) error {
	pod := a.apiPods[uid]
	if err := require(pod != nil && a.liveNodes[pod.Spec.NodeName] != nil && !a.admitted[uid],
		"pod %s is not bound to a node whose kubelet has yet to handle it", uid); err != nil {
		return err
	}
	node := a.liveNodes[pod.Spec.NodeName]
	running := []*v1.Pod{}
	for _, other := range sortedKeys(a.admitted) {
		if other != uid && a.apiPods[other].Spec.NodeName == node.Name {
			running = append(running, a.apiPods[other])
		}
	}
	killed := map[string]string{} // victim UID -> the reason its status was given
	var order []string
	kill := func(victim *v1.Pod, _ bool, _ *int64, update func(*v1.PodStatus)) error {
		status := victim.Status.DeepCopy()
		if update != nil {
			update(status)
		}
		killed[string(victim.UID)] = status.Reason
		order = append(order, string(victim.UID))
		return nil
	}
	result := kubeletAdmit(node, pod, running, kill)
	if result.Admit {
		for _, victim := range order {
			if err := require(!a.unconfirmed[victim], "a pod that pod %s would evict has a binding not yet delivered to the scheduler", uid); err != nil {
				return err
			}
		}
		for _, victim := range order {
			a.forgetGonePod(victim)
			a.failed[victim] = killed[victim]
		}
		a.admitted[uid] = true
		return nil
	}
	if err := require(!a.unconfirmed[uid], "pod %s's binding has not reached the scheduler yet", uid); err != nil {
		return err
	}
	a.forgetGonePod(uid)
	a.failed[uid] = result.Reason
	return nil
}
