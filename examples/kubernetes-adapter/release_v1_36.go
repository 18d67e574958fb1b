//go:build k8s_v1_36

package main

// Built against Kubernetes v1.36: go build -tags k8s_v1_36 -modfile go.v1.36.mod (the Makefile's releases list).

import (
	"context"
	"fmt"
	"reflect"
	"time"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
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
