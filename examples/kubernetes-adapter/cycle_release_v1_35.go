//go:build !k8s_v1_34 && !k8s_v1_36 && !k8s_v1_37

package main

// The cycle area's parts that differ between releases (cycle_area.go), for Kubernetes v1.35.

import (
	"context"

	"k8s.io/klog/v2"
	"unsafe"

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
// (spec/versions.py): v1.35 expires assumed pods after FinishBinding's TTL and forgets an assumed pod whose API
// object is deleted (handleAssumedPodDeletion).
const (
	profileAssumedPodExpiry         = true
	profileForgetAssumedPodOnDelete = true
)

// preemptionGoroutineAlways: v1.35's prepareCandidateAsync starts no goroutine when every victim is already
// terminating (the negation of spec/versions.py's preemption_skips_terminating_victims).
const preemptionGoroutineAlways = false

// The scheduler's own search and scoring (see internals.go): what schedulePod calls between UpdateSnapshot and
// selectHost, and the scored list selectHost pops the host from.

//go:linkname schedFindNodesThatFitPod k8s.io/kubernetes/pkg/scheduler.(*Scheduler).findNodesThatFitPod
func schedFindNodesThatFitPod(sched *scheduler.Scheduler, ctx context.Context, schedFramework framework.Framework, state fwk.CycleState, pod *v1.Pod) ([]fwk.NodeInfo, framework.Diagnosis, string, fwk.PodSignature, error)

//go:linkname schedPrioritizeNodes k8s.io/kubernetes/pkg/scheduler.prioritizeNodes
func schedPrioritizeNodes(ctx context.Context, extenders []fwk.Extender, schedFramework framework.Framework, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) ([]fwk.NodePluginScores, error)

//go:linkname newSortedNodeScores k8s.io/kubernetes/pkg/scheduler.newSortedNodeScores
func newSortedNodeScores(nodeScoreList []fwk.NodePluginScores) unsafe.Pointer

//go:linkname sortedNodeScoresPop k8s.io/kubernetes/pkg/scheduler.(*sortedNodeScores).Pop
func sortedNodeScoresPop(s unsafe.Pointer) string

// findNodesThatFitPod: v1.35's also returns the batching node hint and the pod's signature (OpportunisticBatching),
// which only schedulePod's StoreScheduleResults uses; the adapter does not store results (cycle_area.go).
func findNodesThatFitPod(sched *scheduler.Scheduler, ctx context.Context, schedFramework framework.Framework, state fwk.CycleState, pod *v1.Pod) ([]fwk.NodeInfo, framework.Diagnosis, error) {
	feasible, diagnosis, _, _, err := schedFindNodesThatFitPod(sched, ctx, schedFramework, state, pod)
	return feasible, diagnosis, err
}

// popHost is the host schedulePod takes from prioritizeNodes' list: newSortedNodeScores(list).Pop().
func popHost(scores []fwk.NodePluginScores) string {
	return sortedNodeScoresPop(newSortedNodeScores(scores))
}

// nodePluginScores is what prioritizeNodes returns per node (in the kube-scheduler staging module from v1.35).
type nodePluginScores = fwk.NodePluginScores

// prioritizeNodes is schedulePod's call: prioritizeNodes(ctx, sched.Extenders, fwk, state, pod, nodes).
func prioritizeNodes(ctx context.Context, sched *scheduler.Scheduler, schedFramework framework.Framework, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) ([]nodePluginScores, error) {
	return schedPrioritizeNodes(ctx, sched.Extenders, schedFramework, state, pod, nodes)
}

// numNodes is the node count schedulePod reads (ErrNoNodesAvailable, FitError.NumAllNodes).
func numNodes(snapshot *cache.Snapshot) int { return snapshot.NumNodes() }

// newInformerFactory is the scheduler's informer factory over the fake clientset, as pkg/scheduler's tests make it.
func newInformerFactory(client kubernetes.Interface) informers.SharedInformerFactory {
	return scheduler.NewInformerFactory(client, 0)
}

// admit runs the kubelet's admit handler.
func admit(handler lifecycle.PodAdmitHandler, attrs *lifecycle.PodAdmitAttributes) lifecycle.PodAdmitResult {
	return handler.Admit(attrs)
}

// kubeletNodeGetter is the kubelet's getNodeAnyWay for the predicate admit handler, answering node.
func kubeletNodeGetter(node *v1.Node) func(context.Context, bool) (*v1.Node, error) {
	return func(context.Context, bool) (*v1.Node, error) { return node, nil }
}

// schedQueueAdd is the scheduler's PriorityQueue.Add (v1.35: with the logger).
func schedQueueAdd(sched *scheduler.Scheduler, logger klog.Logger, pod *v1.Pod) {
	sched.SchedulingQueue.Add(logger, pod)
}

// schedQueueDelete is the scheduler's PriorityQueue.Delete (the pod only, to v1.36).
func schedQueueDelete(sched *scheduler.Scheduler, logger klog.Logger, pod *v1.Pod) {
	sched.SchedulingQueue.Delete(pod)
}

// recorderFactory gives every profile the harness's recorder (scheduler.New's profile.RecorderFactory, which returns
// an events.EventRecorder in v1.35).
func recorderFactory(r *eventCapture) schedprofile.RecorderFactory {
	return func(string) events.EventRecorder { return r }
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

// AddUnschedulableIfNotPresent is the queue's, noting the pod handleSchedulingFailure hands back (cycle_failure.go).
func (q *requeueWatch) AddUnschedulableIfNotPresent(logger klog.Logger, pInfo *framework.QueuedPodInfo, podSchedulingCycle int64) error {
	q.requeued = pInfo.Pod
	return q.SchedulingQueue.AddUnschedulableIfNotPresent(logger, pInfo, podSchedulingCycle)
}
