package main

// The failure handler, for the cycle observation's "failures" (format 4.6.0; 4.7.0 adds the condition's type and
// status), for Kubernetes v1.34 to v1.37: the
// harness calls the scheduler's own sched.FailureHandler (handleSchedulingFailure, pkg/scheduler/schedule_one.go) and
// reads what it did. It decides everything: the requeue (AddUnschedulableIfNotPresent with the informer's version of
// the pod, or only Done for a pod gone or bound; nothing for a recreated one), the nomination (AddNominatedPod), the
// FailedScheduling event (its note truncateMessage(status.Message())) and the status patch of updatePod (the
// PodScheduled condition, False, reason Unschedulable for status.IsRejected() or SchedulerError, and the
// NominatedNodeName when the nominating info overrides it). The harness reads the requeue from the queue call
// (requeueWatch), the event's note from the profile's recorder (eventCapture) and the condition from the pod object
// in the fake clientset after the patch (a deleted pod's patch fails with NotFound: no record; a recreated one's
// handler stops before the event and the patch). The cycle area builds its scheduler with the release's default
// gates (cycle_area.go's startScheduler), so SchedulerAsyncAPICalls is off, fwk.APICacher() is nil and updatePod
// patches through the clientset at once.
//
// Every status patch the fake clientset received (the handler's, and the async preemption's clearNominatedNodeName)
// is then delivered as the pod informer's update (replayStatusPatches): the API server's pod object, the informer's
// indexer and, with preemption, the scheduler's own update handler (updatePodInSchedulingQueue: the queue's Update,
// whose UpdateNominatedPod moves or drops the nomination).
//
// What stays the adapter's own: the statuses of the injected failures. The vectors fail a cycle with the plugins of
// TestSchedulerScheduleOne (pkg/scheduler/schedule_one_test.go), which spec/cycle/cycle.py's INJECTED_FAILURES names
// and which the default profile does not have, so the statuses schedulingCycle and the binding cycle would build for
// them are built here as Kubernetes builds them: ErrNoNodesAvailable wrapped UnschedulableAndUnresolvable, a Reserve
// or Permit rejection turned into a FitError of one node, and the framework's wrapping of a PreBind or Bind error.
// And the cycle's Pop: the pod is taken out of the queue (its Delete) before the handler, as Pop leaves it in flight.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// injectedRejections are TestSchedulerScheduleOne's FakeReserve and FakePermit rejections.
var injectedRejections = map[string]string{pointReserve: "rejected on reserve", pointPermit: "rejected on permit"}

// noNodesStatus is schedulingCycle's status for ErrNoNodesAvailable.
func noNodesStatus() *fwk.Status {
	return fwk.NewStatus(fwk.UnschedulableAndUnresolvable).WithError(scheduler.ErrNoNodesAvailable)
}

// rejectedOnNode is schedulingCycle's status after a Reserve or Permit plugin rejected pod on node: a FitError of one
// node holding the plugin's status.
func rejectedOnNode(pod *v1.Pod, node, point string) *fwk.Status {
	sts := fwk.NewStatus(fwk.Unschedulable, injectedRejections[point]).WithPlugin("Fake" + point)
	fitErr := &framework.FitError{
		NumAllNodes: 1,
		Pod:         pod,
		Diagnosis: framework.Diagnosis{
			NodeToStatus:         framework.NewDefaultNodeToStatus(),
			UnschedulablePlugins: sets.New(sts.Plugin()),
		},
	}
	fitErr.Diagnosis.NodeToStatus.Set(node, sts)
	return fwk.NewStatus(sts.Code()).WithError(fitErr)
}

// bindingError is the binding cycle's status after TestSchedulerScheduleOne's FakePreBind plugin or DefaultBinder's
// bind call failed, as the framework wraps their errors (RunPreBindPlugins, RunBindPlugins).
func bindingError(point string) *fwk.Status {
	if point == pointPreBind {
		return fwk.AsStatus(fmt.Errorf("running PreBind plugin %q: %w", "FakePreBind", errors.New("on PreBind")))
	}
	return fwk.AsStatus(fmt.Errorf("running Bind plugin %q: %w", "DefaultBinder", errors.New("binder")))
}

// eventCapture is the profile's event recorder (scheduler.New's recorder factory gives it to the framework): it keeps
// the note of the last FailedScheduling event of each pod, formatted as client-go's recorderImpl.eventf formats it
// (fmt.Sprintf(note, args...), tools/events/event_recorder.go). Other events (the victims' Preempted) are dropped,
// as is every call of the embedded FakeRecorder, whose channel is nil.
type eventCapture struct {
	*events.FakeRecorder
	mu    sync.Mutex
	notes map[types.UID]string
}

func newEventCapture() *eventCapture {
	return &eventCapture{FakeRecorder: &events.FakeRecorder{}, notes: map[types.UID]string{}}
}

func (r *eventCapture) Eventf(regarding, _ runtime.Object, _, reason, _, note string, args ...any) {
	pod, ok := regarding.(*v1.Pod)
	if !ok || reason != "FailedScheduling" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notes[pod.UID] = fmt.Sprintf(note, args...)
}

