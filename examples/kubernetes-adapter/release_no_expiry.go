//go:build k8s_v1_36 || k8s_v1_37

package main

// What v1.36 and v1.37 share: no assumed-pod expiry (PR #136204), and the scheduling queue's Add and Update
// taking a context (queue_area.go).

import (
	"context"
	"fmt"
	"time"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
)

// finishBinding and cleanupAssumedPods do not exist from v1.36 (PR #136204): the step is answered with the
// spec's UnsupportedOperation error, as the spec's profiles without expiry answer it.
func finishBinding(unsafe.Pointer, klog.Logger, *v1.Pod, time.Time) error {
	return unsupportedOperation{fmt.Sprintf("Kubernetes %s has no finishBinding (PR #136204 removed assumed-pod expiry)", kubernetesVersion)}
}

func cleanupAssumedPods(unsafe.Pointer, klog.Logger, time.Time) error {
	return unsupportedOperation{fmt.Sprintf("Kubernetes %s has no cleanupAssumedPods (PR #136204 removed assumed-pod expiry)", kubernetesVersion)}
}

func exportedFinishBinding(cache.Cache, klog.Logger, *v1.Pod) error {
	return finishBinding(nil, klog.Logger{}, nil, time.Time{})
}

// Add and Update take a context from v1.36 (the logger travels in it).
func queueAdd(q *internalqueue.PriorityQueue, logger klog.Logger, pod *v1.Pod) {
	q.Add(klog.NewContext(context.Background(), logger), pod)
}

func queueUpdate(q *internalqueue.PriorityQueue, logger klog.Logger, old, pod *v1.Pod) {
	q.Update(klog.NewContext(context.Background(), logger), old, pod)
}
