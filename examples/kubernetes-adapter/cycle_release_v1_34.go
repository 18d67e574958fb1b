//go:build k8s_v1_34

package main

// The cycle area's parts that differ between releases (cycle_area.go), for Kubernetes v1.34: the scored list and
// the extenders are pkg/scheduler/framework's types, schedulePod picks the host with selectHost (reservoir
// sampling among the top scores), and the kubelet's getNodeAnyWay takes no arguments.

import (
	"context"
	_ "unsafe" // for //go:linkname

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	schedprofile "k8s.io/kubernetes/pkg/scheduler/profile"
)

// profileAssumedPodExpiry and profileForgetAssumedPodOnDelete are the spec profile's cache flags
// (spec/versions.py): v1.34 expires assumed pods after FinishBinding's TTL and leaves an assumed pod whose API
// object is deleted in the cache (handleAssumedPodDeletion came with v1.35).
const (
	profileAssumedPodExpiry         = true
	profileForgetAssumedPodOnDelete = false
)

// preemptionGoroutineAlways: v1.34's prepareCandidateAsync starts its goroutine for every chosen candidate,
// terminating victims included (the negation of spec/versions.py's preemption_skips_terminating_victims).
const preemptionGoroutineAlways = true

//go:linkname schedFindNodesThatFitPod k8s.io/kubernetes/pkg/scheduler.(*Scheduler).findNodesThatFitPod
func schedFindNodesThatFitPod(sched *scheduler.Scheduler, ctx context.Context, schedFramework framework.Framework, state fwk.CycleState, pod *v1.Pod) ([]fwk.NodeInfo, framework.Diagnosis, error)

//go:linkname schedPrioritizeNodes k8s.io/kubernetes/pkg/scheduler.prioritizeNodes
func schedPrioritizeNodes(ctx context.Context, extenders []framework.Extender, schedFramework framework.Framework, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) ([]framework.NodePluginScores, error)

//go:linkname schedSelectHost k8s.io/kubernetes/pkg/scheduler.selectHost
func schedSelectHost(nodeScoreList []framework.NodePluginScores, count int) (string, []framework.NodePluginScores, error)

func findNodesThatFitPod(sched *scheduler.Scheduler, ctx context.Context, schedFramework framework.Framework, state fwk.CycleState, pod *v1.Pod) ([]fwk.NodeInfo, framework.Diagnosis, error) {
	return schedFindNodesThatFitPod(sched, ctx, schedFramework, state, pod)
}

// nodePluginScores is what prioritizeNodes returns per node (pkg/scheduler/framework's type in v1.34).
type nodePluginScores = framework.NodePluginScores

// prioritizeNodes is schedulePod's call: prioritizeNodes(ctx, sched.Extenders, fwk, state, pod, nodes).
func prioritizeNodes(ctx context.Context, sched *scheduler.Scheduler, schedFramework framework.Framework, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) ([]nodePluginScores, error) {
	return schedPrioritizeNodes(ctx, sched.Extenders, schedFramework, state, pod, nodes)
}

// popHost is the host schedulePod takes: selectHost(priorityList, numberOfHighestScoredNodesToReport), 3 in v1.34.
func popHost(scores []nodePluginScores) string {
	host, _, err := schedSelectHost(scores, 3)
	if err != nil {
		return ""
	}
	return host
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
func kubeletNodeGetter(node *v1.Node) func() (*v1.Node, error) {
	return func() (*v1.Node, error) { return node, nil }
}

// schedQueueAdd is the scheduler's PriorityQueue.Add (with the logger, as in v1.35).
func schedQueueAdd(sched *scheduler.Scheduler, logger klog.Logger, pod *v1.Pod) {
	sched.SchedulingQueue.Add(logger, pod)
}

// schedQueueDelete is the scheduler's PriorityQueue.Delete (the pod only).
func schedQueueDelete(sched *scheduler.Scheduler, logger klog.Logger, pod *v1.Pod) {
	sched.SchedulingQueue.Delete(pod)
}

// recorderFactory gives every profile the harness's recorder (scheduler.New's profile.RecorderFactory, which returns
// an events.EventRecorder in v1.34).
func recorderFactory(r *eventCapture) schedprofile.RecorderFactory {
	return func(string) events.EventRecorder { return r }
}

// The scheduler's own handler of the pod informer's update of an unscheduled pod (addAllEventHandlers registers it).
//
//go:linkname schedUpdatePodInSchedulingQueue k8s.io/kubernetes/pkg/scheduler.(*Scheduler).updatePodInSchedulingQueue
func schedUpdatePodInSchedulingQueue(sched *scheduler.Scheduler, oldObj, newObj interface{})

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
