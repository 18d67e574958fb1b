//go:build k8s_v1_37

package main

// The cycle area is not yet driven on Kubernetes v1.37 (cycle_area.go serves v1.34 to v1.36): its scheduling
// cycle, queue and cache changed (queued entities, workloads, a four-argument cache.New) and its linked
// signatures are not yet written. This build does not announce the area in its hello, so `ksspec conform` reports
// the cycle vectors as not applicable to it.

import (
	"encoding/json"
	"errors"
	"time"

	"k8s.io/klog/v2"
)

var cycleAreas []string

type cycleArea struct{}

func newCycleArea(klog.Logger, time.Duration) (*cycleArea, error) {
	return nil, errors.New("the cycle area is not yet enabled for Kubernetes " + kubernetesVersion)
}

func (*cycleArea) shutdown() {}

func (*cycleArea) step(string, json.RawMessage) response {
	return response{"type": "failure", "message": "the cycle area is not yet enabled for Kubernetes " + kubernetesVersion}
}
