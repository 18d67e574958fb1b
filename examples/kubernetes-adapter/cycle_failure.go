package main

// What the failure handler writes, for the cycle observation's "failures" (format 4.6.0; 4.7.0 adds the condition's
// type and status), for Kubernetes v1.34 to v1.37: handleSchedulingFailure (pkg/scheduler/schedule_one.go) records a
// FailedScheduling event whose note is truncateMessage(status.Message()) and patches the pod's PodScheduled condition
// to False with the reason Unschedulable (status.IsRejected()) or SchedulerError and the full status message.
//
// The statuses are built as Kubernetes builds them: ErrNoNodesAvailable wrapped UnschedulableAndUnresolvable, the
// cycle's own FitError (its Error() with PostFilter's message), a Reserve or Permit rejection turned into a FitError
// of one node as schedulingCycle does, and the framework's wrapping of a PreBind or Bind error. The failing plugins
// are those of TestSchedulerScheduleOne (pkg/scheduler/schedule_one_test.go), which spec/cycle/cycle.py's
// INJECTED_FAILURES names. The event's note is Kubernetes' own truncateMessage, linked by name (internals.go explains
// the mechanism; linkname_test.go checks the signature). What is still the adapter's own: the choice of the
// condition's reason from status.IsRejected() (three lines of handleSchedulingFailure) and the rule that a deleted
// pod gets no condition (its status patch fails with NotFound) and a recreated one neither condition nor event
// (handleFailure) — the handler itself is not called (see the README's cycle-area notes).

import (
	"errors"
	"fmt"
	_ "unsafe" // for go:linkname

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

//go:linkname truncateMessage k8s.io/kubernetes/pkg/scheduler.truncateMessage
func truncateMessage(message string) string

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

// failureWritten is what handleSchedulingFailure writes for status: the condition (type, status, reason and
// message) and the event's note.
func failureWritten(status *fwk.Status) map[string]any {
	reason := v1.PodReasonSchedulerError
	if status.IsRejected() {
		reason = v1.PodReasonUnschedulable
	}
	message := status.Message()
	return map[string]any{"type": v1.PodScheduled, "status": v1.ConditionFalse, "reason": reason, "message": message,
		"event": truncateMessage(message)}
}
