package main

// Pods being deleted, for Kubernetes v1.34 to v1.37: the graceful deletion at the API server (terminate_pod: the
// pod's DeletionTimestamp set, the pod still listed, the informer's update handled as updatePod handles it,
// pkg/scheduler/eventhandlers.go; the API server's refusal to bind such a pod is cycle_cluster.go's bind reactor) and ScheduleOne's skip of a popped pod being deleted (skip_pod). The skip decision
// is Kubernetes' own skipPodSchedule (pkg/scheduler/schedule_one.go), linked by name (internals.go explains the
// mechanism; linkname_test.go checks the signature), which also records its FailedScheduling event; ScheduleOne
// then calls Done and does not put the pod back, so the pod leaves the adapter's queue and keeps any nomination.

import (
	"context"
	"strconv"
	_ "unsafe" // for go:linkname

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

//go:linkname schedSkipPodSchedule k8s.io/kubernetes/pkg/scheduler.(*Scheduler).skipPodSchedule
func schedSkipPodSchedule(sched *scheduler.Scheduler, ctx context.Context, fwk framework.Framework, pod *v1.Pod) bool

// terminatePod deletes the pod gracefully: the API server sets its DeletionTimestamp (a new resourceVersion, as
// every write) and keeps listing it. A running scheduler's pod handler (updatePod) updates a bound pod in the cache
// (updateAssignedPodInCache: UpdatePod); an unbound one goes to Kubernetes' own updatePodInSchedulingQueue (linked,
// cycle_release_v1_3x.go): for a pod the cache assumes (its binding cycle in flight) it is handleAssumedPodDeletion
// from v1.35 (RejectWaitingPod, else ForgetPod, then the AssignedPodDelete move) and nothing in v1.34; for a queued
// pod it is the queue's Update, whose nominator re-adds it (the scheduler's own queue holds the pods only with
// preemption, see nominateOnAdd, so without it only the adapter's queue takes the new object). A pod whose binding
// the informer has not delivered yet is not enabled (events of one pod arrive in order).
func (a *cycleArea) terminatePod(uid string) error {
	pod := a.apiPods[uid]
	if err := require(pod != nil && pod.DeletionTimestamp == nil, "pod %s is gone or terminating", uid); err != nil {
		return err
	}
	if err := require(!a.unconfirmed[uid], "pod %s's binding has not reached the scheduler's informer yet", uid); err != nil {
		return err
	}
	updated := pod.DeepCopy()
	updated.DeletionTimestamp = &metav1.Time{Time: epoch}
	a.writes++
	updated.ResourceVersion = strconv.Itoa(a.writes)
	a.apiPods[uid] = updated
	if !a.running {
		return nil
	}
	if pod.Spec.NodeName != "" {
		return a.sched.Cache.UpdatePod(a.logger, pod, updated)
	}
	if assumed, _ := a.sched.Cache.IsAssumedPod(updated); assumed {
		updatePodInSchedulingQueue(a.sched, pod, updated)
		return nil
	}
	if a.pending[uid] != nil {
		a.pending[uid] = updated
		if a.preemption {
			a.syncAPIServer()
			updatePodInSchedulingQueue(a.sched, pod, updated)
		}
	}
	return nil
}

// skipPod: ScheduleOne pops the pending pod and Kubernetes' skipPodSchedule skips it; Done, not put back.
func (a *cycleArea) skipPod(uid string) error {
	pod := a.pending[uid]
	if err := require(pod != nil && a.running, "pod %s is not pending", uid); err != nil {
		return err
	}
	ctx := klog.NewContext(context.Background(), a.logger)
	if err := require(schedSkipPodSchedule(a.sched, ctx, a.framework(), pod), "pod %s is not skipped", uid); err != nil {
		return err
	}
	delete(a.pending, uid)
	return nil
}

// requireNotSkipped: a popped pod that skipPodSchedule skips gets no scheduling cycle (the pod is not modified).
func (a *cycleArea) requireNotSkipped(uid string) error {
	pod := a.pending[uid]
	if pod == nil {
		return nil
	}
	return require(pod.DeletionTimestamp == nil, "pod %s is terminating: ScheduleOne skips it", uid)
}
