//go:build k8s_v1_37

package main

// Built against Kubernetes v1.37: go build -tags k8s_v1_37 -modfile go.v1.37.mod (the Makefile's releases list).

import (
	"context"
	"reflect"
	"time"

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
	kubernetesVersion = "v1.37.2"
	// profile is the spec's version profile (spec/versions.py) whose behaviour this build is.
	profile = "v1.37"
	// releaseTag and modFile are how this release is built (linkname_test.go builds the same way).
	releaseTag = "k8s_v1_37"
	modFile    = "go.v1.37.mod"
)

// v1.37's fwk.ActionType bits that v1.35 and v1.36 lack (queue_framework_types.go has the rest).
func init() {
	goActionTypes["UpdateNodePreemptionPolicy"] = fwk.UpdateNodePreemptionPolicy
	goActionTypes["UpdatePodScaleUp"] = fwk.UpdatePodScaleUp
}

type (
	nominatingInfo = fwk.NominatingInfo
	nominatingMode = fwk.NominatingMode
)

const (
	modeNoop     = fwk.ModeNoop
	modeOverride = fwk.ModeOverride
)

// newCache is what scheduler.New calls in v1.37: cache.New(ctx, apiDispatcher, the GenericWorkload gate, the
// CompositePodGroup gate).
func newCache(ctx context.Context, _ time.Duration) cache.Cache {
	return cache.New(ctx, nil, utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload),
		utilfeature.DefaultFeatureGate.Enabled(features.CompositePodGroup))
}

// AddNode and UpdateNode return nothing from v1.37; the spec's v1.37 profile returns nothing either
// (node_operations_return_node_info).
func addNode(c cache.Cache, logger klog.Logger, node *v1.Node) *framework.NodeInfo {
	c.AddNode(logger, node)
	return nil
}

func updateNode(c cache.Cache, logger klog.Logger, old, node *v1.Node) *framework.NodeInfo {
	c.UpdateNode(logger, old, node)
	return nil
}

// newStatusPatch: from v1.37 a status patch carries a list of conditions; the spec's call has at most one.
func newStatusPatch(pod *v1.Pod, condition *v1.PodCondition, info *nominatingInfo) fwk.APICall {
	var conditions []*v1.PodCondition
	if condition != nil {
		conditions = []*v1.PodCondition{condition}
	}
	return apicalls.Implementations.PodStatusPatch(pod, conditions, info)
}

// statusPatchConditions reads the call's newConditions field.
func statusPatchConditions(call reflect.Value) []*v1.PodCondition {
	return field(call, "newConditions").Interface().([]*v1.PodCondition)
}

// limiter: Run pops without a goroutine limit, as in v1.35.
type limiter struct{}

func newLimiter(*apidispatcher.APIDispatcher) limiter { return limiter{} }
func (limiter) acquire()                              {}
func (limiter) release()                              {}
func (limiter) available() bool                       { return true }
