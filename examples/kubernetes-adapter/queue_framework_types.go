//go:build !k8s_v1_34

package main

// The queue area's framework types from v1.35 on (v1.35, v1.36, v1.37), when PreEnqueuePlugin and the cluster
// events had moved to k8s.io/kube-scheduler/framework; release_v1_34.go has v1.34's.

import (
	fwk "k8s.io/kube-scheduler/framework"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// goActionTypes: this release's fwk.ActionType bits by name (the spec's layout is v1.37's; v1.35 and v1.36 lack
// UpdateNodePreemptionPolicy and UpdatePodScaleUp, which release_v1_37.go adds).
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
