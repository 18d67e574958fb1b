//go:build k8s_v1_34

package main

// Built against Kubernetes v1.34: go build -tags k8s_v1_34 -modfile go.v1.34.mod (the Makefile's releases list).

import (
	"reflect"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	apidispatcher "k8s.io/kubernetes/pkg/scheduler/backend/api_dispatcher"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

const (
	kubernetesVersion = "v1.34.12"
	// profile is the spec's version profile (spec/versions.py) whose behaviour this build is.
	profile = "v1.34"
	// releaseTag and modFile are how this release is built (linkname_test.go builds the same way).
	releaseTag = "k8s_v1_34"
	modFile    = "go.v1.34.mod"
)

// NominatingInfo is still in k8s.io/kubernetes/pkg/scheduler/framework in v1.34.
type (
	nominatingInfo = framework.NominatingInfo
	nominatingMode = framework.NominatingMode
)

const (
	modeNoop     = framework.ModeNoop
	modeOverride = framework.ModeOverride
)

//go:linkname limiterAcquire k8s.io/kubernetes/pkg/scheduler/backend/api_dispatcher.(*goroutinesLimiter).acquire
func limiterAcquire(l unsafe.Pointer) bool

//go:linkname limiterRelease k8s.io/kubernetes/pkg/scheduler/backend/api_dispatcher.(*goroutinesLimiter).release
func limiterRelease(l unsafe.Pointer)

// limiter is v1.34's goroutinesLimiter: Run acquires one of `parallelization` goroutines before each pop, and
// the call's goroutine releases it when the call is finished.
type limiter struct {
	pointer unsafe.Pointer
	value   reflect.Value
}

func newLimiter(d *apidispatcher.APIDispatcher) limiter {
	f := field(reflect.ValueOf(d).Elem(), "goroutinesLimiter")
	return limiter{pointer: f.UnsafePointer(), value: pointee(f)}
}

// acquire is called only when available() is true, so it never blocks.
func (l limiter) acquire() { limiterAcquire(l.pointer) }
func (l limiter) release() { limiterRelease(l.pointer) }

// available is acquire's own condition for not waiting (goroutinesLimiter.acquire: for gl.goroutines >=
// gl.maxGoroutines { gl.cond.Wait() }), read from the limiter's fields.
func (l limiter) available() bool {
	return field(l.value, "goroutines").Int() < field(l.value, "maxGoroutines").Int()
}

// The queue area's release-specific parts (queue_area.go).

// goActionTypes: this release's fwk.ActionType bits by name (v1.34 has no UpdateNodeDeclaredFeature,
// UpdateNodePreemptionPolicy or UpdatePodScaleUp: the spec's bits above them are higher than Go's).
var goActionTypes = map[string]fwk.ActionType{
	"Add": fwk.Add, "Delete": fwk.Delete, "UpdateNodeAllocatable": fwk.UpdateNodeAllocatable,
	"UpdateNodeLabel": fwk.UpdateNodeLabel, "UpdateNodeTaint": fwk.UpdateNodeTaint,
	"UpdateNodeCondition": fwk.UpdateNodeCondition, "UpdateNodeAnnotation": fwk.UpdateNodeAnnotation,
	"UpdatePodLabel":     fwk.UpdatePodLabel,
	"UpdatePodScaleDown": fwk.UpdatePodScaleDown, "UpdatePodToleration": fwk.UpdatePodToleration,
	"UpdatePodSchedulingGatesEliminated": fwk.UpdatePodSchedulingGatesEliminated,
	"UpdatePodGeneratedResourceClaim":    fwk.UpdatePodGeneratedResourceClaim,
}

// PreEnqueuePlugin is still in k8s.io/kubernetes/pkg/scheduler/framework in v1.34.
type preEnqueuePlugin = framework.PreEnqueuePlugin

// v1.34's WithMetricsRecorder takes the recorder by value.
func withMetricsRecorder(recorder *metrics.MetricAsyncRecorder) internalqueue.Option {
	return internalqueue.WithMetricsRecorder(*recorder)
}

// emulate sets the gate's emulation version (v1.34's gate has no minimum compatibility version).
func emulate(gate featuregate.MutableVersionedFeatureGate, v *utilversion.Version) error {
	return gate.SetEmulationVersion(v)
}

func queueAdd(q *internalqueue.PriorityQueue, logger klog.Logger, pod *v1.Pod) { q.Add(logger, pod) }

func queueUpdate(q *internalqueue.PriorityQueue, logger klog.Logger, old, pod *v1.Pod) {
	q.Update(logger, old, pod)
}
