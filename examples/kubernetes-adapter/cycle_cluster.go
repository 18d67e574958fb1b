package main

// The cycle area's cluster side (cycle_area.go): the binding cycle's outcomes, the scheduler's crash and restart,
// a crashed process's bind requests, and the kubelet's admission.

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
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

// bindPod: the binding cycle reaches the bind call without a failure of its own. The call is Kubernetes' own: the
// profile's Bind plugins (RunBindPlugins: DefaultBinder's Pods().Bind on the fake clientset), whose bind reactor
// (bindReactor) answers as the API server does. Accepted, FinishBinding follows and the binding awaits the informer;
// refused (a pod being deleted), the binding cycle fails with the framework's status (bindingCycleError). A pod gone
// or bound meanwhile is fail_binding's step, not enabled here.
func (a *cycleArea) bindPod(uid string) error {
	assumed := a.binding[uid]
	if err := require(assumed != nil, "pod %s has no binding cycle", uid); err != nil {
		return err
	}
	current := a.apiPods[uid]
	if err := require(current != nil && current.Spec.NodeName == "", "pod %s is gone or bound", uid); err != nil {
		return err
	}
	ctx := klog.NewContext(context.Background(), a.logger)
	if status := a.framework().RunBindPlugins(ctx, framework.NewCycleState(), assumed, assumed.Spec.NodeName); !status.IsSuccess() {
		return a.bindingCycleError(uid, true, status)
	}
	delete(a.binding, uid)
	if err := a.finishBinding(assumed); err != nil {
		return err
	}
	a.apiPods[uid] = withNodeName(current, assumed.Spec.NodeName)
	a.unconfirmed[uid] = true
	return nil
}

// bindReactor is the fake clientset's answer to a binding (pods/binding create), as BindingREST.setPodNodeAndMetadata
// (pkg/registry/core/pod/storage/storage.go) answers it from the API server's pod: NotFound for a pod it does not
// have; for a pod being deleted, its "pod %s is being deleted, cannot be assigned to a host", an error that is not a
// status error, which the API server returns as an internal error (ErrorToAPIStatus) whose message the client's
// error carries; for a pod already bound, likewise its "is already assigned" error. An accepted binding changes
// nothing here: the harness writes the node name (bindPod).
func (a *cycleArea) bindReactor(action clienttesting.Action) (bool, runtime.Object, error) {
	create, ok := action.(clienttesting.CreateAction)
	if !ok || action.GetSubresource() != "binding" {
		return false, nil, nil
	}
	binding, ok := create.GetObject().(*v1.Binding)
	if !ok {
		return false, nil, nil
	}
	var pod *v1.Pod
	for _, p := range a.apiPods {
		if p.Namespace == binding.Namespace && p.Name == binding.Name {
			pod = p
		}
	}
	internal := func(message string) error {
		return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure,
			Code: http.StatusInternalServerError, Reason: metav1.StatusReasonUnknown, Message: message}}
	}
	switch {
	case pod == nil:
		return true, nil, apierrors.NewNotFound(v1.Resource("pods"), binding.Name)
	case pod.DeletionTimestamp != nil:
		return true, nil, internal(fmt.Sprintf("pod %s is being deleted, cannot be assigned to a host", pod.Name))
	case pod.Spec.NodeName != "":
		return true, nil, internal(fmt.Sprintf("pod %v is already assigned to node %q", pod.Name, pod.Spec.NodeName))
	}
	return true, binding, nil
}

// failBinding is handleBindingCycleError after the vector's injected PreBind or Bind error (bindingError).
func (a *cycleArea) failBinding(uid, point string) error {
	assumed := a.binding[uid]
	if err := require(assumed != nil && (point == pointPreBind || point == pointBind), "pod %s has no binding cycle to fail", uid); err != nil {
		return err
	}
	return a.bindingCycleError(uid, point == pointBind, bindingError(point))
}

// bindingCycleError is handleBindingCycleError: FinishBinding if the bind was reached (bind's deferred
// finishBinding), ForgetPod (its error only logged), then the failure handler with clearNominatedNode (handleFailure):
// a requeue if the pod still exists unbound, nominated to no node with preemption.
func (a *cycleArea) bindingCycleError(uid string, bindReached bool, status *fwk.Status) error {
	assumed := a.binding[uid]
	delete(a.binding, uid)
	if bindReached {
		if err := a.finishBinding(assumed); err != nil {
			return err
		}
	}
	_ = a.sched.Cache.ForgetPod(a.logger, assumed)
	a.handleFailure(assumed, clearNominatedNode, status) // handleBindingCycleError's FailureHandler
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

// landOrphanedBind: the API server answers a crashed process's bind: it binds a pod that exists unbound and is not
// being deleted (a running scheduler's informer then has the event on its way); otherwise Conflict, NotFound or the
// refusal of a terminating pod (bindReactor's answers).
func (a *cycleArea) landOrphanedBind(uid string) error {
	assumed := a.orphaned[uid]
	if err := require(assumed != nil, "no orphaned bind request of %s", uid); err != nil {
		return err
	}
	delete(a.orphaned, uid)
	current := a.apiPods[uid]
	if current == nil || current.Spec.NodeName != "" || current.DeletionTimestamp != nil { // refused (bindReactor)
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
