//go:build !k8s_v1_34 && !k8s_v1_36 && !k8s_v1_37

package main

// Built against Kubernetes v1.35 (go.mod), the default: built when no release tag is given. A new release's tag
// joins the negations above.

import (
	v1 "k8s.io/api/core/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	apidispatcher "k8s.io/kubernetes/pkg/scheduler/backend/api_dispatcher"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
)

const (
	kubernetesVersion = "v1.35.8"
	// profile is the spec's version profile (spec/versions.py) whose behaviour this build is.
	profile = "v1.35"
	// releaseTag and modFile are how this release is built (linkname_test.go builds the same way).
	releaseTag = ""
	modFile    = "go.mod"
)

// NominatingInfo moved to k8s.io/kube-scheduler/framework in v1.35.
type (
	nominatingInfo = fwk.NominatingInfo
	nominatingMode = fwk.NominatingMode
)

const (
	modeNoop     = fwk.ModeNoop
	modeOverride = fwk.ModeOverride
)

// limiter: v1.35's Run pops without a goroutine limit (PR #134154 removed the limiter from Run; the type is
// still in the package, unused).
type limiter struct{}

func newLimiter(*apidispatcher.APIDispatcher) limiter { return limiter{} }
func (limiter) acquire()                              {}
func (limiter) release()                              {}
func (limiter) available() bool                       { return true }

// The queue area's release-specific parts (queue_area.go).

// emulate sets the gate's emulation version (and its minimum compatibility version one minor below, as
// featuregatetesting.SetFeatureGateEmulationVersionDuringTest does).
func emulate(gate featuregate.MutableVersionedFeatureGate, v *utilversion.Version) error {
	return gate.SetEmulationVersionAndMinCompatibilityVersion(v, v.SubtractMinor(1))
}

func queueAdd(q *internalqueue.PriorityQueue, logger klog.Logger, pod *v1.Pod) { q.Add(logger, pod) }

func queueUpdate(q *internalqueue.PriorityQueue, logger klog.Logger, old, pod *v1.Pod) {
	q.Update(logger, old, pod)
}
