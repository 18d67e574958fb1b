//go:build k8s_v1_37

package main

// The queue area's release-specific half for v1.37, whose scheduling queue is keyed by queued entity (a pod, or a
// pod group of the GenericWorkload gate, off by default): its heaps hold framework.QueuedEntityInfo
// (entityBackoffQ, entityErrorBackoffQ), its unschedulable pool is unschedulableEntities.entityInfoMap, Pop returns
// an entity, AddUnschedulableIfNotPresent became AddUnschedulablePodIfNotPresent, flushUnschedulablePodsLeftover
// became flushUnschedulableEntitiesLeftover, and Delete takes a logger. The SchedulerQueueingHints gate is gone
// (hints are always on) and with it PriorityQueue.moveRequestCycle. The adapter gives the queue single pods only
// (no SchedulingGroup), so every entity is a *QueuedPodInfo; anything else fails the step. queue_pod_keyed.go is
// v1.34 to v1.36's half.

import (
	"fmt"
	"reflect"
	"time"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	plfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
)

//go:linkname queueFlushUnschedulableLeftover k8s.io/kubernetes/pkg/scheduler/backend/queue.(*PriorityQueue).flushUnschedulableEntitiesLeftover
func queueFlushUnschedulableLeftover(p unsafe.Pointer, logger klog.Logger)

//go:linkname backoffQueueGetBackoffTime k8s.io/kubernetes/pkg/scheduler/backend/queue.(*backoffQueue).getBackoffTime
func backoffQueueGetBackoffTime(bq unsafe.Pointer, entity framework.QueuedEntityInfo) time.Time

// queueFields names the sub-queues' fields: backoffQueue's two heaps, PriorityQueue's unschedulable pool and its map.
var queueFields = struct{ backoff, errorBackoff, unschedulable, unschedulableMap string }{
	"entityBackoffQ", "entityErrorBackoffQ", "unschedulableEntities", "entityInfoMap"}

// podOf is the queued entity as the pod info it is (the adapter queues no pod group).
func podOf(entity framework.QueuedEntityInfo) *framework.QueuedPodInfo {
	pInfo, ok := entity.(*framework.QueuedPodInfo)
	if !ok {
		panic(fmt.Sprintf("the queue holds a %T, not a pod: the adapter queues no pod group", entity))
	}
	return pInfo
}

// heapPods lists a heap.Heap[framework.QueuedEntityInfo] through its exported List.
func heapPods(h reflect.Value) []*framework.QueuedPodInfo {
	var out []*framework.QueuedPodInfo
	for _, entity := range h.Interface().(interface {
		List() []framework.QueuedEntityInfo
	}).List() {
		out = append(out, podOf(entity))
	}
	return out
}

// mapPods lists unschedulableEntities.entityInfoMap's values.
func mapPods(m reflect.Value) []*framework.QueuedPodInfo {
	var out []*framework.QueuedPodInfo
	for _, entity := range m.Interface().(map[string]framework.QueuedEntityInfo) {
		out = append(out, podOf(entity))
	}
	return out
}

// moveRequestCycle: v1.37's queue has no moveRequestCycle (it served only the hints-off path); -1 is "none".
func moveRequestCycle(reflect.Value) int64 { return -1 }

// setHintsGate: v1.37 has no SchedulerQueueingHints gate, so a queue with hints off cannot be made.
func setHintsGate(_ featuregate.MutableVersionedFeatureGate, hintsOn bool) error {
	if hintsOn {
		return nil
	}
	return requestError{fmt.Errorf("Kubernetes %s has no SchedulerQueueingHints gate: its queue always runs the queueing hints", kubernetesVersion)}
}

// schedulingGatesFeatures: v1.37's SchedulingGates always registers its event.
func schedulingGatesFeatures(bool) plfeature.Features { return plfeature.Features{} }

// newQueuedPodInfo is PriorityQueue.newQueuedPodInfo (unexported): the pod info at the clock's now.
func newQueuedPodInfo(podInfo *framework.PodInfo, now time.Time) *framework.QueuedPodInfo {
	return &framework.QueuedPodInfo{PodInfo: podInfo, QueueingParams: framework.QueueingParams{Timestamp: now}}
}

func queuePop(q *internalqueue.PriorityQueue, logger klog.Logger) (*framework.QueuedPodInfo, error) {
	entity, err := q.Pop(logger)
	if err != nil || entity == nil {
		return nil, err
	}
	return podOf(entity), nil
}

func queueAddUnschedulable(q *internalqueue.PriorityQueue, logger klog.Logger, pInfo *framework.QueuedPodInfo, cycle int64) error {
	return q.AddUnschedulablePodIfNotPresent(logger, pInfo, cycle)
}

func queueDelete(q *internalqueue.PriorityQueue, logger klog.Logger, pod *v1.Pod) {
	q.Delete(logger, pod)
}
