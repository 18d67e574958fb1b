//go:build k8s_v1_34 || (!k8s_v1_36 && !k8s_v1_37)

package main

// What v1.34 and v1.35 share, the TTL era's cache and its one-condition status patch: release_v1_34.go and
// release_v1_35.go hold the rest of each release.

import (
	"context"
	"reflect"
	"time"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	apicalls "k8s.io/kubernetes/pkg/scheduler/framework/api_calls"
)

// newCache is what scheduler.New calls in v1.34 and v1.35: cache.New(ctx, durationToExpireAssumedPod, apiDispatcher).
func newCache(ctx context.Context, ttl time.Duration) cache.Cache { return cache.New(ctx, ttl, nil) }

func addNode(c cache.Cache, logger klog.Logger, node *v1.Node) *framework.NodeInfo {
	return c.AddNode(logger, node)
}

func updateNode(c cache.Cache, logger klog.Logger, old, node *v1.Node) *framework.NodeInfo {
	return c.UpdateNode(logger, old, node)
}

// The TTL era's clock-taking methods (see internals.go).

//go:linkname cacheFinishBinding k8s.io/kubernetes/pkg/scheduler/backend/cache.(*cacheImpl).finishBinding
func cacheFinishBinding(c unsafe.Pointer, logger klog.Logger, pod *v1.Pod, now time.Time) error

//go:linkname cacheCleanupAssumedPods k8s.io/kubernetes/pkg/scheduler/backend/cache.(*cacheImpl).cleanupAssumedPods
func cacheCleanupAssumedPods(c unsafe.Pointer, logger klog.Logger, now time.Time)

func finishBinding(impl unsafe.Pointer, logger klog.Logger, pod *v1.Pod, now time.Time) error {
	return cacheFinishBinding(impl, logger, pod, now)
}

func cleanupAssumedPods(impl unsafe.Pointer, logger klog.Logger, now time.Time) error {
	cacheCleanupAssumedPods(impl, logger, now)
	return nil
}

// exportedFinishBinding is FinishBinding: finishBinding with time.Now() (-exported-only).
func exportedFinishBinding(c cache.Cache, logger klog.Logger, pod *v1.Pod) error {
	return c.FinishBinding(logger, pod)
}

// newStatusPatch: the status patch of v1.34 and v1.35 carries one condition.
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
