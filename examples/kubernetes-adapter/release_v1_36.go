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
	"k8s.io/kubernetes/pkg/scheduler/framework"
	apicalls "k8s.io/kubernetes/pkg/scheduler/framework/api_calls"
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

// emulate sets the gate's emulation version (and its minimum compatibility version one minor below, as
// featuregatetesting.SetFeatureGateEmulationVersionDuringTest does).
func emulate(gate featuregate.MutableVersionedFeatureGate, v *utilversion.Version) error {
	return gate.SetEmulationVersionAndMinCompatibilityVersion(v, v.SubtractMinor(1))
}
