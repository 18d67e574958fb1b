package main

// The cycle area's PostFilter (a vector's "preemption", format 4.4.0), for Kubernetes v1.34 to v1.37 (the same code
// builds against each; v1.37's schedQueueAdd and schedQueueDelete are in cycle_release_v1_37.go): what schedulingCycle
// does after a FitError (pkg/scheduler/schedule_one.go), then the scheduler's own failure handler (cycle_failure.go). Kubernetes
// decides everything here: RunPostFilterPlugins runs the profile's DefaultPreemption (its PodNominator is the
// scheduler's own queue, which scheduler.New sets with SetPodNominator), the harness waits for the async preemption's
// goroutine (DefaultPreemption.PreEnqueue refuses the pod until it ends) and reads the victims from the deletions the fake clientset received;
// it then plays the informer's delete events. The API server's pods are mirrored into the fake clientset's tracker and
// the pod informer's indexer (syncAPIServer), which the Evaluator's and the nominator's pod listers read; the status
// patches the clientset received (the failure handler's NominatedNodeName, clearNominatedNodeName's) reach the
// scheduler as the informer's updates first (replayStatusPatches).
// PodDisruptionBudgets (cluster_add_pod_disruption_budget, format 4.5.0) are in the PDB informer's indexer
// (cycle_area.go), which DefaultPreemption's PDB lister reads when it selects victims and a node.

