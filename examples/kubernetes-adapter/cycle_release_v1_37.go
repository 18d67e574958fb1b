//go:build k8s_v1_37

package main

// The cycle area's parts that differ between releases (cycle_area.go), for Kubernetes v1.37 (as v1.36): findNodesThatFitPod
// takes the queued pod info (its PodSignature feeds the batching hint) and returns the node hint; schedulePod
// counts the nodes in the snapshot's placement (all of them for a pod outside a pod group).

import (
	"context"

	"k8s.io/klog/v2"
	_ "unsafe" // for //go:linkname

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	schedprofile "k8s.io/kubernetes/pkg/scheduler/profile"
)

// profileAssumedPodExpiry and profileForgetAssumedPodOnDelete are the spec profile's cache flags
// (spec/versions.py): as in v1.36, assumed pods never expire (PR #136204), and an assumed pod whose API object is
// deleted is forgotten (handleAssumedPodDeletion).
const (
	profileAssumedPodExpiry         = false
	profileForgetAssumedPodOnDelete = true
)

// preemptionGoroutineAlways: v1.37's prepareCandidateAsync starts no goroutine when every victim is already
// terminating (the negation of spec/versions.py's preemption_skips_terminating_victims).
const preemptionGoroutineAlways = false

//go:linkname schedFindNodesThatFitPod k8s.io/kubernetes/pkg/scheduler.(*Scheduler).findNodesThatFitPod
func schedFindNodesThatFitPod(sched *scheduler.Scheduler, ctx context.Context, schedFramework framework.Framework, state fwk.CycleState, podInfo *framework.QueuedPodInfo) ([]fwk.NodeInfo, framework.Diagnosis, string, error)

//go:linkname schedPrioritizeNodes k8s.io/kubernetes/pkg/scheduler.prioritizeNodes
func schedPrioritizeNodes(ctx context.Context, extenders []fwk.Extender, schedFramework framework.Framework, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) ([]fwk.NodePluginScores, error)

// findNodesThatFitPod hands the pod over as the queue would (a QueuedPodInfo around framework.NewPodInfo); the
// node hint is for schedulePod's StoreScheduleResults, which the adapter does not call (cycle_area.go).
func findNodesThatFitPod(sched *scheduler.Scheduler, ctx context.Context, schedFramework framework.Framework, state fwk.CycleState, pod *v1.Pod) ([]fwk.NodeInfo, framework.Diagnosis, error) {
	podInfo, err := framework.NewPodInfo(pod)
	if err != nil {
		return nil, framework.Diagnosis{}, err
	}
	feasible, diagnosis, _, err := schedFindNodesThatFitPod(sched, ctx, schedFramework, state, &framework.QueuedPodInfo{PodInfo: podInfo})
	return feasible, diagnosis, err
}

// nodePluginScores is what prioritizeNodes returns per node.
type nodePluginScores = fwk.NodePluginScores

// prioritizeNodes is schedulePod's call: prioritizeNodes(ctx, sched.Extenders, fwk, state, pod, nodes).
func prioritizeNodes(ctx context.Context, sched *scheduler.Scheduler, schedFramework framework.Framework, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) ([]nodePluginScores, error) {
	return schedPrioritizeNodes(ctx, sched.Extenders, schedFramework, state, pod, nodes)
}

// popHost is the host schedulePod takes from prioritizeNodes' list: framework.NewSortedScoredNodes(list).Pop() (exported
// from v1.37).
func popHost(scores []nodePluginScores) string {
	return framework.NewSortedScoredNodes(scores).Pop().Name
}

// numNodes is the node count v1.36's schedulePod reads (ErrNoNodesAvailable, FitError.NumAllNodes).
func numNodes(snapshot *cache.Snapshot) int { return snapshot.NumNodesInPlacement() }

// newInformerFactory is the scheduler's informer factory over the fake clientset, as pkg/scheduler's tests make it.
func newInformerFactory(client kubernetes.Interface) informers.SharedInformerFactory {
	return scheduler.NewInformerFactory(client, 0, nil)
}

// admit runs the kubelet's admit handler.
func admit(handler lifecycle.PodAdmitHandler, attrs *lifecycle.PodAdmitAttributes) lifecycle.PodAdmitResult {
	return handler.Admit(context.Background(), attrs)
}

// kubeletNodeGetter is the kubelet's getNodeAnyWay for the predicate admit handler, answering node.
func kubeletNodeGetter(node *v1.Node) func(context.Context, bool) (*v1.Node, error) {
	return func(context.Context, bool) (*v1.Node, error) { return node, nil }
}

// schedQueueAdd is the scheduler's PriorityQueue.Add (v1.37: with a context).
func schedQueueAdd(sched *scheduler.Scheduler, logger klog.Logger, pod *v1.Pod) {
	sched.SchedulingQueue.Add(klog.NewContext(context.Background(), logger), pod)
}

// schedQueueDelete is the scheduler's PriorityQueue.Delete (v1.37: with the logger).
func schedQueueDelete(sched *scheduler.Scheduler, logger klog.Logger, pod *v1.Pod) {
	sched.SchedulingQueue.Delete(logger, pod)
}

// recorderFactory gives every profile the harness's recorder (scheduler.New's profile.RecorderFactory, which returns
// an events.EventRecorderLogger in v1.37).
func recorderFactory(r *eventCapture) schedprofile.RecorderFactory {
	return func(string) events.EventRecorderLogger { return r }
}

// The scheduler's own handler of the pod informer's update of an unscheduled pod (addAllEventHandlers registers it).
//
//go:linkname schedUpdatePodInSchedulingQueue k8s.io/kubernetes/pkg/scheduler.(*Scheduler).updatePodInSchedulingQueue
func schedUpdatePodInSchedulingQueue(sched *scheduler.Scheduler, oldPod, newPod *v1.Pod)

// updatePodInSchedulingQueue delivers the informer's update of an unscheduled pod to the scheduler
// (updatePodInSchedulingQueue, pkg/scheduler/eventhandlers.go).
func updatePodInSchedulingQueue(sched *scheduler.Scheduler, oldPod, newPod *v1.Pod) {
	schedUpdatePodInSchedulingQueue(sched, oldPod, newPod)
}

// AddUnschedulablePodIfNotPresent is the queue's, noting the pod handleSchedulingFailure hands back (cycle_failure.go).
func (q *requeueWatch) AddUnschedulablePodIfNotPresent(logger klog.Logger, pInfo *framework.QueuedPodInfo, podSchedulingCycle int64) error {
	q.requeued = pInfo.Pod
	return q.SchedulingQueue.AddUnschedulablePodIfNotPresent(logger, pInfo, podSchedulingCycle)
}
