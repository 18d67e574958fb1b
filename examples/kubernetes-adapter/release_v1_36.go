//go:build k8s_v1_36

package main

// Built against Kubernetes v1.36: go build -tags k8s_v1_36 -modfile go.v1.36.mod (the Makefile's releases list).

import (
	"context"
	"reflect"
	"time"

	v1 "k8s.io/api/core/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	apidispatcher "k8s.io/kubernetes/pkg/scheduler/backend/api_dispatcher"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	apicalls "k8s.io/kubernetes/pkg/scheduler/framework/api_calls"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

const (
	kubernetesVersion = "v1.36.5"
	// profile is the spec's version profile (spec/versions.py) whose behaviour this build is.
	profile = "v1.36"
	// releaseTag and modFile are how this release is built (linkname_test.go builds the same way).
	releaseTag = "k8s_v1_36"
	modFile    = "go.v1.36.mod"
)

type (
	nominatingInfo = fwk.NominatingInfo
	nominatingMode = fwk.NominatingMode
)

const (
	modeNoop     = fwk.ModeNoop
	modeOverride = fwk.ModeOverride
)

// newCache is what scheduler.New calls in v1.36: PR #136204 removed the assumed-pod TTL, and the cache takes the
// GenericWorkload gate's value: cache.New(ctx, apiDispatcher, feature.DefaultFeatureGate.Enabled(GenericWorkload)).
func newCache(ctx context.Context, _ time.Duration) cache.Cache {
	return cache.New(ctx, nil, utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload))
}

func addNode(c cache.Cache, logger klog.Logger, node *v1.Node) *framework.NodeInfo {
	return c.AddNode(logger, node)
}

func updateNode(c cache.Cache, logger klog.Logger, old, node *v1.Node) *framework.NodeInfo {
	return c.UpdateNode(logger, old, node)
}

// newStatusPatch: v1.36's status patch carries one condition.
func newStatusPatch(pod *v1.Pod, condition *v1.PodCondition, info *nominatingInfo) fwk.APICall {
	return apicalls.Implementations.PodStatusPatch(pod, condition, info)
}

// statusPatchConditions reads the call's newCondition field (nil: none).
func statusPatchConditions(call reflect.Value) []*v1.PodCondition {
	if condition := field(call, "newCondition").Interface().(*v1.PodCondition); condition != nil {
		return []*v1.PodCondition{condition}
	}
	return nil
}

// limiter: Run pops without a goroutine limit, as in v1.35.
type limiter struct{}

func newLimiter(*apidispatcher.APIDispatcher) limiter { return limiter{} }
func (limiter) acquire()                              {}
func (limiter) release()                              {}
func (limiter) available() bool                       { return true }

// The queue area's release-specific parts (queue_area.go).

// profileQueueingHints and profilePopFromBackoffQ are the spec profile's queue gates (spec/versions.py).
const (
	profileQueueingHints   = true
	profilePopFromBackoffQ = true
)

// goActionTypes: this release's fwk.ActionType bits by name (v1.35's layout is the spec's).
var goActionTypes = map[string]fwk.ActionType{
	"Add": fwk.Add, "Delete": fwk.Delete, "UpdateNodeAllocatable": fwk.UpdateNodeAllocatable,
	"UpdateNodeLabel": fwk.UpdateNodeLabel, "UpdateNodeTaint": fwk.UpdateNodeTaint,
	"UpdateNodeCondition": fwk.UpdateNodeCondition, "UpdateNodeAnnotation": fwk.UpdateNodeAnnotation,
	"UpdateNodeDeclaredFeature": fwk.UpdateNodeDeclaredFeature, "UpdatePodLabel": fwk.UpdatePodLabel,
	"UpdatePodScaleDown": fwk.UpdatePodScaleDown, "UpdatePodToleration": fwk.UpdatePodToleration,
	"UpdatePodSchedulingGatesEliminated": fwk.UpdatePodSchedulingGatesEliminated,
	"UpdatePodGeneratedResourceClaim":    fwk.UpdatePodGeneratedResourceClaim,
}

// PreEnqueuePlugin moved to k8s.io/kube-scheduler/framework in v1.35.
type preEnqueuePlugin = fwk.PreEnqueuePlugin

func withMetricsRecorder(recorder *metrics.MetricAsyncRecorder) internalqueue.Option {
	return internalqueue.WithMetricsRecorder(recorder)
}

// emulate sets the gate's emulation version (and its minimum compatibility version one minor below, as
// featuregatetesting.SetFeatureGateEmulationVersionDuringTest does).
func emulate(gate featuregate.MutableVersionedFeatureGate, v *utilversion.Version) error {
	return gate.SetEmulationVersionAndMinCompatibilityVersion(v, v.SubtractMinor(1))
}

// Add and Update take a context from v1.36 (the logger travels in it).
func queueAdd(q *internalqueue.PriorityQueue, logger klog.Logger, pod *v1.Pod) {
	q.Add(klog.NewContext(context.Background(), logger), pod)
}

func queueUpdate(q *internalqueue.PriorityQueue, logger klog.Logger, old, pod *v1.Pod) {
	q.Update(klog.NewContext(context.Background(), logger), old, pod)
}
