//go:build k8s_v1_37

package main

// The queue area is not yet enabled for Kubernetes v1.37: v1.37.2 rebuilt the scheduling queue around queued
// entities and workloads (unschedulable_entities.go, workload_forest.go, pod_group_member_pods.go) and removed the
// SchedulerQueueingHints gate, so queue_area.go's reads of the v1.34-v1.36 queue's fields (unschedulablePods,
// the pod-keyed heaps) and its gate settings do not apply. This build does not announce the area in its hello, so
// `ksspec conform` reports the queue vectors as not applicable to it.

import (
	"encoding/json"
	"errors"

	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
)

var queueAreas []string

// pristineGate is set by main as in the other builds; unused here.
var pristineGate featuregate.MutableVersionedFeatureGate

type queueArea struct{}

func newQueueArea(klog.Logger) (*queueArea, error) {
	return nil, errors.New("the queue area is not yet enabled for Kubernetes " + kubernetesVersion)
}

func (*queueArea) shutdown() {}

func (s *server) queueStep(string, json.RawMessage) response {
	return response{"type": "failure", "message": "the queue area is not yet enabled for Kubernetes " + kubernetesVersion}
}
