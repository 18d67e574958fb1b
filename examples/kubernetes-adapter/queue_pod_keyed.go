//go:build !k8s_v1_37

package main

// The queue area's release-specific half for v1.34 to v1.36, whose scheduling queue is keyed by pod: its heaps
// hold *QueuedPodInfo, its unschedulable pool is unschedulablePods.podInfoMap, and the SchedulerQueueingHints gate
// can still be turned off (under emulation version 1.33), falling back to the moveRequestCycle path.
// queue_entity_keyed.go is v1.37's.

import (
	"reflect"
	"time"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	plfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
)

//go:linkname queueFlushUnschedulableLeftover k8s.io/kubernetes/pkg/scheduler/backend/queue.(*PriorityQueue).flushUnschedulablePodsLeftover
func queueFlushUnschedulableLeftover(p unsafe.Pointer, logger klog.Logger)

//go:linkname backoffQueueGetBackoffTime k8s.io/kubernetes/pkg/scheduler/backend/queue.(*backoffQueue).getBackoffTime
func backoffQueueGetBackoffTime(bq unsafe.Pointer, pInfo *framework.QueuedPodInfo) time.Time

// queueFields names the sub-queues' fields: backoffQueue's two heaps, PriorityQueue's unschedulable pool and its map.
var queueFields = struct{ backoff, errorBackoff, unschedulable, unschedulableMap string }{
	"podBackoffQ", "podErrorBackoffQ", "unschedulablePods", "podInfoMap"}

// heapPods lists a heap.Heap[*framework.QueuedPodInfo] through its exported List.
func heapPods(h reflect.Value) []*framework.QueuedPodInfo {
	return h.Interface().(interface {
		List() []*framework.QueuedPodInfo
	}).List()
}

// mapPods lists unschedulablePods.podInfoMap's values.
func mapPods(m reflect.Value) []*framework.QueuedPodInfo {
	var out []*framework.QueuedPodInfo
	for _, pInfo := range m.Interface().(map[string]*framework.QueuedPodInfo) {
		out = append(out, pInfo)
	}
	return out
}

// moveRequestCycle reads PriorityQueue.moveRequestCycle (the cycle of the last move request; -1: none).
func moveRequestCycle(pq reflect.Value) int64 { return field(pq, "moveRequestCycle").Int() }

// setHintsGate turns SchedulerQueueingHints off when hintsOn is false: it is GA and locked to true from v1.34, so
// Kubernetes' own queue tests emulate version 1.33 first (featuregatetesting.SetFeatureGateEmulationVersionDuringTest,
// scheduling_queue_test.go), and so does the adapter.
func setHintsGate(gate featuregate.MutableVersionedFeatureGate, hintsOn bool) error {
	if hintsOn {
		return nil
	}
	if err := emulate(gate, utilversion.MustParse("1.33")); err != nil {
		return err
	}
	return gate.Set(string(features.SchedulerQueueingHints) + "=false")
}

// schedulingGatesFeatures: SchedulingGates registers its event only with queueing hints on.
func schedulingGatesFeatures(hintsOn bool) plfeature.Features {
	return plfeature.Features{EnableSchedulingQueueHint: hintsOn}
}

// newQueuedPodInfo is PriorityQueue.newQueuedPodInfo (unexported): the pod info at the clock's now.
func newQueuedPodInfo(podInfo *framework.PodInfo, now time.Time) *framework.QueuedPodInfo {
	return &framework.QueuedPodInfo{PodInfo: podInfo, Timestamp: now}
}

func queuePop(q *internalqueue.PriorityQueue, logger klog.Logger) (*framework.QueuedPodInfo, error) {
	return q.Pop(logger)
}

func queueAddUnschedulable(q *internalqueue.PriorityQueue, logger klog.Logger, pInfo *framework.QueuedPodInfo, cycle int64) error {
	return q.AddUnschedulableIfNotPresent(logger, pInfo, cycle)
}

func queueDelete(q *internalqueue.PriorityQueue, _ klog.Logger, pod *v1.Pod) { q.Delete(pod) }