// WithLogger keeps the capture (handleSchedulingFailure calls EventRecorder().WithLogger(logger) from v1.36).
func (r *eventCapture) WithLogger(klog.Logger) events.EventRecorderLogger { return r }

// take is the note recorded for uid since the last take, if any.
func (r *eventCapture) take(uid types.UID) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	note, ok := r.notes[uid]
	delete(r.notes, uid)
	return note, ok
}

// requeueWatch is the scheduler's queue as handleSchedulingFailure sees it while the harness calls it: every call
// goes to the queue, and the pod handed back to it (AddUnschedulableIfNotPresent; v1.37's
// AddUnschedulablePodIfNotPresent, cycle_release_v1_3x.go) is noted: the requeue decision is the handler's.
type requeueWatch struct {
	internalqueue.SchedulingQueue
	requeued *v1.Pod
}

// handleFailure calls the scheduler's failure handler for pod as its cycle had it, with the cycle's nominating info
// and status, and reads what it did: a.pending follows the requeue, the status patches are replayed as the
// informer's updates, and a pod the API server still has gets its failure record (failureRecord).
func (a *cycleArea) handleFailure(pod *v1.Pod, nominating *nominatingInfo, status *fwk.Status) {
	uid := string(pod.UID)
	a.syncAPIServer()                        // the informer's pods, which the handler's lister reads
	schedQueueDelete(a.sched, a.logger, pod) // Pop: the pod is in flight, in no sub-queue
	watch := &requeueWatch{SchedulingQueue: a.sched.SchedulingQueue}
	a.sched.SchedulingQueue = watch
	_, _ = a.events.take(pod.UID)
	ctx := klog.NewContext(context.Background(), a.logger)
	info, _ := framework.NewPodInfo(pod) // its error (affinity terms) is ignored, as the handler ignores it
	a.sched.FailureHandler(ctx, a.framework(), &framework.QueuedPodInfo{PodInfo: info}, status, nominating, time.Now())
	a.sched.SchedulingQueue = watch.SchedulingQueue
	if watch.requeued != nil {
		a.pending[uid] = watch.requeued
	} else {
		delete(a.pending, uid)
	}
	note, recorded := a.events.take(pod.UID)
	a.replayStatusPatches()
	if api := a.apiPods[uid]; api != nil && recorded {
		if record := failureRecord(api, note); record != nil {
			a.failures[uid] = record
		}
	}
}

// failureRecord is the observation's record of what the failure handler wrote to pod: its PodScheduled condition,
// read from the API server's object, and the FailedScheduling event's note; nil without the condition.
func failureRecord(pod *v1.Pod, note string) map[string]any {
	for _, condition := range pod.Status.Conditions {
		if condition.Type != v1.PodScheduled {
			continue
		}
		return map[string]any{"type": string(condition.Type), "status": string(condition.Status),
			"reason": condition.Reason, "message": condition.Message, "event": note}
	}
	return nil
}

// replayStatusPatches delivers the pod status patches the fake clientset received since the last replay as the pod
// informer would: the API server's object becomes the patched one (with a new resourceVersion, as the API server
// gives every write), the informer's indexer holds it, and with preemption the scheduler's own update handler
// (updatePodInSchedulingQueue, pkg/scheduler/eventhandlers.go) receives the old and the new pod.
func (a *cycleArea) replayStatusPatches() {
	if a.client == nil || !a.running {
		return
	}
	actions := a.client.Actions()
	keys := []types.NamespacedName{}
	seen := map[types.NamespacedName]bool{}
	for _, action := range actions[min(a.replayed, len(actions)):] {
		patch, ok := action.(clienttesting.PatchAction)
		if !ok || patch.GetResource().Resource != "pods" || patch.GetSubresource() != "status" {
			continue
		}
		key := types.NamespacedName{Namespace: patch.GetNamespace(), Name: patch.GetName()}
		if !seen[key] {
			seen[key] = true
			keys = append(keys, key)
		}
	}
	a.replayed = len(actions)
	indexer := a.framework().SharedInformerFactory().Core().V1().Pods().Informer().GetIndexer()
	for _, key := range keys {
		object, err := a.client.Tracker().Get(podsResource, key.Namespace, key.Name)
		if err != nil {
			continue // deleted since (a victim)
		}
		patched := object.(*v1.Pod)
		uid := string(patched.UID)
		old := a.apiPods[uid]
		if old == nil || apiequality.Semantic.DeepEqual(old.Status, patched.Status) {
			continue
		}
		a.writes++
		updated := patched.DeepCopy()
		updated.ResourceVersion = strconv.Itoa(a.writes)
		a.apiPods[uid] = updated
		if a.pending[uid] != nil {
			a.pending[uid] = updated
		}
		_ = indexer.Update(updated)
		if a.preemption {
			updatePodInSchedulingQueue(a.sched, old, updated)
		}
	}
}