import (
	"context"
	"fmt"
	"sort"
	"time"

	dto "github.com/prometheus/client_model/go"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

var podsResource = v1.SchemeGroupVersion.WithResource("pods")

// syncAPIServer makes the fake clientset's pods and the pod informer's indexer hold the API server's pods, once the
// status patches the clientset received are delivered (replayStatusPatches, cycle_failure.go).
func (a *cycleArea) syncAPIServer() {
	if !a.running || a.sched == nil || a.client == nil {
		return
	}
	a.replayStatusPatches() // the status patches first: the API server's objects carry them
	tracker := a.client.Tracker()
	objects := make([]any, 0, len(a.apiPods))
	for _, pod := range a.apiPods {
		objects = append(objects, pod)
		current, err := tracker.Get(podsResource, pod.Namespace, pod.Name)
		switch {
		case apierrors.IsNotFound(err):
			_ = tracker.Add(pod.DeepCopy())
		case err == nil && current.(*v1.Pod).UID == pod.UID:
			_ = tracker.Update(podsResource, pod.DeepCopy(), pod.Namespace)
		}
	}
	if listed, err := tracker.List(podsResource, v1.SchemeGroupVersion.WithKind("Pod"), ""); err == nil {
		if list, ok := listed.(*v1.PodList); ok {
			for _, pod := range list.Items {
				if kept := a.apiPods[string(pod.UID)]; kept == nil {
					_ = tracker.Delete(podsResource, pod.Namespace, pod.Name)
				}
			}
		}
	}
	indexer := a.framework().SharedInformerFactory().Core().V1().Pods().Informer().GetIndexer()
	_ = indexer.Replace(objects, "")
}

func podInfo(pod *v1.Pod) fwk.PodInfo {
	info, _ := framework.NewPodInfo(pod)
	return info
}

// nominateOnAdd: a pending pod enters the scheduler's own queue (PriorityQueue.Add, which also calls
// AddNominatedPod(pod, nil) for the pod's own NominatedNodeName). With preemption the pending pods are kept in the
// queue, as a running scheduler keeps them between cycles: NominatedPodsForNode resolves a nominated pod to the pod
// the queue holds (nominatedPodToInfo), and to a bare name, UID and priority 0 for a pod it does not hold.
func (a *cycleArea) nominateOnAdd(pod *v1.Pod) {
	if !a.preemption || !a.running {
		return
	}
	a.syncAPIServer()
	schedQueueAdd(a.sched, a.logger, pod)
}

// forgetNomination: the pod leaves the queue and its nomination (the queue's Delete: DeleteNominatedPodIfExists), as
// when it is assumed, deleted or found bound.
func (a *cycleArea) forgetNomination(pod *v1.Pod) {
	if a.preemption && a.running && pod != nil {
		schedQueueDelete(a.sched, a.logger, pod)
	}
}

// clearNominatedNode is schedule_one.go's clearNominatedNode: the nominating info of every failure but PostFilter's.
var clearNominatedNode = &nominatingInfo{NominatingMode: modeOverride, NominatedNodeName: ""}

// nominated is the observation's "nominated": each node's nominated pods in the order nominated, read from the
// queue (NominatedPodsForNode) for every node name ever added and "".
func (a *cycleArea) nominated() map[string]any {
	out := map[string]any{}
	if !a.preemption || !a.running || a.sched == nil {
		return out
	}
	names := []string{""}
	for name := range a.nodesEver {
		names = append(names, name)
	}
	for _, name := range names {
		infos := a.sched.SchedulingQueue.NominatedPodsForNode(name)
		if len(infos) == 0 {
			continue
		}
		uids := []string{}
		for _, info := range infos {
			uids = append(uids, string(info.GetPod().UID))
		}
		out[name] = uids
	}
	return out
}

// preemptionGoroutinesFinished is scheduler_preemption_goroutines_execution_total over both results: the async
// preemption goroutines that have ended (the counter is incremented by the goroutine's last deferred call).
func preemptionGoroutinesFinished() float64 {
	total := 0.0
	for _, result := range []string{metrics.GoroutineResultSuccess, metrics.GoroutineResultError} {
		var m dto.Metric
		counter, ok := metrics.PreemptionGoroutinesExecutionTotal.WithLabelValues(result).(interface {
			Write(*dto.Metric) error
		})
		if !ok {
			panic("preemption_goroutines_execution_total is not a Prometheus counter")
		}
		if err := counter.Write(&m); err != nil {
			panic(fmt.Sprintf("reading preemption_goroutines_execution_total{result=%q}: %v", result, err))
		}
		total += m.GetCounter().GetValue()
	}
	return total
}

// postFilter is schedulingCycle after a FitError: RunPostFilterPlugins, PostFilterMsg, then the failure handler's
// AddNominatedPod; the async preemption's API calls are waited for and the victims' deletions applied.
func (a *cycleArea) postFilter(pod *v1.Pod) error {
	if a.fit == nil { // ErrNoNodesAvailable: no PostFilter, clearNominatedNode
		a.handleFailure(pod, clearNominatedNode, noNodesStatus())
		return nil
	}
	a.syncAPIServer()
	ctx := klog.NewContext(context.Background(), a.logger)
	before := len(a.client.Actions())
	schedFramework := a.framework()
	finished := preemptionGoroutinesFinished()
	result, status := schedFramework.RunPostFilterPlugins(ctx, a.state, pod, a.fit.Diagnosis.NodeToStatus)
	a.fit.Diagnosis.PostFilterMsg = status.Message()
	a.decision["message"] = a.fit.Error()
	for _, plugin := range schedFramework.PreEnqueuePlugins() {
		if dp, ok := plugin.(*defaultpreemption.DefaultPreemption); ok {
			deadline := time.Now().Add(10 * time.Second)
			for dp.PreEnqueue(ctx, pod) != nil { // waiting for the preemption of this pod to be finished
				if time.Now().After(deadline) {
					return fmt.Errorf("the async preemption of pod %s did not finish in 10 s", pod.UID)
				}
				time.Sleep(time.Millisecond)
			}
		}
	}
	chosen := result != nil && result.NominatingInfo != nil && result.NominatingInfo.NominatedNodeName != ""
	if chosen && preemptionGoroutineAlways {
		// A candidate was chosen, so v1.34's prepareCandidateAsync started its goroutine: wait for its end as well
		// (v1.34 lets the pod leave the preempting set, which PreEnqueue reads, before it deletes the last victim).
		// From v1.35 the goroutine, when there is one (not every victim terminating), leaves the preempting set
		// after its last API call, so the PreEnqueue wait above suffices.
		deadline := time.Now().Add(10 * time.Second)
		for preemptionGoroutinesFinished() == finished {
			if time.Now().After(deadline) {
				return fmt.Errorf("the async preemption goroutine of pod %s did not end in 10 s", pod.UID)
			}
			time.Sleep(time.Millisecond)
		}
	}
	victims := []string{}
	for _, action := range a.client.Actions()[before:] {
		deletion, ok := action.(clienttesting.DeleteAction)
		if !ok || deletion.GetResource().Resource != "pods" {
			continue
		}
		for uid, p := range a.apiPods {
			if p.Namespace == deletion.GetNamespace() && p.Name == deletion.GetName() {
				victims = append(victims, uid)
			}
		}
	}
	sort.Strings(victims)
	for _, uid := range victims {
		if err := require(!a.unconfirmed[uid], "a victim's binding has not reached the scheduler's informer yet"); err != nil {
			return err
		}
	}
	var nominating *nominatingInfo
	if result != nil {
		nominating = result.NominatingInfo
	}
	a.handleFailure(pod, nominating, fwk.NewStatus(fwk.Unschedulable).WithError(a.fit))
	for _, uid := range victims {
		a.forgetGonePod(uid)
		a.deleted[uid] = true
	}
	node := ""
	if nominating != nil {
		node = nominating.NominatedNodeName
	}
	a.decision["preemption"] = map[string]any{"outcome": status.Code().String(), "node": node, "victims": victims}
	return nil
}
